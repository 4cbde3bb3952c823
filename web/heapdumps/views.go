package heapdumps

import (
	"fmt"
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

// The views of a heap dump that Eclipse MAT's users reach for after the
// dominator tree, each a page and its JSON twin (.json or Accept:
// application/json) read from the report's stored index, a page at a time,
// never from the dump: the native memory section, the tree's top level
// grouped by class loader, the objects not strongly reachable by class, the
// classes loaded by more than one loader and the shortest strong path from a
// GC root to any object.

// ViewPage is how many rows one page of a view shows.
const ViewPage = 50

// Mount registers the views' routes under /r (handle turns a handler that
// returns an error into one that writes it).
func (s *Kind) Mount(r chi.Router, handle func(page.HandlerFunc) http.HandlerFunc) {
	for _, v := range []struct {
		name string
		h    page.HandlerFunc
	}{{"native", s.Native}, {"by-loader", s.ByLoader}, {"unreachable", s.Unreachable}, {"duplicate-classes", s.DuplicateClasses}} {
		r.Get("/{id}/"+v.name, handle(v.h))
		r.Get("/{id}/"+v.name+".json", handle(v.h))
	}
	r.Get("/{id}/objects/{n}/path", handle(s.ObjectPath))
	r.Get("/{id}/objects/{n}/path.json", handle(s.ObjectPath))
}

// ViewURL is the URL of a report's view name ("native", "by-loader"…).
func ViewURL(id, name string) string { return page.ReportURL(id) + "/" + name }

// ObjectPathURL is the page of the shortest strong path from a GC root to
// object ordinal o.
func ObjectPathURL(id string, o uint32) string {
	return page.ReportURL(id) + "/objects/" + strconv.FormatUint(uint64(o), 10) + "/path"
}

// viewLinks are the links the report page gives to the views.
func viewLinks(id string, native, indexed bool) []view.Link {
	var out []view.Link
	if native {
		out = append(out, view.Link{Label: "Native memory", URL: ViewURL(id, "native")})
	}
	if indexed {
		out = append(out, view.Link{Label: "Dominator tree by class loader", URL: ViewURL(id, "by-loader")},
			view.Link{Label: "Unreachable objects by class", URL: ViewURL(id, "unreachable")},
			view.Link{Label: "Duplicate classes", URL: ViewURL(id, "duplicate-classes")})
	}
	return out
}

// viewHeader is the header of a view's page: its title, the report's dump
// and the JSON twin of this page.
func viewHeader(rep *store.Report, title, jsonURL string) view.JVMHeader {
	h := view.JVMHeader{Title: title + dumpName(rep), Created: page.FormatTime(rep.CreatedAt), Permalink: page.ReportURL(rep.ID),
		Links: []view.Link{{Label: "JSON", URL: jsonURL}, {Label: "report", URL: page.ReportURL(rep.ID)}}}
	return h
}

// dumpName is ": " and the name of the report's dump, "" without one.
func dumpName(rep *store.Report) string {
	if len(rep.Artifacts) == 0 || rep.Artifacts[0].Name == "" {
		return ""
	}
	return ": " + rep.Artifacts[0].Name
}

// viewPager reads a view's offset and makes the URLs of the pages around it:
// at is the view's URL, ext ".json" or "".
type viewPager struct {
	at, query     string
	offset, total int
	shown         int
	json          bool
	r             *http.Request
}

func (p viewPager) url(offset int, ext string) string {
	u := p.at + ext + "?offset=" + strconv.Itoa(offset) + p.query
	if p.json {
		return page.Absolute(p.r, u)
	}
	return u
}

// next and prev are the URLs of the pages after and before, "" for none.
func (p viewPager) next(ext string) string {
	if p.offset+p.shown >= p.total {
		return ""
	}
	return p.url(p.offset+p.shown, ext)
}

func (p viewPager) prev(ext string) string {
	if p.offset == 0 {
		return ""
	}
	return p.url(max(0, p.offset-ViewPage), ext)
}

// render writes a view's page or its JSON twin doc.
func (s *Kind) renderView(w http.ResponseWriter, r *http.Request, asJSON bool, doc any, v view.HeapViewPage) error {
	if asJSON {
		return page.JSON(w, http.StatusOK, doc)
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: v.Header.Title, Nav: "reports"}, view.HeapViewPageView(v))
}

