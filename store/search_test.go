package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// TestSearch runs the prefix lookup, the artifact names and the report search on
// every backend.
func TestSearch(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			t.Run("ArtifactsWithPrefix", func(t *testing.T) { t.Parallel(); testArtifactsWithPrefix(t, b.dsn(t)) })
			t.Run("ArtifactName", func(t *testing.T) { t.Parallel(); testArtifactName(t, b.dsn(t)) })
			t.Run("SearchReports", func(t *testing.T) { t.Parallel(); testSearchReports(t, b.dsn(t)) })
			t.Run("WholeTokens", func(t *testing.T) { t.Parallel(); testSearchWholeTokens(t, b.dsn(t)) })
		})
	}
}

func testArtifactsWithPrefix(t *testing.T, dsn string) {
	db := openStore(t, dsn)
	ctx := context.Background()
	var shas []string
	for i := range 40 {
		u := upload(fmt.Sprintf("f%d", i), []byte(fmt.Sprintf("bytes %d", i)))
		if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{u}); err != nil {
			t.Fatal(err)
		}
		shas = append(shas, u.SHA256)
	}
	for _, sha := range shas {
		got, err := db.ArtifactsWithPrefix(ctx, sha[:12], 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != sha {
			t.Fatalf("prefix %s: got %v, want [%s]", sha[:12], got, sha)
		}
	}
	// A prefix shorter than 12 characters, or not hex, finds nothing.
	for _, p := range []string{shas[0][:11], "%", shas[0][:12] + "%", "ABCDEF012345"} {
		got, err := db.ArtifactsWithPrefix(ctx, p, 10)
		if err != nil || len(got) != 0 {
			t.Fatalf("prefix %q: got %v, %v; want nothing", p, got, err)
		}
	}
}

func testArtifactName(t *testing.T, dsn string) {
	db := openStore(t, dsn)
	ctx := context.Background()
	first := upload("heap-at-0900.pb.gz", []byte("same bytes"))
	if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{first}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // created_at counts milliseconds: the second report is later
	again := upload("renamed.pb.gz", []byte("same bytes"))
	if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{again}); err != nil {
		t.Fatal(err)
	}
	name, err := db.ArtifactName(ctx, first.SHA256)
	if err != nil || name != "heap-at-0900.pb.gz" {
		t.Fatalf("name %q, %v; want the first upload's", name, err)
	}
	if _, err := db.ArtifactName(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("invalid sha: %v, want ErrNotFound", err)
	}
}

