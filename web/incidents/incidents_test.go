package incidents

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/serrors"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSeriesCutKeepsExtremes cuts a series of 100,000 points with one spike
// and one dip to maxPoints: the points stay in time order, and the spike and
// the dip are kept.
func TestSeriesCutKeepsExtremes(t *testing.T) {
	base := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var s pngchart.Series
	for i := 100_000 - 1; i >= 0; i-- { // given newest first
		v := math.Sin(float64(i) / 1000)
		switch i {
		case 31_337:
			v = 50
		case 77_777:
			v = -50
		}
		s.Points = append(s.Points, pngchart.Point{T: base.Add(time.Duration(i) * time.Second), V: v})
	}
	s.Points = append(s.Points, pngchart.Point{V: 1e9}) // without a time: not on a time axis
	got := seriesOf(s, "/r/x")
	if len(got.T) > maxPoints || len(got.T) != len(got.V) {
		t.Fatalf("%d points, %d values; want at most %d", len(got.T), len(got.V), maxPoints)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range got.V {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if i > 0 && got.T[i] < got.T[i-1] {
			t.Fatalf("point %d at %v comes before %v", i, got.T[i], got.T[i-1])
		}
	}
	if hi != 50 || lo != -50 {
		t.Errorf("the cut series spans %v to %v, want the spike 50 and the dip -50", lo, hi)
	}
}

// TestParseRef reads the ways people name a report or a run.
func TestParseRef(t *testing.T) {
	id := store.NewID()
	for ref, want := range map[string]string{
		id: ":" + id, " " + id + " ": ":" + id,
		"/r/" + id: "report:" + id, "https://leakui.example.com/r/" + id + ".md": "report:" + id,
		"http://127.0.0.1:8080/api/reports/" + id: "report:" + id, "/runs/" + id: "run:" + id,
		"https://leakui.example.com/api/runs/" + id + "?x=1#y": "run:" + id,
	} {
		kind, got, err := parseRef(ref)
		if err != nil || kind+":"+got != want {
			t.Errorf("parseRef(%q) = %q, %q, %v; want %s", ref, kind, got, err, want)
		}
	}
	for _, ref := range []string{"", "javascript:alert(1)", "javascript://x/r/" + id, "/a/" + id, "/r/short", "/r/" + strings.ToUpper(id),
		"file:///r/" + id, "../../etc/passwd", "/r/" + id + "/../../x"} {
		if _, _, err := parseRef(ref); !isBadRequest(err) {
			t.Errorf("parseRef(%q): %v, want 400", ref, err)
		}
	}
}

func isBadRequest(err error) bool {
	var e *serrors.Error
	return errors.As(err, &e) && e.Status == http.StatusBadRequest
}

// FuzzParseRef: any text is a report's or run's valid id, or a 400.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"", "/r/aaaaaaaaaaaaaaaaaaaaaaaaaa", "https://x/runs/aaaaaaaaaaaaaaaaaaaaaaaaaa.json", "javascript:x", "%zz", "/api/reports/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		kind, id, err := parseRef(ref)
		if err != nil {
			if !isBadRequest(err) {
				t.Fatalf("parseRef(%q): %v", ref, err)
			}
			return
		}
		if !store.ValidID(id) || (kind != "" && kind != store.EvidenceReport && kind != store.EvidenceRun) {
			t.Fatalf("parseRef(%q) = %q, %q", ref, kind, id)
		}
	})
}

// FuzzParseAt: any text is a time between 1970 and 9999, zero (now), or a 400.
func FuzzParseAt(f *testing.F) {
	for _, s := range []string{"", "2026-12-02T10:32", "2026-12-02T10:32:00Z", "0001-01-01T00:00:00Z", "yesterday", "2026-13-40T99:99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, err := parseAt(s)
		if err != nil {
			if !isBadRequest(err) {
				t.Fatalf("parseAt(%q): %v", s, err)
			}
			return
		}
		if !at.IsZero() && (at.UTC().Year() < 1970 || at.UTC().Year() > 9999) {
			t.Fatalf("parseAt(%q) = %v", s, at)
		}
	})
}
