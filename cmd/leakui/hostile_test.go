package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
)

// Bounds of the hostile-corpus test. They guard against hangs and runaway
// memory; they are not performance measurements (the figures are logged).
const (
	// hostileDeadline is how long one upload may take, large ones included.
	hostileDeadline = 60 * time.Second
	// hostileHeapBound is the most heap the server may ever have needed while it
	// took the whole corpus. The largest valid input, 5 million samples, is 40
	// MB of profile.proto; the profile bomb took 2.9 GB before the loader
	// checked the framing while streaming.
	hostileHeapBound = 512 << 20
)

// hostileCase is one input of the corpus and what the server must answer.
type hostileCase struct {
	name string
	// parts make a multipart upload; body and contentType, when set, are sent as
	// they are instead (with length as Content-Length, -1 to let the client
	// decide).
	parts       []part
	body        func() io.Reader
	contentType string
	length      int64
	status      int
	// words must all appear in the error message (for a 4xx).
	words []string
	// check verifies the analysis of an accepted upload.
	check func(t *testing.T, s *server, a uploadAnswer)
}

// TestHostileCorpus uploads every input of the hostile corpus (testdata/hostile/
// and the large inputs internal/hostile writes) to a real `leakui serve` with its
// defaults, one at a time, and checks for each: the exact status, a clear message,
// the analysis of what is valid, a deadline, the server's peak heap, and that a
// refused upload left nothing in the store or the spool directory. Run it with -v
// for the table input → status → message.
func TestHostileCorpus(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, "-upload-rate", "-1", "-debug-pprof", "127.0.0.1:0")
	cases := hostileCases(t)
	if len(cases) < 25 {
		t.Fatalf("the corpus has %d inputs, the issue asks for at least 25", len(cases))
	}
	table := &corpusTable{}
	for _, tc := range cases {
		s.collectGarbage(t) // so that the heap watch sees this input's heap, not the last one's garbage
		before := countStore(t, dir)
		watch := s.watchHeap(t)
		var body io.Reader
		contentType, length := tc.contentType, tc.length
		if tc.body != nil {
			body = tc.body()
		} else {
			b, ct := multipartUpload(t, tc.parts...)
			body, contentType, length = bytes.NewReader(b), ct, int64(len(b))
		}
		a, elapsed := s.send(t, body, contentType, length, hostileDeadline)
		peak := watch.end()
		ms := s.memStats(t)
		after := countStore(t, dir)
		msg := a.Error
		if a.Status == http.StatusCreated {
			msg = "analyzed: " + a.ReportURL
		}
		table.add(tc.name, a.Status, msg, elapsed, peak)

		t.Run(tc.name, func(t *testing.T) {
			if a.Status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", a.Status, tc.status, a.Raw)
			}
			for _, w := range tc.words {
				if !strings.Contains(a.Error, w) {
					t.Errorf("the message %q does not say %q", a.Error, w)
				}
			}
			if tc.status >= 400 && (a.Error == "" || a.ReportID != "") {
				t.Errorf("a refusal answers {\"error\": …} and no report: %.300s", a.Raw)
			}
			if ms.HeapSys > hostileHeapBound {
				t.Errorf("the server's heap has reached %d MiB (bound %d MiB)", ms.HeapSys>>20, hostileHeapBound>>20)
			}
			if left := spooled(t, dir); len(left) != 0 {
				t.Errorf("the upload left spool files: %v", left)
			}
			if tc.status >= 400 {
				if after != before {
					t.Errorf("a refused upload changed the store: %+v → %+v", before, after)
				}
				return
			}
			if after.reports != before.reports+1 || after.artifacts < before.artifacts || after.chunks < before.chunks {
				t.Errorf("an accepted upload: store %+v → %+v", before, after)
			}
			if tc.check != nil {
				tc.check(t, s, a)
			}
		})
	}
	t.Logf("hostile corpus, %d inputs, server heap at most %d MiB (HeapSys):\n%s", len(cases), s.memStats(t).HeapSys>>20, table)
}

