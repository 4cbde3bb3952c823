package incident

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// parsed is a Markdown document as goldmark (CommonMark with GitHub's tables)
// reads it.
type parsed struct {
	links, images []string
	// linkTexts are the texts of the links, in order.
	linkTexts []string
	// html counts raw HTML nodes (inline or block).
	html int
	// rows are the tables' body rows, each cell's text.
	tables [][][]string
	// headings are the headings' texts.
	headings []string
	// text is the whole document's text, without markup.
	text string
}

func parse(t *testing.T, md []byte) parsed {
	t.Helper()
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(md))
	var p parsed
	var all strings.Builder
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			p.links = append(p.links, string(n.Destination))
			p.linkTexts = append(p.linkTexts, nodeText(n, md))
		case *ast.Image:
			p.images = append(p.images, string(n.Destination))
		case *ast.RawHTML, *ast.HTMLBlock:
			p.html++
		case *ast.Heading:
			p.headings = append(p.headings, nodeText(n, md))
		case *east.Table:
			var rows [][]string
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				if _, ok := r.(*east.TableRow); !ok {
					continue
				}
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, nodeText(c, md))
				}
				rows = append(rows, cells)
			}
			p.tables = append(p.tables, rows)
		case *ast.Text:
			all.Write(util.UnescapePunctuations(n.Segment.Value(md)))
			all.WriteByte(' ')
		case *ast.CodeSpan:
			all.WriteString(nodeText(n, md) + " ")
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p.text = all.String()
	return p
}

