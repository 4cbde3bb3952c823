package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"time"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dir
}

// upload makes an Upload of the given bytes.
func upload(name string, data []byte) Upload {
	sum := sha256.Sum256(data)
	return Upload{
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

func counts(t *testing.T, db *DB) [3]int {
	t.Helper()
	a, c, r, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return [3]int{a, c, r}
}

func TestReportRoundTripAndDedupe(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	db.chunkSize = 1000 // several chunks per artifact
	data := randomBytes(4321)
	r1 := &Report{Kind: "profile", Params: json.RawMessage(`{"si":"inuse_space"}`), Summary: json.RawMessage(`{"total":5}`)}
	if err := db.CreateReport(ctx, r1, []Upload{upload("heap.pb.gz", data)}); err != nil {
		t.Fatal(err)
	}
	if !ValidID(r1.ID) {
		t.Fatalf("report id %q is not a valid id", r1.ID)
	}
	r2 := &Report{Kind: "profile"}
	if err := db.CreateReport(ctx, r2, []Upload{upload("again.pb.gz", data)}); err != nil {
		t.Fatal(err)
	}
	if r1.ID == r2.ID {
		t.Fatal("two reports got the same id")
	}
	if got := counts(t, db); got != [3]int{1, 5, 2} {
		t.Errorf("artifacts, chunks, reports = %v; want one artifact of 5 chunks and 2 reports", got)
	}
	got, err := db.Report(ctx, r1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != "profile" || string(got.Params) != `{"si":"inuse_space"}` || string(got.Summary) != `{"total":5}` ||
		len(got.Artifacts) != 1 || got.Artifacts[0].Name != "heap.pb.gz" || got.Artifacts[0].Size != 4321 {
		t.Errorf("report read back = %+v", got)
	}
	back, err := db.ReadArtifact(ctx, got.Artifacts[0].SHA256)
	if err != nil || !bytes.Equal(back, data) {
		t.Errorf("artifact bytes differ (err %v)", err)
	}
	second, _ := db.Report(ctx, r2.ID)
	if second.Artifacts[0].Name != "again.pb.gz" {
		t.Errorf("the second upload's name is %q", second.Artifacts[0].Name)
	}
}

func TestReopenKeepsReports(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := OpenSQLite(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Kind: "profile"}
	data := randomBytes(100)
	if err := db.CreateReport(ctx, r, []Upload{upload("a", data)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = OpenSQLite(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Report(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := db.ReadArtifact(ctx, got.Artifacts[0].SHA256); !bytes.Equal(b, data) {
		t.Error("artifact bytes changed across a reopen")
	}
	var mode string
	if err := db.read.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	var fk int
	if err := db.write.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
	if _, err := os.Stat(filepath.Join(dir, SQLiteFile)); err != nil {
		t.Error(err)
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

func TestFailedWriteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	db.chunkSize = 100
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
		uploads []Upload
		want    error
	}{
		{"hash mismatch after a good artifact", []Upload{good, badHash}, ErrIntegrity},
		{"reader fails mid-artifact", []Upload{good, broken}, nil},
		{"no sha256", []Upload{{Name: "x", Kind: "profile", Open: good.Open}}, ErrInvalid},
		{"refers to a missing artifact", []Upload{good, {Name: "gone", SHA256: strings.Repeat("ab", 32)}}, ErrNotFound},
	} {
		err := db.CreateReport(ctx, &Report{Kind: "profile"}, tc.uploads)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
		if got := counts(t, db); got != [3]int{0, 0, 0} {
			t.Errorf("%s: left artifacts, chunks, reports = %v", tc.name, got)
		}
	}
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	for _, id := range []string{"", "short", "../../etc/passwd", NewID()} {
		if _, err := db.Report(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Report(%q): %v, want ErrNotFound", id, err)
		}
	}
	if _, err := db.OpenArtifact(ctx, "00"); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenArtifact: %v", err)
	}
}

func TestNewIDIsRandomAndValid(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !ValidID(id) || seen[id] {
			t.Fatalf("id %q invalid or repeated", id)
		}
		seen[id] = true
	}
}

func TestDeleteArtifactAndRetention(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	a, b := upload("a", randomBytes(100)), upload("b", randomBytes(200))
	r1, r2, r3 := &Report{Kind: "profile"}, &Report{Kind: "diff"}, &Report{Kind: "profile", Pinned: true}
	for _, tc := range []struct {
		r  *Report
		up []Upload
	}{{r1, []Upload{a}}, {r2, []Upload{a, b}}, {r3, []Upload{b}}} {
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
	if _, err := db.DeleteArtifact(ctx, a.SHA256); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	r4 := &Report{Kind: "profile"}
	if err := db.CreateReport(ctx, r4, []Upload{upload("c", randomBytes(300))}); err != nil {
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
