package goroutines

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/view"
)

// FuzzGoroutineRender feeds any bytes through the goroutine report path after
// the parser: grouping (alone and against the shared debug=2 snapshot), the page
// component and the Markdown summary. Whatever the dump holds, nothing panics,
// the page gains no element from it, every group's count is shown, and the
// Markdown keeps markup out of its prose.
func FuzzGoroutineRender(f *testing.F) {
	for _, path := range fixtures.Glob(f, "goroutines", "*") {
		if data, err := os.ReadFile(path); err == nil && len(data) < 32<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("goroutine 1 [running]:\nmain.<script>x</script>()\n\t/a.go:1 +0x1\n"))
	f.Add([]byte("panic: <b>\u2028</b>\n\ngoroutine 7 [running]:\nmain.f|`()\n\t/a|b.go:2 +0x1\n"))
	base, err := os.ReadFile(fixtures.Path(f, "goroutines", "goprofnotes-snap1-debug2.txt"))
	if err != nil {
		f.Fatal(err)
	}
	baseDump, err := goroutines.Parse(bytes.NewReader(base), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := goroutines.Parse(bytes.NewReader(data), 1<<20)
		if err != nil {
			return
		}
		for _, b := range []*goroutines.Dump{nil, baseDump} {
			rep := goroutines.NewReport(d, b)
			g := groups.View(rep, 0, "", [2]string{"base", "target"})
			var buf bytes.Buffer
			ctx := templ.WithChildren(context.Background(), view.GoroutineGroupsView(g))
			if err := view.Layout(view.Page{Title: "t"}).Render(ctx, &buf); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if n := doc.Find("main script, main style, main iframe, main img").Length(); n != 0 {
				t.Fatalf("the dump made %d elements", n)
			}
			if n := doc.Find("[data-testid=goroutine-group]").Length(); n != len(rep.Groups) {
				t.Fatalf("%d groups shown of %d", n, len(rep.Groups))
			}
			var md bytes.Buffer
			writeGoroutineMarkdown(&md, rep)
			// Escaped brackets and the blockquote marker "  > " of a crash message
			// are the only ones allowed outside code spans.
			p := strings.NewReplacer("\n  > ", "\n", `\<`, "", `\>`, "").Replace(markdown.Prose(md.String()))
			if strings.ContainsAny(p, "<>") {
				t.Fatalf("markup in the Markdown prose:\n%s", md.String())
			}
		}
	})
}
