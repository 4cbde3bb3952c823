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
	// Grouped tells that the page is of Groups, the children grouped by class
	// (group=class), each with the URL of its objects; Class, when set, is the
	// class whose objects Children are (class=C).
	Grouped bool           `json:"grouped,omitempty"`
	Groups  []DomGroupJSON `json:"groups,omitempty"`
	Class   *int           `json:"class_index,omitempty"`
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
// first, read from the stored index, never from the dump. With group=class the
// page is of the children grouped by class (MAT's "group by class", each group
// opening with class=C onto its objects); the page and its fragments group by
// default (group=auto) where a class has GroupAuto children or more, the JSON
// only when asked. It answers JSON for .json or Accept: application/json, the
// rows alone for the page's expand buttons (fragment=1), else a page of its
// own (the fallback without JavaScript) with the node's dominator chain.
func (s *Kind) Dominators(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	node, nodeText, err := heapDomNodeParam(q.Get("node"))
	if err != nil {
		return err
	}
	group, level, class := q.Get("group"), 0, -1
	params := func() (err error) {
		if level, err = heapDomIntParam(r, "level", 0, 1<<16); err != nil {
			return err
		}
		switch group {
		case "", "auto", "class", "none":
		default:
			return serrors.Errorf(http.StatusBadRequest, "group must be auto, class or none, not %q", group)
		}
		if q.Has("class") {
			class, err = heapDomIntParam(r, "class", 0, 1<<31-1)
		}
		return err
	}
	return s.pagedView(r, r.URL.Path, params, func(hv heapView) error {
		id := hv.rep.ID
		src := DomURL(id)
		grouped := class < 0 && (group == "class" || (group == "auto" || group == "" && !hv.json) && autoGroup(hv.x, node))
		var (
			kids   []hprof.Object
			groups []hprof.ChildGroup
			total  int
			err    error
		)
		switch {
		case class >= 0:
			kids, total, err = hv.x.ClassMembers(node, class, hv.offset, DomPage)
		case grouped:
			groups, total, err = hv.x.ChildGroups(node, hv.offset, DomPage)
		default:
			kids, total, err = hv.x.Children(node, hv.offset, DomPage)
		}
		if err != nil {
			return heapIndexError(err)
		}
		path, index, length, err := hv.x.Chain(node, ChainEnds)
		if err != nil {
			return heapIndexError(err)
		}
		next := hv.offset + len(kids) + len(groups)
		// more is what every URL of this list keeps: the group asked for, the
		// class whose objects it is.
		more := ""
		if group != "" {
			more += "&group=" + group
		}
		if class >= 0 {
			more += "&class=" + strconv.Itoa(class)
		}
		if hv.json {
			doc := DomJSON{ReportID: id, Path: path, PathIndex: index, PathLength: length, Offset: hv.offset, Total: total, Children: kids}
			if doc.Path == nil {
				doc.Path, doc.PathIndex = []hprof.Object{}, []int{}
			}
			if doc.Children == nil {
				doc.Children = []hprof.Object{}
			}
			if class >= 0 {
				doc.Class = &class
			}
			if grouped {
				doc.Grouped = true
				doc.Groups = []DomGroupJSON{}
				for _, g := range groups {
					doc.Groups = append(doc.Groups, DomGroupJSON{ChildGroup: g,
						Members: page.Absolute(r, src+".json?node="+nodeText+"&class="+strconv.Itoa(g.Class))})
				}
			}
			if node != hprof.IndexRoot && len(path) > 0 {
				doc.Node = &path[len(path)-1]
			}
			if next < total {
				doc.Next = page.Absolute(r, src+".json?node="+nodeText+"&offset="+strconv.Itoa(next)+more)
			}
			return page.JSON(w, http.StatusOK, doc)
		}
		list := heapDomList(src, nodeText, level, kids, total, next, hv.x.TotalRetained())
		if grouped {
			list = heapDomGroups(src, nodeText, level, groups, total, next, hv.x.TotalRetained())
		}
		list.Query = more
		if q.Get("fragment") == "1" {
			return page.Fragment(w, r, view.HeapDomItems(list))
		}
		if q.Get("chain") == "1" {
			return page.Fragment(w, r, view.HeapDomChain(heapDomChain(src, path, index, hv.x.TotalRetained())))
		}
		pg := view.HeapDomNodePage{Header: view.JVMHeader{Title: "Dominator tree", Created: page.FormatTime(hv.rep.CreatedAt), Permalink: page.ReportURL(id),
			Links: []view.Link{{Label: "JSON", URL: src + ".json?node=" + nodeText + more}}}, Children: list}
		if grouped && class < 0 {
			pg.Header.Links[0].URL += "&group=class"
		}
		pg.Header.Headline = "What the GC roots keep alive"
		if len(path) > 0 {
			o := path[len(path)-1]
			pg.Header.Headline = fmt.Sprintf("What %s %s keeps alive: %s", o.Class, o.ID, analyze.FormatBytes(o.Retained))
			pg.PathURL = ObjectPathURL(id, o.Ordinal)
		}
		if class >= 0 && len(kids) > 0 {
			pg.Header.Headline = fmt.Sprintf("%s objects of %s among what %s", analyze.FormatCount(int64(total)), kids[0].Class,
				strings.TrimPrefix(pg.Header.Headline, "What "))
		}
		pg.Toggles = groupToggles(src+"?node="+nodeText, group, grouped)
		pg.Chain, pg.ChainLength = heapDomChain(src, path, index, hv.x.TotalRetained()), length
		return s.d.Render(w, r, http.StatusOK, view.Page{Title: "Dominator tree", Nav: "reports"}, view.HeapDomNodePageView(pg))
	})
}

