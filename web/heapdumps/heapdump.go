package heapdumps

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// ReportDump is the report kind of one JVM heap dump.
const ReportDump = "jvm-heapdump"

// Rows is how many rows of each list a heap dump report keeps.
const Rows = 25

// ReportOptions are the options of a heap dump's report: the top of
// every list, and one level of the dominator tree under its top, five children
// each (the page pages the rest from the stored index), and the native memory
// section. With hprof's bounds on
// paths, names and stacks, they keep a stored summary within about 2 MB
// however hostile the dump (TestHeapDumpSummaryWorstCase).
var ReportOptions = hprof.ReportOptions{Top: Rows, Depth: 1, Fanout: 5, Native: true}

// Summary is stored with a heap dump report: the analysis itself (the
// suspects with their paths and the top of every list), so that showing the report
// never reads the dump again.
type Summary struct {
	Objects   int64         `json:"objects"`
	Reachable int64         `json:"reachable"`
	Suspects  int           `json:"suspects"`
	Headline  string        `json:"headline,omitempty"`
	Report    *hprof.Report `json:"report"`
	// Indexed tells that the dump's index is stored with the report (derived blob
	// IndexName), which the dominator tree is paged from.
	Indexed bool `json:"indexed,omitempty"`
}

// Analyses lets one heap dump analysis run at a time in the process: one
// takes memory in proportion to the dump's object count (about a gigabyte for 15
// million objects), and two uploads at once must not double that.
var Analyses = make(chan struct{}, 1)

// plan stores one heap dump as a report to be analyzed in the
// background (Jobs), which keeps the analysis as the summary; two or
// more make a comparison by class (planComparison), built in the
// background too.
func (s *Kind) plan(form *kind.Upload) (*kind.Plan, error) {
	for _, f := range form.Files {
		if err := checkHeapDumpFraming(f); err != nil {
			return nil, err
		}
	}
	if len(form.Files) > 1 {
		return s.planComparison(form)
	}
	return &kind.Plan{Kind: ReportDump, Params: map[string]any{}, Summary: Pending{Analyzing: true}, Background: true}, nil
}

// viewBytes is what rendering a heap dump report's page, JSON or Markdown
// from its stored summary may hold at once, charged before it starts
// (Kind.ViewCost): the stored summary and parameters (read from the store,
// decoded into a few times their JSON size, made into a view, and the output
// buffered before it is written) and a floor for the view's own work. Heap
// dump reports are the kinds whose summaries the dump controls the size of;
// the other kinds charge what they parse and cache as they go. A report whose
// analysis has not completed shows its progress, which costs nothing to speak
// of.
func viewBytes(rep *store.Report) int64 {
	if rep.Status != store.ReportReady {
		return 0
	}
	return 8*int64(len(rep.Summary)+len(rep.Params)) + 256<<10
}

// Pending is the summary of a heap dump report until its background
// analysis replaces it: analyzing, or failed with the reason, for listings.
type Pending struct {
	Analyzing bool   `json:"analyzing,omitempty"`
	Failed    string `json:"failed,omitempty"`
}

// SummaryOf keeps the top of a heap dump's analysis as its report's
// summary: every list capped at Rows rows, with its count beside it.
func SummaryOf(rep *hprof.Report) *Summary {
	rep = rep.Capped(Rows)
	sum := &Summary{Objects: rep.Objects, Reachable: rep.Reachable, Suspects: len(rep.Suspects), Report: rep}
	if len(rep.Suspects) > 0 {
		sum.Headline = rep.Suspects[0].Sentence
	}
	return sum
}

