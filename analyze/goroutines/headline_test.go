package goroutines

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestHeadlineOfACrashNamesBothGroups crashes a real program (a panic in one
// goroutine while four wait on a channel and three in a select): the panicking
// goroutine's group, of one, comes first, but the headline calls the group of four
// the largest and names the panicking one apart, in the singular.
func TestHeadlineOfACrashNamesBothGroups(t *testing.T) {
	raw := goroutineCrashChild(t, "panic", "GOTRACEBACK=all")
	r := NewReport(mustParseGoroutines(t, raw), nil)
	if !r.Groups[0].Panicking || r.Groups[0].Count != 1 {
		t.Fatalf("first group: %d, panicking %v", r.Groups[0].Count, r.Groups[0].Panicking)
	}
	if l := r.Largest(); l == nil || l.Count != childReceivers || l.Panicking {
		t.Fatalf("largest %+v, want the %d receivers", l, childReceivers)
	}
	want := "; the goroutine that panicked is in " + goroutineTestPkg + "childPanicker (a group of 1); the largest group is 4 goroutines in " + goroutineTestPkg + "childBlockedReceive."
	if r.Verdict != VerdictCrash || !strings.HasPrefix(r.Headline, "The program crashed (panic: leakui test panic in goroutine ") || !strings.HasSuffix(r.Headline, want) {
		t.Errorf("verdict %s, headline %q; want it to end %q", r.Verdict, r.Headline, want)
	}
}

// TestHeadlineOfRealDumps: the erigon leak's largest group by count, the proven
// leak of a real goroutineleak profile (proto) with "proven leaked: 100", a
// comparison's change, and the JSON carrying verdict and headline.
func TestHeadlineOfRealDumps(t *testing.T) {
	for _, tc := range []struct {
		dir, file, base string
		verdict, want   string
	}{
		{"goroutines", "erigon-debug1-20161-goroutines.txt", "", VerdictDump,
			"One dump of 20,161 goroutines; the largest group is 12,096 goroutines in github.com/anacrolix/torrent.(*webseedPeer).requester. One dump shows where goroutines wait"},
		{"pprof", "leakui-leaky-goroutineleak-100.pb.gz", "", VerdictLeak,
			"Proven leaked: 100 goroutines, by the Go runtime (blocked on something no other goroutine can reach, they can never run again); the largest group is 100 goroutines in main.strand.func1."},
		// One stack of the ten differs between the two (grep "^[0-9]+ @"): one group
		// new, one gone; the two goroutines of main.shortSleepLoop the largest.
		{"goroutines", "goprofnotes-snap2-debug1.txt", "goprofnotes-snap1-debug1.txt", VerdictCompared,
			"Goroutines went from 10 to 10 (0): 1 group new or grown, 1 gone; the largest group is 2 goroutines in main.shortSleepLoop."},
	} {
		d := parseGoroutineFile(t, fixtures.Path(t, tc.dir, tc.file))
		var base *Dump
		if tc.base != "" {
			base = parseGoroutineFile(t, fixtures.Path(t, tc.dir, tc.base))
		}
		r := NewReport(d, base)
		if r.Verdict != tc.verdict || r.Headline[:min(len(r.Headline), len(tc.want))] != tc.want {
			t.Errorf("%s: %s %q\nwant %s %q", tc.file, r.Verdict, r.Headline, tc.verdict, tc.want)
		}
		b, err := json.Marshal(r)
		if err != nil || !strings.Contains(string(b), `"verdict":"`+tc.verdict+`","headline":`) {
			t.Errorf("%s: JSON %.200s (%v)", tc.file, b, err)
		}
	}
}
