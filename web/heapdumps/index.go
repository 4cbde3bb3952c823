package heapdumps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// IndexName names a heap dump report's index among its derived blobs.
const IndexName = "hprof-index"

// DomPage is how many children one page of the lazily loaded dominator tree
// shows.
const DomPage = 25

// Budget charges a heap dump analysis to the server's memory
// budget (one analysis's share of it); call finish once the Heap is closed.
func (s *Kind) Budget(opt *hprof.Options) (finish func(), err error) {
	b := s.d.Analysis()
	opt.Budget = b
	return b.Release, nil
}

// StoreIndex writes the analyzed heap's index (hprof.Heap.WriteIndex)
// into the store with report id, streaming: the index never sits whole in
// memory. It reports whether an index is stored.
func (s *Kind) StoreIndex(ctx context.Context, id string, h *hprof.Heap, progress func(string, float64)) (bool, error) {
	progress("store-index", 0)
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		_, err := h.WriteIndex(pw)
		pw.CloseWithError(err)
		written <- err
	}()
	_, err := s.d.Store.PutDerived(ctx, id, IndexName, pr)
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

// indexCacheEntries is how many opened heap dump indexes the server keeps:
// opening one reads its header and class names, and a tree being expanded asks
// for the same index again and again. An entry holds those and a few chunks.
const indexCacheEntries = 8

// openHeapDumpIndex opens a ready heap dump report's stored index (or takes it
// from the server's cache). A report without one (made before indexes were
// stored) is a 404 that says so.
func (s *Kind) openHeapDumpIndex(ctx context.Context, rep *store.Report) (*hprof.Index, error) {
	if rep.Kind != ReportDump {
		return nil, serrors.Errorf(http.StatusNotFound, "report %s is not a heap dump: it has no dominator tree", rep.ID)
	}
	if rep.Status != store.ReportReady {
		return nil, serrors.Errorf(http.StatusConflict, "report %s is %s: its dominator tree is not ready", rep.ID, rep.Status)
	}
	if x, ok := s.indexes.Get(rep.ID); ok {
		return x, nil
	}
	// The blob outlives this request in the cache; it holds no connection
	// between two reads, and Close only drops its chunks, so an entry that
	// leaves the cache needs no closing.
	b, err := s.d.Store.OpenDerived(context.WithoutCancel(ctx), rep.ID, IndexName)
	if err != nil {
		if status, _ := serrors.StatusOf(err); status == http.StatusNotFound {
			return nil, serrors.Errorf(http.StatusNotFound, "report %s has no stored index (it was made before leakui stored them): its page shows the top levels of the dominator tree", rep.ID)
		}
		return nil, err
	}
	x, err := hprof.OpenIndex(b, b.Size())
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("report %s: the stored index: %w", rep.ID, err)
	}
	s.indexes.Add(rep.ID, x)
	return x, nil
}

// DomURL is a report's dominators endpoint, /r/{id}/dominators.
func DomURL(id string) string { return page.ReportURL(id) + "/dominators" }

// heapDomNodeParam reads a node: "root" or empty for the GC roots, else an
// object's ordinal.
func heapDomNodeParam(v string) (uint32, string, error) {
	if v == "" || v == "root" {
		return hprof.IndexRoot, "root", nil
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || uint32(n) == hprof.IndexRoot {
		return 0, "", serrors.Errorf(http.StatusBadRequest, "node must be an object's number or \"root\", not %q", v)
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
		return 0, serrors.Errorf(http.StatusBadRequest, "%s must be a number from 0 to %d, not %q", name, limit, v)
	}
	return n, nil
}

// DomJSON is the dominators endpoint's JSON answer.
type DomJSON struct {
	ReportID string `json:"report_id"`
	// Node is the object whose children these are (absent for the GC roots).
	Node *hprof.Object `json:"node,omitempty"`
	// Path is the node's dominator chain by its ends: the top (a child of the
	// GC roots) and the ChainEnds objects down to the node, PathIndex
	// their positions on the chain and PathLength the objects on it; those
	// between are left out.
	Path       []hprof.Object `json:"path"`
	PathIndex  []int          `json:"path_index"`
	PathLength int            `json:"path_length"`
	Offset     int            `json:"offset"`
	Total      int            `json:"total"`
	Children   []hprof.Object `json:"children"`
	// Next is the URL of the next page, when there is one.
	Next string `json:"next,omitempty"`
}

// ChainEnds is how many objects above a node its dominator chain shows
// (with the top): a chain is as deep as the heap's longest reference chain.
const ChainEnds = 8

// heapViewBytes is what a page of the dominator tree or of a path may hold
// while it renders: a page of 25 or 50 objects and their names (each name at
// most hprof.MaxName bytes, a text at most 160 characters), decoded, turned
// into a page and buffered.
const heapViewBytes = 4 << 20

// Dominators is GET /r/{id}/dominators?node=N&offset=K (and
// /r/{id}/dominators.json): a page of 25 of the objects node dominates, largest
// first, read from the stored index, never from the dump. It answers JSON for
// .json or Accept: application/json, the rows alone for the page's expand
// buttons (fragment=1), else a page of its own (the fallback without
// JavaScript) with the node's dominator chain.
func (s *Kind) Dominators(w http.ResponseWriter, r *http.Request) error {
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
	release, err := s.d.ChargeView(heapViewBytes)
	if err != nil {
		return err
	}
	defer release()
	rep, err := s.d.Store.Report(r.Context(), id)
	if err != nil {
		return err
	}
	x, err := s.openHeapDumpIndex(r.Context(), rep)
	if err != nil {
		return err
	}
	kids, total, err := x.Children(node, offset, DomPage)
	if err != nil {
		return heapIndexError(err)
	}
	path, index, length, err := x.Chain(node, ChainEnds)
	if err != nil {
		return heapIndexError(err)
	}
	src := DomURL(id)
	next := offset + len(kids)
	if asJSON {
		doc := DomJSON{ReportID: id, Path: path, PathIndex: index, PathLength: length, Offset: offset, Total: total, Children: kids}
		if doc.Path == nil {
			doc.Path, doc.PathIndex = []hprof.Object{}, []int{}
		}
		if node != hprof.IndexRoot && len(path) > 0 {
			doc.Node = &path[len(path)-1]
		}
		if next < total {
			doc.Next = page.Absolute(r, src+".json?node="+nodeText+"&offset="+strconv.Itoa(next))
		}
		return page.JSON(w, http.StatusOK, doc)
	}
	list := heapDomList(src, nodeText, level, kids, total, next, x.TotalRetained())
	if r.URL.Query().Get("fragment") == "1" {
		return page.Fragment(w, r, view.HeapDomItems(list))
	}
	if r.URL.Query().Get("chain") == "1" {
		return page.Fragment(w, r, view.HeapDomChain(heapDomChain(src, path, index, x.TotalRetained())))
	}
	pg := view.HeapDomNodePage{Header: view.JVMHeader{Title: "Dominator tree", Created: page.FormatTime(rep.CreatedAt), Permalink: page.ReportURL(id),
		Links: []view.Link{{Label: "JSON", URL: src + ".json?node=" + nodeText}}}, Children: list}
	pg.Header.Headline = "What the GC roots keep alive"
	if len(path) > 0 {
		o := path[len(path)-1]
		pg.Header.Headline = fmt.Sprintf("What %s %s keeps alive: %s", o.Class, o.ID, analyze.FormatBytes(o.Retained))
	}
	pg.Chain, pg.ChainLength = heapDomChain(src, path, index, x.TotalRetained()), length
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: "Dominator tree", Nav: "reports"}, view.HeapDomNodePageView(pg))
}

// heapIndexError makes an index's refusal of a node a 400 or 404.
func heapIndexError(err error) error {
	if status, _ := serrors.StatusOf(err); status == http.StatusBadRequest {
		return &serrors.Error{Status: http.StatusNotFound, Message: "no such object in the dominator tree: " + err.Error(), Err: err}
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

// heapDomChain makes a dominator chain's ends into the view's rows, each with
// the number of objects left out above it.
func heapDomChain(src string, path []hprof.Object, index []int, reachable int64) []view.HeapRow {
	var rows []view.HeapRow
	prev := -1
	for i, o := range path {
		row := heapLazyRow(src, o, reachable, i)
		row.Index, row.Gap, row.Pos = index[i], index[i]-prev-1, analyze.FormatCount(int64(index[i]+1))
		prev = index[i]
		rows = append(rows, row)
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
// index for the page.
func (s *Kind) heapDumpLazyTree(rep *store.Report, x *hprof.Index) (*view.HeapDomList, error) {
	kids, total, err := x.Children(hprof.IndexRoot, 0, DomPage)
	if err != nil {
		return nil, err
	}
	l := heapDomList(DomURL(rep.ID), "root", 0, kids, total, len(kids), x.TotalRetained())
	return &l, nil
}

// isStatus tells whether err answers status.
func isStatus(err error, status int) bool {
	got, _ := serrors.StatusOf(err)
	return got == status
}

// degradable tells whether a page can do without the stored index err failed
// to read: a malformed index (422) or a store's integrity error (500). Other
// errors (the store down, the request cancelled, the budget busy) are the
// page's own.
func degradable(err error) bool {
	return errors.Is(err, analyze.ErrMalformed) || errors.Is(err, store.ErrIntegrity)
}

// indexDamage says what is wrong with a stored index that cannot be read: the
// index's own complaint (a malformed index), or that the store holds it
// damaged.
func indexDamage(err error) string {
	if status, msg := serrors.StatusOf(err); status < 500 {
		return msg
	}
	return "the store holds it damaged"
}

// PathPage is how many steps one page of a path shows.
const PathPage = 50

// PathURL is the paged view of the whole path of a report's suspect i,
// /r/{id}/paths/{i}.
func PathURL(id string, i int) string { return page.ReportURL(id) + "/paths/" + strconv.Itoa(i) }

// PathJSON is the paged path view's JSON answer.
type PathJSON struct {
	ReportID string `json:"report_id"`
	// Suspect is the suspect's rank (0 for the first), Length the path's steps.
	Suspect int          `json:"suspect"`
	Length  int          `json:"length"`
	Offset  int          `json:"offset"`
	Steps   []hprof.Step `json:"steps"`
	// Next and Prev are the URLs of the pages after and before, when there are.
	Next string `json:"next,omitempty"`
	Prev string `json:"prev,omitempty"`
}

// Path is GET /r/{id}/paths/{n}?offset=K (and .json): PathPage
// steps of the shortest path from a GC root of the report's suspect n, from
// step K (0 for the root), read from the stored index: the report itself keeps
// the ends of a path, this pages all of it whatever its length.
func (s *Kind) Path(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	ref := chi.URLParam(r, "n")
	n, asJSON := strings.CutSuffix(ref, ".json")
	asJSON = asJSON || strings.Contains(r.Header.Get("Accept"), "application/json")
	suspect, err := strconv.Atoi(n)
	if err != nil || suspect < 0 {
		return serrors.Errorf(http.StatusNotFound, "no path %q: paths are numbered from 0, as the report's suspects", n)
	}
	offset, err := heapDomIntParam(r, "offset", 0, 1<<31-1)
	if err != nil {
		return err
	}
	release, err := s.d.ChargeView(heapViewBytes)
	if err != nil {
		return err
	}
	defer release()
	rep, err := s.d.Store.Report(r.Context(), id)
	if err != nil {
		return err
	}
	x, err := s.openHeapDumpIndex(r.Context(), rep)
	if err != nil {
		return err
	}
	if suspect >= x.PathCount() {
		return serrors.Errorf(http.StatusNotFound, "report %s's index holds %d paths (the paths of reports made before indexes kept them are shown by their ends on the report)", id, x.PathCount())
	}
	steps, total, err := x.PathSteps(suspect, offset, PathPage)
	if err != nil {
		return err
	}
	src := PathURL(id, suspect)
	pg := func(at int, ext string) string {
		return src + ext + "?offset=" + strconv.Itoa(at)
	}
	doc := PathJSON{ReportID: id, Suspect: suspect, Length: total, Offset: offset, Steps: steps}
	ext := ""
	if asJSON {
		ext = ".json"
	}
	if next := offset + len(steps); next < total {
		doc.Next = pg(next, ext)
	}
	if offset > 0 {
		doc.Prev = pg(max(0, offset-PathPage), ext)
	}
	if asJSON {
		if doc.Next != "" {
			doc.Next = page.Absolute(r, doc.Next)
		}
		if doc.Prev != "" {
			doc.Prev = page.Absolute(r, doc.Prev)
		}
		return page.JSON(w, http.StatusOK, doc)
	}
	v := view.HeapPathPage{Header: view.JVMHeader{Title: "Path from a GC root", Created: page.FormatTime(rep.CreatedAt), Permalink: page.ReportURL(id),
		Links: []view.Link{{Label: "JSON", URL: pg(offset, ".json")}}},
		Offset: offset, Length: total, Next: doc.Next, Prev: doc.Prev, First: offset > 0, Last: pg(max(0, total-PathPage), "")}
	v.Header.Headline = fmt.Sprintf("Suspect %d's shortest path from a GC root: steps %s–%s of %s", suspect+1,
		analyze.FormatCount(int64(offset+1)), analyze.FormatCount(int64(offset+len(steps))), analyze.FormatCount(int64(total)))
	v.FirstURL = pg(0, "")
	for _, st := range steps {
		v.Steps = append(v.Steps, heapStep(st))
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: "Path from a GC root", Nav: "reports"}, view.HeapPathPageView(v))
}