// heapDumpSummaryLine is the dashboard's line for a heap dump report; failed
// reads the stored reason of a failed analysis.
func heapDumpSummaryLine(raw json.RawMessage, failed func(reason string) (code int, msg string)) string {
	var s struct {
		Objects   int64  `json:"objects"`
		Reachable int64  `json:"reachable"`
		Headline  string `json:"headline"`
		Pending
	}
	if json.Unmarshal(raw, &s) != nil || s.Objects == 0 {
		switch {
		case s.Failed != "":
			_, msg := failed(s.Failed)
			return "the analysis failed: " + msg
		case s.Analyzing:
			return "analyzing…"
		}
		return ""
	}
	line := fmt.Sprintf("%s objects, %s reachable", analyze.FormatCount(s.Objects), analyze.FormatBytes(s.Reachable))
	if s.Headline != "" {
		line += "; " + strings.ReplaceAll(s.Headline, "`", "")
	}
	return line
}

// StoredReport reads the analysis stored with a heap dump report, bounded as
// every report now is (boundHeapReport) whenever it was stored; indexed tells
// that its index is stored with it.
func StoredReport(rep *store.Report) (hr *hprof.Report, indexed bool, err error) {
	var sum Summary
	if err := json.Unmarshal(rep.Summary, &sum); err != nil || sum.Report == nil {
		return nil, false, fmt.Errorf("report %s: the stored heap dump analysis is unreadable: %v", rep.ID, err)
	}
	boundHeapReport(sum.Report)
	return sum.Report, sum.Indexed, nil
}

// boundHeapReport bounds a stored analysis as the analysis bounds new ones: a
// report stored before paths kept only their ends holds every step, and is
// shown with its first and last hprof.PathEnds steps (its index, when it has
// one, pages the rest); its lists are capped too.
func boundHeapReport(hr *hprof.Report) {
	for i := range hr.Suspects {
		su := &hr.Suspects[i]
		if su.PathLength == 0 { // stored before paths kept their ends
			su.PathLength = len(su.Path)
			for j := range su.Path {
				su.Path[j].Index = j
			}
		}
		if n := len(su.Path); n > 2*hprof.PathEnds {
			su.Path = slices.Concat(su.Path[:hprof.PathEnds], su.Path[n-hprof.PathEnds:])
		}
	}
	*hr = *hr.Capped(Rows)
	hr.Suspects = snapshot.First(hr.Suspects, Rows)
	hr.Dominators = snapshot.First(hr.Dominators, Rows)
}

