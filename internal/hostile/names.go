// Package hostile builds leakui's corpus of hostile and broken inputs: the small
// files committed under testdata/hostile/ at the repository root (Small) and the
// large ones — compression bombs, a 200 MB line, 100,000 frames, 5 million samples
// — written on demand into a test's temporary directory (the Write functions), so
// that they are never committed.
package hostile

// Function names that try to break out of HTML text, attributes, JSON-in-HTML,
// JavaScript strings and Markdown. A page must show each as text.
const (
	// ScriptName closes nothing and opens a script element.
	ScriptName = "main.<script>alert(1)</script>"
	// AttrName breaks out of a double-quoted attribute into an element with a
	// handler.
	AttrName = `main."><img src=x onerror=alert(1)>`
	// QuoteName breaks out of a single-quoted attribute or JavaScript string.
	QuoteName = `main.it's';alert(1);//`
	// LineSeparatorName carries U+2028, a line terminator in JavaScript source
	// before ES2019 and a line break for some Markdown renderers.
	LineSeparatorName = "main.line\u2028separator\u2029paragraph"
)

// HostileNames lists the hostile function names, leaf first as one stack.
var HostileNames = []string{ScriptName, AttrName, QuoteName, LineSeparatorName}
