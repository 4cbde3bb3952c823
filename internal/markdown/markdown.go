package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRunes is how many runes of a text Escape and Code keep. A name in a dump
// can be megabytes long (a generated function name, a hostile profile); a
// ticket should not be. A text cut short ends with "…".
const MaxRunes = 500

// specials are the characters Escape puts a backslash before: the backslash
// itself, code spans, emphasis, links and images, HTML, table pipes,
// strikethrough and headings.
const specials = "\\`*_[]<>|~#"

// Fold makes text fit on one line of Markdown: each run of invalid UTF-8
// becomes one U+FFFD,
// line breaks (CR, LF, U+0085, U+2028, U+2029) and other whitespace control
// characters such as tabs become spaces, every other control character is
// dropped, and a text longer than MaxRunes runes is cut to MaxRunes runes
// followed by "…". Escape and Code fold their text first.
func Fold(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\u2028' || r == '\u2029' || r == '\u0085':
			return ' '
		case unicode.IsControl(r) && unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > MaxRunes {
		n := 0
		for i := range s {
			if n == MaxRunes {
				return s[:i] + "…"
			}
			n++
		}
	}
	return s
}

// Escape renders text as Markdown prose that is also safe in a table cell: the
// text is folded onto one line (see Fold), and each character Markdown or a
// table would interpret (\ ` * _ [ ] < > | ~ #) gets a backslash, so the text
// shows as it is and cannot make links, emphasis, HTML, headings or new cells.
func Escape(s string) string {
	s = Fold(s)
	if !strings.ContainsAny(s, specials) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if r < utf8.RuneSelf && strings.IndexByte(specials, byte(r)) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Code renders text as an inline code span that is also safe in a table cell.
// The text is folded onto one line (see Fold) and its pipes are escaped as \|,
// which a table cell turns back into |. The fence is one backtick longer than
// the longest run of backticks in the text, and a space pads the text inside
// the fence when the text starts or ends with a backtick, or starts and ends
// with a space, so that the span shows the text exactly. Empty text renders as
// the empty string, not as an empty span.
func Code(s string) string {
	s = Fold(s)
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if s[0] == '`' || s[len(s)-1] == '`' ||
		(len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// Link renders a link whose text is escaped with Escape. Only http and https
// URLs and paths on the same site (starting with "/") become links; the
// characters that would end the link's destination (spaces, parentheses, angle
// brackets, pipes, control characters) are percent-encoded. Any other URL, such
// as javascript:, is not linked: the text is followed by the URL as code.
func Link(text, rawURL string) string {
	if !linkable(rawURL) {
		if rawURL == "" {
			return Escape(text)
		}
		return Escape(text) + " (" + Code(rawURL) + ")"
	}
	var b strings.Builder
	for _, c := range []byte(rawURL) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>|\\`", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return "[" + Escape(text) + "](" + b.String() + ")"
}

// linkable reports whether a URL may be the destination of a link.
func linkable(rawURL string) bool {
	if strings.HasPrefix(rawURL, "/") && !strings.HasPrefix(rawURL, "//") {
		return true
	}
	u, err := url.Parse(rawURL)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