// showDump renders /r/{id} for a heap dump. The dominator tree comes
// from the stored index; a report whose index cannot be read shows the top of
// the tree kept in its summary, with a notice that says why.
func (s *Kind) showDump(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	hr, indexed, err := StoredReport(rep)
	if err != nil {
		return err
	}
	pg := heapDumpPage(rep, hr)
	group := r.URL.Query().Get("group")
	switch group {
	case "", "auto", "class", "none":
	default:
		return serrors.Errorf(http.StatusBadRequest, "group must be auto, class or none, not %q", group)
	}
	pg.Group = group
	if indexed {
		// The tree expands lazily from the stored index, the suspects' chains
		// and paths too.
		x, err := s.openHeapDumpIndex(r.Context(), rep)
		switch {
		case err == nil:
			var grouped bool
			pg.Lazy, grouped, err = s.heapDumpLazyTree(rep, x, group)
			pg.Toggles = groupToggles(page.ReportURL(rep.ID)+"?", group, grouped)
			for i := range pg.Toggles {
				pg.Toggles[i].URL = strings.Replace(pg.Toggles[i].URL, "?&", "?", 1) + "#dominators"
			}
		case isStatus(err, http.StatusNotFound):
			err = nil // made before indexes were stored: the summary's levels
		}
		if err != nil {
			if !degradable(err) {
				return err
			}
			s.d.Log.Warn("a heap dump report's stored index is unreadable; its page shows the summary", "report", rep.ID, "err", err)
			pg.Notice = "The dominator tree's index stored with this report cannot be read (" + indexDamage(err) +
				"): the page shows what the report's summary keeps, without paging the tree or the paths."
			pg.Lazy = nil
		}
		pg.Views = viewLinks(rep.ID, hr.Native != nil, pg.Lazy != nil)
		for i, su := range hr.Suspects {
			if pg.Lazy == nil || i >= len(pg.Suspects) {
				break
			}
			pg.Suspects[i].Chain = DomURL(rep.ID) + "?node=" + strconv.FormatUint(uint64(su.Accumulation.Ordinal), 10)
			if x != nil && i < x.PathCount() {
				pg.Suspects[i].PathURL = PathURL(rep.ID, i)
			}
		}
	}
	if !indexed {
		pg.Views = viewLinks(rep.ID, hr.Native != nil, false)
	}
	if nativeLarge(hr.Native) {
		pg.Native = heapNative(hr.Native)
		pg.Native.URL = ViewURL(rep.ID, "native")
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports"}, view.HeapDumpPageView(pg))
}

// dumpJSON puts the analysis in the JSON twin, with the URL of each
// suspect's whole path when the index holds it.
func (s *Kind) dumpJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	hr, indexed, err := StoredReport(rep)
	if err != nil {
		return err
	}
	// The report is the analysis; the summary keeps its headline numbers, not a
	// second copy of it.
	var fields map[string]json.RawMessage
	if json.Unmarshal(rep.Summary, &fields) == nil {
		delete(fields, "report")
		doc.Summary = page.MustJSON(fields)
	}
	a := heapDumpAnalysisJSON{Report: hr}
	views := func(indexed bool) {
		for _, l := range viewLinks(rep.ID, hr.Native != nil, indexed) {
			if a.ViewURLs == nil {
				a.ViewURLs = map[string]string{}
			}
			a.ViewURLs[strings.TrimPrefix(l.URL, page.ReportURL(rep.ID)+"/")] = page.Absolute(r, l.URL+".json")
		}
	}
	views(false)
	if indexed {
		if x, err := s.openHeapDumpIndex(r.Context(), rep); err == nil {
			views(true)
			for i := range min(len(hr.Suspects), x.PathCount()) {
				a.PathURLs = append(a.PathURLs, page.Absolute(r, PathURL(rep.ID, i)+".json"))
			}
		} else if degradable(err) {
			doc.Notices = append(doc.Notices, "the dominator tree's index stored with this report cannot be read: "+indexDamage(err))
		}
	}
	doc.Analysis = a
	return nil
}

// heapDumpAnalysisJSON is a heap dump report's analysis in its JSON twin, with
// the URLs of its suspects' whole paths and of its views, paged from the
// stored index.
type heapDumpAnalysisJSON struct {
	*hprof.Report
	PathURLs []string `json:"path_urls,omitempty"`
	// ViewURLs are the JSON of the dump's other views by name ("native",
	// "by-loader", "unreachable", "duplicate-classes").
	ViewURLs map[string]string `json:"view_urls,omitempty"`
}

