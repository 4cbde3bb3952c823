package web

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
)

// fuzzServer is a real server on a real SQLite store for the fuzz targets, with
// small limits so that the fuzzer reaches them.
func fuzzServer(f *testing.F) (*Server, *store.DB, string) {
	db, err := sqlite.Open(context.Background(), f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	spool := f.TempDir()
	srv, err := NewServer(Config{Store: db, TempDir: spool, UploadsPerMinute: -1,
		MaxUpload: 1 << 20, MaxDecompressed: 8 << 20, MaxFiles: 8})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return srv, db, spool
}

// hostileSeeds returns the committed hostile corpus (testdata/hostile/) by name.
func hostileSeeds(f *testing.F) map[string][]byte {
	dir := filepath.Join(fixtures.Root(f), "testdata", "hostile")
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && e.Name() != "README.md" {
			out[e.Name()] = b
		}
	}
	return out
}

// fuzzBoundary is the multipart boundary of the seeds.
const fuzzBoundary = "fuzzboundary"

func fuzzMultipart(files map[string][]byte, fields map[string]string) []byte {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.SetBoundary(fuzzBoundary)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for name, data := range files {
		w, _ := mw.CreateFormFile("file", name)
		w.Write(data)
	}
	mw.Close()
	return buf.Bytes()
}

// FuzzUpload sends arbitrary bodies, with arbitrary content types, to POST
// /api/artifacts of a real server on a real SQLite store. It never answers 5xx
// (a panic would be a 500 from the recoverer); a refused upload leaves the store
// and the spool directory as they were; an accepted one stored every file whole:
// its bytes read back hash to its sha256 and add up to its size, and the report
// opens.
func FuzzUpload(f *testing.F) {
	const ct = "multipart/form-data; boundary=" + fuzzBoundary
	seeds := hostileSeeds(f)
	for name, data := range seeds {
		f.Add(fuzzMultipart(map[string][]byte{name: data}, nil), ct)
	}
	f.Add(fuzzMultipart(map[string][]byte{"a.pb.gz": seeds["negative-values.pb.gz"], "b.pb.gz": seeds["hostile-names.pb.gz"]}, map[string]string{"label": "<b>two</b>"}), ct)
	f.Add(fuzzMultipart(map[string][]byte{"x.txt": seeds["hostile-goroutines.txt"], "y.txt": seeds["cut-mid-frame.txt"]}, nil), ct)
	f.Add(fuzzMultipart(nil, map[string]string{"label": "no file"}), ct)
	f.Add([]byte("--"+fuzzBoundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nxx"), ct)
	f.Add([]byte(`{"file": 1}`), "application/json")
	srv, db, spool := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		ctx := context.Background()
		a0, c0, r0, err := db.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "/api/artifacts", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%d: %s", rec.Code, rec.Body.String())
		}
		if left, _ := filepath.Glob(filepath.Join(spool, "*")); len(left) != 0 {
			t.Fatalf("spool files left: %v", left)
		}
		if !utf8.Valid(rec.Body.Bytes()) {
			t.Fatalf("the answer is not UTF-8: %q", rec.Body.String())
		}
		a1, c1, r1, err := db.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusCreated {
			var e struct{ Error string }
			if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == "" {
				t.Fatalf("%d without {\"error\": …}: %s", rec.Code, rec.Body.String())
			}
			if a1 != a0 || c1 != c0 || r1 != r0 {
				t.Fatalf("a refused upload (%d %s) changed the store: %d/%d/%d → %d/%d/%d", rec.Code, e.Error, a0, c0, r0, a1, c1, r1)
			}
			return
		}
		var up uploadResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &up); err != nil || len(up.Artifacts) == 0 {
			t.Fatalf("201 with %s", rec.Body.String())
		}
		if r1 != r0+1 {
			t.Fatalf("reports %d → %d", r0, r1)
		}
		if _, err := db.Report(ctx, up.ReportID); err != nil {
			t.Fatal(err)
		}
		for _, art := range up.Artifacts {
			b, err := db.ReadArtifact(ctx, art.SHA256) // checks the hash
			if err != nil || int64(len(b)) != art.Size {
				t.Fatalf("artifact %s: %d bytes of %d (%v)", art.SHA256, len(b), art.Size, err)
			}
		}
	})
}
