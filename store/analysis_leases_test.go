package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// testAnalysisLeases checks the leases of background analyses: a report created
// with a live lease is not another server's to take up; renewing keeps it so;
// once the lease ends (or its owner releases it) exactly one other server claims
// it; a report that is done is no one's.
func testAnalysisLeases(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	now := time.Now()
	live := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing, Owner: "a", LeaseUntil: now.Add(time.Minute)}
	if err := db.CreateReport(ctx, live, []store.Upload{upload("a.hprof", randomBytes(100))}); err != nil {
		t.Fatal(err)
	}
	orphan := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing} // no owner, no lease
	if err := db.CreateReport(ctx, orphan, []store.Upload{upload("b.hprof", randomBytes(100))}); err != nil {
		t.Fatal(err)
	}
	if rep, err := db.Report(ctx, live.ID); err != nil || rep.Owner != "a" || rep.LeaseUntil.UnixMilli() != now.Add(time.Minute).UnixMilli() {
		t.Fatalf("stored owner %q lease %v (%v)", rep.Owner, rep.LeaseUntil, err)
	}
	if ids, err := db.ExpiredAnalyses(ctx, now); err != nil || !slices.Equal(ids, []string{orphan.ID}) {
		t.Fatalf("ExpiredAnalyses = %v, %v; want only the report without a lease", ids, err)
	}
	if ok, err := db.ClaimReportAnalysis(ctx, live.ID, "b", now.Add(time.Minute), now); err != nil || ok {
		t.Fatalf("b claimed a's live report: %v %v", ok, err)
	}
	if ok, err := db.ClaimReportAnalysis(ctx, live.ID, "a", now.Add(2*time.Minute), now); err != nil || !ok {
		t.Fatalf("a could not claim its own report again: %v %v", ok, err)
	}
	if n, err := db.RenewReportLeases(ctx, "a", now.Add(3*time.Minute)); err != nil || n != 1 {
		t.Fatalf("RenewReportLeases = %d, %v", n, err)
	}
	// a stops renewing: three minutes later its lease has ended.
	later := now.Add(3*time.Minute + time.Second)
	if ids, _ := db.ExpiredAnalyses(ctx, later); !slices.Contains(ids, live.ID) {
		t.Fatalf("the ended lease is not listed: %v", ids)
	}
	if ok, err := db.ClaimReportAnalysis(ctx, live.ID, "b", later.Add(time.Minute), later); err != nil || !ok {
		t.Fatalf("b could not take up the ended lease: %v %v", ok, err)
	}
	if ok, _ := db.ClaimReportAnalysis(ctx, live.ID, "c", later.Add(time.Minute), later); ok {
		t.Fatal("c took the report b had just claimed")
	}
	if rep, _ := db.Report(ctx, live.ID); rep.Owner != "b" {
		t.Errorf("owner %q after b's claim", rep.Owner)
	}
	// b stops: released, the report is anyone's at once.
	if n, err := db.ReleaseReportLeases(ctx, "b"); err != nil || n != 1 {
		t.Fatalf("ReleaseReportLeases = %d, %v", n, err)
	}
	if ok, _ := db.ClaimReportAnalysis(ctx, live.ID, "c", now.Add(time.Minute), now); !ok {
		t.Error("c could not take up the released report")
	}
	if err := db.SetReportState(ctx, live.ID, store.ReportReady, "", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.ClaimReportAnalysis(ctx, live.ID, "c", later.Add(time.Hour), later.Add(time.Hour)); ok {
		t.Error("a report that is done was claimed")
	}
	if ids, _ := db.ExpiredAnalyses(ctx, later.Add(time.Hour)); slices.Contains(ids, live.ID) {
		t.Errorf("a report that is done is listed: %v", ids)
	}
}