func heapDumpPage(rep *store.Report, hr *hprof.Report) view.HeapDumpPage {
	path := page.ReportURL(rep.ID)
	h := view.JVMHeader{
		Title: "JVM heap dump" + dumpName(rep), Created: page.FormatTime(rep.CreatedAt), Permalink: path,
		Links: []view.Link{{Label: "JSON", URL: page.ReportJSONURL(rep.ID)}, {Label: "Markdown", URL: path + ".md"}},
		Meta: []view.Pair{
			{Label: "format", Value: fmt.Sprintf("%s, %d-byte identifiers", hr.Version, hr.IDSize)},
			{Label: "taken", Value: page.FormatTime(hr.Time)},
			{Label: "layout", Value: fmt.Sprintf("%d-byte headers, %d-byte references", hr.Layout.Header, hr.Layout.Ref)},
		},
	}
	for _, a := range rep.Artifacts {
		h.Files = append(h.Files, view.FileInfo{Name: a.Name, Kind: "JVM heap dump", Size: analyze.FormatBytes(a.Size), SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)})
		if h.Label == "" {
			h.Label = a.Label
		}
	}
	if len(hr.Suspects) > 0 {
		h.Headline, h.Alarm = strings.ReplaceAll(hr.Suspects[0].Sentence, "`", ""), true
	} else {
		h.Headline = "No leak suspect: no class of top-level objects retains 10% of the heap."
	}
	p := view.HeapDumpPage{Header: h, Figures: []view.JVMFigure{
		{Label: "objects", Value: analyze.FormatCount(hr.Objects), Key: "objects"},
		{Label: "reachable", Value: analyze.FormatBytes(hr.Reachable), Key: "reachable"},
		{Label: "not strongly reachable", Value: analyze.FormatBytes(hr.UnreachableBytes), Key: "unreachable"},
		{Label: "classes", Value: analyze.FormatCount(int64(hr.Classes)), Key: "classes"},
		{Label: "GC roots", Value: analyze.FormatCount(int64(hr.Roots)), Key: "roots"},
	}}
	for _, s := range hr.Suspects {
		vs := view.HeapSuspect{Sentence: strings.ReplaceAll(s.Sentence, "`", ""), Share: fmt.Sprintf("%.1f%%", 100*s.HolderShare),
			PathLength: s.PathLength}
		prev := -1
		for _, st := range s.Path {
			step := heapStep(st)
			step.Gap = st.Index - prev - 1
			prev = st.Index
			vs.Path = append(vs.Path, step)
		}
		p.Suspects = append(p.Suspects, vs)
	}
	for _, d := range hr.Dominators {
		p.Dominators = append(p.Dominators, heapRow(d, hr.Reachable, 0))
	}
	for _, c := range hr.Histogram {
		p.Histogram = append(p.Histogram, view.HeapClass{Name: c.Name, Instances: analyze.FormatCount(c.Instances),
			Shallow: analyze.FormatBytes(c.Shallow), Retained: analyze.FormatBytes(c.Retained), RetainedValue: c.Retained})
	}
	for _, c := range hr.Packages {
		name := c.Package
		if name == "" {
			name = "(primitive arrays, unnamed package)"
		}
		p.Packages = append(p.Packages, view.HeapClass{Name: name, Instances: analyze.FormatCount(c.Instances),
			Shallow: analyze.FormatBytes(c.Shallow), Retained: analyze.FormatBytes(c.Retained), RetainedValue: c.Retained})
	}
	for _, t := range hr.Threads {
		top := ""
		if len(t.Stack) > 0 {
			top = t.Stack[0].String()
		}
		p.Threads = append(p.Threads, view.HeapThread{Name: t.Name, Retained: analyze.FormatBytes(t.Object.Retained), Top: top})
	}
	for _, d := range hr.DuplicateStrings {
		p.Duplicates = append(p.Duplicates, view.HeapDuplicate{Text: d.Text, Copies: analyze.FormatCount(d.Count), Wasted: analyze.FormatBytes(d.Wasted)})
	}
	return p
}

// heapStep is the page's row of a step of a path from a GC root.
func heapStep(st hprof.Step) view.HeapStep {
	via := st.Root
	if st.Index > 0 {
		via = "." + st.Field
		if st.Field == "" {
			via = "(a field not read)"
		}
	}
	return view.HeapStep{Via: via, Class: st.Object.Class, ID: st.Object.ID, Text: st.Object.Text,
		Retained: analyze.FormatBytes(st.Object.Retained), Root: st.Index == 0, Index: st.Index}
}

// heapRow is the page's row of a dominator tree object and its children.
func heapRow(d hprof.Object, reachable int64, level int) view.HeapRow {
	row := view.HeapRow{Class: d.Class, ID: d.ID, Text: d.Text, Retained: analyze.FormatBytes(d.Retained),
		Shallow: analyze.FormatBytes(d.Shallow), Share: page.Share(d.Retained, reachable), RetainedValue: d.Retained,
		Level: level, Dominated: d.Dominated}
	for _, c := range d.Children {
		row.Children = append(row.Children, heapRow(c, reachable, level+1))
	}
	return row
}

