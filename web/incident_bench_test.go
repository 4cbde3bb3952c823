package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
)

// BenchmarkIncidentPage serves the page of an incident with a full page of
// evidence (store.MaxIncidentPage reports of one real goroutine dump) and
// reports the first view's time (every report loaded and judged) beside the
// time of the views after it (what evidence says is cached).
func BenchmarkIncidentPage(b *testing.B) {
	db, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err := NewServer(Config{Store: db, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	if err := db.CreateIncident(ctx, &store.Incident{Slug: "big", Title: "a full page of dumps"}); err != nil {
		b.Fatal(err)
	}
	rec := postFiles(b, srv, map[string]string{"label": "incident:big"}, fixtureFile(b, "goroutines", "goprofnotes-snap1-debug2.txt"))
	if rec.Code != http.StatusCreated {
		b.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	evs, err := db.IncidentEvidence(ctx, "big", "", 1)
	if err != nil || len(evs) != 1 {
		b.Fatalf("the evidence: %v", err)
	}
	rep, err := db.Report(ctx, evs[0].ID)
	if err != nil {
		b.Fatal(err)
	}
	a := rep.Artifacts[0]
	for i := 1; i < store.MaxIncidentPage; i++ {
		r := store.Report{Kind: rep.Kind, Params: rep.Params, Summary: rep.Summary}
		if err := db.CreateReport(ctx, &r, []store.Upload{{Name: a.Name, Label: "incident:big", SHA256: a.SHA256, Size: a.Size, Kind: a.Kind, Format: a.Format}}); err != nil {
			b.Fatal(err)
		}
	}
	view := func() int {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/i/big", nil))
		if w.Code != http.StatusOK {
			b.Fatalf("GET /i/big: %d %s", w.Code, w.Body)
		}
		return w.Body.Len()
	}
	start := time.Now()
	size := view()
	first := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		view()
	}
	b.ReportMetric(float64(first.Milliseconds()), "first-view-ms")
	b.ReportMetric(float64(size), "page-bytes")
}
