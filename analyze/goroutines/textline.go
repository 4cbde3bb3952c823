package goroutines

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The recognizers below classify one line of a text goroutine dump. They work on
// bytes without regular expressions or allocations: they run once or twice for every
// line of dumps of hundreds of megabytes.

// parseGoroutineDecimal reads the leading decimal digits of b (at most 18, so the value fits
// an int64) and returns the value and how many bytes it used; 0 bytes when b does
// not start with a digit or has more than 18 of them.
func parseGoroutineDecimal(b []byte) (int64, int) {
	var v int64
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if i == 18 {
			return 0, 0
		}
		v = v*10 + int64(b[i]-'0')
		i++
	}
	return v, i
}

// parseGoroutineHeader recognizes a goroutine's first line, "goroutine 18 [chan
// receive, 5 minutes]:" or Go 1.22's "goroutine 18 gp=0xc000007a40 m=nil [select]:",
// and returns the id and the text between the brackets.
func parseGoroutineHeader(line []byte) (id int64, status []byte, ok bool) {
	const prefix = "goroutine "
	if len(line) < len(prefix)+5 || string(line[:len(prefix)]) != prefix {
		return 0, nil, false
	}
	rest := line[len(prefix):]
	id, n := parseGoroutineDecimal(rest)
	if n == 0 || n >= len(rest) || rest[n] != ' ' {
		return 0, nil, false
	}
	rest = rest[n+1:]
	if len(rest) < 3 || rest[len(rest)-2] != ']' || rest[len(rest)-1] != ':' {
		return 0, nil, false
	}
	open := bytes.IndexByte(rest, '[')
	if open < 0 || open > len(rest)-3 {
		return 0, nil, false
	}
	return id, rest[open+1 : len(rest)-2], true
}

// goroutineStatusParts is the bracketed part of a goroutine header taken apart.
type goroutineStatusParts struct {
	state       []byte
	waitMinutes int
	locked      bool
	labels      []byte // `{"k": "v"}` from GODEBUG=tracebacklabels=1, or nil
}

// parseGoroutineStatus splits "chan receive, 5 minutes, locked to thread" into its
// parts. Attributes it does not know (", synctest bubble 3") stay in the state.
func parseGoroutineStatus(status []byte) goroutineStatusParts {
	var st goroutineStatusParts
	if i := bytes.Index(status, []byte(" labels:{")); i >= 0 {
		st.labels = status[i+len(" labels:"):]
		status = status[:i]
	}
	first := bytes.Index(status, []byte(", "))
	if first < 0 {
		st.state = status
		return st
	}
	st.state = status[:first]
	var extra []byte
	for rest := status[first+2:]; ; {
		part := rest
		next := bytes.Index(rest, []byte(", "))
		if next >= 0 {
			part = rest[:next]
		}
		switch {
		case string(part) == "locked to thread":
			st.locked = true
		case bytes.HasSuffix(part, []byte(" minutes")) && goroutineDigits(part[:len(part)-len(" minutes")]):
			if v, n := parseGoroutineDecimal(part); n > 0 && v <= math.MaxInt32 {
				st.waitMinutes = int(v)
			}
		default:
			extra = append(append(extra, ", "...), part...)
		}
		if next < 0 {
			break
		}
		rest = rest[next+2:]
	}
	if extra != nil {
		st.state = append(append([]byte(nil), st.state...), extra...)
	}
	return st
}

func goroutineDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseGoroutineFuncLine recognizes a call line of a traceback, "net/http.(*Server).Serve(0xc0,
// {0x73, 0xc0})" or "main.main()", and returns the function name without the
// arguments. A name with a space is refused unless spaces is true: inside a
// goroutine, where a call is only kept when its location line follows, a name
// may have one (a type's equality function, "type:.eq.struct { a int }"); a
// system stack mixes calls with other text.
func parseGoroutineFuncLine(line []byte, spaces bool) ([]byte, bool) {
	if len(line) < 3 || line[len(line)-1] != ')' || line[0] == ' ' || line[0] == '\t' {
		return nil, false
	}
	i := bytes.LastIndexByte(line, '(')
	if i <= 0 {
		return nil, false
	}
	name := line[:i]
	if !spaces && bytes.IndexByte(name, ' ') >= 0 {
		return nil, false
	}
	return name, true
}

