package web

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/pprof"
)

// TestTopTablePprofView checks the web top table against pprof's -top formatting:
// percentages as pprof prints them, its inline marks (Profile.InlineMarks, anchored
// to pprof by TestPprofTrimMatchesPprof), the count of rows pprof's default -top drops
// (the number TestPprofTrimMatchesPprof anchors to go tool pprof), and pprof's view
// (trim=pprof), whose rows and sum% are those of `go tool pprof -top`.
func TestTopTablePprofView(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	up := ts.mustUpload(t, nil, heap)
	p := loadProfileBytes(t, heap.data)
	top := topOf(t, p, p.DefaultSampleIndex())
	kept, dropped, _ := top.PprofTrim(pprof.DefaultNodeFraction)
	if dropped == 0 {
		t.Fatal("pprof drops nothing from this profile; choose another")
	}

	pg := func(query string) *goquery.Document {
		t.Helper()
		code, _, body := ts.get(t, "/r/"+up.ReportID+query)
		if code != 200 {
			t.Fatalf("GET %s: %d", query, code)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	// checkRows checks every row's percentages, sum% running over the rows shown.
	checkRows := func(doc *goquery.Document, want int, marks map[string]string) {
		t.Helper()
		rows := doc.Find("[data-testid=top-row]")
		if rows.Length() != want {
			t.Fatalf("%d rows, want %d", rows.Length(), want)
		}
		var sum int64
		nMarks := 0
		rows.Each(func(i int, s *goquery.Selection) {
			name, mark := s.Find("[data-testid=name]").Text(), s.Find("[data-testid=inline]").Text()
			if mark != marks[name] {
				t.Errorf("%s: mark %q, pprof prints %q", name, mark, marks[name])
			}
			if mark != "" {
				nMarks++
			}
			flat, _ := strconv.ParseInt(s.AttrOr("data-flat", ""), 10, 64)
			cum, _ := strconv.ParseInt(s.AttrOr("data-cum", ""), 10, 64)
			sum += flat
			cells := s.Find("td")
			for j, w := range map[int]int64{2: flat, 3: sum, 5: cum} {
				if got, want := cells.Eq(j).Text(), strings.TrimSpace(pprof.Percentage(w, top.Total)); got != want {
					t.Errorf("row %d cell %d = %q, pprof prints %q", i+1, j, got, want)
				}
			}
		})
		if nMarks == 0 {
			t.Error("no row has an inline mark; choose a profile with inlined frames")
		}
	}

	si := p.DefaultSampleIndex()
	all := pg("?n=all")
	checkRows(all, len(top.Rows), marksOf(t, p, si, 0))
	note := all.Find("[data-testid=top-dropped]").Text()
	if !strings.Contains(note, "pprof's default -top would drop "+strconv.Itoa(dropped)+" functions (cum ≤ ") {
		t.Errorf("the note says %q, want pprof's %d dropped functions", note, dropped)
	}
	toggle, ok := all.Find("[data-testid=top-toggle]").Attr("href")
	if !ok || !strings.Contains(toggle, "trim=pprof") {
		t.Fatalf("pprof's view link = %q", toggle)
	}

	pv := pg(strings.TrimPrefix(toggle, "/r/"+up.ReportID) + "&n=all")
	checkRows(pv, len(kept), marksOf(t, p, si, pprof.DefaultNodeFraction))
	if back, _ := pv.Find("[data-testid=top-toggle]").Attr("href"); strings.Contains(back, "trim=") {
		t.Errorf("the link back to every function keeps trim: %q", back)
	}
	if code, _, _ := ts.get(t, "/r/"+up.ReportID+"?trim=yes"); code != 400 {
		t.Errorf("trim=yes: %d, want 400", code)
	}
}

// marksOf is p.InlineMarks with pprof's default -edgefraction, failing the test
// on an error.
func marksOf(t *testing.T, p *pprof.Profile, si int, nodeFraction float64) map[string]string {
	t.Helper()
	marks, err := p.InlineMarks(si, nodeFraction, pprof.DefaultEdgeFraction)
	if err != nil {
		t.Fatal(err)
	}
	return marks
}
