package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestLogShapeOnRealFiles: every real log of testdata reads as a log, with at
// least twice the share the rule needs, and real text that is no log (the
// README, the docs, Go, JavaScript and shell source, go.sum, a CSV table) is
// refused as "text, not a log", naming its share.
func TestLogShapeOnRealFiles(t *testing.T) {
	for _, path := range fixtures.Glob(t, "logs", "*") {
		head := readHead(t, path)
		lines, marked := LogShape(head)
		if marked*LogShareDenominator < 2*lines {
			t.Errorf("%s: %d of %d lines marked, under twice the share a log needs", filepath.Base(path), marked, lines)
		}
		if d := DetectKind(head); d.Kind != KindLog {
			t.Errorf("%s: detected %v, want a log", filepath.Base(path), d)
		}
	}
	var texts []string
	for _, g := range []string{"../README.md", "../docs/*.md", "*.go", "../static/*.js", "../bench/*.sh", "../go.sum"} {
		m, _ := filepath.Glob(g)
		texts = append(texts, m...)
	}
	csv := filepath.Join(t.TempDir(), "classes.csv")
	writeCSV(t, fixtures.Path(t, "jvm", "lambdas-jdk17-class-histogram.txt"), csv)
	texts = append(texts, csv)
	if len(texts) < 30 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, path := range texts {
		head := readHead(t, path)
		lines, marked := LogShape(head)
		d := DetectKind(head)
		if lines < 10 {
			continue // too short to tell; the rule still applies
		}
		if d.Kind != KindUnknown || !strings.HasPrefix(d.Format, "text, not a log (") {
			t.Errorf("%s: detected %v (%d of %d lines marked), want text, not a log", path, d, marked, lines)
		}
	}
}

// TestLogShapeRule pins the rule at its edge: 1 line in 5 with a mark is a
// log, fewer is not; a level word counts in upper or lower case, not mixed,
// and as a word of its own; a clock or a date alone is no timestamp (the log
// analyzer reads none there).
func TestLogShapeRule(t *testing.T) {
	for _, tc := range []struct {
		text string
		log  bool
	}{
		{"2024-07-21 12:01:02 started\na\nb\nc\nd\n", true},
		{"2024-07-21 12:01:02 started\na\nb\nc\nd\ne\n", false},
		{"12:01:02 started\n", false},
		{"took 0:01:02\n", false},
		{"WARN x\n\n\na\nb\nc\nd\n", true},
		{"Error handling is described below\na\nb\nc\nd\n", false},
		{"level=info msg=hi\na\n", true},
		{`{"level":"debug","msg":"x"}` + "\n" + `{"msg":"y"}` + "\n", true},
		{"081109 203615 148 nothing\n", true},
		{"1600000000123 x\n", true},
		{"2024/07/21 something\n", false},
		{"2024/07/21 12:01:02 something\n", true},
		{"Jun  1 02:03:04 host kernel: x\n", true},
		{"E0102 x\n", true},
		{"log.INFO x\n", false},
		{"see -info and the error.\n", false},
		{"[info] x\n", true},
		{strings.Repeat("x", 97) + " ERROR\n", true},
		{strings.Repeat("x", 99) + " ERROR\n", false},
		{"ERROR x\r\n", true},
		{"version 1.2.3\nsha 2024abc\n", false},
	} {
		d := DetectKind([]byte(tc.text))
		if (d.Kind == KindLog) != tc.log {
			t.Errorf("%q: detected %v, want log %v", tc.text, d, tc.log)
		}
	}
}

func readHead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(len(b), SniffSize)]
}

// writeCSV turns a class histogram's rows into a CSV table: rank, instances,
// bytes, class.
func writeCSV(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("rank,instances,bytes,class\n")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && strings.HasSuffix(f[0], ":") {
			out.WriteString(strings.TrimSuffix(f[0], ":") + "," + f[1] + "," + f[2] + "," + f[3] + "\n")
		}
	}
	if err := os.WriteFile(to, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSniffJudgesTheHeadItPeeked: Sniff reads on past the first SniffSize
// bytes looking for a dump, which reuses its buffer; the log's shape is judged
// on the head as it was, so a log whose one long line starts with a
// timestamp is still a log however long the line is.
func TestSniffJudgesTheHeadItPeeked(t *testing.T) {
	line := append([]byte("2024-01-01 00:00:00.000 [main] INFO "), bytes.Repeat([]byte("x"), 4*SniffSize)...)
	d, err := Sniff(bytes.NewReader(append(line, '\n')))
	if err != nil || d.Kind != KindLog {
		t.Errorf("a log of one long line sniffs as %v %q (%v), want a log", d.Kind, d.Format, err)
	}
}