// GroupAuto is how many children of one class make a level of the dominator
// tree group its children by class by default.
const GroupAuto = 10

// autoGroup tells whether node's children hold GroupAuto or more of one
// class. A node whose children are too many to group (or whose index cannot
// group them) is not grouped: its page says why when asked to.
func autoGroup(x *hprof.Index, node uint32) bool {
	gs, _, err := x.ChildrenByClass(node, 0, 1<<20)
	if err != nil {
		return false
	}
	for _, g := range gs {
		if g.Objects >= GroupAuto {
			return true
		}
	}
	return false
}

// groupToggles are the links that switch a level's grouping by class: at
// (a URL with its query begun) with group=class, none and auto.
func groupToggles(at, group string, grouped bool) []view.Link {
	if group == "" {
		group = "auto"
	}
	return []view.Link{
		{Label: "group by class", URL: at + "&group=class", Current: group == "class" || group == "auto" && grouped},
		{Label: "one row per object", URL: at + "&group=none", Current: group == "none" || group == "auto" && !grouped},
	}
}

// DomGroupJSON is a group of a node's children by class in the dominators
// endpoint's JSON, with the URL of its objects.
type DomGroupJSON struct {
	hprof.ChildGroup
	Members string `json:"members"`
}

// wantsJSON tells whether a request asks for JSON: a path ending in .json or
// an Accept header naming application/json.
func wantsJSON(r *http.Request, path string) bool {
	return strings.HasSuffix(path, ".json") || strings.Contains(r.Header.Get("Accept"), "application/json")
}

// heapView is what pagedView reads before a view's own work.
type heapView struct {
	json   bool          // the request asks for JSON
	offset int           // the page's first row (paged views)
	rep    *store.Report // the report of the URL's {id}
	x      *hprof.Index  // its opened stored index (paged views)
}

// pagedView is the start every view of a heap dump's report shares, in this
// order: whether the request asks for JSON (ref is the part of the URL a .json
// ends), the page's ?offset=, params (nil for none) reading the view's own
// parameters, the view's charge to the memory budget (held until show has
// written the answer), the report of the URL's {id} and its opened stored
// index; then show answers. The first step that fails is the answer.
func (s *Kind) pagedView(r *http.Request, ref string, params func() error, show func(hv heapView) error) error {
	return s.startView(r, ref, true, params, show)
}

// reportView is pagedView for a view of the stored report itself: no offset
// is read and no index opened.
func (s *Kind) reportView(r *http.Request, show func(hv heapView) error) error {
	return s.startView(r, r.URL.Path, false, nil, show)
}

