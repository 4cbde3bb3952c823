package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/leakui/leakui/store"
)

// TestHeadlines runs the headline columns' test on every backend.
func TestHeadlines(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			testHeadlines(t, b.dsn(t))
		})
	}
}

// testHeadliner says a report's verdict from its summary's "verdict", its line
// from its kind.
func testHeadliner(r *store.Report) store.Headline {
	var s struct {
		Verdict string `json:"verdict"`
		Run     string `json:"run"`
	}
	json.Unmarshal(r.Summary, &s)
	return store.Headline{Verdict: s.Verdict, Line: "a " + r.Kind + " report", Title: s.Run}
}

// testHeadlines stores reports as a store of schema 6 did (without headline
// columns), migrates it (the migration fills the titles and sizes from the
// inputs), backfills the verdicts and lines with a Headliner, and checks that
// a new report and a new summary get their headline when stored, and that
// Copy and Verify carry the columns.
func testHeadlines(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	a, b := upload("a.pb.gz", randomBytes(100)), upload("b.txt", randomBytes(50))
	leak := &store.Report{Kind: "profile", Summary: json.RawMessage(`{"verdict":"leak"}`)}
	if err := db.CreateReport(ctx, leak, []store.Upload{a, b}); err != nil {
		t.Fatal(err)
	}
	plain := &store.Report{Kind: "log", Summary: json.RawMessage(`{}`)}
	if err := db.CreateReport(ctx, plain, []store.Upload{b}); err != nil {
		t.Fatal(err)
	}
	// Back to schema 6: the columns and the migration's record go.
	w := store.WritePool(db)
	for _, stmt := range []string{"DROP INDEX reports_headline_state",
		"ALTER TABLE reports DROP COLUMN title", "ALTER TABLE reports DROP COLUMN verdict", "ALTER TABLE reports DROP COLUMN headline",
		"ALTER TABLE reports DROP COLUMN input_bytes", "ALTER TABLE reports DROP COLUMN headline_state",
		"DELETE FROM schema_migrations WHERE version = 7"} {
		if _, err := w.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()
	db = openStore(t, dsn)
	got, err := db.Report(ctx, leak.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.Headline{Title: "a.pb.gz", InputBytes: 150}); got.Headline != want {
		t.Errorf("after the migration: %+v, want %+v", got.Headline, want)
	}
	if n, err := db.BackfillHeadlines(ctx); err == nil {
		t.Errorf("a backfill without a Headliner filled %d", n)
	}
	db.SetHeadliner(testHeadliner)
	if n, err := db.BackfillHeadlines(ctx); err != nil || n != 2 {
		t.Fatalf("backfilled %d, %v; want the 2 reports", n, err)
	}
	if n, err := db.BackfillHeadlines(ctx); err != nil || n != 0 {
		t.Fatalf("backfilled %d again, %v", n, err)
	}
	got, _ = db.Report(ctx, leak.ID)
	if want := (store.Headline{Title: "a.pb.gz", Verdict: "leak", Line: "a profile report", InputBytes: 150, Set: true}); got.Headline != want {
		t.Errorf("after the backfill: %+v, want %+v", got.Headline, want)
	}
	rs, err := db.SearchReports(ctx, store.ReportSearch{Text: "leak", Limit: 10})
	if err != nil || len(rs) != 1 || rs[0].ID != leak.ID || rs[0].Headline != got.Headline || rs[0].Summary != nil {
		t.Fatalf("search by verdict: %+v, %v", rs, err)
	}

	// A new report gets its headline when it is stored, and a new summary its
	// new one (its title stays its input's unless the Headliner names one).
	analyzing := &store.Report{Kind: "jvm-heapdump", Summary: json.RawMessage(`{}`), Status: store.ReportAnalyzing}
	if err := db.CreateReport(ctx, analyzing, []store.Upload{a}); err != nil {
		t.Fatal(err)
	}
	if want := (store.Headline{Title: "a.pb.gz", Line: "a jvm-heapdump report", InputBytes: 100, Set: true}); analyzing.Headline != want {
		t.Errorf("a new report: %+v, want %+v", analyzing.Headline, want)
	}
	if err := db.SetReportState(ctx, analyzing.ID, store.ReportReady, "", json.RawMessage(`{"verdict":"no leak"}`)); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Report(ctx, analyzing.ID)
	if got.Headline.Verdict != "no leak" || got.Headline.Title != "a.pb.gz" {
		t.Errorf("after its analysis: %+v", got.Headline)
	}
	if err := db.SetReportState(ctx, analyzing.ID, store.ReportReady, "", json.RawMessage(`{"run":"checkpoint leaky"}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.Report(ctx, analyzing.ID); got.Headline.Title != "checkpoint leaky" {
		t.Errorf("a title the Headliner names: %+v", got.Headline)
	}

	// Copy carries the columns as they are, and Verify compares them.
	dst := openStore(t, t.TempDir())
	if _, err := store.Copy(ctx, dst, db, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{leak.ID, plain.ID, analyzing.ID} {
		want, _ := db.Report(ctx, id)
		if got, err := dst.Report(ctx, id); err != nil || got.Headline != want.Headline {
			t.Errorf("copied report %s: %+v, want %+v (%v)", id, got.Headline, want.Headline, err)
		}
	}
	checks, err := store.Verify(ctx, dst, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.OK() {
			t.Errorf("verify: %+v", c)
		}
	}
	if _, err := store.WritePool(dst).ExecContext(ctx, "UPDATE reports SET verdict = 'changed' WHERE id = '"+leak.ID+"'"); err != nil {
		t.Fatal(err)
	}
	checks, _ = store.Verify(ctx, dst, db, nil)
	for _, c := range checks {
		if c.Table == "reports" && c.OK() {
			t.Errorf("verify missed a changed verdict: %+v", c)
		}
	}
}
