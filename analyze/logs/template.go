package logs

import (
	"strings"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze/logline"
)

// A message template is a line with its variable parts masked: every word
// (a maximal run of letters, digits, '.', '_' and '-') that holds a digit, or
// has the shape of a UUID, is a field; everything else is literal. The
// template's regular expression quotes the literal parts and writes each field
// as the patterns of the kinds of word seen there, anchored at both ends.
// Because a field's pattern matches only such words and the literal next to a
// field never starts or ends with a word character, a line matches the
// regular expression exactly when masking the line gives the template: the
// count of a template is what `grep -cE` of its regular expression prints.
//
// Control characters other than tab have no template, except a run of them at
// the end of a line (the CR of CRLF logs): the template marks it and its
// regular expression ends in [[:cntrl:]]+ instead of writing a raw CR, which
// no form field or grep argument would keep.

// Field kinds, a bit each: a template's field records every kind seen there.
const (
	fieldNum  uint8 = 1 << iota // 42
	fieldIP                     // 10.0.0.1
	fieldHex                    // 0x7f3a, 1fd3804a840c16fc
	fieldUUID                   // 123e4567-e89b-12d3-a456-426614174000
	fieldDate                   // 2015-07-29
	fieldWord                   // any other word with a digit: consumer-1, v2.1.1
)

