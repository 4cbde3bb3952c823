package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/testworkload"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/internal/webtest"
	"github.com/leakui/leakui/web/kind"
)

// TestMain doubles as the lab's test workload when LEAKUI_LAB_CHILD is set.
func TestMain(m *testing.M) {
	if os.Getenv("LEAKUI_LAB_CHILD") != "" {
		os.Exit(testworkload.Main(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// testServer is a real server on a real SQLite store in a temporary directory.
type testServer struct {
	*httptest.Server
	db  *store.DB
	srv *Server
}

func newTestServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	ws, srv := webtest.Start(t, func(e webtest.Env) (*Server, error) {
		cfg.Store, cfg.TempDir = e.DB, e.TempDir
		if cfg.Jobs == nil {
			cfg.Jobs = e.Jobs
		}
		return NewServer(cfg)
	})
	return &testServer{Server: ws.Server, db: ws.DB, srv: srv}
}

// web is ts as webtest's helpers take it.
func (ts *testServer) web() *webtest.Server { return &webtest.Server{Server: ts.Server, DB: ts.db} }

// file is one part of a multipart upload.
type file struct {
	name string
	data []byte
}

// webFiles are files as webtest's helpers take them.
func webFiles(files []file) []webtest.File {
	out := make([]webtest.File, len(files))
	for i, f := range files {
		out[i] = webtest.File{Name: f.name, Data: f.data}
	}
	return out
}

// multipartBody builds an upload request body.
func multipartBody(t testing.TB, files []file, fields map[string]string) (io.Reader, string) {
	t.Helper()
	return webtest.Multipart(t, webFiles(files), fields)
}

// upload posts files to /api/artifacts and decodes the answer.
func (ts *testServer) upload(t testing.TB, files ...file) (int, uploadResponse, string) {
	t.Helper()
	return ts.uploadFields(t, nil, files...)
}

// mustUpload posts files with form fields (nil for none) and fails the test
// unless a report was made.
func (ts *testServer) mustUpload(t testing.TB, fields map[string]string, files ...file) uploadResponse {
	t.Helper()
	code, up, raw := ts.uploadFields(t, fields, files...)
	if code != http.StatusCreated || up.ReportID == "" {
		t.Fatalf("upload: %d %s", code, raw)
	}
	return up
}

// postFiles posts files with form fields (nil for none) to an in-process server,
// as the benchmarks do, and returns the recorded answer.
func postFiles(tb testing.TB, srv http.Handler, fields map[string]string, files ...file) *httptest.ResponseRecorder {
	tb.Helper()
	body, ct := multipartBody(tb, files, fields)
	req := httptest.NewRequest("POST", "/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// uploadFields posts files with form fields to /api/artifacts and decodes the
// answer.
func (ts *testServer) uploadFields(t testing.TB, fields map[string]string, files ...file) (int, uploadResponse, string) {
	t.Helper()
	code, up, raw := ts.web().UploadFields(t, fields, webFiles(files)...)
	return code, uploadResponse(up), raw
}

// get fetches a URL and returns status, content type and body.
func (ts *testServer) get(t *testing.T, path string, header ...string) (int, string, []byte) {
	t.Helper()
	return ts.web().Get(t, path, header...)
}

func fixture(t testing.TB, dir, name string) file {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return file{name: name, data: b}
}

func loadProfileBytes(t testing.TB, b []byte) *pprof.Profile {
	t.Helper()
	p, err := pprof.Open(pprof.Reader(bytes.NewReader(b)), pprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// topOf is p.Top, failing the test on an error.
func topOf(t testing.TB, p *pprof.Profile, si int) pprof.TopResult {
	t.Helper()
	top, err := p.Top(si)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// TestUploadReportJSONMarkdownDownload walks the whole path of one profile.
func TestUploadReportJSONMarkdownDownload(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	want := loadProfileBytes(t, heap.data)
	si, _ := want.SampleIndex("inuse_space")
	wantTop := topOf(t, want, si)

	status, up, raw := ts.upload(t, heap)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, raw)
	}
	if len(up.Artifacts) != 1 || up.Artifacts[0].Kind != "profile" || up.Artifacts[0].Size != int64(len(heap.data)) ||
		up.Artifacts[0].SHA256 != "d4b71d1cc8868ead093b5f4c80814c68a6902e3d487f744bef59d22ebeaec130" {
		t.Fatalf("upload answer: %s", raw)
	}

	// The page shows the top function with pprof's figure.
	code, ct, pg := ts.get(t, up.ReportURL)
	if code != 200 || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("report page: %d %s", code, ct)
	}
	if !bytes.Contains(pg, []byte(wantTop.Rows[0].Name)) || !bytes.Contains(pg, []byte(analyze.FormatValue(wantTop.Total, "bytes"))) {
		t.Errorf("the report page lacks the top function %q or the total", wantTop.Rows[0].Name)
	}

	// The JSON twin carries the exact numbers, for any sample type.
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID+"?si=alloc_objects&n=5")
	var doc kind.ReportJSON
	if code != 200 || json.Unmarshal(body, &doc) != nil || doc.Profile == nil {
		t.Fatalf("report JSON: %d %s", code, body)
	}
	allocSI, _ := want.SampleIndex("alloc_objects")
	wantAlloc := topOf(t, want, allocSI)
	if doc.Profile.Top.SampleType != "alloc_objects" || doc.Profile.Top.Total != wantAlloc.Total || len(doc.Profile.Top.Rows) != 5 ||
		doc.Profile.Top.Rows[0] != wantAlloc.Rows[0] {
		t.Errorf("JSON top = %+v, want total %d first %+v", doc.Profile.Top, wantAlloc.Total, wantAlloc.Rows[0])
	}

	// The Markdown summary has the link, the hash, the totals and ten rows.
	code, ct, md := ts.get(t, up.ReportURL+".md")
	if code != 200 || !strings.HasPrefix(ct, "text/markdown") {
		t.Fatalf("markdown: %d %s", code, ct)
	}
	for _, s := range []string{ts.URL + up.ReportURL, up.Artifacts[0].SHA256, `inuse\_space ` + analyze.FormatValue(wantTop.Total, "bytes"), wantTop.Rows[9].Name} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	if n := bytes.Count(md, []byte("\n| ")); n != 11 { // header + 10 rows
		t.Errorf("markdown has %d table rows, want a header and 10", n)
	}

	// The download is the original bytes, as an attachment.
	code, ct, dl := ts.get(t, "/a/"+up.Artifacts[0].SHA256)
	if code != 200 || ct != "application/octet-stream" || !bytes.Equal(dl, heap.data) {
		t.Errorf("download: %d %s, %d bytes (want %d identical)", code, ct, len(dl), len(heap.data))
	}

	// The dashboard lists it.
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte(up.ReportURL)) {
		t.Error("the dashboard does not list the new report")
	}
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestUploadErrors checks every refusal of the upload path: status, message, and
// that nothing was stored.
func TestUploadErrors(t *testing.T) {
	heap := fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	// A bomb that looks like a profile, so that only the size cap can stop it.
	bomb := gzipBytes(append([]byte("heap profile: 1: 1 [1: 1] @ heap/1048576\n"), bytes.Repeat([]byte("\n"), 8<<20)...))
	truncated := heap.data[:len(heap.data)/2]
	for _, tc := range []struct {
		name   string
		cfg    Config
		files  []file
		status int
		msg    string
	}{
		{"over max-upload", Config{MaxUpload: 4096}, []file{heap}, 413, "limit"},
		{"decompression bomb", Config{MaxDecompressed: 1 << 20}, []file{{"bomb.gz", bomb}}, 413, "more than 1.0 MB after decompression"},
		{"a zip archive", Config{}, []file{{"x.zip", append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 64)...)}}, 415, "detected a zip archive"},
		{"html", Config{}, []file{{"x.html", []byte("<!doctype html><html><script>alert(1)</script></html>")}}, 415, "detected an HTML page"},
		{"truncated gzip profile", Config{}, []file{{"t.pb.gz", truncated}}, 422, "malformed"},
		{"garbage proto", Config{}, []file{{"g.pb", []byte{0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}}}, 422, "truncated"},
		{"empty file", Config{}, []file{{"empty", nil}}, 400, "empty"},
		{"too many files", Config{MaxFiles: 2}, []file{heap, heap, heap}, 413, "too many files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, tc.cfg)
			status, _, raw := ts.upload(t, tc.files...)
			if status != tc.status || !strings.Contains(raw, tc.msg) {
				t.Errorf("status %d %s; want %d containing %q", status, raw, tc.status, tc.msg)
			}
			var e struct{ Error string }
			if json.Unmarshal([]byte(raw), &e) != nil || e.Error == "" {
				t.Errorf("the answer is not {\"error\": …}: %s", raw)
			}
			a, c, r, err := ts.db.Counts(context.Background())
			if err != nil || a+c+r != 0 {
				t.Errorf("a refused upload stored artifacts=%d chunks=%d reports=%d (%v)", a, c, r, err)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, up, raw := ts.upload(t, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	if up.ReportID == "" {
		t.Fatal(raw)
	}
	for _, tc := range []struct {
		path, accept string
		status       int
		msg          string
	}{
		{"/r/" + up.ReportID + "?si=bogus", "", 400, "must be one of: alloc_objects"},
		{"/api/reports/" + up.ReportID + "?n=-3", "", 400, "n must be a positive number"},
		{"/r/aaaaaaaaaaaaaaaaaaaaaaaaaa", "", 404, "not found"},
		{"/api/reports/nope", "", 404, "not found"},
		{"/a/" + strings.Repeat("0", 64), "", 404, "not found"},
		{"/nowhere", "application/json", 404, "no page at /nowhere"},
	} {
		code, ct, body := ts.get(t, tc.path, "Accept", tc.accept)
		if code != tc.status || !bytes.Contains(body, []byte(tc.msg)) {
			t.Errorf("GET %s: %d %s; want %d with %q", tc.path, code, body, tc.status, tc.msg)
		}
		isJSON := strings.HasPrefix(ct, "application/json")
		if wantJSON := strings.HasPrefix(tc.path, "/api/") || tc.accept != ""; isJSON != wantJSON {
			t.Errorf("GET %s: content type %s", tc.path, ct)
		}
	}
	// Without JavaScript: the HTML form answers 303 to the report.
	body, ct := multipartBody(t, []file{fixture(t, "pprof", "flameshow-heap.pb.gz")}, map[string]string{"label": "incident 42"})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(ts.URL+"/upload", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/r/") {
		t.Errorf("form upload: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	code, _, pg := ts.get(t, resp.Header.Get("Location"))
	if code != 200 || !bytes.Contains(pg, []byte("incident 42")) {
		t.Errorf("the form's report lacks its label (%d)", code)
	}
}

func TestStaticAssetsAreVersioned(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, _, home := ts.get(t, "/")
	u := ts.srv.assets.url("app.js")
	if !bytes.Contains(home, []byte(u)) || !strings.Contains(u, "/static/") {
		t.Fatalf("the page does not load %s", u)
	}
	resp, err := http.Get(ts.URL + u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != 200 || !strings.Contains(cc, "immutable") {
		t.Errorf("asset: %d, Cache-Control %q", resp.StatusCode, cc)
	}
	if code, _, body := ts.get(t, "/healthz"); code != 200 || string(body) != "ok" {
		t.Errorf("healthz: %d %q", code, body)
	}
}
