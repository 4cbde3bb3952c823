package heapdumps

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/internal/fixtures"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// A heap dump is found by the classes its page names: the suspect, the field
// chain that holds it (HeapLeak.CACHE), what it holds, and the classes of the
// histogram's first rows; its title stays its file's name.
func TestListingNamesTheSuspectsAndClasses(t *testing.T) {
	h, err := hprof.Open(fixtures.Path(t, "leakshape", "heapleak.hprof.gz"), hprof.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(hprof.ReportOptions{SuspectShare: 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Suspects) == 0 || len(rep.Suspects[0].Chain) == 0 || len(rep.Histogram) == 0 {
		t.Fatalf("the HeapLeak dump has %d suspects (chain %v) and %d histogram rows", len(rep.Suspects), rep.Suspects, len(rep.Histogram))
	}
	raw, err := json.Marshal(Summary{Objects: rep.Objects, Reachable: rep.Reachable, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	title, terms := (&Kind{}).Listing(raw)
	if title != "" {
		t.Errorf("title %q, want the file's name kept", title)
	}
	words := " " + terms + " "
	want := []string{rep.Suspects[0].Class, rep.Suspects[0].Holder, rep.Histogram[0].Name}
	want = append(want, rep.Suspects[0].Chain...)
	for _, w := range want {
		if w != "" && !strings.Contains(words, " "+w+" ") {
			t.Errorf("the search words %q lack %q", terms, w)
		}
	}
	if !strings.Contains(terms, "HeapLeak.CACHE") {
		t.Errorf("the search words %q lack the field that holds the leak, HeapLeak.CACHE", terms)
	}
	if _, terms := (&Kind{}).Listing(json.RawMessage(`{"objects":1}`)); terms != "" {
		t.Errorf("a summary without a report is found by %q", terms)
	}
}