// hostileCases builds the corpus: the committed small files and the large ones,
// written into the test's temporary directory.
func hostileCases(t *testing.T) []hostileCase {
	small := func(name string) part {
		return part{name: name, path: filepath.Join(fixtures.Root(t), "testdata", "hostile", name)}
	}
	large := t.TempDir()
	gen := func(name string, write func(string) error) part {
		path := filepath.Join(large, name)
		if err := write(path); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
		return part{name: name, path: path}
	}
	elf := gen("leakui-head.bin", func(p string) error { return hostile.WriteExecutable(p, leakuiBinary(t)) })
	heap := part{name: "heap.pb", data: hostile.SmallProfile()}
	thousand := make([]part, 1000)
	for i := range thousand {
		thousand[i] = heap
	}
	validUpload, validCT := multipartUpload(t, heap)
	return []hostileCase{
		{name: "empty file", parts: []part{small("empty")}, status: 400, words: []string{"empty is empty"}},
		{name: "one byte", parts: []part{small("one-byte.bin")}, status: 415, words: []string{"detected binary data", "leakui accepts"}},
		{name: "random bytes", parts: []part{small("random.bin")}, status: 415, words: []string{"detected binary data"}},
		{name: "truncated gzip", parts: []part{small("truncated.pb.gz")}, status: 422, words: []string{"malformed", "gzip stream", "unexpected EOF"}},
		{name: "gzip of gzip ×8", parts: []part{small("gzip-8-deep.pb.gz")}, status: 415, words: []string{"gzip inside gzip", "decompress it once"}},
		{name: "gzip bomb (1 GiB of zeros)", parts: []part{gen("gzip-bomb.gz", hostile.WriteGzipBomb)}, status: 415, words: []string{"detected binary data"}},
		{name: "zstd bomb (1 GiB of zeros)", parts: []part{gen("zstd-bomb.zst", hostile.WriteZstdBomb)}, status: 415, words: []string{"detected binary data"}},
		{name: "profile.proto bomb (a sample type, then 1 GiB of zeros)", parts: []part{gen("profile-bomb.pb.gz", hostile.WriteProfileBomb)}, status: 422,
			words: []string{"malformed", "field number 0"}},
		{name: "out-of-range string index", parts: []part{small("oob-string.pb")}, status: 422, words: []string{"a function name refers to string 999"}},
		{name: "out-of-range location index", parts: []part{small("oob-location.pb")}, status: 422, words: []string{"a sample refers to location 999, which does not exist"}},
		{name: "out-of-range function index", parts: []part{small("oob-function.pb")}, status: 422, words: []string{"location 1 refers to function 999, which does not exist"}},
		{name: "no sample types", parts: []part{small("no-sample-types.pb")}, status: 422, words: []string{"no sample types"}},
		{name: "negative sample values", parts: []part{small("negative-values.pb.gz")}, status: 201, check: checkNegativeValues},
		{name: "sample values whose sum overflows int64", parts: []part{small("huge-values.pb.gz")}, status: 422,
			words: []string{"inuse_space values add up to more than 9223372036854775807"}},
		{name: "a sample with 100,000 frames", parts: []part{gen("deep-stack.pb.gz", hostile.WriteDeepStack)}, status: 201, check: checkDeepStack},
		{name: "5 million tiny samples", parts: []part{gen("many-samples.pb.gz", hostile.WriteManySamples)}, status: 201, check: checkManySamples},
		{name: "function names with <script>, \", ', U+2028", parts: []part{small("hostile-names.pb.gz")}, status: 201, check: checkHostileProfile},
		{name: "a 100 KB function name", parts: []part{small("long-name.pb.gz")}, status: 201, check: checkLongName},
		{name: "invalid UTF-8 in a function name", parts: []part{small("invalid-utf8.pb.gz")}, status: 201, check: checkInvalidUTF8},
		{name: "goroutine dump with hostile names", parts: []part{small("hostile-goroutines.txt")}, status: 201, check: checkHostileDump},
		{name: "goroutine dump with invalid UTF-8", parts: []part{small("invalid-utf8-goroutines.txt")}, status: 201, check: checkInvalidUTF8Dump},
		{name: "goroutine dump cut mid-frame", parts: []part{small("cut-mid-frame.txt")}, status: 201, check: checkCutDump},
		{name: "log with invalid UTF-8", parts: []part{small("invalid-utf8.log"), {field: "p1", data: []byte("WARN")}}, status: 201, check: checkInvalidUTF8Log},
		{name: "log mixing dated and yearless timestamps", parts: []part{small("mixed-years.log"), {field: "p1", data: []byte("INFO")}}, status: 201, check: checkMixedYearsLog},
		{name: "log of one 200 MB line (gzipped)", parts: []part{gen("long-line.log.gz", hostile.WriteLongLineLog), {field: "p1", data: []byte("INFO")}, {field: "p2", data: []byte("xxxxxxxxxxxxxxxx")}},
			status: 201, check: checkLongLineLog},
		{name: "binary executable (first MiB of leakui)", parts: []part{elf}, status: 415, words: []string{"detected an ELF executable"}},
		{name: "HTML page", parts: []part{small("page.html")}, status: 415, words: []string{"detected an HTML page"}},
		{name: "JSON document", parts: []part{small("doc.json")}, status: 415, words: []string{"detected a JSON document"}},
		{name: "legacy text heap profile with garbage", parts: []part{small("legacy-text-garbage.heap")}, status: 422, words: []string{"malformed", "legacy text heap"}},
		{name: "file named ../../etc/passwd", parts: []part{{name: "../../etc/passwd", data: hostile.SmallProfile()}}, status: 201, check: checkPasswdName},
		{name: "a profile and a goroutine dump together", parts: []part{heap, small("hostile-goroutines.txt")}, status: 422, words: []string{"upload files of one kind together"}},
		{name: "multipart body with no file", parts: []part{{field: "label", data: []byte("no file here")}}, status: 400, words: []string{"the upload has no file"}},
		{name: "1,000 files in one upload", parts: thousand, status: 413, words: []string{"too many files in one upload: the limit is 64"}},
		{name: "not multipart (a JSON body)", body: func() io.Reader { return strings.NewReader(`{"file": "heap.pb"}`) }, contentType: "application/json", length: -1,
			status: 400, words: []string{"multipart/form-data", "field named \"file\""}},
		{name: "multipart body cut mid-file", body: func() io.Reader { return bytes.NewReader(validUpload[:len(validUpload)/2]) }, contentType: validCT, length: int64(len(validUpload) / 2),
			status: 400, words: []string{"the upload could not be read"}},
		{name: "Content-Length of 300 MiB, over -max-upload", body: func() io.Reader { return io.LimitReader(zeros{}, 300<<20) }, contentType: validCT, length: 300 << 20,
			status: 413, words: []string{"the limit is 256.0 MB"}},
	}
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// profileDoc is the part of a profile report's JSON the checks read.
type profileDoc struct {
	Artifacts []struct {
		Name string `json:"name"`
	} `json:"artifacts"`
	Profile struct {
		Samples     int `json:"samples"`
		SampleTypes []struct {
			Type  string `json:"type"`
			Total int64  `json:"total"`
		} `json:"sample_types"`
		Top struct {
			Total int64 `json:"total"`
			Rows  []struct {
				Name      string `json:"name"`
				Flat, Cum int64
			} `json:"rows"`
		} `json:"top"`
	} `json:"profile"`
}

func (s *server) profileDoc(t *testing.T, a uploadAnswer, query string) (profileDoc, []byte) {
	t.Helper()
	code, raw := s.get(t, "/api/reports/"+a.ReportID+query)
	var doc profileDoc
	if code != 200 || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("report JSON: %d %.300s", code, raw)
	}
	if !utf8.Valid(raw) {
		t.Error("the report JSON is not valid UTF-8")
	}
	return doc, raw
}

