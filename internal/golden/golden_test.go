package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
)

func TestStableID(t *testing.T) {
	for n, want := range map[int]string{1: "reportaaaaaaaaaaaaaaaaaaab", 27: "reportaaaaaaaaaaaaaaaaaabb", 26*26 + 3: "reportaaaaaaaaaaaaaaaaabad"} {
		if got := StableID("report", n); got != want || !store.ValidID(got) {
			t.Errorf("StableID(report, %d) = %q (valid %v), want %q", n, got, store.ValidID(got), want)
		}
	}
}

// TestStoreIsDeterministic makes reports and runs through the Store and reads
// them back: the server sees ids and times that depend only on the order of
// creation, newest first, a page cursor made of them works, and an error names
// the stable id.
func TestStoreIsDeterministic(t *testing.T) {
	db, err := sqlite.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := NewStore(db)
	ctx := t.Context()
	upload := func(data string) []store.Upload {
		return []store.Upload{{Name: data + ".txt", SHA256: sha(data), Size: int64(len(data)), Kind: "log",
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}}
	}
	var made []string
	for i, data := range []string{"one", "two", "three"} {
		r := &store.Report{Kind: "log"}
		if err := s.CreateReport(ctx, r, upload(data)); err != nil {
			t.Fatal(err)
		}
		if want := StableID("report", i+1); r.ID != want || !r.CreatedAt.Equal(Epoch.Add(minutes(i+1))) {
			t.Fatalf("report %d is %s at %v, want %s at %v", i, r.ID, r.CreatedAt, want, Epoch.Add(minutes(i+1)))
		}
		made = append(made, r.ID)
	}
	got, err := s.Report(ctx, made[1])
	if err != nil || got.ID != made[1] || !got.CreatedAt.Equal(Epoch.Add(minutes(2))) || got.Artifacts[0].Name != "two.txt" {
		t.Fatalf("Report(%s) = %+v, %v", made[1], got, err)
	}
	page, err := s.SearchReports(ctx, store.ReportSearch{Limit: 2})
	if err != nil || len(page) != 2 || page[0].ID != made[2] || page[1].ID != made[1] {
		t.Fatalf("first page %+v, %v", page, err)
	}
	rest, err := s.SearchReports(ctx, store.ReportSearch{Limit: 2, After: store.Cursor(page[1])})
	if err != nil || len(rest) != 1 || rest[0].ID != made[0] {
		t.Fatalf("second page %+v, %v", rest, err)
	}
	for _, real := range s.RealIDs() {
		if slices.Contains(made, real) {
			t.Errorf("the database's id %s is a stable one", real)
		}
	}

	run := &store.Run{ID: StableID("run", 1), Workload: "checkpoint", Owner: "test"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, &store.Run{ID: run.ID, Status: "done", ReportID: made[0]}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, run.ID)
	if err != nil || r.ReportID != made[0] || !r.CreatedAt.Equal(Epoch.Add(minutes(4))) || r.FinishedAt.IsZero() {
		t.Fatalf("Run = %+v, %v", r, err)
	}

	// A report deleted since is not found, by its stable id.
	if _, err := s.DB.DeleteArtifact(ctx, sha("one")); err != nil {
		t.Fatal(err)
	}
	_, err = s.Report(ctx, made[0])
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), made[0]) {
		t.Errorf("a deleted report: %v", err)
	}
}

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }

func sha(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

func TestCompareAndUnused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b"+Ext)
	if err := Compare(path, []byte("x\ny\n"), false); !errors.Is(err, ErrMissing) {
		t.Fatalf("a missing file: %v", err)
	}
	if err := Compare(path, []byte("x\ny\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := Compare(path, []byte("x\ny\n"), false); err != nil {
		t.Errorf("the same bytes: %v", err)
	}
	err := Compare(path, []byte("x\nz\n"), false)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("a changed line: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "old"+Ext), nil, 0o644)
	unused, err := Unused(dir, map[string]bool{"a/b" + Ext: true}, false)
	if err != nil || len(unused) != 1 || unused[0] != "old"+Ext {
		t.Fatalf("Unused = %v, %v", unused, err)
	}
	if _, err := Unused(dir, map[string]bool{"a/b" + Ext: true}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old"+Ext)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Unused with remove left old%s: %v", Ext, err)
	}
}

func TestFormat(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json"}, "Date": {"today"}, "Location": {"/r/x"}}
	got := Format(Request{Method: "GET", Target: "/api/x", Header: http.Header{"Accept": {"application/json"}}}, 201, h, []byte("{}\n"))
	want := "GET /api/x\nAccept: application/json\n\n201 Created\nContent-Type: application/json\nLocation: /r/x\n\n{}\n"
	if string(got) != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	bin := Format(Request{Method: "GET", Target: "/a/x"}, 200, http.Header{"Content-Type": {"application/octet-stream"}}, []byte{0x1f, 0x8b})
	if !bytes.Contains(bin, []byte("(2 bytes, sha256 ")) {
		t.Errorf("a binary body: %q", bin)
	}
}

// TestTrackerFindsUncoveredRoutes serves two of three routes, one of them a
// mounted router's root, and finds the third.
func TestTrackerFindsUncoveredRoutes(t *testing.T) {
	r := chi.NewRouter()
	ok := func(w http.ResponseWriter, _ *http.Request) {}
	r.Get("/r/{id}", ok)
	r.Get("/kinds", ok)
	sub := chi.NewRouter()
	sub.Post("/", ok)
	r.Mount("/runs", sub)
	routes, err := Routes(r)
	if err != nil || len(routes) != 3 {
		t.Fatalf("Routes = %v, %v", routes, err)
	}
	tr := NewTracker(r, r)
	srv := httptest.NewServer(tr)
	defer srv.Close()
	http.Get(srv.URL + "/r/abc")
	if tr.Last() != (Route{"GET", "/r/{id}"}) {
		t.Errorf("last route %v", tr.Last())
	}
	resp, err := http.Post(srv.URL+"/runs", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if missed := tr.Uncovered(routes); len(missed) != 1 || missed[0] != (Route{"GET", "/kinds"}) {
		t.Errorf("Uncovered = %v; reached %s", missed, tr.Reached())
	}
}