// parseGoroutineCreatedBy recognizes "created by main.start in goroutine 1" (Go 1.21 and
// later) and "created by main.start" and returns the function and the creator's id
// (-1 when not given).
func parseGoroutineCreatedBy(line []byte) (fn []byte, creator int64, ok bool) {
	const prefix = "created by "
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return nil, 0, false
	}
	fn = line[len(prefix):]
	creator = -1
	if i := bytes.LastIndex(fn, []byte(" in goroutine ")); i >= 0 {
		num := fn[i+len(" in goroutine "):]
		if v, n := parseGoroutineDecimal(num); n > 0 && n == len(num) {
			creator = v
			fn = fn[:i]
		}
	}
	if len(fn) == 0 {
		return nil, 0, false
	}
	return fn, creator, true
}

// parseGoroutineFileLine recognizes the location line under a call, "\t/src/x.go:23 +0x1f",
// possibly with " fp=… sp=… pc=…" after it (crash dumps) and indented with spaces
// instead of a tab (dumps that went through an editor), and returns the file and
// line.
func parseGoroutineFileLine(line []byte) (file []byte, lineNo int32, ok bool) {
	if len(line) == 0 || (line[0] != '\t' && line[0] != ' ') {
		return nil, 0, false
	}
	s := bytes.TrimLeft(line, " \t")
	for {
		sp := bytes.LastIndexByte(s, ' ')
		if sp < 0 {
			break
		}
		tok := s[sp+1:]
		if bytes.HasPrefix(tok, []byte("+0x")) || bytes.HasPrefix(tok, []byte("fp=")) ||
			bytes.HasPrefix(tok, []byte("sp=")) || bytes.HasPrefix(tok, []byte("pc=")) {
			s = bytes.TrimRight(s[:sp], " ")
			continue
		}
		break
	}
	return splitGoroutineFileLine(s)
}

// splitGoroutineFileLine splits "path/x.go:23" at its last colon.
func splitGoroutineFileLine(s []byte) (file []byte, lineNo int32, ok bool) {
	colon := bytes.LastIndexByte(s, ':')
	if colon <= 0 {
		return nil, 0, false
	}
	v, n := parseGoroutineDecimal(s[colon+1:])
	if n == 0 || n != len(s)-colon-1 || v > math.MaxInt32 {
		return nil, 0, false
	}
	return s[:colon], int32(v), true
}

// goroutineElidedMarker recognizes the runtime's marker for frames left out of a deep stack
// and returns the text a frame keeps for it (the count, which varies with the
// depth, is dropped so that deep recursions group together).
func goroutineElidedMarker(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, []byte("...")) || !bytes.HasSuffix(line, []byte("frames elided...")) {
		return "", false
	}
	if string(line) == "...additional frames elided..." {
		return "...additional frames elided...", true
	}
	return "...frames elided...", true
}

// parseGoroutineDebug1Record recognizes the first line of a debug=1 record, "12096 @ 0x45fe2e
// 0x48f939 …", and returns its count.
func parseGoroutineDebug1Record(line []byte) (int64, bool) {
	v, n := parseGoroutineDecimal(line)
	if n == 0 || len(line) < n+2 || line[n] != ' ' || line[n+1] != '@' {
		return 0, false
	}
	if len(line) > n+2 && line[n+2] != ' ' {
		return 0, false
	}
	return v, true
}