// rowsByName indexes the top rows.
func (d profileDoc) rowsByName() map[string]pprofRow {
	out := map[string]pprofRow{}
	for _, r := range d.Profile.Top.Rows {
		out[r.Name] = pprofRow{r.Flat, r.Cum}
	}
	return out
}

// checkAgainstPprof compares the report's top with `go tool pprof -top` on the
// same committed file.
func checkAgainstPprof(t *testing.T, s *server, a uploadAnswer, file string) {
	t.Helper()
	doc, _ := s.profileDoc(t, a, "?n=1000")
	total, rows := pprofTop(t, filepath.Join(fixtures.Root(t), "testdata", "hostile", file))
	if doc.Profile.Top.Total != total {
		t.Errorf("total %d, go tool pprof says %d", doc.Profile.Top.Total, total)
	}
	got := doc.rowsByName()
	if len(got) != len(rows) {
		t.Errorf("%d rows, go tool pprof has %d", len(got), len(rows))
	}
	for name, want := range rows {
		if got[name] != want {
			t.Errorf("%q: %+v, go tool pprof says %+v", name, got[name], want)
		}
	}
}

func checkNegativeValues(t *testing.T, s *server, a uploadAnswer) {
	checkAgainstPprof(t, s, a, "negative-values.pb.gz")
	// The percentages too: pprof prints that of the absolute value.
	code, page := s.get(t, a.ReportURL)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if code != 200 || err != nil {
		t.Fatalf("report page: %d %v", code, err)
	}
	pcts := map[string][]string{}
	doc.Find("[data-testid=top-row]").Each(func(_ int, row *goquery.Selection) {
		var cells []string
		row.Find("td").Each(func(_ int, td *goquery.Selection) { cells = append(cells, strings.TrimSpace(td.Text())) })
		pcts[strings.TrimSpace(row.Find("[data-testid=name]").Text())] = cells
	})
	for name, want := range pprofPercents(t, filepath.Join(fixtures.Root(t), "testdata", "hostile", "negative-values.pb.gz")) {
		if !slices.Contains(pcts[name], want[0]) || !slices.Contains(pcts[name], want[1]) {
			t.Errorf("%s: the page's cells %q lack pprof's flat%% %s and cum%% %s", name, pcts[name], want[0], want[1])
		}
	}
	pd, _ := s.profileDoc(t, a, "")
	if rows := pd.rowsByName(); pd.Profile.Top.Total != 4096+1024 || rows["main.shrink"].Flat != -4096 || rows["main.grow"].Flat != 1024 {
		t.Errorf("total %d, rows %+v; built as -4096 and +1024", pd.Profile.Top.Total, rows)
	}
}

