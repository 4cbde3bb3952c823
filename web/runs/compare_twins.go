package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// CompareDoc is GET /api/runs/compare: the comparison's headline, its runs and
// every figure side by side, as the page shows them.
type CompareDoc struct {
	Headline string          `json:"headline"`
	Bug      string          `json:"bug,omitempty"`
	Runs     [2]CompareRun   `json:"runs"`
	Figures  []CompareFigure `json:"figures"`
	URL      string          `json:"url"`
}

// CompareRun is one run of a comparison.
type CompareRun struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Status  string `json:"status"`
	Verdict string `json:"verdict,omitempty"`
	Reason  string `json:"reason,omitempty"`
	URL     string `json:"url"`
}

// CompareFigure is one figure of both runs; Change is B − A.
type CompareFigure struct {
	Key       string `json:"key"`
	Label     string `json:"label"`
	A         string `json:"a"`
	B         string `json:"b"`
	Change    string `json:"change,omitempty"`
	KeyFigure bool   `json:"key_figure,omitempty"`
}

// compareTitle is the comparison's title: the bug both runs reproduce, if one.
func compareTitle(c view.ComparePage) string {
	if c.Bug != "" {
		return "compare " + c.Bug + " runs"
	}
	return "compare runs"
}

func compareDoc(r *http.Request, c view.ComparePage) CompareDoc {
	d := CompareDoc{Headline: c.Headline, Bug: c.Bug, URL: page.Absolute(r, "/runs/compare?a="+c.Runs[0].ID+"&b="+c.Runs[1].ID)}
	for i, run := range c.Runs {
		d.Runs[i] = CompareRun{ID: run.ID, Title: run.Title, Status: run.Status, Verdict: run.Verdict, Reason: run.Reason, URL: page.Absolute(r, page.RunURL(run.ID))}
	}
	key := map[string]bool{}
	for _, k := range c.Key {
		key[k.Key] = true
	}
	for _, f := range c.Diffs {
		d.Figures = append(d.Figures, CompareFigure{Key: f.Key, Label: f.Label, A: f.Values[0], B: f.Values[1], Change: f.Change, KeyFigure: key[f.Key]})
	}
	return d
}

// compareAPI is GET /api/runs/compare?a=ID&b=ID.
func (s *Kind) compareAPI(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requestedComparison(r)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(compareDoc(r, c))
}

// compareMarkdown is GET /runs/compare.md?a=ID&b=ID: the headline, the runs and
// the figures as a Markdown table.
func (s *Kind) compareMarkdown(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requestedComparison(r)
	if err != nil {
		return err
	}
	d := compareDoc(r, c)
	var b bytes.Buffer
	fmt.Fprint(&b, markdown.Heading(3, "leakui: "+markdown.Escape(compareTitle(c))))
	fmt.Fprintf(&b, "**%s**\n\n", markdown.Escape(d.Headline))
	for i, run := range d.Runs {
		fmt.Fprintf(&b, "- %c: [%s](%s) — %s\n", 'A'+i, markdown.Escape(run.Title), run.URL, verdictWord(run.Verdict, run.Status))
	}
	fmt.Fprintf(&b, "- Comparison: %s\n\n| figure | A | B | B − A |\n| --- | --- | --- | --- |\n", d.URL)
	for _, f := range d.Figures {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", markdown.Escape(f.Label), markdown.Escape(f.A), markdown.Escape(f.B), markdown.Escape(f.Change))
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, err = w.Write(b.Bytes())
	return err
}