// viewError makes an index's refusal of a view's parameter a 404 that says
// why (an index made before the views were stored answers the same).
func viewError(err error) error {
	if status, msg := serrors.StatusOf(err); status == http.StatusBadRequest {
		return &serrors.Error{Status: http.StatusNotFound, Message: msg, Err: err}
	}
	return err
}

// NativeJSON is the native memory view's JSON answer.
type NativeJSON struct {
	ReportID string              `json:"report_id"`
	Native   *hprof.NativeMemory `json:"native_memory"`
}

// Native is GET /r/{id}/native (and .json): what the dump's objects hold
// outside the Java heap (direct and mapped buffers, unclosed zlib streams,
// thread stacks), split by how they are reached, from the stored report.
func (s *Kind) Native(w http.ResponseWriter, r *http.Request) error {
	return s.reportView(r, func(hv heapView) error {
		if hv.rep.Kind != ReportDump {
			return serrors.Errorf(http.StatusNotFound, "report %s is not a heap dump: it has no native memory section", hv.rep.ID)
		}
		if hv.rep.Status != store.ReportReady {
			return serrors.Errorf(http.StatusConflict, "report %s is %s: its native memory section is not ready", hv.rep.ID, hv.rep.Status)
		}
		hr, _, err := StoredReport(hv.rep)
		if err != nil {
			return err
		}
		if hr.Native == nil {
			return serrors.Errorf(http.StatusNotFound, "report %s was made before leakui read native memory: analyze the dump again", hv.rep.ID)
		}
		v := view.HeapViewPage{Header: viewHeader(hv.rep, "Native memory", ViewURL(hv.rep.ID, "native")+".json"), Native: heapNative(hr.Native)}
		v.Header.Headline = v.Native.Headline
		v.Header.Alarm = len(hr.Native.Suspects) > 0
		return s.renderView(w, r, hv.json, NativeJSON{ReportID: hv.rep.ID, Native: hr.Native}, v)
	})
}

// nativeLarge tells whether the native memory section goes on the report
// page itself: it holds a suspect.
func nativeLarge(nm *hprof.NativeMemory) bool { return nm != nil && len(nm.Suspects) > 0 }

// heapNative is the native memory section's view.
func heapNative(nm *hprof.NativeMemory) *view.HeapNative {
	v := &view.HeapNative{Total: analyze.FormatBytes(nm.Bytes)}
	v.Headline = "The dump's objects hold " + v.Total + " outside the Java heap."
	for _, su := range nm.Suspects {
		v.Sentences = append(v.Sentences, strings.ReplaceAll(su.Sentence, "`", ""))
	}
	if len(v.Sentences) > 0 {
		v.Headline = v.Sentences[0]
	}
	row := func(n hprof.NativeHolders, what, each string) {
		r := n.Reach
		v.Rows = append(v.Rows, view.HeapNativeRow{Holder: what, Count: analyze.FormatCount(n.Count), Bytes: analyze.FormatBytes(n.Bytes), BytesValue: n.Bytes,
			Each: each, Strong: analyze.FormatCount(r.Strong.Count), Weak: analyze.FormatCount(r.Weak.Count),
			Pending: analyze.FormatCount(r.PendingCleanup.Count), Unreachable: analyze.FormatCount(r.Unreachable.Count)})
	}
	row(nm.DirectBuffers, nm.DirectBuffers.Class, "capacity")
	row(nm.MappedBuffers, nm.MappedBuffers.Class, "capacity")
	row(nm.Inflaters, "unclosed "+nm.Inflaters.Class, analyze.FormatBytes(nm.Inflaters.PerObject))
	row(nm.Deflaters, "unclosed "+nm.Deflaters.Class, analyze.FormatBytes(nm.Deflaters.PerObject))
	t := nm.Threads
	v.Rows = append(v.Rows, view.HeapNativeRow{Holder: "thread stacks (reserved)", Count: analyze.FormatCount(t.Threads), Bytes: analyze.FormatBytes(t.Bytes), BytesValue: t.Bytes,
		Each: analyze.FormatBytes(analyze.ThreadStackBytes), Strong: analyze.FormatCount(t.Threads), Weak: "–", Pending: "–", Unreachable: "–"})
	if nm.BufferViews > 0 || nm.InflatersEnded > 0 || nm.DeflatersEnded > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("Also %s buffer views (slices and duplicates, which own no memory), %s Inflaters and %s Deflaters ended.",
			analyze.FormatCount(nm.BufferViews), analyze.FormatCount(nm.InflatersEnded), analyze.FormatCount(nm.DeflatersEnded)))
	}
	if t.Stated > 0 {
		what := analyze.FormatCount(t.Stated) + " threads state their stack size"
		if t.Stated == 1 {
			what = "1 thread states its stack size"
		}
		v.Notes = append(v.Notes, what+"; the others are counted at the JVM's default.")
	}
	if nm.Inflaters.Reach.Unreachable.Count+nm.Inflaters.Reach.PendingCleanup.Count+nm.DirectBuffers.Reach.Unreachable.Count == 0 {
		v.Notes = append(v.Notes, "A dump taken without -all has no unreachable objects: when native memory is the question, take jcmd PID GC.heap_dump -all FILE, which keeps the unclosed streams a GC would let the Cleaner free.")
	}
	return v
}