// dumpMarkdown writes the ticket summary: each suspect's sentence and its
// path from a GC root, then the top of the dominator tree.
func (s *Kind) dumpMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	hr, indexed, err := StoredReport(rep)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "leakui: JVM heap dump"))
	fmt.Fprintf(&b, "- Report: %s\n", page.Absolute(r, page.ReportURL(rep.ID)))
	for _, a := range rep.Artifacts {
		fmt.Fprintf(&b, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	}
	fmt.Fprintf(&b, "- %s objects, %s reachable from the GC roots\n\n", analyze.FormatCount(hr.Objects), analyze.FormatBytes(hr.Reachable))
	if len(hr.Suspects) == 0 {
		b.WriteString("No leak suspect: no class of top-level objects retains 10% of the heap.\n")
	}
	for i, su := range hr.Suspects {
		fmt.Fprintf(&b, "%d. %s\n\n", i+1, heapMarkdownSentence(su.Sentence))
		fmt.Fprintf(&b, "   Shortest path from a GC root (%s steps):\n\n", analyze.FormatCount(int64(su.PathLength)))
		// Each step one level deeper than the one above, as far as the kept
		// steps go: a path keeps at most 2 × hprof.PathEnds of them.
		prev := -1
		for j, st := range su.Path {
			if gap := st.Index - prev - 1; gap > 0 {
				more := "… " + analyze.FormatCount(int64(gap)) + " more steps"
				if indexed {
					more = markdown.Link(more, page.Absolute(r, PathURL(rep.ID, i)+"?offset="+strconv.Itoa(prev+1)))
				}
				fmt.Fprintf(&b, "   %s- %s\n", strings.Repeat("  ", j), more)
			}
			prev = st.Index
			via := markdown.Escape(st.Root)
			if st.Index > 0 {
				via = "via " + markdown.Code("."+st.Field)
			}
			line := fmt.Sprintf("%s %s %s (retains %s)", via, markdown.Code(st.Object.Class), markdown.Code(st.Object.ID), analyze.FormatBytes(st.Object.Retained))
			if st.Object.Text != "" {
				line += " " + markdown.Code(st.Object.Text)
			}
			fmt.Fprintf(&b, "   %s- %s\n", strings.Repeat("  ", j), line)
		}
		b.WriteString("\n")
	}
	b.WriteString(markdown.Heading(4, "Dominator tree, top level"))
	b.WriteString(markdown.TableHead(markdown.Left("object"), markdown.Right("retained"), markdown.Right("share")))
	for _, d := range snapshot.First(hr.Dominators, 10) {
		name := markdown.Code(d.Class)
		if d.Text != "" {
			name += " " + markdown.Code(d.Text)
		}
		b.WriteString(markdown.Row(name, analyze.FormatBytes(d.Retained), page.Share(d.Retained, hr.Reachable)))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// heapMarkdownSentence writes a suspect sentence with its class and thread names,
// which the analysis puts between backticks, as code spans.
func heapMarkdownSentence(sentence string) string {
	parts := strings.Split(sentence, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(markdown.Code(p))
		} else {
			b.WriteString(markdown.Escape(p))
		}
	}
	return b.String()
}

// Sniff is how many bytes of an uploaded file tell a heap dump.
const Sniff = 4 << 10

// IsHeapDump tells whether an upload's first bytes are those of an HPROF heap
// dump, plain or gzip-compressed.
func IsHeapDump(head []byte) bool {
	if analyze.DetectCompression(head) == analyze.CompressionGzip {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		inflated := make([]byte, 32)
		n, _ := io.ReadFull(zr, inflated)
		head = inflated[:n]
	}
	return analyze.DetectKind(head).Kind == analyze.KindJVMHeapDump
}

// checkHeapDumpFraming refuses at once, before anything is stored, an uploaded
// heap dump whose header or record framing is broken (hprof.CheckFraming: a
// truncated dump, identifiers of 3 bytes, a record past the end): 422, not a
// report that fails in the background. A compressed dump is left to the
// analysis, which inflates it.
func checkHeapDumpFraming(f *kind.Received) error {
	file, err := os.Open(f.Path)
	if err != nil {
		return err
	}
	defer file.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(file, head)
	if analyze.DetectCompression(head[:n]) != analyze.CompressionNone {
		return nil
	}
	if err := hprof.CheckFraming(file, f.Size); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}
