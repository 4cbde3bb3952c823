package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
)

// FuzzProfileViews uploads any bytes as a profile and, when they are accepted,
// opens the report with any query string as a page, as JSON and as Markdown: no
// view ever answers 5xx, pages and Markdown are UTF-8, the JSON parses. Seeds
// are the hostile profiles and the small shared fixtures, with the view, sample
// type, row count, order and filter parameters of a report.
func FuzzProfileViews(f *testing.F) {
	queries := []string{"", "view=flame", "view=top&n=all", "si=alloc_space&n=3", "f=main&i=x&h=runtime&s=.", "f=(", "si=7", "order=cum", "mode=diff"}
	profs := [][]byte{hostile.Gzip(hostile.HostileNamesProfile()), hostile.NegativeValues(), hostile.LongNameProfile(), hostile.InvalidUTF8Profile(), hostile.SmallProfile()}
	for _, path := range fixtures.Glob(f, "pprof", "*") {
		if data, err := os.ReadFile(path); err == nil && len(data) < 16<<10 {
			profs = append(profs, data)
		}
	}
	for i, p := range profs {
		f.Add(p, queries[i%len(queries)])
	}
	srv, _, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte, query string) {
		body := fuzzMultipart(map[string][]byte{"p.pb": data}, nil)
		req := httptest.NewRequest("POST", "/api/artifacts", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+fuzzBoundary)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
		}
		var up uploadResponse
		if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &up) != nil || up.Artifacts[0].Kind != string(analyze.KindProfile) {
			return
		}
		for _, path := range []string{up.ReportURL, "/api/reports/" + up.ReportID, up.ReportURL + ".md"} {
			req := httptest.NewRequest("GET", "/", nil)
			req.URL.Path, req.URL.RawQuery = path, query
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			b, _ := io.ReadAll(rec.Body)
			if rec.Code >= 500 {
				t.Fatalf("GET %s?%s: %d %s", path, query, rec.Code, b)
			}
			if !utf8.Valid(b) {
				t.Fatalf("GET %s?%s: not UTF-8", path, query)
			}
			if rec.Code == 200 && path[1] == 'a' && !json.Valid(b) {
				t.Fatalf("GET %s?%s: not JSON", path, query)
			}
		}
	})
}