// LoadersJSON is the by-loader view's JSON answer: the loaders, or with
// loader=N the classes that loader loaded.
type LoadersJSON struct {
	ReportID string              `json:"report_id"`
	Offset   int                 `json:"offset"`
	Total    int                 `json:"total"`
	Loaders  []hprof.LoaderGroup `json:"loaders,omitempty"`
	Loader   *hprof.Object       `json:"loader,omitempty"`
	Classes  []hprof.ClassGroup  `json:"classes,omitempty"`
	Next     string              `json:"next,omitempty"`
	Prev     string              `json:"prev,omitempty"`
}

// ByLoader is GET /r/{id}/by-loader?offset=K (and .json): the dominator
// tree's top level grouped by the class loader of each object's class, largest
// retained first; with loader=N (an object's number, "bootstrap" for the
// bootstrap loader), the classes of that loader's group.
func (s *Kind) ByLoader(w http.ResponseWriter, r *http.Request) error {
	loaderText := r.URL.Query().Get("loader")
	loader := uint32(0)
	params := func() error {
		if loaderText == "bootstrap" {
			loader = hprof.IndexRoot
		} else if loaderText != "" {
			n, err := strconv.ParseUint(loaderText, 10, 32)
			if err != nil || uint32(n) == hprof.IndexRoot {
				return serrors.Errorf(http.StatusBadRequest, "loader must be an object's number or \"bootstrap\", not %q", loaderText)
			}
			loader = uint32(n)
		}
		return nil
	}
	return s.pagedView(r, r.URL.Path, params, func(hv heapView) error {
		at := ViewURL(hv.rep.ID, "by-loader")
		reachable := hv.x.TotalRetained()
		doc := LoadersJSON{ReportID: hv.rep.ID, Offset: hv.offset}
		pg := viewPager{at: at, offset: hv.offset, json: hv.json, r: r}
		v := view.HeapViewPage{}
		if loaderText == "" {
			loaders, total, err := hv.x.DominatorsByLoader(hv.offset, ViewPage)
			if err != nil {
				return viewError(err)
			}
			doc.Loaders, doc.Total = loaders, total
			pg.total, pg.shown = total, len(loaders)
			v.Header = viewHeader(hv.rep, "Dominator tree by class loader", at+".json?offset="+strconv.Itoa(hv.offset))
			v.Header.Headline = fmt.Sprintf("The GC roots keep %s alive through the classes of %s class loaders", analyze.FormatBytes(reachable), analyze.FormatCount(int64(total)))
			v.Intro = "The top level of the dominator tree grouped by the class loader that loaded each object's class (MAT's \"group by class loader\"), largest retained first. Open a loader for its classes."
			v.Table = view.HeapViewTable{TestID: "loaders", Columns: []view.HeapViewColumn{{Label: "class loader", Name: true}, {Label: "retained"}, {Label: "share"}, {Label: "objects"}, {Label: "classes"}, {Label: "shallow"}}}
			for _, l := range loaders {
				ref := "bootstrap"
				if l.Loader.Ordinal != hprof.IndexRoot {
					ref = strconv.FormatUint(uint64(l.Loader.Ordinal), 10)
				}
				v.Table.Rows = append(v.Table.Rows, view.HeapViewRow{Value: l.Retained, Cells: []view.HeapViewCell{
					{Text: objectName(l.Loader), URL: at + "?loader=" + ref, Name: true}, {Text: analyze.FormatBytes(l.Retained)}, {Text: page.Share(l.Retained, reachable)},
					{Text: analyze.FormatCount(l.Objects)}, {Text: analyze.FormatCount(int64(l.Classes))}, {Text: analyze.FormatBytes(l.Shallow)}}})
			}
		} else {
			classes, total, err := hv.x.LoaderClasses(loader, hv.offset, ViewPage)
			if err != nil {
				return viewError(err)
			}
			var obj hprof.Object
			if loader == hprof.IndexRoot {
				obj = hprof.Object{Ordinal: hprof.IndexRoot, Class: "<bootstrap class loader>"}
			} else if obj, err = hv.x.Object(loader); err != nil {
				return viewError(err)
			}
			doc.Loader, doc.Classes, doc.Total = &obj, classes, total
			if doc.Classes == nil {
				doc.Classes = []hprof.ClassGroup{}
			}
			pg.query, pg.total, pg.shown = "&loader="+loaderText, total, len(classes)
			v.Header = viewHeader(hv.rep, "Classes of a class loader", at+".json?loader="+loaderText+"&offset="+strconv.Itoa(hv.offset))
			v.Header.Headline = fmt.Sprintf("%s: %s classes of top-level objects", objectName(obj), analyze.FormatCount(int64(total)))
			v.Intro = "The top-level objects of the dominator tree whose class this loader loaded, grouped by class, largest retained first."
			v.Back = view.Link{Label: "every class loader", URL: at}
			v.Table = view.HeapViewTable{TestID: "loader-classes", Columns: []view.HeapViewColumn{{Label: "class", Name: true}, {Label: "retained"}, {Label: "share"}, {Label: "objects"}, {Label: "shallow"}}}
			for _, c := range classes {
				v.Table.Rows = append(v.Table.Rows, view.HeapViewRow{Value: c.Retained, Cells: []view.HeapViewCell{
					{Text: c.Name, URL: DomURL(hv.rep.ID) + "?node=root&class=" + strconv.Itoa(c.Class), Name: true}, {Text: analyze.FormatBytes(c.Retained)},
					{Text: page.Share(c.Retained, reachable)}, {Text: analyze.FormatCount(c.Objects)}, {Text: analyze.FormatBytes(c.Shallow)}}})
			}
		}
		doc.Next, doc.Prev = pg.next(".json"), pg.prev(".json")
		pg.json = false
		v.Next, v.Prev = pg.next(""), pg.prev("")
		v.Table.Empty = "No top-level objects."
		return s.renderView(w, r, hv.json, doc, v)
	})
}

