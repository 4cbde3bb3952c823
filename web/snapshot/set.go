package snapshot

import (
	"io"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/view"
)

// Set is a JVM report loaded: its snapshots oldest first (T is a class
// histogram, a native memory summary or a thread dump's report), the file and
// position each came from, and the query that selects a view. histogramSet,
// nmtSet and threadSet embed it and add what is particular to their kind.
type Set[T any] struct {
	Rep   *store.Report
	Items []T
	Refs  []Ref
	Q     Query
}

// LoadSet parses every file of the report with parse (cached by file and
// prefix) and reads the query against the snapshots found.
func LoadSet[T any](l *Loader, r *http.Request, rep *store.Report, prefix string, parse func(io.Reader, *analyze.Budget) ([]T, error)) (*Set[T], error) {
	items, refs, err := LoadAll(r.Context(), l, rep, prefix, parse)
	if err != nil {
		return nil, err
	}
	q, err := ParseQuery(r, len(items))
	if err != nil {
		return nil, err
	}
	return &Set[T]{Rep: rep, Items: items, Refs: refs, Q: q}, nil
}

// Single tells whether the view shows one snapshot, and which.
func (ss *Set[T]) Single() (int, bool) {
	if len(ss.Items) == 1 {
		return 0, true
	}
	return ss.Q.Snapshot, ss.Q.Snapshot >= 0
}

// Name is how pages call snapshot i: its file, and its place in the file when the
// file holds several.
func (ss *Set[T]) Name(i int) string { return Name(ss.Rep, ss.Refs, i) }

// Names lists every snapshot's name, oldest first.
func (ss *Set[T]) Names() []string {
	out := make([]string, len(ss.Items))
	for i := range out {
		out[i] = ss.Name(i)
	}
	return out
}

// Header builds the page header (files, links) with a tab per snapshot; kindOf
// describes file i and timeOf gives the time it was taken (zero when unknown).
func (ss *Set[T]) Header(title string, kindOf func(i int) string, timeOf func(i int) time.Time) view.JVMHeader {
	h := Header(ss.Rep, ss.Q, title, kindOf, timeOf)
	h.Tabs = Tabs(ss.Rep, ss.Q, ss.Names())
	return h
}

// Markdown writes a JVM report's ticket summary: the head, then one snapshot's
// Markdown (one) when the query selects one, else the diff's (diff), with the
// number of rows the query asks for.
func (ss *Set[T]) Markdown(w io.Writer, r *http.Request, one func(item T, rows int) string, diff func(w io.Writer, rows int) error) error {
	rows := MarkdownRows(r, ss.Q)
	if i, ok := ss.Single(); ok {
		MarkdownHead(w, r, ss.Rep, ss.Q, ss.Name(i))
		_, err := io.WriteString(w, one(ss.Items[i], rows))
		return err
	}
	MarkdownHead(w, r, ss.Rep, ss.Q, ss.Name(ss.Q.Base)+" → "+ss.Name(ss.Q.Target))
	return diff(w, rows)
}

// ShowPage renders a JVM report's page whose one-snapshot and diff views share a
// page model P: one(i) when the query selects snapshot i, else diff().
func ShowPage[T, P any](l *Loader, w http.ResponseWriter, r *http.Request, ss *Set[T], one func(i int) P, diff func() P,
	header func(P) view.JVMHeader, component func(P) templ.Component) error {
	var pg P
	if i, ok := ss.Single(); ok {
		pg = one(i)
	} else {
		pg = diff()
	}
	return l.d.Render(w, r, http.StatusOK, view.Page{Title: header(pg).Title, Nav: "reports", Description: header(pg).Headline}, component(pg))
}

// MarkdownRows is how many rows a Markdown table has: ten, or the query's n.
func MarkdownRows(r *http.Request, q Query) int {
	if r.URL.Query().Get("n") == "" {
		return 10
	}
	return q.Rows
}