func checkDeepStack(t *testing.T, s *server, a uploadAnswer) {
	doc, _ := s.profileDoc(t, a, "?n=all")
	rows := doc.rowsByName()
	if doc.Profile.Top.Total != 4096 || len(rows) != hostile.DeepFrames || rows["main.deep000001"] != (pprofRow{4096, 4096}) || rows["main.deep100000"] != (pprofRow{0, 4096}) {
		t.Errorf("total %d, %d rows; deep000001 %+v, deep100000 %+v", doc.Profile.Top.Total, len(rows), rows["main.deep000001"], rows["main.deep100000"])
	}
	for _, view := range []string{"", "?view=flame", ".md"} {
		if code, page := s.get(t, a.ReportURL+view); code != 200 || len(page) == 0 {
			t.Errorf("%s%s: %d", a.ReportURL, view, code)
		}
	}
}

func checkManySamples(t *testing.T, s *server, a uploadAnswer) {
	doc, _ := s.profileDoc(t, a, "?n=2000")
	if doc.Profile.Samples != hostile.ManySamples || doc.Profile.Top.Total != hostile.ManySamples || len(doc.Profile.Top.Rows) != hostile.ManyFunctions+1 {
		t.Fatalf("samples %d, total %d, %d rows", doc.Profile.Samples, doc.Profile.Top.Total, len(doc.Profile.Top.Rows))
	}
	for _, r := range doc.Profile.Top.Rows {
		want := pprofRow{hostile.ManySamples / hostile.ManyFunctions, hostile.ManySamples / hostile.ManyFunctions}
		if r.Name == "main.main" {
			want = pprofRow{0, hostile.ManySamples}
		}
		if (pprofRow{r.Flat, r.Cum}) != want {
			t.Errorf("%s: %d/%d, want %+v", r.Name, r.Flat, r.Cum, want)
		}
	}
	if code, _ := s.get(t, a.ReportURL+"?view=flame"); code != 200 {
		t.Errorf("flame graph: %d", code)
	}
}