func testSearchReports(t *testing.T, dsn string) {
	db := openStore(t, dsn)
	ctx := context.Background()
	mk := func(name, label, kind, verdict string, data string) string {
		t.Helper()
		u := upload(name, []byte(data))
		u.Label = label
		r := &store.Report{Kind: kind, Summary: json.RawMessage(`{}`), Headline: store.Headline{Verdict: verdict, Set: true}}
		if err := db.CreateReport(ctx, r, []store.Upload{u}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	heap := mk("heap.pb.gz", "INC-1234 checkout OOM", "profile", "", "a")
	dump := mk("dump.txt", "", "goroutines", "", "b")
	hist := mk("histo.txt", "batch", "java-histogram", "leak", "c")
	under := mk("x_y.log", "100%", "log", "", "d")
	var many []string
	for i := range 7 {
		many = append(many, mk(fmt.Sprintf("page-%d.txt", i), "paged", "log", "", fmt.Sprintf("page %d", i)))
	}
	ids := func(rs []store.Report) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	search := func(text string) []string {
		t.Helper()
		rs, err := db.SearchReports(ctx, store.ReportSearch{Text: text, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return ids(rs)
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	sum := upload("", []byte("c")).SHA256
	for _, c := range []struct {
		text string
		want []string
	}{
		{"inc-1234", sorted(heap)},
		{"GOROUTINES", sorted(dump)},
		{"leak", sorted(hist)},
		{sum[:12], sorted(hist)},
		{"DUMP.TXT", sorted(dump)},
		{"_", sorted(under)},
		{"%", sorted(under)},
		{"no such thing", nil},
	} {
		if got := search(c.text); !slices.Equal(got, c.want) {
			t.Errorf("search %q: got %v, want %v", c.text, got, c.want)
		}
	}
	// The label comes back with the first input, the headline without the
	// summary.
	rs, err := db.SearchReports(ctx, store.ReportSearch{Text: "inc-1234", Limit: 10})
	if err != nil || len(rs) != 1 || rs[0].Artifacts[0].Label != "INC-1234 checkout OOM" || rs[0].Artifacts[0].Name != "heap.pb.gz" ||
		rs[0].Headline.Title != "heap.pb.gz" || rs[0].Headline.InputBytes != 1 || rs[0].Summary != nil {
		t.Fatalf("got %+v, %v", rs, err)
	}
	// By kind, with the summaries asked for.
	rs, err = db.SearchReports(ctx, store.ReportSearch{Kind: "java-histogram", Summaries: true, Limit: 10})
	if err != nil || len(rs) != 1 || rs[0].ID != hist || string(rs[0].Summary) != `{}` || rs[0].Headline.Verdict != "leak" {
		t.Fatalf("kind java-histogram: %+v, %v", rs, err)
	}
	// Paging by cursor visits every paged report once, newest first.
	var seen []string
	after := ""
	for range 10 {
		page, err := db.SearchReports(ctx, store.ReportSearch{Text: "paged", After: after, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			seen = append(seen, r.ID)
		}
		if len(page) < 3 {
			break
		}
		after = store.Cursor(page[len(page)-1])
	}
	if !slices.Equal(ids(nil), nil) || !slices.Equal(sorted(seen...), sorted(many...)) || len(seen) != len(many) {
		t.Fatalf("paging saw %v, want each of %v once", seen, many)
	}
	if _, err := db.SearchReports(ctx, store.ReportSearch{After: "garbage", Limit: 3}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad cursor: %v, want ErrInvalid", err)
	}
	if rs, err := db.SearchReports(ctx, store.ReportSearch{Source: "run", Limit: 100}); err != nil || len(rs) != 0 {
		t.Fatalf("source run: %v, %v; want none", rs, err)
	}
	if rs, err := db.SearchReports(ctx, store.ReportSearch{Source: "upload", Limit: 100}); err != nil || len(rs) != 4+len(many) {
		t.Fatalf("source upload: %d reports, %v; want %d", len(rs), err, 4+len(many))
	}
}

// testSearchWholeTokens: the words the pages show (verdicts as they read, the
// headline, the Headliner's suspects, functions and classes) are found as whole
// tokens, in order; a no-leak report or run is not found by "leak".
func testSearchWholeTokens(t *testing.T, dsn string) {
	db := openStore(t, dsn)
	ctx := context.Background()
	mk := func(name, runID string, h store.Headline) string {
		t.Helper()
		h.Set = true
		r := &store.Report{Kind: "profile", RunID: runID, Summary: json.RawMessage(`{}`), Headline: h}
		if err := db.CreateReport(ctx, r, []store.Upload{upload(name, []byte(name))}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	series := mk("heap-00.pb.gz", "", store.Headline{Title: "12 heap snapshots · heap-00…heap-11", Verdict: "leak",
		Line: "inuse_space grew 21 MB", Terms: "main.(*Cache).Put runtime.mallocgc"})
	fine := mk("steady-00.pb.gz", "", store.Headline{Verdict: "no leak", Line: "no leak: nothing grew"})
	short := mk("short-00.pb.gz", "", store.Headline{Verdict: "inconclusive", Terms: "java.util.HashMap$Node[]"})
	steady := mk("flat-00.pb.gz", "", store.Headline{Verdict: "steady"})
	leaky, fixed := store.NewID(), store.NewID()
	for _, run := range []store.Run{{ID: leaky, Workload: "checkpoint", Verdict: "leak"}, {ID: fixed, Workload: "checkpoint", Verdict: "no-leak"}} {
		if err := db.CreateRun(ctx, &run); err != nil {
			t.Fatal(err)
		}
		run.Status = "done"
		if err := db.FinishRun(ctx, &run); err != nil {
			t.Fatal(err)
		}
	}
	leakyRun := mk("run-a.pb.gz", leaky, store.Headline{Line: "consumers 1,727 open"})
	fixedRun := mk("run-b.pb.gz", fixed, store.Headline{Line: "consumers all closed"})

	search := func(text string) []string {
		t.Helper()
		rs, err := db.SearchReports(ctx, store.ReportSearch{Text: text, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	for _, c := range []struct {
		text string
		want []string
	}{
		{"leak suspected", sorted(series, leakyRun)},
		{"leak", sorted(series, leakyRun)},
		{"LEAK", sorted(series, leakyRun)},
		{"no leak", sorted(fine, fixedRun)},
		{"inconclusive", sorted(short)},
		{"no steady growth", sorted(steady)},
		{"main.(*Cache).Put", sorted(series)},
		{"Cache", sorted(series)},
		{"mallocg", nil},
		{"java.util.HashMap$Node[]", sorted(short)},
		{"HashMap", sorted(short)},
		{"12 heap snapshots", sorted(series)},
		{"heap snapshots 12", nil},
		{"heap-00", sorted(series)},
	} {
		if got := search(c.text); !slices.Equal(got, c.want) {
			t.Errorf("search %q: got %v, want %v", c.text, got, c.want)
		}
	}
}
