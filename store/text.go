package store

import "strings"

// cleanText makes a string storable the same way in every backend: PostgreSQL's
// TEXT refuses NUL and invalid UTF-8, which SQLite would keep. Invalid bytes
// become U+FFFD and NULs are dropped, whichever backend is in use.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}