// objectName names an object on a page: its class and identifier.
func objectName(o hprof.Object) string {
	s := o.Class
	if o.ID != "" {
		s += " " + o.ID
	}
	if o.Text != "" {
		s += " “" + o.Text + "”"
	}
	return s
}

// UnreachableJSON is the unreachable view's JSON answer.
type UnreachableJSON struct {
	ReportID string                   `json:"report_id"`
	Offset   int                      `json:"offset"`
	Total    int                      `json:"total"`
	All      hprof.UnreachableClass   `json:"all"`
	Classes  []hprof.UnreachableClass `json:"classes"`
	Next     string                   `json:"next,omitempty"`
	Prev     string                   `json:"prev,omitempty"`
}

// Unreachable is GET /r/{id}/unreachable?offset=K (and .json): the objects no
// strong path from a GC root reaches, by class, largest first, split into
// those reached only through soft or weak references, only from finalizer or
// cleaner queues, and not at all.
func (s *Kind) Unreachable(w http.ResponseWriter, r *http.Request) error {
	return s.pagedView(r, r.URL.Path, nil, func(hv heapView) error {
		rows, total, all, err := hv.x.Unreachable(hv.offset, ViewPage)
		if err != nil {
			return viewError(err)
		}
		at := ViewURL(hv.rep.ID, "unreachable")
		pg := viewPager{at: at, offset: hv.offset, total: total, shown: len(rows), json: true, r: r}
		doc := UnreachableJSON{ReportID: hv.rep.ID, Offset: hv.offset, Total: total, All: all, Classes: rows, Next: pg.next(".json"), Prev: pg.prev(".json")}
		if doc.Classes == nil {
			doc.Classes = []hprof.UnreachableClass{}
		}
		pg.json = false
		v := view.HeapViewPage{Header: viewHeader(hv.rep, "Unreachable objects", at+".json?offset="+strconv.Itoa(hv.offset)), Next: pg.next(""), Prev: pg.prev("")}
		v.Header.Headline = fmt.Sprintf("%s objects (%s) are not strongly reachable", analyze.FormatCount(all.Objects), analyze.FormatBytes(all.Shallow))
		v.Figures = []view.JVMFigure{
			{Label: "only softly or weakly reachable", Value: analyze.FormatCount(all.Weak.Count), Key: "weak"},
			{Label: "only from finalizer/cleaner queues", Value: analyze.FormatCount(all.PendingCleanup.Count), Key: "pending"},
			{Label: "unreachable", Value: analyze.FormatCount(all.Unreachable.Count), Key: "unreachable"},
		}
		v.Intro = "The objects no strong path from a GC root reaches, by class (MAT's unreachable objects histogram): a GC frees them, the last two kinds once their finalizer or cleaner has run."
		if all.Unreachable.Count == 0 {
			v.Notes = append(v.Notes, "A dump taken without -all has no unreachable objects: jcmd PID GC.heap_dump -all FILE keeps them.")
		}
		v.Table = view.HeapViewTable{TestID: "unreachable", Empty: "Every object is strongly reachable.", Columns: []view.HeapViewColumn{{Label: "class", Name: true},
			{Label: "objects"}, {Label: "shallow"}, {Label: "weak/soft only"}, {Label: "pending cleanup"}, {Label: "unreachable"}}}
		for _, c := range rows {
			v.Table.Rows = append(v.Table.Rows, view.HeapViewRow{Value: c.Shallow, Cells: []view.HeapViewCell{{Text: c.Class, Name: true},
				{Text: analyze.FormatCount(c.Objects)}, {Text: analyze.FormatBytes(c.Shallow)}, {Text: analyze.FormatCount(c.Weak.Count)},
				{Text: analyze.FormatCount(c.PendingCleanup.Count)}, {Text: analyze.FormatCount(c.Unreachable.Count)}}})
		}
		return s.renderView(w, r, hv.json, doc, v)
	})
}