// checkHostileProfile: the numbers are pprof's, and every view shows the names
// as text.
func checkHostileProfile(t *testing.T, s *server, a uploadAnswer) {
	checkAgainstPprof(t, s, a, "hostile-names.pb.gz")
	doc, _ := s.profileDoc(t, a, "")
	rows := doc.rowsByName()
	for i, name := range hostile.HostileNames {
		// Built as: name i holds i+1 bytes, and all four are on one stack of 100
		// bytes whose leaf is the first.
		want := pprofRow{int64(i + 1), int64(i + 1 + 100)}
		if i == 0 {
			want.Flat += 100
		}
		if rows[name] != want {
			t.Errorf("%q: %+v, built as %+v", name, rows[name], want)
		}
	}
	for _, view := range []string{"", "?view=flame"} {
		checkNamesAsText(t, s, a.ReportURL+view, hostile.HostileNames)
	}
	checkMarkdown(t, s, a.ReportURL+".md")
}

// checkNamesAsText parses a page and checks that no markup from the input became
// an element and that every name is in the page's text.
func checkNamesAsText(t *testing.T, s *server, path string, names []string) {
	t.Helper()
	code, page := s.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find("img").Length(); n != 0 {
		t.Errorf("%s: %d img elements came from the input", path, n)
	}
	doc.Find("script").Each(func(_ int, sel *goquery.Selection) {
		src, _ := sel.Attr("src")
		typ, _ := sel.Attr("type")
		switch {
		case strings.HasPrefix(src, "/static/") && strings.TrimSpace(sel.Text()) == "":
		case typ == "application/json" && json.Valid([]byte(sel.Text())):
			// Data for a script (JSON-in-HTML): that it still parses shows no
			// name closed the element early.
		default:
			t.Errorf("%s: a script that is not one of leakui's own: src=%q type=%q %.200q", path, src, typ, sel.Text())
		}
	})
	doc.Find("*").Each(func(_ int, sel *goquery.Selection) {
		for _, attr := range sel.Nodes[0].Attr {
			if strings.HasPrefix(strings.ToLower(attr.Key), "on") {
				t.Errorf("%s: an event handler attribute %s=%q", path, attr.Key, attr.Val)
			}
		}
	})
	text := doc.Text()
	for _, n := range names {
		// Titles and labels may be shortened; the characters that break out of
		// markup must be there as text.
		if !strings.Contains(text, n) && !strings.Contains(text, n[:min(len(n), 24)]) {
			t.Errorf("%s: the page text does not show %q", path, n)
		}
	}
}

// checkMarkdown: outside code spans, where Markdown shows markup as text, no
// markup and no line separator is left.
func checkMarkdown(t *testing.T, s *server, path string) {
	t.Helper()
	code, md := s.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	var prose strings.Builder
	for i, chunk := range strings.Split(string(md), "`") {
		if i%2 == 0 {
			prose.WriteString(chunk)
		}
	}
	// A backslash-escaped < or > is a literal character in CommonMark, never
	// markup: prose may carry a name escaped that way (a verdict sentence).
	text := strings.NewReplacer(`\\`, "", `\<`, "", `\>`, "").Replace(prose.String())
	if strings.ContainsAny(text, "<>") || bytes.ContainsRune(md, '\u2028') || !utf8.Valid(md) {
		t.Errorf("%s carries markup or a line separator outside code spans:\n%s", path, md)
	}
}

func checkLongName(t *testing.T, s *server, a uploadAnswer) {
	doc, _ := s.profileDoc(t, a, "")
	if rows := doc.rowsByName(); doc.Profile.Top.Total != 512 || rows[hostile.LongName] != (pprofRow{512, 512}) {
		t.Errorf("total %d; the long name's row %+v", doc.Profile.Top.Total, rows[hostile.LongName])
	}
	if code, page := s.get(t, a.ReportURL); code != 200 || !bytes.Contains(page, []byte(hostile.LongName[:1000])) {
		t.Errorf("the page (%d) does not show the long name", code)
	}
}

func checkInvalidUTF8(t *testing.T, s *server, a uploadAnswer) {
	doc, _ := s.profileDoc(t, a, "")
	found := false
	for _, r := range doc.Profile.Top.Rows {
		if strings.HasPrefix(r.Name, "main.bad") && strings.ContainsRune(r.Name, utf8.RuneError) && r.Flat == 64 {
			found = true
		}
	}
	if !found {
		t.Errorf("no row for the invalid name, shown with U+FFFD: %+v", doc.Profile.Top.Rows)
	}
	for _, view := range []string{"", ".md", "?view=flame"} {
		if code, page := s.get(t, a.ReportURL+view); code != 200 || !utf8.Valid(page) {
			t.Errorf("%s%s: %d, valid UTF-8 %v", a.ReportURL, view, code, utf8.Valid(page))
		}
	}
}

