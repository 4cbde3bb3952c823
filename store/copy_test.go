package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// fillSource stores a bit of everything in a SQLite store: reports (one pinned,
// one over two labelled files), artifacts of several chunks, a finished run with
// captures and its report, a run still going, and a resolved incident with a
// report and a run attached and two annotations.
func fillSource(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	a, b, c := upload("heap.pb.gz", randomBytes(2500)), upload("goroutines.txt", randomBytes(700)), upload("app.log", randomBytes(3001))
	b.Label, c.Label = "before", "after"
	for _, r := range []struct {
		rep *store.Report
		up  []store.Upload
	}{
		{&store.Report{Kind: "profile", Params: json.RawMessage(`{"si":"inuse_space"}`), Summary: json.RawMessage(`{"total":1}`)}, []store.Upload{a}},
		{&store.Report{Kind: "diff", Pinned: true}, []store.Upload{b, c}},
	} {
		if err := db.CreateReport(ctx, r.rep, r.up); err != nil {
			t.Fatal(err)
		}
	}
	done := &store.Run{ID: store.NewID(), Workload: "checkpoint", Spec: json.RawMessage(`{"cycles":3}`), Owner: "replica-a", LeaseUntil: time.Now().Add(time.Minute)}
	going := &store.Run{ID: store.NewID(), Workload: "recovery", Owner: "replica-b", LeaseUntil: time.Now().Add(time.Hour)}
	for _, r := range []*store.Run{done, going} {
		if err := db.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	heap1 := upload("heap-1.pb.gz", randomBytes(1200))
	for i, u := range []store.Upload{heap1, a} {
		if err := db.AddRunArtifact(ctx, done.ID, &store.RunArtifact{Role: "heap", Step: int64(i + 1)}, u); err != nil {
			t.Fatal(err)
		}
	}
	rep := &store.Report{Kind: "run", RunID: done.ID}
	if err := db.CreateReport(ctx, rep, []store.Upload{{Name: heap1.Name, SHA256: heap1.SHA256, Label: "heap"}}); err != nil {
		t.Fatal(err)
	}
	done.Status, done.Verdict, done.ReportID, done.Progress = "done", "leak", rep.ID, json.RawMessage(`{"step":3}`)
	if err := db.FinishRun(ctx, done); err != nil {
		t.Fatal(err)
	}
	in := &store.Incident{Slug: "checkout-oom", Title: "Checkout pods OOM-killed", TicketURL: "https://jira.example.com/browse/OPS-1"}
	if err := db.CreateIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]string{{store.EvidenceReport, rep.ID}, {store.EvidenceRun, done.ID}} {
		if err := db.Attach(ctx, in.Slug, e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []store.Annotation{{At: time.Date(2026, 3, 1, 10, 32, 0, 0, time.UTC), Text: "deployed the fix", Author: "ana"},
		{At: time.Date(2026, 3, 1, 11, 5, 0, 0, time.UTC), Text: "restarted broker-3"}} {
		if err := db.Annotate(ctx, in.Slug, &a); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetIncidentState(ctx, in.Slug, store.IncidentResolved); err != nil {
		t.Fatal(err)
	}
	if err := db.DeclareWatches(ctx, []store.Watch{{Name: "checkout", URL: "http://10.0.0.7:6060", Every: time.Minute, Keep: 24},
		{Name: "broker", URL: "jvm", Every: time.Minute, Keep: 8}}); err != nil {
		t.Fatal(err)
	}
	// A JVM that pushes: its snapshot is a bundle; its alerts went to an incident.
	if _, err := db.AddWatchSnapshot(ctx, store.WatchSnapshot{Watch: "broker", Tick: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		TakenAt: time.Date(2026, 3, 1, 10, 0, 3, 0, time.UTC), Bundle: randomBytes(500)}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetWatchIncident(ctx, "broker", in.Slug); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, leak := range [][]byte{nil, randomBytes(90)} {
		s := store.WatchSnapshot{Watch: "checkout", Tick: t0.Add(time.Duration(i) * time.Minute), TakenAt: t0.Add(time.Duration(i)*time.Minute + time.Second),
			Heap: randomBytes(300 + i), Goroutine: randomBytes(200 + i), GoroutineLeak: leak}
		if _, err := db.AddWatchSnapshot(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetWatchState(ctx, "checkout", "", store.WatchState{Verdict: "inconclusive", Suspect: "main.cache", GrowthPerHour: 1234.5,
		Unit: "bytes", Reason: "Too few snapshots.", LastScrape: t0.Add(time.Minute), LastDuration: 80 * time.Millisecond,
		LastError: "GET http://10.0.0.7:6060/debug/pprof/goroutineleak: 500", Failures: 1, NextScrape: t0.Add(2 * time.Minute), Changed: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	fillDeliveries(t, db)
}

// fillDeliveries stores two alert deliveries: one delivered at its second
// attempt, one waiting for its next.
func fillDeliveries(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, d := range []*store.Delivery{
		{ID: "d1", Receiver: "alertmanager", Watch: "checkout", Verdict: "leak", Event: json.RawMessage(`{"watch":"checkout","to":"leak"}`), EventAt: at},
		{ID: "d2", Receiver: "slack", Watch: "checkout", Verdict: "leak", Event: json.RawMessage(`{"watch":"checkout","to":"leak"}`), EventAt: at},
	} {
		if created, err := db.CreateDelivery(ctx, d); err != nil || !created {
			t.Fatalf("delivery %s: created %v (%v)", d.ID, created, err)
		}
		if err := db.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Number: 1, Status: 503, Error: "503 Service Unavailable", State: store.DeliveryRetrying}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := db.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Number: 2, Status: 200, State: store.DeliveryDelivered}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func checksOK(t *testing.T, checks []store.TableCheck, want map[string]int64) {
	t.Helper()
	if len(checks) != len(want) {
		t.Fatalf("%d tables checked, want %d: %+v", len(checks), len(want), checks)
	}
	for _, c := range checks {
		if !c.OK() || c.Source != want[c.Table] || len(c.Missing) > 0 {
			t.Errorf("table %s: %+v, want %d rows all matched", c.Table, c, want[c.Table])
		}
	}
}

func testCopyAndVerify(t *testing.T, dsn string) {
	ctx := context.Background()
	src := openStore(t, t.TempDir())
	dst := openStore(t, dsn)
	store.SetChunkSize(src, 1000)
	store.SetChunkSize(dst, 1000)
	fillSource(t, src)
	// The expected numbers, counted independently of Copy and Verify.
	artifacts, chunks, reports := counts(t, src)[0], counts(t, src)[1], counts(t, src)[2]
	var runs, runArtifacts, reportArtifacts, incidents, incidentReports, incidentRuns, annotations int64
	var bytesTotal int64
	store.ReadPool(src).QueryRow(`SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM run_artifacts), (SELECT COUNT(*) FROM report_artifacts),
		(SELECT SUM(size) FROM artifacts), (SELECT COUNT(*) FROM incidents), (SELECT COUNT(*) FROM incident_reports),
		(SELECT COUNT(*) FROM incident_runs), (SELECT COUNT(*) FROM incident_annotations)`).Scan(&runs, &runArtifacts, &reportArtifacts, &bytesTotal,
		&incidents, &incidentReports, &incidentRuns, &annotations)
	if artifacts != 4 || chunks != 3+1+4+2 || reports != 3 || runs != 2 || runArtifacts != 2 || reportArtifacts != 4 ||
		incidents != 1 || incidentReports != 1 || incidentRuns != 1 || annotations != 2 {
		t.Fatalf("source holds %d artifacts, %d chunks, %d reports, %d runs, %d captures, %d report inputs, %d incidents (%d reports, %d runs, %d annotations)",
			artifacts, chunks, reports, runs, runArtifacts, reportArtifacts, incidents, incidentReports, incidentRuns, annotations)
	}
	want := map[string]int64{"artifacts": int64(artifacts), "artifact_chunks": int64(chunks), "runs": runs,
		"run_artifacts": runArtifacts, "reports": int64(reports), "report_artifacts": reportArtifacts, "derived": 0,
		"incidents": incidents, "incident_reports": incidentReports, "incident_runs": incidentRuns, "incident_annotations": annotations,
		"watches": 2, "watch_snapshots": 3, "alert_deliveries": 2}

	var last store.CopyProgress
	res, err := store.Copy(ctx, dst, src, func(p store.CopyProgress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if res != (store.CopyResult{Artifacts: 4, Runs: 2, Reports: 3, Incidents: 1, Watches: 2, Deliveries: 2, Bytes: bytesTotal}) {
		t.Errorf("copied %+v", res)
	}
	if last.Stage != "alert_deliveries" || last.Done != 2 || last.Total != 2 || last.Bytes != bytesTotal || last.TotalBytes != bytesTotal {
		t.Errorf("last progress %+v", last)
	}
	checks, err := store.Verify(ctx, dst, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	checksOK(t, checks, want)
	checkChunks(t, dst)
	for _, id := range []string{"d1", "d2"} {
		s, _ := src.Delivery(ctx, id)
		d, err := dst.Delivery(ctx, id)
		if err != nil || d.State != s.State || d.Attempts != s.Attempts || d.LastStatus != s.LastStatus || !d.DeliveredAt.Equal(s.DeliveredAt) {
			t.Errorf("delivery %s in the target: %+v (%v), want %+v", id, d, err, s)
		}
	}

	// Copied reports and runs read back as they were.
	srcRecent, _ := src.RecentReports(ctx, 10)
	for _, r := range srcRecent {
		got, err := dst.Report(ctx, r.ID)
		if err != nil || !got.CreatedAt.Equal(r.CreatedAt) || got.Pinned != r.Pinned {
			t.Errorf("report %s in the target: %+v (%v)", r.ID, got, err)
			continue
		}
		for _, a := range got.Artifacts {
			want, _ := src.ReadArtifact(ctx, a.SHA256)
			if b, err := dst.ReadArtifact(ctx, a.SHA256); err != nil || !bytes.Equal(b, want) {
				t.Errorf("artifact %s differs in the target (%v)", a.SHA256[:8], err)
			}
		}
	}

	// Twice copies nothing.
	if res, err := store.Copy(ctx, dst, src, nil); err != nil || res != (store.CopyResult{}) {
		t.Errorf("second copy: %+v (%v)", res, err)
	}
	if got := counts(t, dst); got != [3]int{artifacts, chunks, reports} {
		t.Errorf("target after two copies: %v", got)
	}

	// What the target lost or holds differently is found.
	var sha string
	store.ReadPool(dst).QueryRow(`SELECT sha256 FROM artifacts WHERE size = 2500`).Scan(&sha)
	for _, q := range []string{
		`UPDATE artifact_chunks SET data = ` + map[string]string{"sqlite": `zeroblob(1000)`, "postgres": `decode(repeat('00', 1000), 'hex')`}[dst.Backend()] +
			` WHERE sha256 = '` + sha + `' AND seq = 1`,
		`UPDATE reports SET summary = '{"total":2}' WHERE kind = 'profile'`,
		`DELETE FROM run_artifacts WHERE seq = 1`,
		`UPDATE incident_annotations SET text = 'restarted broker-4' WHERE text = 'restarted broker-3'`,
		`UPDATE watch_snapshots SET goroutineleak = NULL WHERE goroutineleak IS NOT NULL`,
		`UPDATE alert_deliveries SET attempts = 3 WHERE id = 'd2'`,
	} {
		if _, err := store.WritePool(dst).Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	checks, err = store.Verify(ctx, dst, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]bool{}
	for _, c := range checks {
		if !c.OK() {
			bad[c.Table] = true
			if len(c.Missing) != 1 || c.Source-c.Matched > 2 {
				t.Errorf("table %s: %+v", c.Table, c)
			}
		}
	}
	if len(bad) != 6 || !bad["artifacts"] || !bad["reports"] || !bad["run_artifacts"] || !bad["incident_annotations"] || !bad["watch_snapshots"] || !bad["alert_deliveries"] {
		t.Errorf("tables found different: %v, want artifacts, reports, run_artifacts, incident_annotations, watch_snapshots and alert_deliveries", bad)
	}
}

// testCopyDerived copies heap dump reports: one done with its index (a derived
// blob of 26 chunks), one failed with its reason, one still analyzing under a
// lease. The target holds them with their state and the index's very bytes
// (Verify agrees), in chunks; a second Copy copies
// nothing; an index the target lost (an interrupted copy) is copied again.
func testCopyDerived(t *testing.T, dsn string) {
	ctx := context.Background()
	src := openStore(t, t.TempDir())
	dst := openStore(t, dsn)
	store.SetChunkSize(src, 1000)
	store.SetChunkSize(dst, 1000)
	done := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	failed := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	going := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	for i, r := range []*store.Report{done, failed, going} {
		if err := src.CreateReport(ctx, r, []store.Upload{upload(fmt.Sprintf("%d.hprof", i), randomBytes(1500+i))}); err != nil {
			t.Fatal(err)
		}
	}
	index := randomBytes(25_432)
	if _, err := src.PutDerived(ctx, done.ID, "hprof-index", bytes.NewReader(index)); err != nil {
		t.Fatal(err)
	}
	if err := src.SetReportState(ctx, done.ID, store.ReportReady, "", json.RawMessage(`{"objects":3}`)); err != nil {
		t.Fatal(err)
	}
	if err := src.SetReportState(ctx, failed.ID, store.ReportFailed, "422 heap.hprof: truncated", nil); err != nil {
		t.Fatal(err)
	}
	res, err := store.Copy(ctx, dst, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reports != 3 || res.Derived != 1 || res.DerivedBytes != int64(len(index)) {
		t.Errorf("copied %+v, want 3 reports and 1 derived blob of %d bytes", res, len(index))
	}
	for _, r := range []*store.Report{done, failed, going} {
		want, _ := src.Report(ctx, r.ID)
		got, err := dst.Report(ctx, r.ID)
		if err != nil || got.Status != want.Status || got.Error != want.Error {
			t.Errorf("report %s in the target: %q %q, want %q %q (%v)", r.ID, got.Status, got.Error,
				want.Status, want.Error, err)
		}
	}
	readIndex := func() []byte {
		t.Helper()
		b, err := dst.OpenDerived(ctx, done.ID, "hprof-index")
		if err != nil {
			t.Fatalf("the target has no index: %v", err)
		}
		defer b.Close()
		p := make([]byte, b.Size())
		if _, err := b.ReadAt(p, 0); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := readIndex(); !bytes.Equal(got, index) {
		t.Errorf("the copied index differs (%d bytes, want %d)", len(got), len(index))
	}
	if got := derivedChunkRows(t, dst); got != 26 { // 25,432 bytes in chunks of 1,000
		t.Errorf("%d chunk rows in the target, want 26", got)
	}
	checks, err := store.Verify(ctx, dst, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	checksOK(t, checks, map[string]int64{"artifacts": 3, "artifact_chunks": 6, "runs": 0, "run_artifacts": 0, "reports": 3, "report_artifacts": 3, "derived": 1,
		"incidents": 0, "incident_reports": 0, "incident_runs": 0, "incident_annotations": 0, "watches": 0, "watch_snapshots": 0, "alert_deliveries": 0})
	if res, err := store.Copy(ctx, dst, src, nil); err != nil || res != (store.CopyResult{}) {
		t.Errorf("second copy: %+v (%v)", res, err)
	}
	// An interrupted copy: the target lost the index; Verify finds it, Copy mends it.
	if _, err := store.WritePool(dst).Exec(`DELETE FROM derived`); err != nil {
		t.Fatal(err)
	}
	checks, _ = store.Verify(ctx, dst, src, nil)
	for _, c := range checks {
		if c.Table == "derived" && (c.OK() || len(c.Missing) != 1) {
			t.Errorf("Verify after the index was lost: %+v", c)
		}
	}
	if res, err := store.Copy(ctx, dst, src, nil); err != nil || res.Derived != 1 || res.Reports != 0 {
		t.Errorf("copy after the index was lost: %+v (%v)", res, err)
	}
	if got := readIndex(); !bytes.Equal(got, index) {
		t.Error("the index copied again differs")
	}
}
