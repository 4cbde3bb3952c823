package store_test

import (
	"context"
	"testing"

	"github.com/leakui/leakui/store"
)

// testAnalysisLeaseColumnsDropped: a database that a server which leased
// its heap dump analyses left, with an analysis's owner and lease in the
// reports table, opens with the two columns gone and the report kept, its
// state as it was; the new store writes and reads reports without them.
func testAnalysisLeaseColumnsDropped(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	if err := db.CreateReport(ctx, r, []store.Upload{upload("heap.hprof", randomBytes(2000))}); err != nil {
		t.Fatal(err)
	}
	// The database as the last migration before the drop left it: the
	// columns back, filled as a leasing server filled them, and the drop not
	// recorded as applied.
	int64Type := "INTEGER"
	if db.Backend() == "postgres" {
		int64Type = "BIGINT"
	}
	w := store.WritePool(db)
	for _, stmt := range []string{
		`ALTER TABLE reports ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE reports ADD COLUMN lease_until ` + int64Type + ` NOT NULL DEFAULT 0`,
		`UPDATE reports SET owner = 'replica-a', lease_until = 1764670000000`,
		`DELETE FROM schema_migrations WHERE version = 12`,
	} {
		if _, err := w.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openStore(t, dsn)
	for _, col := range []string{"owner", "lease_until"} {
		if _, err := store.ReadPool(db).ExecContext(ctx, `SELECT `+col+` FROM reports`); err == nil {
			t.Errorf("reports still has the column %s", col)
		}
	}
	got, err := db.Report(ctx, r.ID)
	if err != nil || got.Status != store.ReportAnalyzing || len(got.Artifacts) != 1 {
		t.Fatalf("the report after the migration: %+v, %v", got, err)
	}
	if ids, err := db.AnalyzingReports(ctx); err != nil || len(ids) != 1 || ids[0] != r.ID {
		t.Errorf("analyzing reports after the migration: %v %v, want [%s]", ids, err, r.ID)
	}
	more := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	if err := db.CreateReport(ctx, more, []store.Upload{upload("more.hprof", randomBytes(2001))}); err != nil {
		t.Fatalf("a report stored after the migration: %v", err)
	}
}
