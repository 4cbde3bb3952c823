package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// derivedChunkRows counts the rows of derived_chunks, by the database itself.
func derivedChunkRows(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := store.ReadPool(db).QueryRow(`SELECT COUNT(*) FROM derived_chunks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func testDerivedBlobs(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	store.SetChunkSize(db, 1000)
	rep := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	if err := db.CreateReport(ctx, rep, []store.Upload{upload("heap.hprof", randomBytes(300))}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.OpenDerived(ctx, rep.ID, "index"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("opening a blob never stored: %v, want ErrNotFound", err)
	}
	data := randomBytes(25_432) // 26 chunks, the last of 432 bytes
	n, err := db.PutDerived(ctx, rep.ID, "index", bytes.NewReader(data))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("PutDerived = %d, %v; want %d bytes", n, err, len(data))
	}
	if got := derivedChunkRows(t, db); got != 26 {
		t.Errorf("%d chunk rows, want 26", got)
	}
	b, err := db.OpenDerived(ctx, rep.ID, "index")
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != int64(len(data)) {
		t.Errorf("Size = %d, want %d", b.Size(), len(data))
	}
	// Reads inside one chunk, across one boundary, across several, at the end.
	for _, c := range []struct{ off, n int }{{0, 10}, {995, 10}, {1999, 2}, {500, 3500}, {25_000, 432}, {0, 25_432}, {24_999, 1}} {
		p := make([]byte, c.n)
		k, err := b.ReadAt(p, int64(c.off))
		if err != nil || k != c.n || !bytes.Equal(p, data[c.off:c.off+c.n]) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; bytes equal: %v", c.n, c.off, k, err, bytes.Equal(p[:k], data[c.off:c.off+k]))
		}
	}
	p := make([]byte, 100)
	if k, err := b.ReadAt(p, 25_400); k != 32 || err != io.EOF || !bytes.Equal(p[:k], data[25_400:]) {
		t.Errorf("ReadAt past the end = %d, %v; want 32 bytes and io.EOF", k, err)
	}
	all, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	if err != nil || !bytes.Equal(all, data) {
		t.Errorf("reading it all: %v, equal %v", err, bytes.Equal(all, data))
	}
	b.Close()
	if _, err := b.ReadAt(p, 0); err == nil {
		t.Error("ReadAt after Close succeeded")
	}

	// Putting the name again replaces the blob.
	if _, err := db.PutDerived(ctx, rep.ID, "index", strings.NewReader("short")); err != nil {
		t.Fatal(err)
	}
	if got := derivedChunkRows(t, db); got != 1 {
		t.Errorf("%d chunk rows after the replacement, want 1", got)
	}
	b, err = db.OpenDerived(ctx, rep.ID, "index")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	b.Close()
	if string(got) != "short" {
		t.Errorf("replaced blob reads %q", got)
	}

	// A reader that fails midway leaves nothing, not a partial blob.
	failing := io.MultiReader(bytes.NewReader(randomBytes(9_500)), &errReader{errors.New("disk read failed")})
	if _, err := db.PutDerived(ctx, rep.ID, "other", failing); err == nil || !strings.Contains(err.Error(), "disk read failed") {
		t.Errorf("PutDerived of a failing reader: %v", err)
	}
	if _, err := db.OpenDerived(ctx, rep.ID, "other"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a failed blob opens: %v", err)
	}
	if got := derivedChunkRows(t, db); got != 1 {
		t.Errorf("%d chunk rows after a failed write, want the 1 of the other blob", got)
	}
	if _, err := db.PutDerived(ctx, store.NewID(), "index", strings.NewReader("x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutDerived for no report: %v, want ErrNotFound", err)
	}

	// The report's state: analyzing until set, then ready with a summary or failed.
	back, err := db.Report(ctx, rep.ID)
	if err != nil || back.Status != store.ReportAnalyzing {
		t.Fatalf("stored state %q (%v), want analyzing", back.Status, err)
	}
	if ids, err := db.ReportsInState(ctx, store.ReportAnalyzing); err != nil || len(ids) != 1 || ids[0] != rep.ID {
		t.Errorf("ReportsInState(analyzing) = %v, %v", ids, err)
	}
	if err := db.SetReportState(ctx, rep.ID, store.ReportReady, "", json.RawMessage(`{"objects":3}`)); err != nil {
		t.Fatal(err)
	}
	back, _ = db.Report(ctx, rep.ID)
	if back.Status != store.ReportReady || string(back.Summary) != `{"objects":3}` {
		t.Errorf("after SetReportState: %q %s", back.Status, back.Summary)
	}
	if ids, _ := db.ReportsInState(ctx, store.ReportAnalyzing); len(ids) != 0 {
		t.Errorf("still analyzing: %v", ids)
	}
	if err := db.SetReportState(ctx, rep.ID, store.ReportFailed, "hprof: truncated", nil); err != nil {
		t.Fatal(err)
	}
	back, _ = db.Report(ctx, rep.ID)
	if back.Status != store.ReportFailed || back.Error != "hprof: truncated" || string(back.Summary) != `{"objects":3}` {
		t.Errorf("after failing: %q %q %s", back.Status, back.Error, back.Summary)
	}
	if err := db.SetReportState(ctx, store.NewID(), store.ReportReady, "", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetReportState of no report: %v", err)
	}

	// Deleting the report (here by retention) deletes its blobs.
	if _, _, err := db.ExpireReports(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := derivedChunkRows(t, db); got != 0 {
		t.Errorf("%d chunk rows after the report expired", got)
	}
	if _, err := db.OpenDerived(ctx, rep.ID, "index"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("blob of an expired report: %v", err)
	}
}

// testDerivedGoneWithArtifact deletes the artifact of a report with a blob: the
// report goes and its blob with it.
func testDerivedGoneWithArtifact(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	up := upload("heap.hprof", randomBytes(300))
	rep := &store.Report{Kind: "jvm-heapdump"}
	if err := db.CreateReport(ctx, rep, []store.Upload{up}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutDerived(ctx, rep.ID, "index", bytes.NewReader(randomBytes(3000))); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteArtifact(ctx, up.SHA256); err != nil {
		t.Fatal(err)
	}
	if got := derivedChunkRows(t, db); got != 0 {
		t.Errorf("%d chunk rows after the artifact's delete", got)
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }
