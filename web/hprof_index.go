package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/view"
)

// heapDumpIndexName names a heap dump report's index among its derived blobs.
const heapDumpIndexName = "hprof-index"

// heapDomPage is how many children one page of the lazily loaded dominator tree
// shows.
const heapDomPage = 25

// heapDumpBudget charges a heap dump analysis to the server's memory
// budget (one analysis's share of it); call finish once the Heap is closed.
func (s *Server) heapDumpBudget(opt *hprof.Options) (finish func(), err error) {
	b := s.analysisBudget()
	opt.Budget = b
	return b.Release, nil
}

// storeHeapDumpIndex writes the analyzed heap's index (hprof.Heap.WriteIndex)
// into the store with report id, streaming: the index never sits whole in
// memory. It reports whether an index is stored.
func (s *Server) storeHeapDumpIndex(ctx context.Context, id string, h *hprof.Heap, progress func(string, float64)) (bool, error) {
	progress("store-index", 0)
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		_, err := h.WriteIndex(pw)
		pw.CloseWithError(err)
		written <- err
	}()
	_, err := s.store.PutDerived(ctx, id, heapDumpIndexName, pr)
	pr.CloseWithError(fmt.Errorf("the store stopped reading"))
	werr := <-written
	if err != nil {
		return false, fmt.Errorf("storing the heap dump's index: %w", err)
	}
	if werr != nil {
		return false, fmt.Errorf("writing the heap dump's index: %w", werr)
	}
	progress("store-index", 1)
	return true, nil
}

// heapIndexCacheEntries is how many opened heap dump indexes the server keeps:
// opening one reads its header and class names, and a tree being expanded asks
// for the same index again and again. An entry holds those and a few chunks.
const heapIndexCacheEntries = 8

// openHeapDumpIndex opens a ready heap dump report's stored index (or takes it
// from the server's cache). A report without one (made before indexes were
// stored) is a 404 that says so.
func (s *Server) openHeapDumpIndex(ctx context.Context, rep *store.Report) (*hprof.Index, error) {
	if rep.Kind != kindJavaHeapDump {
		return nil, errorf(http.StatusNotFound, "report %s is not a heap dump: it has no dominator tree", rep.ID)
	}
	if rep.Status != store.ReportReady {
		return nil, errorf(http.StatusConflict, "report %s is %s: its dominator tree is not ready", rep.ID, rep.Status)
	}
	if x, ok := s.heapIndexes.get(rep.ID); ok {
		return x, nil
	}
	// The blob outlives this request in the cache; it holds no connection
	// between two reads, and Close only drops its chunks, so an entry that
	// leaves the cache needs no closing.
	b, err := s.store.OpenDerived(context.WithoutCancel(ctx), rep.ID, heapDumpIndexName)
	if err != nil {
		if status, _ := statusOf(err); status == http.StatusNotFound {
			return nil, errorf(http.StatusNotFound, "report %s has no stored index (it was made before leakui stored them): its page shows the top levels of the dominator tree", rep.ID)
		}
		return nil, err
	}
	x, err := hprof.OpenIndex(b, b.Size())
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("report %s: the stored index: %w", rep.ID, err)
	}
	s.heapIndexes.add(rep.ID, x)
	return x, nil
}

// heapDomURL is a report's dominators endpoint, /r/{id}/dominators.
func heapDomURL(id string) string { return reportURL(id) + "/dominators" }

