package logs

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strconv"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// FuzzLogQuery feeds any query string to the log report's parameter parser: it
// never panics, refuses only with a 400, and what it accepts has a canonical
// URL that parses back to the same parameters and the same URL (so the page's
// redirect to the canonical URL can never loop).
func FuzzLogQuery(f *testing.F) {
	for _, seed := range []string{
		"p1=INFO&re1=1&p2=Stopping+system+consumer",
		"pair1=consumers%3DConsumer+started%2CStopping&key1=%28%5CS%2B%29%3A&pre1=1",
		"p1=%28&re1=1", "preset=samza-2785&bucket=90m", "bucket=2400024h", "p999=x&p1=y&p01=z",
		"pair1=a%3Db%5C%2Cc%2Cd%5C%5C&key1=", "pair1=%40x%3Da%2Cb", "n=all&p1=%00%ff", "key3=%28x%29",
		"p1=a%0Ab", "preset=&bucket=none", "bucket=1.5ms", "n=0",
	} {
		f.Add(seed)
	}
	def := Params{Preset: "samza-2785"}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := parseLogQuery(v, def)
		if err != nil {
			var e *serrors.Error
			if !errors.Is(err, analyze.ErrInvalidParameter) && !errors.As(err, &e) {
				t.Fatalf("%q: %v is not a 400", raw, err)
			}
			if status, _ := serrors.StatusOf(err); status != 400 {
				t.Fatalf("%q: status %d", raw, status)
			}
			return
		}
		canonical := q.values()
		q2, err := parseLogQuery(canonical, def)
		if err != nil {
			t.Fatalf("%q: the canonical query %q does not parse: %v", raw, canonical.Encode(), err)
		}
		if q2.params.Key() != q.params.Key() || q2.own != q.own || q2.rows != q.rows || q2.values().Encode() != canonical.Encode() {
			t.Fatalf("%q: canonical %q reads back as %q", raw, canonical.Encode(), q2.values().Encode())
		}
	})
}

// FuzzLogRender counts any bytes with a keyed pair and a few patterns and
// renders the report page from the count: nothing panics, the log gains no
// element on the page, every key never closed is shown exactly as page.Display
// writes it, and every count (of a pattern or a template) is in its row.
func FuzzLogRender(f *testing.F) {
	f.Add([]byte("2020-02-25 03:21:00.001 open <script>alert(1)</script>\n2020-02-25 03:21:00.002 close x\n"))
	f.Add([]byte("open \x00\xff\xfe\u2028 \"'\nopen =1+1\r\nclose =1+1\n[02-21|11:55:36.680] open <img/src=x/onerror=alert(1)>\n"))
	f.Add([]byte("Jun 21 12:00:01 open a\nJun 21 12:00:02 open b\n\n\nopen"))
	f.Add(bytes.Repeat([]byte("1600000000123 open k\n"), 50))
	f.Add([]byte("open <b>\u2028\x1b[31m\nopen <b>\u2028\x1b[31m\nclose <b>\u2028\x1b[31m\n")) // a key started again while open
	opts := Params{
		Patterns: []logs.Pattern{logs.Literal("<"), logs.Regexp(`[\x00-\x1f]`)},
		Pairs:    []logs.Pair{{Name: "things", Start: logs.Literal("open "), Close: logs.Literal("close "), Key: `(?:open|close) (\S+)`}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr, err := logs.Count(context.Background(), opts.options(1<<20), logs.Input{Name: "f.log", Reader: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err) // plain bytes always count
		}
		rep := &store.Report{ID: "abc", Artifacts: []store.ReportArtifact{{Artifact: store.Artifact{SHA256: "00"}, Name: "f.log"}}}
		pg := (&Kind{}).logPage(rep, logQuery{params: opts, own: true, rows: 0, raw: opts.raw()}, lr)
		var buf bytes.Buffer
		ctx := templ.WithChildren(context.Background(), view.LogReportPageView(pg))
		if err := view.Layout(view.Page{Title: "t"}).Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if n := doc.Find("main script, main style, main iframe, main img").Length(); n != 0 {
			t.Fatalf("the log made %d elements", n)
		}
		rows := doc.Find("[data-testid=log-pattern]")
		if rows.Length() != len(lr.Patterns) {
			t.Fatalf("%d pattern rows for %d patterns", rows.Length(), len(lr.Patterns))
		}
		for i, p := range lr.Patterns {
			if got := rows.Eq(i).AttrOr("data-count", ""); got != strconv.FormatInt(p.Count, 10) {
				t.Fatalf("%v: row says %s, count %d", p, got, p.Count)
			}
		}
		tpls := doc.Find("[data-testid=log-template]")
		if want := min(len(lr.Overview.Templates), logTemplatePageRows); tpls.Length() != want {
			t.Fatalf("%d template rows for %d templates", tpls.Length(), want)
		}
		for i := range tpls.Length() {
			if got, want := tpls.Eq(i).AttrOr("data-count", ""), strconv.FormatInt(lr.Overview.Templates[i].Count, 10); got != want {
				t.Fatalf("template %d: row says %s, count %s", i, got, want)
			}
		}
		pair := doc.Find("[data-testid=log-pair]")
		switch pr := lr.Pairs[0]; {
		case !pr.Measurable:
			if pair.Find("[data-testid=pair-not-measurable]").Length() != 1 || pair.Find("[data-testid=pair-open]").Text() != "not measurable" {
				t.Fatalf("a pair without lines is not said to be not measurable")
			}
		case pr.Fallback != "":
			// The shared key comes from the log: shown as page.Display writes it.
			if got := pair.Find("[data-testid=pair-fallback]").Text(); got != page.Display(pr.Fallback) {
				t.Fatalf("fall-back notice %q, want %q", got, page.Display(pr.Fallback))
			}
		}
		keys := doc.Find("[data-testid=open-key-name]")
		unclosed := lr.Pairs[0].UnclosedKeys
		if keys.Length() != len(unclosed) {
			t.Fatalf("%d keys shown of %d", keys.Length(), len(unclosed))
		}
		for i, k := range unclosed {
			// The HTML parser turns CR and CRLF into LF; page.Display leaves no CR.
			if got := keys.Eq(i).Text(); got != page.Display(k.Key) {
				t.Fatalf("key %q shown as %q, want %q", k.Key, got, page.Display(k.Key))
			}
		}
	})
}
