package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
)

// fileUpload is an Upload of real bytes.
func fileUpload(name string, data []byte, kind string) store.Upload {
	sum := sha256.Sum256(data)
	return store.Upload{
		Name: name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Kind: kind,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

// sqliteSource makes a SQLite store with real files: a heap profile, a log of
// more than one chunk (five real logs end to end), a pinned report over both, and
// a finished lab run with two captures and its report. It returns the log's bytes.
func sqliteSource(t *testing.T, dir string) []byte {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	heap, err := os.ReadFile(fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var log []byte
	for _, name := range []string{"loghub-OpenStack_2k.log", "loghub-Hadoop_2k.log", "loghub-HDFS_2k.log", "loghub-Zookeeper_2k.log", "loghub-Spark_2k.log"} {
		b, err := os.ReadFile(fixtures.Path(t, "logs", name))
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, b...)
	}
	if len(log) <= 1<<20 {
		t.Fatalf("the log is %d bytes, want more than one chunk", len(log))
	}
	h, l := fileUpload("heap.pb.gz", heap, "profile"), fileUpload("all.log", log, "log")
	if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{h}); err != nil {
		t.Fatal(err)
	}
	logReport := &store.Report{Kind: "log", Pinned: true, Summary: json.RawMessage(`{"lines":10000}`)}
	if err := db.CreateReport(ctx, logReport, []store.Upload{l, h}); err != nil {
		t.Fatal(err)
	}
	run := &store.Run{ID: store.NewID(), Workload: "checkpoint", Spec: json.RawMessage(`{"cycles":4}`), Owner: "a", LeaseUntil: time.Now().Add(time.Minute)}
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	dump, err := os.ReadFile(fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []store.Upload{h, fileUpload("goroutine-0001.txt", dump, "goroutines")} {
		if err := db.AddRunArtifact(ctx, run.ID, &store.RunArtifact{Role: u.Kind, Step: 1}, u); err != nil {
			t.Fatal(err)
		}
	}
	run.Status, run.Verdict = "done", "leak"
	if err := db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	in := &store.Incident{Slug: "openstack-oom", Title: "OpenStack API OOM", TicketURL: "https://jira.example.com/browse/OPS-7"}
	if err := db.CreateIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]string{{store.EvidenceReport, logReport.ID}, {store.EvidenceRun, run.ID}} {
		if err := db.Attach(ctx, in.Slug, e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Annotate(ctx, in.Slug, &store.Annotation{At: time.Date(2026, 3, 1, 10, 32, 0, 0, time.UTC), Text: "deployed the fix", Author: "ana"}); err != nil {
		t.Fatal(err)
	}
	// A watch with its state and two snapshots, one with a goroutineleak
	// profile.
	if err := db.DeclareWatches(ctx, []store.Watch{{Name: "api", URL: "http://127.0.0.1:6060", Every: time.Minute, Keep: 24}}); err != nil {
		t.Fatal(err)
	}
	for i, leak := range [][]byte{nil, dump} {
		s := store.WatchSnapshot{Watch: "api", Tick: time.Date(2026, 3, 1, 10, i, 0, 0, time.UTC), TakenAt: time.Date(2026, 3, 1, 10, i, 1, 0, time.UTC),
			Heap: heap, Goroutine: dump, GoroutineLeak: leak}
		if _, err := db.AddWatchSnapshot(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetWatchState(ctx, "api", "", store.WatchState{Verdict: "inconclusive", Suspect: "main.leak", GrowthPerHour: 1.5e6, Unit: "bytes",
		LastScrape: time.Now(), LastDuration: 120 * time.Millisecond, Changed: time.Now()}); err != nil {
		t.Fatal(err)
	}
	d := &store.Delivery{ID: "d1", Receiver: "alertmanager", Watch: "openstack", Verdict: "leak",
		Event: json.RawMessage(`{"watch":"openstack","to":"leak"}`), EventAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	if _, err := db.CreateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Number: 1, Status: 200, State: store.DeliveryDelivered}); err != nil {
		t.Fatal(err)
	}
	return log
}

// migrateTargets are the stores a migration is tested into: another SQLite
// directory, and PostgreSQL when a test database is configured.
func migrateTargets(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return t.TempDir() },
		"postgres": func(t *testing.T) string { return pgtest.DSN(t) },
	}
}

func TestMigrate(t *testing.T) {
	for name, target := range migrateTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testMigrate(t, target(t))
		})
	}
}