func checkInvalidUTF8Dump(t *testing.T, s *server, a uploadAnswer) {
	doc := s.goroutineDoc(t, a)
	if doc.Analysis.Total != 2 || len(doc.Analysis.Groups) != 2 {
		t.Fatalf("%d goroutines in %d groups, want 2 in 2", doc.Analysis.Total, len(doc.Analysis.Groups))
	}
	for _, view := range []string{"", ".md"} {
		if code, page := s.get(t, a.ReportURL+view); code != 200 || !utf8.Valid(page) || !bytes.Contains(page, []byte("main.bad")) {
			t.Errorf("%s%s: %d, valid UTF-8 %v", a.ReportURL, view, code, utf8.Valid(page))
		}
	}
}

// logDoc is the part of a log report's JSON the checks read.
type logDoc struct {
	Analysis struct {
		Report struct {
			Lines     int64 `json:"lines"`
			Bytes     int64 `json:"bytes"`
			LongLines int64 `json:"long_lines"`
			Patterns  []struct {
				Pattern string `json:"pattern"`
				Count   int64  `json:"count"`
			} `json:"patterns"`
		} `json:"report"`
	} `json:"analysis"`
}

func (s *server) logDoc(t *testing.T, a uploadAnswer) logDoc {
	t.Helper()
	code, raw := s.get(t, "/api/reports/"+a.ReportID)
	var doc logDoc
	if code != 200 || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("report JSON: %d %.300s", code, raw)
	}
	return doc
}

// checkLongLineLog: one line of LongLine bytes and its newline, each pattern
// found once on it, counted in bounded memory (the table's heap column).
func checkLongLineLog(t *testing.T, s *server, a uploadAnswer) {
	r := s.logDoc(t, a).Analysis.Report
	if r.Lines != 1 || r.Bytes != hostile.LongLine+1 || r.LongLines != 1 || len(r.Patterns) != 2 || r.Patterns[0].Count != 1 || r.Patterns[1].Count != 1 {
		t.Errorf("lines %d, bytes %d (want 1 and %d), long lines %d, patterns %+v", r.Lines, r.Bytes, hostile.LongLine+1, r.LongLines, r.Patterns)
	}
	for _, view := range []string{"", ".md"} {
		if code, page := s.get(t, a.ReportURL+view); code != 200 || len(page) > 1<<20 {
			t.Errorf("%s%s: %d, %d bytes", a.ReportURL, view, code, len(page))
		}
	}
}

// checkMixedYearsLog: the yearless line cannot share the dated time axis, so it
// counts as untimed (and the one after it inherits a dated time); every view
// renders. Before the fix this log had no time axis at all and no untimed line.
func checkMixedYearsLog(t *testing.T, s *server, a uploadAnswer) {
	code, raw := s.get(t, "/api/reports/"+a.ReportID)
	var doc struct {
		Analysis struct {
			Report struct {
				Patterns []struct {
					Count int64 `json:"count"`
				} `json:"patterns"`
				Untimed         []int64 `json:"untimed"`
				YearlessUntimed bool    `json:"yearless_untimed"`
				Buckets         []struct {
					Start time.Time `json:"start"`
				} `json:"buckets"`
			} `json:"report"`
		} `json:"analysis"`
	}
	if code != 200 || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("report JSON: %d %.300s", code, raw)
	}
	r := doc.Analysis.Report
	if len(r.Patterns) != 1 || r.Patterns[0].Count != 4 || len(r.Untimed) == 0 || r.Untimed[0] != 1 || !r.YearlessUntimed || len(r.Buckets) == 0 || r.Buckets[0].Start.Year() != 2024 {
		t.Errorf("counts %+v, untimed %v, yearless untimed %v, %d buckets", r.Patterns, r.Untimed, r.YearlessUntimed, len(r.Buckets))
	}
	for _, view := range []string{"", ".md"} {
		if code, _ := s.get(t, a.ReportURL+view); code != 200 {
			t.Errorf("%s%s: %d", a.ReportURL, view, code)
		}
	}
}

