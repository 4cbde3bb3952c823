package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestTopEscapesControlCharacters runs `leakui top` on a profile whose function
// names hold NUL, ESC, a carriage return, a bidi override and a byte that is not
// UTF-8, and checks that the text output shows each as %q writes it and holds
// none of them raw.
func TestTopEscapesControlCharacters(t *testing.T) {
	names := []string{"main.a\x00b", "main.\x1b[31mred", "main.c\rd", "main.e\u202ef", "main.g\xffh"}
	want := []string{`main.a\x00b`, `main.\x1b[31mred`, `main.c\rd`, `main.e\u202ef`, `main.g\xffh`}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "inuse_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}, Period: 1,
	}
	for i, n := range names {
		fn := &profile.Function{ID: uint64(i + 1), Name: n, Filename: "main.go"}
		loc := &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: fn, Line: 1}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{int64(1000 * (i + 1))}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "names.pb.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "top", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the output lacks %s:\n%s", w, out)
		}
	}
	if strings.ContainsAny(out, "\x00\x1b\r\u202e") || strings.Contains(out, "\xff") {
		t.Errorf("raw control characters in the output: %q", out)
	}
}

// TestVisibleWriterSplitsCharacters writes text one byte at a time and checks
// that a character split across writes is kept whole and that an incomplete
// one at the end is written escaped by Flush.
func TestVisibleWriterSplitsCharacters(t *testing.T) {
	var out bytes.Buffer
	v := newVisibleWriter(&out)
	in := "é\tb\x07\n→\u2028\xe2\x86"
	for i := range len(in) {
		if n, err := v.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "é\tb\\a\n→\\u2028\\xe2\\x86"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
