package watch_test

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/watch"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want watch.Declaration
	}{
		{"api=http://10.0.0.7:6060", watch.Declaration{Name: "api", URL: "http://10.0.0.7:6060", Every: time.Minute, Keep: 24}},
		{" api=http://10.0.0.7:6060/ ", watch.Declaration{Name: "api", URL: "http://10.0.0.7:6060", Every: time.Minute, Keep: 24}},
		{"checkout-v2.eu_1=https://checkout.internal/admin/,every=5s,keep=100",
			watch.Declaration{Name: "checkout-v2.eu_1", URL: "https://checkout.internal/admin", Every: 5 * time.Second, Keep: 100}},
		{"w=http://[::1]:6060,keep=8,every=1h", watch.Declaration{Name: "w", URL: "http://[::1]:6060", Every: time.Hour, Keep: 8}},
		{"w=http://host/a%2Cb", watch.Declaration{Name: "w", URL: "http://host/a%2Cb", Every: time.Minute, Keep: 24}},
	} {
		got, err := watch.Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		again, err := watch.Parse(got.String())
		if err != nil || again != got {
			t.Errorf("Parse(%q), its String parsed again: %+v, %v", c.in, again, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://host:6060", "want name=URL"},
		{"=http://host", "needs a name"},
		{"a b=http://host", `watch name "a b"`},
		{"-api=http://host", `watch name "-api"`},
		{strings.Repeat("a", 65) + "=http://host", "at most 64"},
		{"api=ftp://host", "want an http or https URL"},
		{"api=host:6060", "want an http or https URL"},
		{"api=http://", "want an http or https URL"},
		{"api=http://user:secret@host", "may not carry credentials"},
		{"api=http://host/?debug=1", "without a query or fragment"},
		{"api=http://host/#x", "without a query or fragment"},
		{"api=http://host:99999", `port "99999"`},
		{"api=http://host,every=500ms", "whole seconds from 1s to 24h0m0s, not 500ms"},
		{"api=http://host,every=1.5s", "whole seconds"},
		{"api=http://host,every=48h", "not 48h0m0s"},
		{"api=http://host,every=soon", `every="soon" is not a duration`},
		{"api=http://host,keep=7", "keep must be a number of snapshots from 8 to 500"},
		{"api=http://host,keep=501", "from 8 to 500"},
		{"api=http://host,keep=many", `not "many"`},
		{"api=http://host,keep=8,keep=9", "keep given twice"},
		{"api=http://host/a,b", `unknown option "b"`},
		{"api=http://host,secret=x", `unknown option "secret=x"`},
	} {
		_, err := watch.Parse(c.in)
		if !errors.Is(err, watch.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want ErrInvalid saying %q", c.in, err, c.want)
		}
	}
}

func TestParseFile(t *testing.T) {
	file := `# the production watches
api=http://10.0.0.7:6060,every=30s

   worker=http://10.0.0.8:6060,keep=48
# batch=http://10.0.0.9:6060
`
	got, err := watch.ParseFile(strings.NewReader(file), "watches.conf")
	if err != nil || len(got) != 2 || got[0].Name != "api" || got[0].Every != 30*time.Second || got[1].Name != "worker" || got[1].Keep != 48 {
		t.Fatalf("ParseFile: %+v, %v", got, err)
	}
	for _, c := range []struct{ in, want string }{
		{"api=http://a\n\napi=http://b\n", "watches.conf:3: invalid watch declaration: watch api is declared on line 1 already"},
		{"api=http://a\nworker=http://b,every=1\n", `watches.conf:2: invalid watch declaration: watch worker: every="1" is not a duration such as 30s or 5m`},
		{"api=http://a/" + strings.Repeat("x", 5000) + "\n", "watches.conf: invalid watch declaration: a line longer than 4096 bytes"},
	} {
		_, err := watch.ParseFile(strings.NewReader(c.in), "watches.conf")
		if !errors.Is(err, watch.ErrInvalid) || err.Error() != c.want {
			t.Errorf("ParseFile(%.40q): %v, want %q", c.in, err, c.want)
		}
	}
	var many strings.Builder
	for i := range watch.MaxDeclarations + 1 {
		many.WriteString("w" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + "=http://h\n")
	}
	if _, err := watch.ParseFile(strings.NewReader(many.String()), "many"); err == nil || !strings.Contains(err.Error(), "more than 1000 watches") {
		t.Errorf("1001 watches: %v", err)
	}
	path := filepath.Join(t.TempDir(), "watches.conf")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	if ds, err := watch.ReadFile(path); err != nil || len(ds) != 2 {
		t.Errorf("ReadFile: %v, %v", ds, err)
	}
	if _, err := watch.ReadFile(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	if _, err := watch.ParseFile(errReader{}, "broken"); err == nil || !strings.Contains(err.Error(), "broken: boom") {
		t.Errorf("a read error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// The -watch flag is repeatable, refuses a name given twice, and takes a
// watch file's declarations beside its own.
func TestFlags(t *testing.T) {
	var ws watch.Flags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&ws, "watch", "")
	if err := fs.Parse([]string{"-watch", "api=http://a:1", "-watch", "worker=http://b:2,every=10s"}); err != nil || len(ws) != 2 {
		t.Fatalf("%v: %v", ws, err)
	}
	if got := ws.String(); got != "api=http://a:1,every=1m0s,keep=24 worker=http://b:2,every=10s,keep=24" {
		t.Errorf("String: %q", got)
	}
	if err := fs.Parse([]string{"-watch", "api=http://c:3"}); err == nil || !strings.Contains(err.Error(), "watch api is declared twice") {
		t.Errorf("a name given twice: %v", err)
	}
	if err := fs.Parse([]string{"-watch", "bad"}); err == nil || !strings.Contains(err.Error(), `invalid value "bad" for flag -watch: invalid watch declaration`) {
		t.Errorf("a bad value: %v", err)
	}
	if err := ws.Merge([]watch.Declaration{{Name: "batch", URL: "http://c:3", Every: time.Hour, Keep: 8}}); err != nil || len(ws) != 3 {
		t.Errorf("Merge: %v", err)
	}
	if err := ws.Merge([]watch.Declaration{{Name: "worker", URL: "http://d:4", Every: time.Hour, Keep: 8}}); err == nil {
		t.Error("Merge of a name declared on the command line")
	}
}

func TestVerdictSeverity(t *testing.T) {
	prev := watch.None.Severity()
	for _, v := range watch.Verdicts {
		if v.Severity() <= prev {
			t.Errorf("%q is not more severe than the verdict before it", v)
		}
		prev = v.Severity()
	}
	if !(watch.Change{From: watch.Leak, To: watch.NoLeak}).Resolved() || (watch.Change{From: watch.Inconclusive, To: watch.Leak}).Resolved() {
		t.Error("Resolved")
	}
}

// FuzzParse: Parse never panics, and what it accepts prints (String) as a
// declaration it reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"api=http://10.0.0.7:6060", "w=https://h/p,every=5s,keep=100", "x=http://[::1]:1,keep=8", "=", "a=http://h,every=", "a=http://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := watch.Parse(s)
		if err != nil {
			if !errors.Is(err, watch.ErrInvalid) {
				t.Fatalf("Parse(%q): %v is not ErrInvalid", s, err)
			}
			return
		}
		again, err := watch.Parse(d.String())
		if err != nil || again != d {
			t.Fatalf("Parse(%q) = %+v; its String %q reads back as %+v, %v", s, d, d.String(), again, err)
		}
	})
}
