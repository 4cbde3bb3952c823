package web

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestDownloadCarriesTheUploadedName: /a/{sha} names the file as it was uploaded,
// with an ASCII filename and the exact name in filename* (RFC 5987).
func TestDownloadCarriesTheUploadedName(t *testing.T) {
	ts := newTestServer(t, Config{})
	for i, name := range []string{"heap at 09:00.pb.gz", `prod "eu" heap;ünïcødé.pb.gz`} {
		// Different bytes each: the same bytes keep the name they were first uploaded as.
		heap := fixture(t, "pprof", []string{"flameshow-heap.pb.gz", "parca-self-heap-t0-1644509272.pb.gz"}[i])
		heap.name = name
		up := ts.mustUpload(t, map[string]string{"label": name}, heap)
		resp, err := http.Get(ts.URL + up.Artifacts[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cd := resp.Header.Get("Content-Disposition")
		disp, params, err := mime.ParseMediaType(cd)
		// mime.ParseMediaType prefers filename* and decodes it into "filename".
		if err != nil || disp != "attachment" || params["filename"] != name || !bytes.Equal(body, heap.data) {
			t.Errorf("%q: Content-Disposition %q parses as %q %v (%v); want the upload's name", name, cd, disp, params, err)
		}
		ascii, _, _ := strings.Cut(strings.TrimPrefix(cd, `attachment; filename="`), `"`)
		for _, r := range ascii {
			if r > 127 || r < 32 || r == '"' || r == '\\' {
				t.Errorf("%q: the ASCII filename %q holds %q", name, ascii, r)
			}
		}
		if !strings.Contains(cd, "filename*=UTF-8''") {
			t.Errorf("%q: no filename* in %q", name, cd)
		}
	}
}

// Two one-line logs whose SHA-256 share their first 12 hex characters
// (de9c32c64bc9), found with Pollard's rho over the 48-bit prefix; each line
// carries a timestamp and a level, so that the upload takes them as logs.
var prefixTwins = [2]string{
	"2024-01-01 00:00:00,000 INFO leakui prefix test 87e47364ba05",
	"2024-01-01 00:00:00,000 INFO leakui prefix test 90e8e692ad1a",
}

// TestArtifactPrefix: /a/{prefix} serves the one artifact a prefix of 12 or more
// hex characters names, 409 with the candidates when it names several, 404 when
// it is shorter or names none.
func TestArtifactPrefix(t *testing.T) {
	ts := newTestServer(t, Config{})
	var shas []string
	for i, text := range prefixTwins {
		up := ts.mustUpload(t, nil, file{name: []string{"a.log", "b.log"}[i], data: []byte(text)})
		shas = append(shas, up.Artifacts[0].SHA256)
	}
	if shas[0][:12] != shas[1][:12] || shas[0] == shas[1] {
		t.Fatalf("the twins hash to %s and %s", shas[0], shas[1])
	}
	for i, sha := range shas {
		code, _, body := ts.get(t, "/a/"+sha[:13])
		if code != 200 || string(body) != prefixTwins[i] {
			t.Errorf("/a/%s: %d %q; want the twin %d", sha[:13], code, body, i)
		}
	}
	code, _, body := ts.get(t, "/a/"+shas[0][:12], "Accept", "application/json")
	var e struct {
		Error string `json:"error"`
	}
	json.Unmarshal(body, &e)
	if code != http.StatusConflict || !strings.Contains(e.Error, shas[0]) || !strings.Contains(e.Error, shas[1]) {
		t.Errorf("ambiguous prefix: %d %s; want 409 naming both", code, body)
	}
	if code, _, body := ts.get(t, "/a/"+strings.ToUpper(shas[1][:14])); code != 200 || string(body) != prefixTwins[1] {
		t.Errorf("an upper-case prefix: %d %q", code, body)
	}
	for _, p := range []string{shas[0][:11], "000000000000", "zzzzzzzzzzzz"} {
		if code, _, _ := ts.get(t, "/a/"+p); code != http.StatusNotFound {
			t.Errorf("/a/%s: %d, want 404", p, code)
		}
	}
}

// TestUploadAnswersAbsoluteURLAndVerdict: report_url is absolute (from -base-url,
// else the request's host), and a series says its verdict.
func TestUploadAnswersAbsoluteURLAndVerdict(t *testing.T) {
	for _, base := range []string{"", "https://leakui.example.com/"} {
		ts := newTestServer(t, Config{BaseURL: base})
		var files []file
		for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
			files = append(files, fixture(t, "pprof", name))
		}
		body, ct := multipartBody(t, files, nil)
		resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
		if err != nil {
			t.Fatal(err)
		}
		var up uploadResponse
		json.NewDecoder(resp.Body).Decode(&up)
		resp.Body.Close()
		want := ts.URL
		if base != "" {
			want = strings.TrimSuffix(base, "/")
		}
		want += "/r/" + up.ReportID
		if resp.StatusCode != http.StatusCreated || up.ReportURL != want || resp.Header.Get("Location") != want {
			t.Errorf("base %q: %d report_url %q, Location %q; want %q", base, resp.StatusCode, up.ReportURL, resp.Header.Get("Location"), want)
		}
		_, _, raw := ts.get(t, "/api/reports/"+up.ReportID+"?mode=series")
		var doc struct {
			Analysis struct {
				Verdict string `json:"verdict"`
			} `json:"analysis"`
		}
		json.Unmarshal(raw, &doc)
		verdict := doc.Analysis.Verdict
		if up.Verdict == "" || up.Verdict != verdict {
			t.Errorf("upload verdict %q; the series page says %q", up.Verdict, verdict)
		}
		// A single profile has no verdict, and says none.
		single := ts.mustUpload(t, nil, fixture(t, "pprof", "flameshow-heap.pb.gz"))
		if single.Verdict != "" {
			t.Errorf("a single profile's verdict %q", single.Verdict)
		}
	}
	if _, err := NewServer(Config{BaseURL: "ftp://x"}); err == nil {
		t.Error("an ftp base URL was accepted")
	}
}

// TestUnsupportedKindIsOneLineWithDetails: the 415 fits on one line and links to
// /kinds, which lists every kind.
func TestUnsupportedKindIsOneLineWithDetails(t *testing.T) {
	ts := newTestServer(t, Config{})
	bin := file{name: "x.bin", data: bytes.Repeat([]byte{0, 1, 2, 0xff}, 64)}
	code, _, raw := ts.upload(t, bin)
	var e struct {
		Error   string `json:"error"`
		Details string `json:"details_url"`
	}
	json.Unmarshal([]byte(raw), &e)
	if code != http.StatusUnsupportedMediaType || len(e.Error) > 300 || strings.ContainsAny(e.Error, "\n\r") ||
		e.Details != ts.URL+"/kinds" || !strings.Contains(e.Error, "JVM class histograms") {
		t.Errorf("415: %d %q (%d chars), details %q", code, e.Error, len(e.Error), e.Details)
	}
	// The HTML form's error page links to the details.
	body, ct := multipartBody(t, []file{bin}, nil)
	resp, err := http.Post(ts.URL+"/upload", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if href, _ := doc.Find("[data-testid=error-details]").Attr("href"); resp.StatusCode != 415 || href != "/kinds" {
		t.Errorf("error page: %d, details link %q", resp.StatusCode, href)
	}
	code, _, pg := ts.get(t, "/kinds")
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if n := doc.Find("[data-testid=kinds] li").Length(); code != 200 || n != len(ts.srv.kinds.Accepted()) {
		t.Errorf("/kinds: %d, %d kinds listed, want %d", code, n, len(ts.srv.kinds.Accepted()))
	}
}

// TestFavicon: every page names the hashed icon and /favicon.ico leads to it.
func TestFavicon(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, _, pg := ts.get(t, "/")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	icon, _ := doc.Find("link[rel=icon]").Attr("href")
	code, ct, svg := ts.get(t, "/favicon.ico")
	if icon == "" || code != 200 || ct != "image/svg+xml" || !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Errorf("icon %q; /favicon.ico: %d %s", icon, code, ct)
	}
	if code, _, _ := ts.get(t, icon); code != 200 {
		t.Errorf("%s: %d", icon, code)
	}
}