// DuplicatesJSON is the duplicate classes view's JSON answer.
type DuplicatesJSON struct {
	ReportID string                 `json:"report_id"`
	Offset   int                    `json:"offset"`
	Total    int                    `json:"total"`
	Classes  []hprof.DuplicateClass `json:"classes"`
	Next     string                 `json:"next,omitempty"`
	Prev     string                 `json:"prev,omitempty"`
}

// DuplicateClasses is GET /r/{id}/duplicate-classes?offset=K (and .json):
// the class names more than one class loader loaded, most loaders first.
func (s *Kind) DuplicateClasses(w http.ResponseWriter, r *http.Request) error {
	return s.pagedView(r, r.URL.Path, nil, func(hv heapView) error {
		dups, total, err := hv.x.DuplicateClasses(hv.offset, ViewPage)
		if err != nil {
			return viewError(err)
		}
		at := ViewURL(hv.rep.ID, "duplicate-classes")
		pg := viewPager{at: at, offset: hv.offset, total: total, shown: len(dups), json: true, r: r}
		doc := DuplicatesJSON{ReportID: hv.rep.ID, Offset: hv.offset, Total: total, Classes: dups, Next: pg.next(".json"), Prev: pg.prev(".json")}
		pg.json = false
		v := view.HeapViewPage{Header: viewHeader(hv.rep, "Duplicate classes", at+".json?offset="+strconv.Itoa(hv.offset)), Next: pg.next(""), Prev: pg.prev("")}
		v.Header.Headline = fmt.Sprintf("%s classes are loaded by more than one class loader", analyze.FormatCount(int64(total)))
		if total == 1 {
			v.Header.Headline = "1 class is loaded by more than one class loader"
		}
		v.Intro = "Class names that more than one class loader loaded (MAT's duplicate classes): a class loader that leaks keeps loading them again."
		v.Table = view.HeapViewTable{TestID: "duplicate-classes", Empty: "No class is loaded by more than one class loader.", Columns: []view.HeapViewColumn{{Label: "class", Name: true},
			{Label: "loaders"}, {Label: "instances"}, {Label: "class loaders (instances)", Name: true}}}
		for _, d := range dups {
			var loaders []string
			for _, l := range d.Loaders {
				loaders = append(loaders, objectName(l.Loader)+" ("+analyze.FormatCount(l.Instances)+")")
			}
			v.Table.Rows = append(v.Table.Rows, view.HeapViewRow{Value: int64(len(d.Loaders)), Cells: []view.HeapViewCell{{Text: d.Class, Name: true},
				{Text: analyze.FormatCount(int64(len(d.Loaders)))}, {Text: analyze.FormatCount(d.Instances)}, {Text: strings.Join(loaders, "; "), Name: true}}})
		}
		return s.renderView(w, r, hv.json, doc, v)
	})
}

