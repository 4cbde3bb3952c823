package view

import (
	"context"
	"io"
	"strings"

	"github.com/a-h/templ"
)

// breakSeparators are the characters after which a long name may wrap: path and
// package separators and the punctuation of file names.
const breakSeparators = "/\\._-@:"

// breakParts cuts a name after each separator, so it can be written with a line
// break opportunity (<wbr>) between the parts and wraps there, not mid-word.
func breakParts(s string) []string {
	var parts []string
	for len(s) > 0 {
		i := strings.IndexAny(s, breakSeparators)
		if i < 0 || i == len(s)-1 {
			parts = append(parts, s)
			break
		}
		parts = append(parts, s[:i+1])
		s = s[i+1:]
	}
	return parts
}

// ShortSHALength is how many hex digits of a SHA-256 a page shows; the whole sum
// is in the title and one click away (copy).
const ShortSHALength = 12

func shortSHA(sha string) string {
	if len(sha) <= ShortSHALength {
		return sha
	}
	return sha[:ShortSHALength]
}

// Breakable writes a name (a file name, a path) escaped, with a line break
// opportunity (<wbr>) after each separator, so that it wraps there rather than
// in the middle of a word.
func Breakable(s string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		for i, part := range breakParts(s) {
			if i > 0 {
				if _, err := io.WriteString(w, "<wbr>"); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, templ.EscapeString(part)); err != nil {
				return err
			}
		}
		return nil
	})
}