// checkInvalidUTF8Log: lines and matches counted as the real `grep -c -F`
// counts them in the committed file, every view valid UTF-8.
func checkInvalidUTF8Log(t *testing.T, s *server, a uploadAnswer) {
	path := filepath.Join(fixtures.Root(t), "testdata", "hostile", "invalid-utf8.log")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := s.logDoc(t, a).Analysis.Report
	lines, warns := grepCount(t, "", path), grepCount(t, "WARN", path)
	if r.Lines != lines || r.Bytes != int64(len(data)) || len(r.Patterns) != 1 || r.Patterns[0].Count != warns {
		t.Errorf("lines %d, bytes %d, patterns %+v; grep -c counts %d lines, %d with WARN", r.Lines, r.Bytes, r.Patterns, lines, warns)
	}
	for _, view := range []string{"", ".md"} {
		if code, page := s.get(t, a.ReportURL+view); code != 200 || !utf8.Valid(page) {
			t.Errorf("%s%s: %d, valid UTF-8 %v", a.ReportURL, view, code, utf8.Valid(page))
		}
	}
}

// goroutineDoc is the part of a goroutine report's JSON the checks read.
type goroutineDoc struct {
	Analysis struct {
		Total     int  `json:"total"`
		Truncated bool `json:"truncated"`
		Groups    []struct {
			Count int      `json:"count"`
			State string   `json:"state"`
			Stack []string `json:"stack"`
		} `json:"groups"`
	} `json:"analysis"`
}

func (s *server) goroutineDoc(t *testing.T, a uploadAnswer) goroutineDoc {
	t.Helper()
	code, raw := s.get(t, "/api/reports/"+a.ReportID)
	var doc goroutineDoc
	if code != 200 || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("report JSON: %d %.300s", code, raw)
	}
	return doc
}

func checkHostileDump(t *testing.T, s *server, a uploadAnswer) {
	doc := s.goroutineDoc(t, a)
	leaves := map[string]bool{}
	for _, g := range doc.Analysis.Groups {
		if g.Count == 1 && len(g.Stack) == 2 {
			leaves[g.Stack[0]] = true
		}
	}
	for _, name := range hostile.HostileNames {
		if !leaves[name] {
			t.Errorf("no group of one goroutine in %q: %+v", name, doc.Analysis.Groups)
		}
	}
	if doc.Analysis.Total != len(hostile.HostileNames) {
		t.Errorf("%d goroutines, the dump has %d", doc.Analysis.Total, len(hostile.HostileNames))
	}
	checkNamesAsText(t, s, a.ReportURL, hostile.HostileNames)
	checkMarkdown(t, s, a.ReportURL+".md")
}

// checkCutDump: the goroutines before the cut are read, the cut one is counted
// and the report says the dump is truncated.
func checkCutDump(t *testing.T, s *server, a uploadAnswer) {
	doc := s.goroutineDoc(t, a)
	if doc.Analysis.Total != 3 || !doc.Analysis.Truncated || len(doc.Analysis.Groups) != 3 {
		t.Errorf("total %d, truncated %v, %d groups; the dump has 3 goroutines, the last cut", doc.Analysis.Total, doc.Analysis.Truncated, len(doc.Analysis.Groups))
	}
	states := map[string]bool{}
	for _, g := range doc.Analysis.Groups {
		states[g.State] = true
	}
	if !states["running"] || !states["select"] || !states["chan receive"] {
		t.Errorf("states %v", states)
	}
}

func checkPasswdName(t *testing.T, s *server, a uploadAnswer) {
	if len(a.Artifacts) != 1 || a.Artifacts[0].Name != "passwd" {
		t.Errorf("the artifact is named %+v, want the base name passwd", a.Artifacts)
	}
	doc, _ := s.profileDoc(t, a, "")
	if doc.Artifacts[0].Name != "passwd" || doc.Profile.Top.Total != 2048 {
		t.Errorf("report: %+v, total %d", doc.Artifacts, doc.Profile.Top.Total)
	}
	if _, err := os.Stat(filepath.Join(s.dataDir(), "..", "..", "etc", "passwd")); err == nil {
		t.Error("a file appeared at DATA/../../etc/passwd")
	}
}
