package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// backend is one database the suite runs against: dsn returns a fresh, empty
// store's DSN for one test (a temporary directory, or a PostgreSQL schema).
type backend struct {
	name string
	dsn  func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return t.TempDir() }},
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
}

// suite is every storage test; each runs once per backend, in parallel.
var suite = []struct {
	name string
	run  func(t *testing.T, dsn string)
}{
	{"ReportRoundTripAndDedupe", testReportRoundTripAndDedupe},
	{"ReopenKeepsReports", testReopenKeepsReports},
	{"FailedWriteLeavesNothing", testFailedWriteLeavesNothing},
	{"NotFound", testNotFound},
	{"DeleteArtifactAndRetention", testDeleteArtifactAndRetention},
	{"ArtifactStreamsChunkByChunk", testArtifactStreamsChunkByChunk},
	{"DeletedWhileReadingIsAnError", testDeletedWhileReadingIsAnError},
	{"TextIsStoredAlike", testTextIsStoredAlike},
	{"ConcurrentOpensMigrateOnce", testConcurrentOpensMigrateOnce},
	{"ConcurrentUploadsOfTheSameBytes", testConcurrentUploadsOfTheSameBytes},
	{"RetentionRacingUploads", testRetentionRacingUploads},
	{"RunLifecycle", testRunLifecycle},
	{"InterruptRuns", testInterruptRuns},
	{"RunArtifactNeedsARun", testRunArtifactNeedsARun},
	{"ConcurrentCaptures", testConcurrentCaptures},
	{"CopyAndVerify", testCopyAndVerify},
	{"Sessions", testSessions},
	{"DerivedBlobs", testDerivedBlobs},
	{"DerivedGoneWithArtifact", testDerivedGoneWithArtifact},
	{"AnalyzingReports", testAnalyzingReports},
	{"CopyDerived", testCopyDerived},
	{"StoredBytes", testStoredBytes},
	{"AlertDeliveries", testAlertDeliveries},
	{"Watches", testWatches},
	{"WatchSnapshotsKeepTheNewest", testWatchSnapshotsKeepTheNewest},
	{"WatchBundles", testWatchBundles},
	{"AnalysisLeaseColumnsDropped", testAnalysisLeaseColumnsDropped},
}

func TestStore(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range suite {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.run(t, b.dsn(t))
				})
			}
		})
	}
}

// migrationFiles is the number of migrations in store/schema.
func migrationFiles(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("schema", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations in store/schema: %v", err)
	}
	return len(files)
}

// open opens the store at dsn with the driver that serves it, as cmd/leakui
// does: PostgreSQL for a postgres:// URL, else SQLite in a directory.
func open(ctx context.Context, dsn string) (*store.DB, error) {
	if postgres.IsDSN(dsn) {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn)
}