func testMigrate(t *testing.T, to string) {
	ctx := context.Background()
	from := t.TempDir()
	log := sqliteSource(t, from)
	// The expected rows, counted with SQL in the source itself.
	src, err := sql.Open("sqlite", "file:"+from+"/"+sqlite.File+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, table := range []string{"artifacts", "artifact_chunks", "runs", "run_artifacts", "reports", "report_artifacts",
		"incidents", "incident_reports", "incident_runs", "incident_annotations", "watches", "watch_snapshots", "alert_deliveries"} {
		var n int
		if err := src.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		want[table] = n
	}
	src.Close()
	if want["artifacts"] != 3 || want["artifact_chunks"] != 4 || want["reports"] != 2 || want["runs"] != 1 ||
		want["incidents"] != 1 || want["incident_reports"] != 1 || want["incident_runs"] != 1 || want["incident_annotations"] != 1 ||
		want["watches"] != 1 || want["watch_snapshots"] != 2 || want["alert_deliveries"] != 1 {
		t.Fatalf("source rows %v", want)
	}

	migrate := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"migrate"}, args...), stdio{strings.NewReader(""), &out, &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := migrate("-from", from, "-to", to, "-progress", "always")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "copied 3 artifacts") || !strings.Contains(out, "1 runs, 2 reports") || !strings.Contains(out, "1 incidents, 1 watches, 1 alert deliveries from") || !strings.Contains(out, "count check ok") {
		t.Errorf("stdout:\n%s", out)
	}
	for table, n := range want {
		if !regexp.MustCompile(`(?m)^\s*` + table + `\s+` + strconv.Itoa(n) + `\s+` + strconv.Itoa(n) + `\b`).MatchString(out) {
			t.Errorf("no line %q with %d and %d in:\n%s", table, n, n, out)
		}
	}
	for _, bar := range []string{"\rcopy artifacts [##############################] 3/3", "\rcheck reports   [##############################] 2/2"} {
		if !strings.Contains(errs, bar) {
			t.Errorf("stderr has no %q:\n%q", bar, errs)
		}
	}

	// Running it again copies nothing and checks the same.
	code, out, _ = migrate("-from", from, "-to", to, "-progress", "never")
	if code != 0 || !strings.Contains(out, "copied 0 artifacts (0 B), 0 runs, 0 reports") || !strings.Contains(out, "count check ok") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}

	// The target serves the same bytes.
	dst, err := openStore(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	sum := sha256.Sum256(log)
	logSHA := hex.EncodeToString(sum[:])
	got, err := dst.ReadArtifact(ctx, logSHA)
	if err != nil || !bytes.Equal(got, log) {
		t.Errorf("the log read back from the target differs (%v)", err)
	}

	// A target that lost an artifact (and so the report over it, and the
	// report's place in the incident) gets them back.
	if n, err := dst.DeleteArtifact(ctx, logSHA); err != nil || n != 1 {
		t.Fatalf("deleted %d reports (%v)", n, err)
	}
	code, out, _ = migrate("-from", from, "-to", to, "-progress", "never")
	if code != 0 || !strings.Contains(out, "copied 1 artifacts (1.7 MB), 0 runs, 1 reports") ||
		!strings.Contains(out, ", 1 incidents, 0 watches, 0 alert deliveries from") || !strings.Contains(out, "count check ok") {
		t.Errorf("after losing the log: exit %d\n%s", code, out)
	}

	// A target that holds a row differently fails the check, and says where.
	driver, dsn := "sqlite", "file:"+to+"/"+sqlite.File
	if dst.Backend() == "postgres" {
		driver, dsn = "pgx", to
	}
	tamper, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer tamper.Close()
	if _, err := tamper.Exec(`UPDATE reports SET summary = '{"lines":1}' WHERE pinned = 1`); err != nil {
		t.Fatal(err)
	}
	code, out, _ = migrate("-from", from, "-to", to, "-progress", "never")
	if code != 1 || !strings.Contains(out, "count check FAILED: 1 of 14 tables differ") ||
		!regexp.MustCompile(`(?m)^\s*reports\s+2\s+1\s+differ: [a-z2-7]{26}$`).MatchString(out) {
		t.Errorf("after changing a report: exit %d\n%s", code, out)
	}
}

func TestMigrateUsage(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"-from", empty}, 2, "-to is required"},
		{[]string{"-from", empty, "-to", empty}, 2, "the same store"},
		{[]string{"-from", empty, "-to", t.TempDir()}, 1, "no leakui store in " + empty},
		{[]string{"-to", t.TempDir(), "-progress", "sometimes"}, 2, "-progress must be"},
		{[]string{"-from", empty, "-to", "x", "extra"}, 2, "unexpected argument"},
	} {
		var out, errb bytes.Buffer
		t.Setenv("LEAKUI_DB", "")
		code := run(context.Background(), append([]string{"migrate"}, tc.args...), stdio{strings.NewReader(""), &out, &errb})
		if code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("migrate %v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.err)
		}
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		p    store.CopyProgress
		want string
	}{
		{store.CopyProgress{Stage: "artifacts", Done: 0, Total: 4, TotalBytes: 2048}, "copy artifacts [..........] 0/4  0 B of 2.0 kB"},
		{store.CopyProgress{Stage: "artifacts", Done: 1, Total: 4, Bytes: 1024, TotalBytes: 2048}, "copy artifacts [##........] 1/4  1.0 kB of 2.0 kB"},
		{store.CopyProgress{Stage: "runs", Done: 0, Total: 0}, "copy runs      [##########] 0/0  0 B of 0 B"},
	} {
		if got := progressLine("copy", tc.p, 10); got != tc.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
