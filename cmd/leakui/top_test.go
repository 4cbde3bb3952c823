package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/fixtures"
)

// runCLI runs one leakui command in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, stdio{strings.NewReader(""), &out, &errb})
	return code, out.String(), errb.String()
}

func TestTopJSONShape(t *testing.T) {
	path := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	code, out, errs := runCLI(t, "top", "-json", "-n", "3", "-sample_index", "inuse_space", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		SampleType string `json:"sample_type"`
		Unit       string `json:"unit"`
		Total      int64  `json:"total"`
		Rows       []struct {
			Name      string `json:"name"`
			Flat, Cum int64
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	f, err := openFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Open(pprof.Reader(f), pprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Top(p.DefaultSampleIndex())
	if err != nil {
		t.Fatal(err)
	}
	if got.SampleType != "inuse_space" || got.Unit != "bytes" || got.Total != want.Total || len(got.Rows) != 3 {
		t.Fatalf("got %+v", got)
	}
	for i, r := range got.Rows {
		if r.Name != want.Rows[i].Name || r.Flat != want.Rows[i].Flat || r.Cum != want.Rows[i].Cum {
			t.Errorf("row %d = %+v, want %+v", i, r, want.Rows[i])
		}
	}
}

func TestTopErrors(t *testing.T) {
	heap := fixtures.Path(t, "pprof", "flameshow-heap.pb.gz")
	log := fixtures.Path(t, "logs", "loghub-HDFS_2k.log")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"top"}, 2, "Usage: leakui top"},
		{[]string{"top", "-sample_index", "nope", heap}, 1, `sample_index "nope" must be one of`},
		{[]string{"top", log}, 1, "detected text log, not a pprof profile"},
		{[]string{"top", "/does/not/exist"}, 1, "no such file"},
		{[]string{"nosuchcommand"}, 2, `unknown command "nosuchcommand"`},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("leakui %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, _, errs := runCLI(t, "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	list := commandList()
	if len(list) < 11 {
		t.Errorf("%d commands, want at least the 11 of the contract", len(list))
	}
	last := -1
	for _, c := range list {
		at := strings.Index(errs, "  "+c.name+" ")
		if at < 0 {
			t.Errorf("-h does not list %q:\n%s", c.name, errs)
			continue
		}
		if at < last {
			t.Errorf("-h lists %q out of order:\n%s", c.name, errs)
		}
		last = at
		if got, ok := lookupCommand(list, c.name); !ok || got.summary != c.summary {
			t.Errorf("lookupCommand(%q) = %+v, %v", c.name, got, ok)
		}
	}
	if _, ok := lookupCommand(list, "nope"); ok {
		t.Error("lookupCommand found a command that does not exist")
	}
}

// TestHelpHasNoEscapes: every command's -h prints its flags without a control
// character, so that the writers that escape them (the log commands' escape
// tabs too) pass it unchanged: no literal "\t" before the flags.
func TestHelpHasNoEscapes(t *testing.T) {
	for _, c := range commandList() {
		args := []string{c.name, "-h"}
		if c.name == "work" {
			args = []string{"work", "checkpoint", "-h"}
		}
		code, out, errs := runCLI(t, args...)
		help := out + errs
		if code != 0 || !strings.Contains(help, "Usage: leakui") {
			t.Errorf("leakui %v: exit %d:\n%s", args, code, help)
			continue
		}
		if strings.Contains(help, `\t`) || strings.ContainsAny(help, "\t\x1b") {
			t.Errorf("leakui %v prints an escape or a tab:\n%q", args, help)
		}
	}
}