// openStore opens dsn and closes it when the test ends.
func openStore(t *testing.T, dsn string) *store.DB {
	t.Helper()
	db, err := open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// upload makes an Upload of the given bytes.
func upload(name string, data []byte) store.Upload {
	sum := sha256.Sum256(data)
	return store.Upload{
		Name: name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Kind: "profile",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func counts(t *testing.T, db *store.DB) [3]int {
	t.Helper()
	a, c, r, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return [3]int{a, c, r}
}

// checkChunks fails the test unless every artifact's chunks add up to its size,
// counted by the database itself.
func checkChunks(t *testing.T, db *store.DB) {
	t.Helper()
	rows, err := store.ReadPool(db).Query(`SELECT a.sha256, a.size, COALESCE(SUM(LENGTH(c.data)), 0), COUNT(c.seq), COALESCE(MAX(c.seq), -1)
		FROM artifacts a LEFT JOIN artifact_chunks c ON c.sha256 = a.sha256 GROUP BY a.sha256, a.size`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sha string
		var size, stored, n, last int64
		if err := rows.Scan(&sha, &size, &stored, &n, &last); err != nil {
			t.Fatal(err)
		}
		if stored != size || last != n-1 {
			t.Errorf("artifact %s: %d bytes in %d chunks (last seq %d), recorded size %d", sha[:8], stored, n, last, size)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func testReportRoundTripAndDedupe(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	store.SetChunkSize(db, 1000) // several chunks per artifact
	data := randomBytes(4321)
	r1 := &store.Report{Kind: "profile", Params: json.RawMessage(`{"si":"inuse_space"}`), Summary: json.RawMessage(`{"total":5}`)}
	if err := db.CreateReport(ctx, r1, []store.Upload{upload("heap.pb.gz", data)}); err != nil {
		t.Fatal(err)
	}
	if !store.ValidID(r1.ID) {
		t.Fatalf("report id %q is not a valid id", r1.ID)
	}
	r2 := &store.Report{Kind: "profile"}
	if err := db.CreateReport(ctx, r2, []store.Upload{upload("again.pb.gz", data)}); err != nil {
		t.Fatal(err)
	}
	if r1.ID == r2.ID {
		t.Fatal("two reports got the same id")
	}
	if got := counts(t, db); got != [3]int{1, 5, 2} {
		t.Errorf("artifacts, chunks, reports = %v; want one artifact of 5 chunks and 2 reports", got)
	}
	checkChunks(t, db)
	got, err := db.Report(ctx, r1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != "profile" || string(got.Params) != `{"si":"inuse_space"}` || string(got.Summary) != `{"total":5}` ||
		len(got.Artifacts) != 1 || got.Artifacts[0].Name != "heap.pb.gz" || got.Artifacts[0].Size != 4321 {
		t.Errorf("report read back = %+v", got)
	}
	if !got.CreatedAt.Equal(r1.CreatedAt) {
		t.Errorf("created at %v, stored as %v", got.CreatedAt, r1.CreatedAt)
	}
	back, err := db.ReadArtifact(ctx, got.Artifacts[0].SHA256)
	if err != nil || !bytes.Equal(back, data) {
		t.Errorf("artifact bytes differ (err %v)", err)
	}
	second, _ := db.Report(ctx, r2.ID)
	if second.Artifacts[0].Name != "again.pb.gz" {
		t.Errorf("the second upload's name is %q", second.Artifacts[0].Name)
	}
	recent, err := db.RecentReports(ctx, 10)
	if err != nil || len(recent) != 2 || recent[0].Artifacts[0].Name == "" {
		t.Errorf("recent reports %+v (%v)", recent, err)
	}
}

func testReopenKeepsReports(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := &store.Report{Kind: "profile"}
	data := randomBytes(3<<20 + 5) // four chunks of the default size
	if err := db.CreateReport(ctx, r, []store.Upload{upload("a", data)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openStore(t, dsn)
	got, err := db.Report(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := db.ReadArtifact(ctx, got.Artifacts[0].SHA256); !bytes.Equal(b, data) {
		t.Error("artifact bytes changed across a reopen")
	}
	if got := counts(t, db); got != [3]int{1, 4, 1} {
		t.Errorf("artifacts, chunks, reports = %v", got)
	}
	var versions int
	if err := store.ReadPool(db).QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil || versions != migrationFiles(t) {
		t.Errorf("%d migrations recorded (%v), want %d", versions, err, migrationFiles(t))
	}
}

// failingReader returns some bytes, then an error, as a dropped upload does.
type failingReader struct{ left int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.left)
	f.left -= n
	return n, nil
}

func testFailedWriteLeavesNothing(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	store.SetChunkSize(db, 100)
	good := upload("good", randomBytes(1000))
	badHash := upload("bad-hash", randomBytes(500))
	badHash.SHA256 = good.SHA256[:63] + "0"
	if badHash.SHA256 == good.SHA256 {
		badHash.SHA256 = good.SHA256[:63] + "1"
	}
	broken := upload("broken", randomBytes(800))
	broken.Open = func() (io.ReadCloser, error) { return io.NopCloser(&failingReader{left: 450}), nil }
	for _, tc := range []struct {
		name    string
		uploads []store.Upload
		want    error
	}{
		{"hash mismatch after a good artifact", []store.Upload{good, badHash}, store.ErrIntegrity},
		{"reader fails mid-artifact", []store.Upload{good, broken}, nil},
		{"no sha256", []store.Upload{{Name: "x", Kind: "profile", Open: good.Open}}, store.ErrInvalid},
		{"no kind", []store.Upload{good, {Name: "x", SHA256: badHash.SHA256, Open: good.Open}}, store.ErrInvalid},
		{"refers to a missing artifact", []store.Upload{good, {Name: "gone", SHA256: strings.Repeat("ab", 32)}}, store.ErrNotFound},
	} {
		err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, tc.uploads)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
		if got := counts(t, db); got != [3]int{0, 0, 0} {
			t.Errorf("%s: left artifacts, chunks, reports = %v", tc.name, got)
		}
	}
	for _, r := range []*store.Report{{}, {Kind: "profile", Params: json.RawMessage(`{"a":`)}} {
		if err := db.CreateReport(ctx, r, []store.Upload{good}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("report %+v: %v, want ErrInvalid", r, err)
		}
	}
}

func testNotFound(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	for _, id := range []string{"", "short", "../../etc/passwd", "x' OR '1'='1", store.NewID()} {
		if _, err := db.Report(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Report(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := db.Run(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Run(%q): %v, want ErrNotFound", id, err)
		}
		if err := db.SetPinned(ctx, id, true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetPinned(%q): %v, want ErrNotFound", id, err)
		}
	}
	for _, sha := range []string{"00", strings.Repeat("0", 64)} {
		if _, err := db.OpenArtifact(ctx, sha); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("OpenArtifact(%q): %v", sha, err)
		}
		if _, err := db.DeleteArtifact(ctx, sha); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteArtifact(%q): %v", sha, err)
		}
	}
}

func TestNewIDIsRandomAndValid(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewID()
		if !store.ValidID(id) || seen[id] {
			t.Fatalf("id %q invalid or repeated", id)
		}
		seen[id] = true
	}
}

func testDeleteArtifactAndRetention(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	a, b := upload("a", randomBytes(100)), upload("b", randomBytes(200))
	r1, r2, r3 := &store.Report{Kind: "profile"}, &store.Report{Kind: "diff"}, &store.Report{Kind: "profile", Pinned: true}
	for _, tc := range []struct {
		r  *store.Report
		up []store.Upload
	}{{r1, []store.Upload{a}}, {r2, []store.Upload{a, b}}, {r3, []store.Upload{b}}} {
		if err := db.CreateReport(ctx, tc.r, tc.up); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.DeleteArtifact(ctx, a.SHA256)
	if err != nil || n != 2 {
		t.Fatalf("deleted %d reports (%v), want the two that used it", n, err)
	}
	if got := counts(t, db); got != [3]int{1, 1, 1} {
		t.Errorf("after the delete: artifacts, chunks, reports = %v", got)
	}
	if _, err := db.Report(ctx, r3.ID); err != nil {
		t.Errorf("a report that did not use the artifact went: %v", err)
	}
	if _, err := db.DeleteArtifact(ctx, a.SHA256); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	r4 := &store.Report{Kind: "profile"}
	if err := db.CreateReport(ctx, r4, []store.Upload{upload("c", randomBytes(300))}); err != nil {
		t.Fatal(err)
	}
	reports, artifacts, err := db.ExpireReports(ctx, time.Now().Add(time.Hour))
	if err != nil || reports != 1 || artifacts != 1 {
		t.Fatalf("expired %d reports and %d artifacts (%v); want the unpinned one and its file", reports, artifacts, err)
	}
	if _, err := db.Report(ctx, r3.ID); err != nil {
		t.Errorf("the pinned report expired: %v", err)
	}
	if err := db.SetPinned(ctx, r3.ID, false); err != nil {
		t.Fatal(err)
	}
	if reports, artifacts, _ := db.ExpireReports(ctx, time.Now().Add(time.Hour)); reports != 1 || artifacts != 1 {
		t.Errorf("after unpinning: %d reports, %d artifacts expired", reports, artifacts)
	}
	if got := counts(t, db); got != [3]int{0, 0, 0} {
		t.Errorf("left %v", got)
	}
}

// A download fetches one chunk per read of the underlying reader, never the
// whole artifact.
func testArtifactStreamsChunkByChunk(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	const chunk = 1 << 10
	store.SetChunkSize(db, chunk)
	data := randomBytes(10<<10 + 7) // 11 chunks
	up := upload("big", data)
	if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{up}); err != nil {
		t.Fatal(err)
	}
	rc, err := db.OpenArtifact(ctx, up.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var got bytes.Buffer
	buf := make([]byte, 700)
	for i := 0; ; i++ {
		n, err := rc.Read(buf)
		got.Write(buf[:n])
		// The reader never fetched more than the chunk that holds what it returned.
		if want := (got.Len() + chunk - 1) / chunk; store.ChunksFetched(rc) != want {
			t.Fatalf("after %d bytes the reader has fetched %d chunks, want %d", got.Len(), store.ChunksFetched(rc), want)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Errorf("streamed %d bytes, not the %d stored", got.Len(), len(data))
	}
}

// An artifact deleted while a download reads it ends the download with an error,
// not a short file that looks complete.
func testDeletedWhileReadingIsAnError(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	store.SetChunkSize(db, 1<<10)
	up := upload("big", randomBytes(4<<10))
	if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{up}); err != nil {
		t.Fatal(err)
	}
	rc, err := db.OpenArtifact(ctx, up.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	first := make([]byte, 1<<10)
	if _, err := io.ReadFull(rc, first); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteArtifact(ctx, up.SHA256); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, io.ErrUnexpectedEOF) || n != 0 {
		t.Errorf("reading on after the delete: %d bytes, %v; want io.ErrUnexpectedEOF", n, err)
	}
}

// PostgreSQL's TEXT refuses NUL and invalid UTF-8; both backends store such text
// the same cleaned way instead of failing in one of them.
func testTextIsStoredAlike(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	up := upload("heap\x00.pb\xff.gz", randomBytes(10))
	up.Label = "label\x00\xfe"
	r := &store.Report{Kind: "profile", Summary: json.RawMessage("{\"name\":\"a\xffb\"}")}
	if err := db.CreateReport(ctx, r, []store.Upload{up}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Report(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Artifacts[0]; a.Name != "heap.pb\uFFFD.gz" || a.Label != "label\uFFFD" || string(got.Summary) != "{\"name\":\"a\uFFFDb\"}" {
		t.Errorf("read back name %q label %q summary %s", a.Name, a.Label, got.Summary)
	}
	run := &store.Run{ID: store.NewID(), Workload: "checkpoint", LeaseUntil: time.Now().Add(time.Minute)}
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	run.Status, run.Error = "failed", "broker said \x00\xc3("
	if err := db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if back, err := db.Run(ctx, run.ID); err != nil || back.Error != "broker said \uFFFD(" {
		t.Errorf("run error read back %q (%v)", back.Error, err)
	}
}

// Replicas that start together on a new database apply each migration once.
func testConcurrentOpensMigrateOnce(t *testing.T, dsn string) {
	ctx := context.Background()
	const replicas = 4
	dbs := make([]*store.DB, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { dbs[i], errs[i] = open(ctx, dsn) })
	}
	wg.Wait()
	for i, db := range dbs {
		if errs[i] != nil {
			t.Errorf("replica %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() { db.Close() })
	}
	if t.Failed() {
		return
	}
	var n, distinct int
	if err := store.ReadPool(dbs[0]).QueryRow(`SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if want := migrationFiles(t); n != want || distinct != want {
		t.Errorf("schema_migrations holds %d rows of %d versions, want %d of %d", n, distinct, want, want)
	}
	// Every replica sees what another wrote.
	r := &store.Report{Kind: "profile"}
	if err := dbs[1].CreateReport(ctx, r, []store.Upload{upload("x", randomBytes(50))}); err != nil {
		t.Fatal(err)
	}
	if _, err := dbs[3].Report(ctx, r.ID); err != nil {
		t.Errorf("another replica does not see the report: %v", err)
	}
}

// Two replicas storing the same bytes at the same time make one artifact and all
// their reports.
func testConcurrentUploadsOfTheSameBytes(t *testing.T, dsn string) {
	ctx := context.Background()
	a, b := openStore(t, dsn), openStore(t, dsn)
	store.SetChunkSize(a, 1<<10)
	store.SetChunkSize(b, 1<<10)
	data := randomBytes(8<<10 + 1)
	const each = 6
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, db := range []*store.DB{a, b} {
		for range each {
			wg.Go(func() {
				errs <- db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{upload("same", data)})
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := counts(t, a); got != [3]int{1, 9, 2 * each} {
		t.Errorf("artifacts, chunks, reports = %v; want 1, 9, %d", got, 2*each)
	}
	checkChunks(t, a)
}

// Retention on one replica racing uploads of the same bytes on another may fail
// either side, but never leaves an artifact without all of its bytes or a report
// without its artifact.
func testRetentionRacingUploads(t *testing.T, dsn string) {
	ctx := context.Background()
	up, expire := openStore(t, dsn), openStore(t, dsn)
	store.SetChunkSize(up, 1<<10)
	data := randomBytes(3 << 10)
	var wg sync.WaitGroup
	var created []string
	var mu sync.Mutex
	wg.Go(func() {
		for range 60 {
			r := &store.Report{Kind: "profile"}
			if err := up.CreateReport(ctx, r, []store.Upload{upload("same", data)}); err == nil {
				mu.Lock()
				created = append(created, r.ID)
				mu.Unlock()
			}
		}
	})
	wg.Go(func() {
		for range 60 {
			expire.ExpireReports(ctx, time.Now().Add(time.Hour))
		}
	})
	wg.Wait()
	checkChunks(t, up)
	if len(created) == 0 {
		t.Fatal("no upload succeeded")
	}
	for _, id := range created {
		r, err := up.Report(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // expired
		}
		if err != nil || len(r.Artifacts) != 1 {
			t.Fatalf("report %s: %+v (%v)", id, r, err)
		}
		if b, err := up.ReadArtifact(ctx, r.Artifacts[0].SHA256); err != nil || !bytes.Equal(b, data) {
			t.Errorf("report %s: its artifact does not read back (%v)", id, err)
		}
	}
}