// parseGoroutineDebug1Frame recognizes a frame of a debug=1 record,
// "#\t0x4aed24\tsync.(*Cond).Wait+0x84\t\t\tsync/cond.go:70", or an unsymbolized
// "#\t0x4aed24", and returns the function (the address when there is no symbol),
// file and line.
func parseGoroutineDebug1Frame(line []byte) (fn, file []byte, lineNo int32, ok bool) {
	if len(line) < 3 || line[0] != '#' || line[1] != '\t' {
		return nil, nil, 0, false
	}
	var fields [3][]byte
	n := 0
	rest := line[2:]
	for len(rest) > 0 && n < 3 {
		if rest[0] == '\t' {
			rest = rest[1:]
			continue
		}
		end := bytes.IndexByte(rest, '\t')
		if end < 0 {
			end = len(rest)
		}
		if n == 2 {
			end = len(rest) // a file name may hold tabs; it runs to the end
		}
		fields[n] = rest[:end]
		n++
		rest = rest[end:]
	}
	if n == 0 || !bytes.HasPrefix(fields[0], []byte("0x")) {
		return nil, nil, 0, false
	}
	if n == 1 {
		return fields[0], nil, 0, true
	}
	fn = fields[1]
	if i := bytes.LastIndex(fn, []byte("+0x")); i > 0 {
		fn = fn[:i]
	}
	if n == 3 {
		if f, l, ok := splitGoroutineFileLine(bytes.TrimRight(fields[2], " \t")); ok {
			return fn, f, l, true
		}
		return fn, fields[2], 0, true
	}
	return fn, nil, 0, true
}

// goroutineCrashKind recognizes the first line of a crash message and returns its kind and
// the message without the prefix ("panic: boom" → "panic", "boom"). A signal line
// ("SIGQUIT: quit") is kept whole.
func goroutineCrashKind(line []byte) (kind string, message []byte) {
	switch {
	case bytes.HasPrefix(line, []byte("panic: ")):
		return FormatPanic, line[len("panic: "):]
	case bytes.HasPrefix(line, []byte("fatal error: ")):
		return FormatFatal, line[len("fatal error: "):]
	case goroutineSignalName(line) != "":
		return FormatSignal, line
	}
	return "", nil
}

// goroutineSignalName returns "SIGQUIT" for a line "SIGQUIT: quit", or "".
func goroutineSignalName(line []byte) string {
	if !bytes.HasPrefix(line, []byte("SIG")) {
		return ""
	}
	i := 3
	for i < len(line) && line[i] >= 'A' && line[i] <= 'Z' {
		i++
	}
	if i == 3 || i+1 >= len(line) || line[i] != ':' || line[i+1] != ' ' {
		return ""
	}
	return string(line[:i])
}

// parseGoroutineLabels reads a label set as the runtime prints it, `{"k":"v",
// "k2":"v2"}` (debug=1) or `{"k": "v"}` (tracebacklabels), and returns the labels and
// their canonical form (sorted, as debug=1 prints them).
func parseGoroutineLabels(b []byte) (map[string]string, string, bool) {
	s := strings.TrimSpace(string(b))
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, "", false
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	labels := map[string]string{}
	for s != "" {
		k, rest, ok := unquoteGoroutineLabel(s)
		if !ok {
			return nil, "", false
		}
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, ":") {
			return nil, "", false
		}
		v, rest, ok := unquoteGoroutineLabel(strings.TrimLeft(rest[1:], " "))
		if !ok {
			return nil, "", false
		}
		labels[k] = v
		rest = strings.TrimLeft(rest, " ")
		if rest != "" {
			if rest[0] != ',' {
				return nil, "", false
			}
			rest = strings.TrimLeft(rest[1:], " ")
		}
		s = rest
	}
	return labels, canonicalGoroutineLabels(labels), true
}

func unquoteGoroutineLabel(s string) (value, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", "", false
	}
	return v, s[len(q):], true
}

// canonicalGoroutineLabels writes a label set the way debug=1 prints it: `{"a":"1", "b":"2"}`,
// keys sorted; "" for none.
func canonicalGoroutineLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		b.WriteString(strconv.Quote(labels[k]))
	}
	b.WriteByte('}')
	return b.String()
}
