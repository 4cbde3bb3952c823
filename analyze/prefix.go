package analyze

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
)

// The line prefixes leakui strips from a dump whose every line carries one.
const (
	// PrefixKubectl is the RFC 3339 time stamp and space `kubectl logs --timestamps`
	// puts before every line ("2024-05-01T10:00:00.123456789Z ").
	PrefixKubectl = "kubectl logs --timestamps"
	// PrefixJournald is journalctl's time stamp, host and identifier ("May 01
	// 10:00:00 host app[123]: ").
	PrefixJournald = "journald"
	// PrefixDockerJSON is Docker's json-file log driver: every line a JSON object
	// whose "log" field holds the line ({"log":"…\n","stream":"stderr","time":"…"}).
	PrefixDockerJSON = "Docker JSON log"
)

var (
	kubectlPrefix  = regexp.MustCompile(`\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)(?: |\r?\n|\r?\z)`)
	journaldPrefix = regexp.MustCompile(`\A(?:[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(?:\.\d{1,9})?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)) \S+ [^\s:]+:(?: |\r?\n|\r?\z)`)
	dockerPrefix   = []byte(`{"log":"`)
)

// prefixSampleLines is how many leading lines DetectLinePrefix looks at.
const prefixSampleLines = 200

// DetectLinePrefix tells whether the lines of head carry one of the prefixes a log
// collector adds (one of the Prefix constants), or "" when they do not. The prefix
// is consistent when at least nine in ten of the first non-blank lines (up to 200,
// at least 3) carry it; a line without it is left as it is by StripLinePrefix.
func DetectLinePrefix(head []byte) string {
	if len(head) > SniffSize {
		head = head[:SniffSize]
	}
	var lines, kubectl, journald, docker int
	for len(head) > 0 && lines < prefixSampleLines {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break // a partial last line says nothing
		}
		line := head[:i+1]
		head = head[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines++
		switch {
		case bytes.HasPrefix(line, dockerPrefix):
			docker++
		case journaldPrefix.Match(line):
			journald++
		case kubectlPrefix.Match(line):
			kubectl++
		}
	}
	if lines < 3 {
		return ""
	}
	switch {
	case docker*10 >= lines*9:
		return PrefixDockerJSON
	case journald*10 >= lines*9:
		return PrefixJournald
	case (kubectl+journald)*10 >= lines*9:
		return PrefixKubectl
	}
	return ""
}

// stripLine returns line (with its line ending, if any) without the prefix, the
// content of a Docker JSON record decoded into buf; ok is false when the line does
// not carry the prefix, and line is then returned as it is.
func stripLine(line []byte, prefix string, buf []byte) (out []byte, ok bool) {
	switch prefix {
	case PrefixKubectl, PrefixJournald:
		re := kubectlPrefix
		if prefix == PrefixJournald {
			re = journaldPrefix
		}
		m := re.FindIndex(line)
		if m == nil {
			return line, false
		}
		cut := m[1]
		for cut > 0 && (line[cut-1] == '\n' || line[cut-1] == '\r') {
			cut--
		}
		return line[cut:], true
	case PrefixDockerJSON:
		if !bytes.HasPrefix(line, dockerPrefix) {
			return line, false
		}
		end := jsonStringEnd(line, len(dockerPrefix)-1)
		if end < 0 {
			return line, false
		}
		var s string
		if json.Unmarshal(line[len(dockerPrefix)-1:end], &s) != nil {
			return line, false
		}
		return append(buf[:0], s...), true
	}
	return line, false
}

// jsonStringEnd returns the index just past the JSON string that starts with the
// quote at b[start], or -1 when it does not end within b.
func jsonStringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// stripHead returns head with the prefix stripped from every line that carries it.
func stripHead(head []byte, prefix string) []byte {
	out := make([]byte, 0, len(head))
	var buf []byte
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		line := head
		if i >= 0 {
			line = head[:i+1]
		}
		head = head[len(line):]
		s, _ := stripLine(line, prefix, buf)
		out = append(out, s...)
	}
	return out
}

// prefixLineBuffer is the longest line a prefix stripper strips whole; the rest of a
// longer line passes through unchanged.
const prefixLineBuffer = 64 << 10

// StripLinePrefix returns a reader of r's text with prefix (one of the Prefix
// constants) removed from the start of every line that carries it; other lines pass
// through unchanged, and so does prefix "". It streams line by line through a
// buffer of 64 KiB: a Docker JSON record longer than that is passed on as it is.
func StripLinePrefix(r io.Reader, prefix string) io.Reader {
	if prefix == "" {
		return r
	}
	return &prefixStripper{br: bufio.NewReaderSize(r, prefixLineBuffer), prefix: prefix}
}

// prefixStripper is the reader StripLinePrefix returns.
type prefixStripper struct {
	br     *bufio.Reader
	prefix string
	out    []byte // stripped bytes not yet read
	buf    []byte // a decoded Docker record
	mid    bool   // inside a line longer than the buffer
	err    error
}

// Read implements io.Reader.
func (s *prefixStripper) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, err := s.br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if full {
			err = nil
		}
		if !s.mid {
			var ok bool
			line, ok = stripLine(line, s.prefix, s.buf)
			if ok && s.prefix == PrefixDockerJSON {
				s.buf = line
			}
		}
		s.mid = full
		s.out, s.err = line, err
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}
