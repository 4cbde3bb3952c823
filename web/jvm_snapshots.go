package web

import (
	"io"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/view"
)

// snapshotSet is a JVM report loaded: its snapshots oldest first (T is a class
// histogram, a native memory summary or a thread dump's report), the file and
// position each came from, and the query that selects a view. histogramSet,
// nmtSet and threadSet embed it and add what is particular to their kind.
type snapshotSet[T any] struct {
	rep   *store.Report
	items []T
	refs  []jvmRef
	q     jvmQuery
}

// loadSnapshotSet parses every file of the report with parse (cached by file and
// prefix) and reads the query against the snapshots found.
func loadSnapshotSet[T any](s *Server, r *http.Request, rep *store.Report, prefix string, parse func(io.Reader, *analyze.Budget) ([]T, error)) (*snapshotSet[T], error) {
	items, refs, err := jvmLoadSnapshots(r.Context(), s, rep, prefix, parse)
	if err != nil {
		return nil, err
	}
	q, err := parseJVMQuery(r, len(items))
	if err != nil {
		return nil, err
	}
	return &snapshotSet[T]{rep: rep, items: items, refs: refs, q: q}, nil
}

// single tells whether the view shows one snapshot, and which.
func (ss *snapshotSet[T]) single() (int, bool) {
	if len(ss.items) == 1 {
		return 0, true
	}
	return ss.q.snapshot, ss.q.snapshot >= 0
}

// name is how pages call snapshot i: its file, and its place in the file when the
// file holds several.
func (ss *snapshotSet[T]) name(i int) string { return jvmSnapshotName(ss.rep, ss.refs, i) }

// names lists every snapshot's name, oldest first.
func (ss *snapshotSet[T]) names() []string {
	out := make([]string, len(ss.items))
	for i := range out {
		out[i] = ss.name(i)
	}
	return out
}

// header builds the page header (files, links) with a tab per snapshot; kindOf
// describes file i and timeOf gives the time it was taken (zero when unknown).
func (ss *snapshotSet[T]) header(title string, kindOf func(i int) string, timeOf func(i int) time.Time) view.JVMHeader {
	h := jvmHeader(ss.rep, ss.q, title, kindOf, timeOf)
	h.Tabs = jvmSnapshotTabs(ss.rep, ss.q, ss.names())
	return h
}

// markdown writes a JVM report's ticket summary: the head, then one snapshot's
// Markdown (one) when the query selects one, else the diff's (diff), with the
// number of rows the query asks for.
func (ss *snapshotSet[T]) markdown(w io.Writer, r *http.Request, one func(item T, rows int) string, diff func(w io.Writer, rows int) error) error {
	rows := jvmMarkdownRows(r, ss.q)
	if i, ok := ss.single(); ok {
		jvmMarkdownHead(w, r, ss.rep, ss.q, ss.name(i))
		_, err := io.WriteString(w, one(ss.items[i], rows))
		return err
	}
	jvmMarkdownHead(w, r, ss.rep, ss.q, ss.name(ss.q.base)+" → "+ss.name(ss.q.target))
	return diff(w, rows)
}

// showPage renders a JVM report's page whose one-snapshot and diff views share a
// page model P: one(i) when the query selects snapshot i, else diff().
func showPage[T, P any](s *Server, w http.ResponseWriter, r *http.Request, ss *snapshotSet[T], one func(i int) P, diff func() P,
	header func(P) view.JVMHeader, component func(P) templ.Component) error {
	var pg P
	if i, ok := ss.single(); ok {
		pg = one(i)
	} else {
		pg = diff()
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: header(pg).Title, Nav: "reports", Description: header(pg).Headline}, component(pg))
}
