package runs

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/page"
)

// showRunMarkdown is GET /runs/{id}.md: the Markdown summary of the run's report
// (the same as /r/{report}.md) once the run has one, else its status so far.
func (s *Kind) showRunMarkdown(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	run, err := s.d.Store.Run(r.Context(), id)
	if err != nil {
		return err
	}
	var md []byte
	if run.ReportID != "" {
		rep, err := s.d.Store.Report(r.Context(), run.ReportID)
		if err != nil {
			return err
		}
		if md, err = s.ReportMarkdown(r, rep); err != nil {
			return err
		}
	} else {
		pg, err := s.runPage(r, id)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		fmt.Fprint(&b, markdown.Heading(3, "leakui run: "+markdown.Escape(pg.Title)))
		fmt.Fprintf(&b, "- Run: %s\n", page.Absolute(r, page.RunURL(id)))
		fmt.Fprintf(&b, "- Status: %s; verdict: **%s**\n", pg.Status, verdictWord(pg.Verdict, pg.Status))
		for _, line := range []string{pg.Reason, pg.Error} {
			if line != "" {
				fmt.Fprintf(&b, "- %s\n", markdown.Escape(line))
			}
		}
		for _, c := range pg.Counters {
			fmt.Fprintf(&b, "- %s: %s\n", c.Label, c.Value)
		}
		md = b.Bytes()
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, err = w.Write(md)
	return err
}
