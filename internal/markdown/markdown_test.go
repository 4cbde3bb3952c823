package markdown

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text, 1.5 MiB → 2 GiB", "plain text, 1.5 MiB → 2 GiB"},
		{"<script>alert(1)</script>", `\<script\>alert(1)\</script\>`},
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"![img](http://x/y.png)", `!\[img\](http://x/y.png)`},
		{"a`b``c", "a\\`b\\`\\`c"},
		{"a|b", `a\|b`},
		{"# not a heading", `\# not a heading`},
		{"~~struck~~ *em* _em_ **strong**", `\~\~struck\~\~ \*em\* \_em\_ \*\*strong\*\*`},
		{`back\slash`, `back\\slash`},
		{"line\nbreak\r\nand\rmore", "line break  and more"},
		{"tab\there", "tab here"},
		{"line\u2028separator\u2029paragraph\u0085next", "line separator paragraph next"},
		{"bad\xff\xfeutf8", "bad\uFFFDutf8"},
		{"nul\x00byte\x1b[31m", "nulbyte\\[31m"},
		{"\u00e9t\u00e9 ☃ 日本", "\u00e9t\u00e9 ☃ 日本"},
		{"& &lt; entity", "& &lt; entity"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"main.(*T).Run", "`main.(*T).Run`"},
		{"<script>alert(1)</script>", "`<script>alert(1)</script>`"},
		{"[x](javascript:alert(1))", "`[x](javascript:alert(1))`"},
		{"a|b||c", "`a\\|b\\|\\|c`"},
		{"#~*_", "`#~*_`"},
		{"a`b", "``a`b``"},
		{"a``b`c", "```a``b`c```"},
		{"`tick", "`` `tick ``"},
		{"tick`", "`` tick` ``"},
		{"`", "`` ` ``"},
		{" padded ", "`  padded  `"},
		{" lead", "` lead`"},
		{"trail ", "`trail `"},
		{"   ", "`   `"},
		{"open ", "`open `"},
		{"two\nlines\r\n", "`two lines  `"},
		{"line\u2028sep", "`line sep`"},
		{"bad\xffutf8", "`bad\uFFFDutf8`"},
		{"nul\x00byte", "`nulbyte`"},
		{"\x00", ""},
		{`back\slash\`, "`back\\slash\\`"},
	} {
		if got := Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldTruncates(t *testing.T) {
	long := strings.Repeat("é", MaxRunes+10)
	got := Fold(long)
	if utf8.RuneCountInString(got) != MaxRunes+1 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("Fold of %d runes: %d runes %q…", MaxRunes+10, utf8.RuneCountInString(got), got[:20])
	}
	exact := strings.Repeat("x", MaxRunes)
	if Fold(exact) != exact {
		t.Error("a text of MaxRunes runes was cut")
	}
	if got := Code(strings.Repeat("|", MaxRunes+1)); got != "`"+strings.Repeat(`\|`, MaxRunes)+"…`" {
		t.Errorf("Code of a long text: %q", got)
	}
}

func TestLink(t *testing.T) {
	for _, tc := range []struct{ text, url, want string }{
		{"report", "https://leakui.example/r/abc?n=20", "[report](https://leakui.example/r/abc?n=20)"},
		{"the *report*", "/r/abc", `[the \*report\*](/r/abc)`},
		{"x", "http://h/a b(c)<d>|e", "[x](http://h/a%20b%28c%29%3Cd%3E%7Ce)"},
		{"[x](y)", "javascript:alert(1)", "\\[x\\](y) (`javascript:alert(1)`)"},
		{"x", "//evil.example/", "x (`//evil.example/`)"},
		{"x", "data:text/html,<script>", "x (`data:text/html,<script>`)"},
		{"x", "", "x"},
		{"x", "http://h/\nline", "x (`http://h/ line`)"},
	} {
		if got := Link(tc.text, tc.url); got != tc.want {
			t.Errorf("Link(%q, %q) = %q, want %q", tc.text, tc.url, got, tc.want)
		}
	}
}

