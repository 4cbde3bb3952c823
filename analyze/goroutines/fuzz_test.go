package goroutines

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// FuzzParseGoroutineDump feeds arbitrary bytes to the goroutine dump parser (through
// Parse and straight into the text parser) and checks that it never
// panics or hangs, fails only with the package's sentinel errors, and that what it
// returns holds together: groups add up to the total, ids fit their counts, a dump
// compared with itself has not changed, and the report encodes as JSON.
func FuzzParseGoroutineDump(f *testing.F) {
	for _, dir := range []string{"goroutines"} {
		for _, path := range fixtures.Glob(f, dir, "*") {
			if b, err := os.ReadFile(path); err == nil && len(b) < 20<<10 {
				f.Add(b)
			}
		}
	}
	for _, name := range []string{"goprofnotes-goroutine-snap1-debug0.pb.gz"} {
		b, err := os.ReadFile(fixtures.Path(f, "pprof", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x.go:3 +0x1\n"))
	f.Add([]byte("goroutine 1 gp=0x1 m=nil [select, 2 minutes, locked to thread labels:{\"a\": \"b\"}]:\nmain.f(...)\n\t/x.go:3\n...3 frames elided...\n[originating from goroutine 2]:\nmain.g(...)\n\t/y.go:4\n"))
	f.Add([]byte("goroutine profile: total 3\n3 @ 0x1 0x2\n# labels: {\"k\":\"v\"}\n#\t0x1\tmain.f+0x1\t/x.go:1\n#\t0x2\n"))
	f.Add([]byte("fatal error: x\n[signal SIGSEGV: y]\n\nruntime stack:\nruntime.throw()\n\t/p.go:1 +0x1\n\ngoroutine 5 [syscall]:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(bytes.NewReader(data), 1<<20)
		if err != nil {
			if !errors.Is(err, analyze.ErrEmpty) && !errors.Is(err, analyze.ErrMalformed) && !errors.Is(err, analyze.ErrUnsupportedKind) && !errors.Is(err, analyze.ErrTooLarge) {
				t.Fatalf("error without a sentinel: %v", err)
			}
		} else {
			checkGoroutineDumpInvariants(t, d)
		}
		// Within a budget of 4 KiB the parse is refused (ErrTooLarge) or gives
		// the same dump; nothing stays charged after Release.
		server := analyze.NewBudget(1 << 40)
		small := server.Child(4 << 10)
		dw, werr := ParseWithin(bytes.NewReader(data), 1<<20, small)
		if !errors.Is(werr, analyze.ErrTooLarge) && ((werr == nil) != (err == nil) || (err == nil && (dw.Total() != d.Total() || len(Groups(dw)) != len(Groups(d))))) {
			t.Fatalf("within 4 KiB: %v; without a budget: %v", werr, err)
		}
		small.Release()
		if server.Used() != 0 {
			t.Fatalf("the budget holds %d after the release", server.Used())
		}
		text, err := parseGoroutineText(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("text parser on bytes in memory: %v", err)
		}
		checkGoroutineDumpInvariants(t, text)
	})
}

func checkGoroutineDumpInvariants(t *testing.T, d *Dump) {
	t.Helper()
	groups := Groups(d)
	if countGoroutines(groups) != d.Total() {
		t.Fatalf("groups hold %d goroutines, the dump %d", countGoroutines(groups), d.Total())
	}
	for i, g := range groups {
		if g.Count <= 0 || len(g.IDs) > g.Count || g.Stack == nil || g.WaitMin > g.WaitMax {
			t.Fatalf("group %d: %+v", i, g)
		}
		if i > 0 && !groups[i-1].Panicking && groups[i-1].Count < g.Count {
			t.Fatalf("group %d larger than group %d", i, i-1)
		}
	}
	for _, g := range compareDumps(d, d) {
		if g.Change.Delta != 0 || g.Change.New || g.Change.Gone {
			t.Fatalf("a dump compared with itself changed: %+v", g.Change)
		}
	}
	if _, err := json.Marshal(NewReport(d, nil)); err != nil {
		t.Fatalf("report JSON: %v", err)
	}
}
