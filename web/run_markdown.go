package web

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/internal/markdown"
)

// showRunMarkdown is GET /runs/{id}.md: the Markdown summary of the run's report
// (the same as /r/{report}.md) once the run has one, else its status so far.
func (rs runsResource) showRunMarkdown(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	run, err := rs.s.store.Run(r.Context(), id)
	if err != nil {
		return err
	}
	var md []byte
	if run.ReportID != "" {
		rep, err := rs.s.store.Report(r.Context(), run.ReportID)
		if err != nil {
			return err
		}
		if md, err = rs.s.markdown(r, rep); err != nil {
			return err
		}
	} else {
		page, err := rs.s.runPage(r, id)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		fmt.Fprint(&b, markdown.Heading(3, "leakui run: "+markdown.Escape(page.Title)))
		fmt.Fprintf(&b, "- Run: %s\n", absoluteURL(r, runURL(id)))
		fmt.Fprintf(&b, "- Status: %s; verdict: **%s**\n", page.Status, verdictWord(page.Verdict, page.Status))
		for _, line := range []string{page.Reason, page.Error} {
			if line != "" {
				fmt.Fprintf(&b, "- %s\n", markdown.Escape(line))
			}
		}
		for _, c := range page.Counters {
			fmt.Fprintf(&b, "- %s: %s\n", c.Label, c.Value)
		}
		md = b.Bytes()
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, err = w.Write(md)
	return err
}