// fieldKindPatterns lists the kinds in the order their patterns are written: the
// label a field shows when only that kind was seen there, and the ERE (GNU grep
// -E and RE2 read it alike) that matches that kind of word. Every pattern
// matches only words, and only words the masker makes fields.
var fieldKindPatterns = []struct {
	bit          uint8
	label, regex string
}{
	{fieldNum, "<NUM>", `[0-9]+`},
	{fieldIP, "<IP>", `[0-9]+(\.[0-9]+){3}`},
	{fieldHex, "<HEX>", `(0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*`},
	{fieldUUID, "<UUID>", `[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}`},
	{fieldDate, "<DATE>", `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
	{fieldWord, "<*>", `[0-9A-Za-z_.-]*[0-9][0-9A-Za-z_.-]*`},
}

// Byte classes of the masker.
const (
	clsWord  uint8 = 1 << iota // [0-9A-Za-z_.-]
	clsDigit                   // [0-9]
	clsHex                     // [a-fA-F]
	clsAlpha                   // [g-zG-Z]
	clsPunct                   // [_.-]
	clsBad                     // control characters but tab and CR, and DEL
	clsHigh                    // bytes of multi-byte UTF-8 (or invalid)
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= '0' && c <= '9':
			t[c] = clsWord | clsDigit
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			t[c] = clsWord | clsHex
		case (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z'):
			t[c] = clsWord | clsAlpha
		case c == '_' || c == '.' || c == '-':
			t[c] = clsWord | clsPunct
		case c == '\t':
		case c < 0x20 || c == 0x7f:
			t[c] = clsBad
		case c >= 0x80:
			t[c] = clsHigh
		}
	}
	return t
}()

// fieldMarker stands for a field in a template's key, and controlMarker
// for a run of control characters ending the line; lines with them elsewhere
// (NUL, SOH) have no template.
const (
	fieldMarker   = 0
	controlMarker = 1
)

// isControl reports whether c is a control character ([[:cntrl:]] in the
// C locale).
func isControl(c byte) bool { return c < 0x20 || c == 0x7f }

// MaxTemplateBytes is the longest template key (the line with every field
// shortened to one byte): lines whose key is longer have no template.
const MaxTemplateBytes = 768

// lineMasker masks lines; each scanner owns one.
type lineMasker struct {
	key   []byte
	kinds []uint8 // per field of the last line
}

// mask masks one line (without its '\n'). It returns the line's level (see
// Level) and whether the line has a template: ok is false for lines with
// control characters other than tab (but at the end), invalid UTF-8, or a key
// longer than MaxTemplateBytes. On success m.key and m.kinds hold the template.
func (m *lineMasker) mask(line []byte) (level int, ok bool) {
	key, kinds := m.key[:0], m.kinds[:0]
	end := len(line)
	for end > 0 && isControl(line[end-1]) {
		end--
	}
	control := end < len(line)
	line = line[:end]
	level = logline.Klog(line)
	ok = true
	high := false
	lit := 0
	n := len(line)
	for i := 0; i < n; {
		c := class[line[i]]
		if c&clsWord == 0 {
			if c&(clsBad|clsHigh) != 0 {
				if c&clsBad != 0 {
					ok = false
					break
				}
				high = true
			}
			i++
			continue
		}
		s := i
		f := c
		for i++; i < n; i++ {
			c = class[line[i]]
			if c&clsWord == 0 {
				break
			}
			f |= c
		}
		if f&clsDigit != 0 || (i-s == 36 && isUUID(line[s:i])) {
			if len(key)+s-lit >= MaxTemplateBytes {
				ok = false
				break
			}
			key = append(key, line[lit:s]...)
			key = append(key, fieldMarker)
			kinds = append(kinds, fieldKind(line[s:i], f))
			lit = i
		} else if level == LevelNone && s < levelScan {
			level = logline.Word(line[s:i])
		}
	}
	if ok && len(key)+n-lit > MaxTemplateBytes {
		ok = false
	}
	if ok && high && !utf8.Valid(line) {
		ok = false
	}
	if ok {
		key = append(key, line[lit:]...)
		if control {
			key = append(key, controlMarker)
		}
	}
	m.key, m.kinds = key, kinds
	return level, ok
}

// fieldKind names the kind of a field word w whose byte classes are f.
func fieldKind(w []byte, f uint8) uint8 {
	switch {
	case f&^(clsWord|clsDigit) == 0:
		return fieldNum
	case f&^(clsWord|clsDigit|clsPunct) == 0 && len(w) >= 7 && len(w) <= 15 && isIP(w):
		return fieldIP
	case len(w) == 10 && f&^(clsWord|clsDigit|clsPunct) == 0 && isDate(w):
		return fieldDate
	case len(w) == 36 && isUUID(w):
		return fieldUUID
	case f&^(clsWord|clsDigit|clsHex) == 0 && len(w) >= 8:
		return fieldHex
	case isHex0x(w):
		return fieldHex
	}
	return fieldWord
}

// isIP reports whether w is four dot-separated runs of one to three digits
// (7 to 15 bytes).
func isIP(w []byte) bool {
	parts, run := 0, 0
	for _, c := range w {
		switch {
		case c >= '0' && c <= '9':
			run++
			if run > 3 {
				return false
			}
		case c == '.':
			if run == 0 {
				return false
			}
			parts, run = parts+1, 0
		default:
			return false
		}
	}
	return parts == 3 && run > 0
}

// isDate reports whether w is yyyy-mm-dd.
func isDate(w []byte) bool {
	for i, c := range w {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isUUID reports whether w is 8-4-4-4-12 hexadecimal digits.
func isUUID(w []byte) bool {
	if len(w) != 36 {
		return false
	}
	for i, c := range w {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if class[c]&(clsDigit|clsHex) == 0 {
			return false
		}
	}
	return true
}

// isHex0x reports whether w is 0x followed by hexadecimal digits, one at
// least a decimal digit (the digit the pattern requires after 0x).
func isHex0x(w []byte) bool {
	if len(w) < 3 || w[0] != '0' || w[1] != 'x' {
		return false
	}
	digit := false
	for _, c := range w[2:] {
		k := class[c]
		if k&(clsDigit|clsHex) == 0 {
			return false
		}
		digit = digit || k&clsDigit != 0
	}
	return digit
}

// templateRegexp writes the regular expression of a template key whose
// fields saw the kinds given: ^, the literal parts quoted, each field as its
// kinds' patterns, $. The result reads the same in GNU grep -E (ERE, C locale)
// and Go's RE2: only \-escapes of special characters, bracket expressions
// without backslashes, groups, alternation and bounded repeats.
func templateRegexp(key string, kinds []uint8) string {
	var b strings.Builder
	b.WriteByte('^')
	field := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == fieldMarker {
			writeField(&b, kinds[field])
			field++
			continue
		}
		if c == controlMarker {
			b.WriteString("[[:cntrl:]]+")
			continue
		}
		if strings.IndexByte(`.[()*+?{|^$\`, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('$')
	return b.String()
}

func writeField(b *strings.Builder, kinds uint8) {
	n := 0
	for _, k := range fieldKindPatterns {
		if kinds&k.bit != 0 {
			n++
		}
	}
	if n > 1 {
		b.WriteByte('(')
	}
	sep := false
	for _, k := range fieldKindPatterns {
		if kinds&k.bit == 0 {
			continue
		}
		if sep {
			b.WriteByte('|')
		}
		b.WriteString(k.regex)
		sep = true
	}
	if n > 1 {
		b.WriteByte(')')
	}
}

// templateText writes a template key for people: each field as the label
// of its kind (<NUM>, <IP>…), or <*> when several kinds were seen there.
func templateText(key string, kinds []uint8) string {
	var b strings.Builder
	field := 0
	for i := 0; i < len(key); i++ {
		if key[i] == controlMarker {
			continue
		}
		if key[i] != fieldMarker {
			b.WriteByte(key[i])
			continue
		}
		label := "<*>"
		for _, k := range fieldKindPatterns {
			if kinds[field] == k.bit {
				label = k.label
			}
		}
		b.WriteString(label)
		field++
	}
	return b.String()
}