// startView is pagedView, or reportView when paged is false.
func (s *Kind) startView(r *http.Request, ref string, paged bool, params func() error, show func(hv heapView) error) error {
	hv := heapView{json: wantsJSON(r, ref)}
	var err error
	if paged {
		if hv.offset, err = heapDomIntParam(r, "offset", 0, 1<<31-1); err != nil {
			return err
		}
	}
	if params != nil {
		if err := params(); err != nil {
			return err
		}
	}
	release, err := s.d.ChargeView(heapViewBytes)
	if err != nil {
		return err
	}
	defer release()
	if hv.rep, err = s.d.Store.Report(r.Context(), chi.URLParam(r, "id")); err != nil {
		return err
	}
	if paged {
		if hv.x, err = s.openHeapDumpIndex(r.Context(), hv.rep); err != nil {
			return err
		}
	}
	return show(hv)
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

// heapDomGroups makes a page of a node's children grouped by class into the
// view's rows: a group of one object is that object's row, a larger one a row
// that opens onto its objects.
func heapDomGroups(src, node string, level int, groups []hprof.ChildGroup, total, next int, reachable int64) view.HeapDomList {
	l := view.HeapDomList{Src: src, Node: node, Level: level, More: total - next, NextOffset: next, Grouped: true}
	for _, g := range groups {
		if g.Objects == 1 {
			l.Rows = append(l.Rows, heapLazyRow(src, g.Largest, reachable, level))
			continue
		}
		l.Rows = append(l.Rows, view.HeapRow{Class: g.Name, Retained: analyze.FormatBytes(g.Retained), Shallow: analyze.FormatBytes(g.Shallow),
			Share: page.Share(g.Retained, reachable), RetainedValue: g.Retained, Level: level, Node: node, Src: src,
			Members: int(g.Objects), ClassIndex: strconv.Itoa(g.Class)})
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
// index for the page, grouped by class as group asks (auto: where a class has
// GroupAuto top-level objects or more), and tells whether it is grouped.
func (s *Kind) heapDumpLazyTree(rep *store.Report, x *hprof.Index, group string) (*view.HeapDomList, bool, error) {
	src := DomURL(rep.ID)
	grouped := group == "class" || (group == "" || group == "auto") && autoGroup(x, hprof.IndexRoot)
	var l view.HeapDomList
	if grouped {
		groups, total, err := x.ChildGroups(hprof.IndexRoot, 0, DomPage)
		if err != nil {
			return nil, false, err
		}
		l = heapDomGroups(src, "root", 0, groups, total, len(groups), x.TotalRetained())
	} else {
		kids, total, err := x.Children(hprof.IndexRoot, 0, DomPage)
		if err != nil {
			return nil, false, err
		}
		l = heapDomList(src, "root", 0, kids, total, len(kids), x.TotalRetained())
	}
	if group != "" {
		l.Query = "&group=" + group
	}
	return &l, grouped, nil
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

// strongOnly is what the path pages say of every path leakui shows.
const strongOnly = "Strong references only: no step goes through a weak or soft reference's referent (MAT's \"exclude weak and soft references\"); an object only such references reach has no path."

// Path is GET /r/{id}/paths/{n}?offset=K (and .json): PathPage
// steps of the shortest path from a GC root of the report's suspect n, from
// step K (0 for the root), read from the stored index: the report itself keeps
// the ends of a path, this pages all of it whatever its length.
func (s *Kind) Path(w http.ResponseWriter, r *http.Request) error {
	ref := chi.URLParam(r, "n")
	n, _ := strings.CutSuffix(ref, ".json")
	suspect, err := strconv.Atoi(n)
	if err != nil || suspect < 0 {
		return serrors.Errorf(http.StatusNotFound, "no path %q: paths are numbered from 0, as the report's suspects", n)
	}
	return s.pagedView(r, ref, nil, func(hv heapView) error {
		id := hv.rep.ID
		if suspect >= hv.x.PathCount() {
			return serrors.Errorf(http.StatusNotFound, "report %s's index holds %d paths (the paths of reports made before indexes kept them are shown by their ends on the report)", id, hv.x.PathCount())
		}
		steps, total, err := hv.x.PathSteps(suspect, hv.offset, PathPage)
		if err != nil {
			return err
		}
		src := PathURL(id, suspect)
		pg := func(at int, ext string) string {
			return src + ext + "?offset=" + strconv.Itoa(at)
		}
		doc := PathJSON{ReportID: id, Suspect: suspect, Length: total, Offset: hv.offset, Steps: steps}
		ext := ""
		if hv.json {
			ext = ".json"
		}
		if next := hv.offset + len(steps); next < total {
			doc.Next = pg(next, ext)
		}
		if hv.offset > 0 {
			doc.Prev = pg(max(0, hv.offset-PathPage), ext)
		}
		if hv.json {
			if doc.Next != "" {
				doc.Next = page.Absolute(r, doc.Next)
			}
			if doc.Prev != "" {
				doc.Prev = page.Absolute(r, doc.Prev)
			}
			return page.JSON(w, http.StatusOK, doc)
		}
		v := view.HeapPathPage{Header: view.JVMHeader{Title: "Path from a GC root", Created: page.FormatTime(hv.rep.CreatedAt), Permalink: page.ReportURL(id),
			Links: []view.Link{{Label: "JSON", URL: pg(hv.offset, ".json")}}},
			Offset: hv.offset, Length: total, Next: doc.Next, Prev: doc.Prev, First: hv.offset > 0, Last: pg(max(0, total-PathPage), ""),
			Note: strongOnly}
		v.Header.Headline = fmt.Sprintf("Suspect %d's shortest path from a GC root: steps %s–%s of %s", suspect+1,
			analyze.FormatCount(int64(hv.offset+1)), analyze.FormatCount(int64(hv.offset+len(steps))), analyze.FormatCount(int64(total)))
		v.FirstURL = pg(0, "")
		for _, st := range steps {
			v.Steps = append(v.Steps, heapStep(st))
		}
		return s.d.Render(w, r, http.StatusOK, view.Page{Title: "Path from a GC root", Nav: "reports"}, view.HeapPathPageView(v))
	})
}