// heapDomNodeParam reads a node: "root" or empty for the GC roots, else an
// object's ordinal.
func heapDomNodeParam(v string) (uint32, string, error) {
	if v == "" || v == "root" {
		return hprof.IndexRoot, "root", nil
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || uint32(n) == hprof.IndexRoot {
		return 0, "", errorf(http.StatusBadRequest, "node must be an object's number or \"root\", not %q", v)
	}
	return uint32(n), v, nil
}

// heapDomIntParam reads a non-negative integer parameter, def when absent.
func heapDomIntParam(r *http.Request, name string, def, limit int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > limit {
		return 0, errorf(http.StatusBadRequest, "%s must be a number from 0 to %d, not %q", name, limit, v)
	}
	return n, nil
}

// heapDomJSON is the dominators endpoint's JSON answer.
type heapDomJSON struct {
	ReportID string `json:"report_id"`
	// Node is the object whose children these are (absent for the GC roots).
	Node *hprof.Object `json:"node,omitempty"`
	// Path is the node's dominator chain from the top down to it.
	Path     []hprof.Object `json:"path"`
	Offset   int            `json:"offset"`
	Total    int            `json:"total"`
	Children []hprof.Object `json:"children"`
	// Next is the URL of the next page, when there is one.
	Next string `json:"next,omitempty"`
}

// handleHeapDominators is GET /r/{id}/dominators?node=N&offset=K (and
// /r/{id}/dominators.json): a page of 25 of the objects node dominates, largest
// first, read from the stored index, never from the dump. It answers JSON for
// .json or Accept: application/json, the rows alone for the page's expand
// buttons (fragment=1), else a page of its own (the fallback without
// JavaScript) with the node's dominator chain.
func (s *Server) handleHeapDominators(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	asJSON := strings.HasSuffix(r.URL.Path, ".json") || strings.Contains(r.Header.Get("Accept"), "application/json")
	node, nodeText, err := heapDomNodeParam(r.URL.Query().Get("node"))
	if err != nil {
		return err
	}
	offset, err := heapDomIntParam(r, "offset", 0, 1<<31-1)
	if err != nil {
		return err
	}
	level, err := heapDomIntParam(r, "level", 0, 1<<16)
	if err != nil {
		return err
	}
	rep, err := s.store.Report(r.Context(), id)
	if err != nil {
		return err
	}
	x, err := s.openHeapDumpIndex(r.Context(), rep)
	if err != nil {
		return err
	}
	kids, total, err := x.Children(node, offset, heapDomPage)
	if err != nil {
		return heapIndexError(err)
	}
	path, err := x.Path(node)
	if err != nil {
		return heapIndexError(err)
	}
	src := heapDomURL(id)
	next := offset + len(kids)
	if asJSON {
		doc := heapDomJSON{ReportID: id, Path: path, Offset: offset, Total: total, Children: kids}
		if doc.Path == nil {
			doc.Path = []hprof.Object{}
		}
		if node != hprof.IndexRoot && len(path) > 0 {
			doc.Node = &path[len(path)-1]
		}
		if next < total {
			doc.Next = absoluteURL(r, src+".json?node="+nodeText+"&offset="+strconv.Itoa(next))
		}
		return writeJSON(w, http.StatusOK, doc)
	}
	list := heapDomList(src, nodeText, level, kids, total, next, x.TotalRetained())
	if r.URL.Query().Get("fragment") == "1" {
		return s.renderFragment(w, r, view.HeapDomItems(list))
	}
	if r.URL.Query().Get("chain") == "1" {
		return s.renderFragment(w, r, view.HeapDomChain(heapDomChain(src, path, x.TotalRetained())))
	}
	page := view.HeapDomNodePage{Header: view.JVMHeader{Title: "Dominator tree", Created: formatTime(rep.CreatedAt), Permalink: reportURL(id),
		Links: []view.Link{{Label: "JSON", URL: src + ".json?node=" + nodeText}}}, Children: list}
	page.Header.Headline = "What the GC roots keep alive"
	if len(path) > 0 {
		o := path[len(path)-1]
		page.Header.Headline = fmt.Sprintf("What %s %s keeps alive: %s", o.Class, o.ID, analyze.FormatBytes(o.Retained))
	}
	page.Chain = heapDomChain(src, path, x.TotalRetained())
	return s.render(w, r, http.StatusOK, view.Page{Title: "Dominator tree", Nav: "reports"}, view.HeapDomNodePageView(page))
}

// heapIndexError makes an index's refusal of a node a 400 or 404.
func heapIndexError(err error) error {
	if status, _ := statusOf(err); status == http.StatusBadRequest {
		return &Error{Status: http.StatusNotFound, Message: "no such object in the dominator tree: " + err.Error(), Err: err}
	}
	return err
}

// heapDomList makes a page of children into the view's rows.
func heapDomList(src, node string, level int, kids []hprof.Object, total, next int, reachable int64) view.HeapDomList {
	l := view.HeapDomList{Src: src, Node: node, Level: level, More: total - next, NextOffset: next}
	for _, k := range kids {
		l.Rows = append(l.Rows, heapLazyRow(src, k, reachable, level))
	}
	return l
}

// heapDomChain makes a dominator chain into the view's rows.
func heapDomChain(src string, path []hprof.Object, reachable int64) []view.HeapRow {
	var rows []view.HeapRow
	for i, o := range path {
		rows = append(rows, heapLazyRow(src, o, reachable, i))
	}
	return rows
}

// heapLazyRow is a row of the lazily loaded tree.
func heapLazyRow(src string, o hprof.Object, reachable int64, level int) view.HeapRow {
	o.Children = nil
	row := heapRow(o, reachable, level)
	row.Node, row.Src = strconv.FormatUint(uint64(o.Ordinal), 10), src
	return row
}

// heapDumpLazyTree reads the top of a report's dominator tree from its stored
// index for the page; nil when the report has none (made before indexes were
// stored), which then shows the levels kept in its summary.
func (s *Server) heapDumpLazyTree(ctx context.Context, rep *store.Report) (*view.HeapDomList, error) {
	x, err := s.openHeapDumpIndex(ctx, rep)
	if err != nil {
		if status, _ := statusOf(err); status == http.StatusNotFound {
			return nil, nil
		}
		return nil, err
	}
	kids, total, err := x.Children(hprof.IndexRoot, 0, heapDomPage)
	if err != nil {
		return nil, err
	}
	l := heapDomList(heapDomURL(rep.ID), "root", 0, kids, total, len(kids), x.TotalRetained())
	return &l, nil
}

// renderFragment renders a component alone (no layout), for the page's scripts
// to insert.
func (s *Server) renderFragment(w http.ResponseWriter, r *http.Request, c templ.Component) error {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(validUTF8(buf.Bytes()))
	return err
}