func TestBlocks(t *testing.T) {
	if got := Heading(3, "leakui: "+Escape("a#b")); got != "### leakui: a\\#b\n\n" {
		t.Errorf("Heading: %q", got)
	}
	if got := Heading(9, "x"); got != "###### x\n\n" {
		t.Errorf("Heading(9): %q", got)
	}
	got := TableHead(Right("#"), Left("class"), Right("bytes")) + Row("1", Code("a|b"), "1 kB") + Row("2", "", "")
	want := "| # | class | bytes |\n|---:|---|---:|\n| 1 | `a\\|b` | 1 kB |\n| 2 |  |  |\n"
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestCodeBlock(t *testing.T) {
	if got := CodeBlock("at a.B.c(B.java:1)", "at <script>|x"); got != "```\nat a.B.c(B.java:1)\nat <script>|x\n```\n" {
		t.Errorf("CodeBlock: %q", got)
	}
	if got := CodeBlock("a```b", "two\nlines"); got != "````\na```b\ntwo lines\n````\n" {
		t.Errorf("CodeBlock with a fence inside: %q", got)
	}
	if got := CodeBlock(); got != "```\n```\n" {
		t.Errorf("empty CodeBlock: %q", got)
	}
}

func TestProse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a `<b>` c", "a  c"},
		{"a ``x`<y>`` c", "a  c"},
		{"a \\`<b>\\` c", "a \\`<b>\\` c"},
		{"unclosed `<b> c", "unclosed `<b> c"},
		{"| `a\\|b` | ``c`d`` |", "|  |  |"},
		{"```a`` b", "```a`` b"},
	} {
		if got := Prose(tc.in); got != tc.want {
			t.Errorf("Prose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// hostile are texts that try to break out of prose, code spans and cells.
var hostile = []string{
	"", "`", "``", "a`b", "`a`", "| x |", "\\|", "\\", "<script>alert(1)</script>",
	"[x](javascript:alert(1))", "# h", "line\nbreak", "\r", "\u2028", "bad\xff", "\x00",
	" ", "  ", " ` ", "~~x~~", strings.Repeat("`|", MaxRunes),
}

func FuzzEscape(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		checkOneLine(t, e)
		// Every special character is escaped: unescaping gives the folded text.
		var u strings.Builder
		for i := 0; i < len(e); i++ {
			c := e[i]
			if c == '\\' {
				if i+1 >= len(e) || strings.IndexByte(specials, e[i+1]) < 0 {
					t.Fatalf("Escape(%q) = %q: a lone backslash", s, e)
				}
				i++
				c = e[i]
			} else if strings.IndexByte(specials, c) >= 0 {
				t.Fatalf("Escape(%q) = %q: %q is not escaped", s, e, c)
			}
			u.WriteByte(c)
		}
		if u.String() != Fold(s) {
			t.Fatalf("Escape(%q) = %q does not unescape to %q", s, e, Fold(s))
		}
		if Prose(e) != e {
			t.Fatalf("Escape(%q) = %q opens a code span", s, e)
		}
	})
}

func FuzzCode(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Code(s)
		checkOneLine(t, c)
		folded := Fold(s)
		if folded == "" {
			if c != "" {
				t.Fatalf("Code(%q) = %q, want empty", s, c)
			}
			return
		}
		// No pipe is left unescaped to end a table cell.
		if strings.Contains(strings.ReplaceAll(c, `\|`, ""), "|") {
			t.Fatalf("Code(%q) = %q: an unescaped pipe", s, c)
		}
		// The whole span is one code span: nothing is left as prose.
		if p := Prose(c); p != "" {
			t.Fatalf("Code(%q) = %q leaves %q outside the span", s, c, p)
		}
		// Stripping the fence as CommonMark does gives the folded text.
		n := longestRun(c[:strings.IndexFunc(c, func(r rune) bool { return r != '`' })], '`')
		inner := c[n : len(c)-n]
		if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
			inner = inner[1 : len(inner)-1]
		}
		if got := strings.ReplaceAll(inner, `\|`, "|"); got != folded {
			t.Fatalf("Code(%q) = %q shows %q, want %q", s, c, got, folded)
		}
		if strings.Contains(inner, strings.Repeat("`", n)) {
			t.Fatalf("Code(%q) = %q: the fence occurs inside", s, c)
		}
	})
}

func checkOneLine(t *testing.T, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\r\n\u2028\u2029\u0085") || !utf8.ValidString(s) {
		t.Fatalf("%q is not one line of valid UTF-8", s)
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			t.Fatalf("%q holds control character %U", s, r)
		}
	}
}
