package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/leakui/leakui/store"
)

// testAnalyzingReports checks that the reports still analyzing are listed
// (and no other), and that a report leaves the list once its analysis is done
// or has failed.
func testAnalyzingReports(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	var ids []string
	for i, name := range []string{"a.hprof", "b.hprof", "c.hprof"} {
		rep := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
		if err := db.CreateReport(ctx, rep, []store.Upload{upload(name, randomBytes(100+i))}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rep.ID)
	}
	ready := &store.Report{Kind: "jvm-heapdump"}
	if err := db.CreateReport(ctx, ready, []store.Upload{upload("d.hprof", randomBytes(99))}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.AnalyzingReports(ctx); err != nil || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(ids))) {
		t.Fatalf("AnalyzingReports = %v, %v; want %v", got, err, ids)
	}
	if err := db.SetReportState(ctx, ids[0], store.ReportReady, "", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.SetReportState(ctx, ids[2], store.ReportFailed, "422 broken", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := db.AnalyzingReports(ctx); err != nil || !slices.Equal(got, ids[1:2]) {
		t.Fatalf("once one is done and one failed, AnalyzingReports = %v, %v; want %v", got, err, ids[1:2])
	}
}