// nodeText is the text of a node's inline children.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(util.UnescapePunctuations(c.Segment.Value(src)))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestMarkdownRoundTrip renders an incident of the real evidence, with a
// title, notes and names full of markup, parses it back with goldmark and
// checks that every link and image resolves to the URL it should, that no HTML
// comes through, and that the tables hold one row per piece of evidence and
// per annotation with the texts as typed.
func TestMarkdownRoundTrip(t *testing.T) {
	ev := realEvidence(t)
	ev[0].Title = "dump|<img src=x onerror=alert(1)>](javascript:alert(1))\n| injected | row |"
	v := Decide(ev)
	at := time.Date(2026, 3, 1, 10, 32, 0, 0, time.UTC)
	s := Summary{
		Slug: "checkout-oom", Title: "Checkout *pods* <b>OOM</b> | [click](javascript:alert(1))", State: "open",
		TicketURL: "https://jira.example.com/browse/OPS-42?a=(b)&c=<d>", BaseURL: "https://leakui.example.com/",
		TimelineImage: "/i/checkout-oom/timeline.png?w=1200&h=400", Verdict: v,
		Annotations: []Annotation{
			{At: at, Text: "deployed the fix", Author: "ana"},
			{At: at.Add(33 * time.Minute), Text: "restarted broker-3 | ![x](javascript:alert(1)) <script>alert(1)</script>\nsecond line", Author: "<bob>"},
		},
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	md := buf.Bytes()
	p := parse(t, md)
	base := "https://leakui.example.com"
	want := []string{
		"https://jira.example.com/browse/OPS-42?a=%28b%29&c=%3Cd%3E", // the ticket
		base + "/i/checkout-oom",                                     // the incident page
		base + v.Link,                                                // the strongest evidence
	}
	for _, e := range v.Ranked {
		want = append(want, base+e.Link)
	}
	if !slices.Equal(p.links, want) {
		t.Errorf("links\n%q\nwant\n%q\n%s", p.links, want, md)
	}
	if wantImg := []string{base + "/i/checkout-oom/timeline.png?w=1200&h=400"}; !slices.Equal(p.images, wantImg) {
		t.Errorf("images %q, want %q", p.images, wantImg)
	}
	if p.html != 0 {
		t.Errorf("%d HTML nodes in\n%s", p.html, md)
	}
	if len(p.tables) != 2 || len(p.tables[0]) != len(v.Ranked) || len(p.tables[1]) != 2 {
		t.Fatalf("tables %d, rows %v\n%s", len(p.tables), p.tables, md)
	}
	for i, row := range p.tables[0] {
		e := v.Ranked[i]
		if len(row) != 7 || row[0] != fmt.Sprint(i+1) || row[1] != e.Strength.String() || row[3] != e.Finding || row[4] != e.NumberText() || row[6] != "open" {
			t.Errorf("evidence row %d: %q, want %s, %q, %q", i, row, e.Strength, e.Finding, e.NumberText())
		}
	}
	if got := p.tables[1][1]; got[0] != "2026-03-01 11:05 UTC" || got[1] != "restarted broker-3 | ![x](javascript:alert(1)) <script>alert(1)</script> second line" || got[2] != "<bob>" {
		t.Errorf("annotation row %q", got)
	}
	if h := p.headings[0]; h != "Incident checkout-oom: Checkout *pods* <b>OOM</b> | [click](javascript:alert(1))" {
		t.Errorf("title heading %q", h)
	}
	if !strings.Contains(p.text, "dump|<img src=x onerror=alert(1)>](javascript:alert(1)) | injected | row |") {
		t.Errorf("the hostile evidence title does not read as typed in\n%s", p.text)
	}
	for _, h := range []string{"Contradictions", "Evidence", "Annotations"} {
		if !slices.Contains(p.headings, h) {
			t.Errorf("no heading %q in %q", h, p.headings)
		}
	}
	// A dollar sign (JVM class names hold them) is escaped, so that GitHub and
	// GitLab do not read the text between two as math.
	if strings.Count(string(md), "$") == 0 || strings.Count(string(md), "$") != strings.Count(string(md), `\$`) ||
		!strings.Contains(p.text, "LeakShape$ConsumerThread") {
		t.Errorf("dollar signs not escaped, or not read back as text:\n%s", md)
	}
	if !strings.Contains(string(md), "**Leak proven:** JVM captures") || !strings.Contains(p.text, "look off-heap") {
		t.Errorf("the headline or the contradictions are missing:\n%s", md)
	}
}

// TestMarkdownBounds: a ticket that is not http(s) is shown, never linked; an
// image that is not is left out; an incident of 10,000 pieces and 1,000 notes
// lists at most MaxListedEvidence and MaxListedAnnotations rows and says how
// many more the page has.
func TestMarkdownBounds(t *testing.T) {
	var ev []Evidence
	for i := range 10_000 {
		ev = append(ev, Evidence{Kind: "heap series", Strength: Clean, Domain: Heap, Finding: "no steady growth", Number: int64(i), Unit: "bytes", Link: fmt.Sprintf("/r/%d", i)})
	}
	var notes []Annotation
	for i := range 1000 {
		notes = append(notes, Annotation{At: time.Unix(int64(i), 0), Text: strings.Repeat("x", 1000)})
	}
	s := Summary{Slug: "big", Title: "big", State: "resolved", TicketURL: "javascript:alert(1)", TimelineImage: "javascript:alert(1)",
		Verdict: Decide(ev), MoreEvidence: 5, Annotations: notes, MoreAnnotations: 3}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	p := parse(t, buf.Bytes())
	if len(p.images) != 0 || slices.ContainsFunc(p.links, func(l string) bool { return strings.HasPrefix(l, "javascript") }) {
		t.Errorf("links %q, images %q", p.links[:3], p.images)
	}
	if len(p.tables) != 2 || len(p.tables[0]) != MaxListedEvidence || len(p.tables[1]) != MaxListedAnnotations {
		t.Errorf("%d tables of %d and %d rows", len(p.tables), len(p.tables[0]), len(p.tables[1]))
	}
	if !strings.Contains(p.text, fmt.Sprintf("%d more on the", 10_000-MaxListedEvidence+5)) || !strings.Contains(p.text, fmt.Sprintf("%d more on the", 1000-MaxListedAnnotations+3)) {
		t.Errorf("the counts of what is left out are missing")
	}
	if buf.Len() > 512<<10 {
		t.Errorf("the summary of a large incident is %d bytes", buf.Len())
	}
}