// ObjectPathJSON is the object path view's JSON answer: the shortest path of
// strong references from a GC root to an object (no step goes through a
// weak or soft reference's referent).
type ObjectPathJSON struct {
	ReportID   string       `json:"report_id"`
	Object     uint32       `json:"object"`
	StrongOnly bool         `json:"strong_only"`
	Length     int          `json:"length"`
	Offset     int          `json:"offset"`
	Steps      []hprof.Step `json:"steps"`
	Next       string       `json:"next,omitempty"`
	Prev       string       `json:"prev,omitempty"`
}

// ObjectPath is GET /r/{id}/objects/{n}/path?offset=K (and path.json):
// PathPage steps of the shortest path from a GC root to object n through
// strong references only (MAT's "path to GC roots, excluding weak and soft
// references"), from step K, read from the stored index.
func (s *Kind) ObjectPath(w http.ResponseWriter, r *http.Request) error {
	n, err := strconv.ParseUint(chi.URLParam(r, "n"), 10, 32)
	if err != nil || uint32(n) == hprof.IndexRoot {
		return serrors.Errorf(http.StatusNotFound, "no object %q: objects are numbered from 0", chi.URLParam(r, "n"))
	}
	return s.pagedView(r, r.URL.Path, nil, func(hv heapView) error {
		steps, total, err := hv.x.PathPage(uint32(n), hv.offset, PathPage)
		if err != nil {
			return viewError(err)
		}
		at := ObjectPathURL(hv.rep.ID, uint32(n))
		pg := func(off int, ext string) string {
			return strings.TrimSuffix(at, "/path") + "/path" + ext + "?offset=" + strconv.Itoa(off)
		}
		doc := ObjectPathJSON{ReportID: hv.rep.ID, Object: uint32(n), StrongOnly: true, Length: total, Offset: hv.offset, Steps: steps}
		v := view.HeapPathPage{Header: viewHeader(hv.rep, "Path from a GC root", pg(hv.offset, ".json")), Offset: hv.offset, Length: total,
			First: hv.offset > 0, FirstURL: pg(0, ""), Last: pg(max(0, total-PathPage), ""),
			Note: strongOnly}
		if next := hv.offset + len(steps); next < total {
			doc.Next, v.Next = page.Absolute(r, pg(next, ".json")), pg(next, "")
		}
		if hv.offset > 0 {
			doc.Prev, v.Prev = page.Absolute(r, pg(max(0, hv.offset-PathPage), ".json")), pg(max(0, hv.offset-PathPage), "")
		}
		if hv.json {
			return page.JSON(w, http.StatusOK, doc)
		}
		name := "object " + strconv.FormatUint(n, 10)
		if len(steps) > 0 && hv.offset+len(steps) == total {
			name = objectName(steps[len(steps)-1].Object)
		}
		v.Header.Headline = fmt.Sprintf("The shortest strong path from a GC root to %s: steps %s–%s of %s", name,
			analyze.FormatCount(int64(hv.offset+1)), analyze.FormatCount(int64(hv.offset+len(steps))), analyze.FormatCount(int64(total)))
		for _, st := range steps {
			v.Steps = append(v.Steps, heapStep(st))
		}
		return s.d.Render(w, r, http.StatusOK, view.Page{Title: "Path from a GC root", Nav: "reports"}, view.HeapPathPageView(v))
	})
}
