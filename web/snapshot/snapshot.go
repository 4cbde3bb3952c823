package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// Entry is what the JVM cache keeps: what the JVM parsers made of an artifact,
// keyed by kind and sha256 (an artifact's content never changes, so the entry is
// valid for every report that shares the file), or a comparison or series built
// from them. Values are never modified. cost is what the entry is charged to the
// server's memory budget: what its parse charged, or an estimate.
type Entry struct {
	Value any
	Cost  int64
}

func (e Entry) MemSize() int64 { return e.Cost }

// CacheBytes bounds what the cache of parsed JVM inputs keeps.
const CacheBytes = 256 << 20

// Ref names one snapshot of a report: the i-th artifact's k-th histogram, dump
// or native memory report (both from 0).
type Ref struct {
	File  int `json:"file"`
	Index int `json:"index"`
}

// Params are the stored parameters of a JVM report: the snapshots in analysis
// order (oldest first) and what decided that order.
type Params struct {
	OrderedBy string `json:"ordered_by,omitempty"`
	Snapshots []Ref  `json:"snapshots"`
}

// AsMap is the parameters as a report plan stores them.
func (p Params) AsMap() map[string]any {
	m := map[string]any{"snapshots": p.Snapshots}
	if p.OrderedBy != "" {
		m["ordered_by"] = p.OrderedBy
	}
	return m
}

// ParseReceived parses an uploaded file (gzip and zstd removed) and caches the
// result under its hash.
func ParseReceived[T any](l *Loader, f *kind.Received, prefix string, parse func(io.Reader, *analyze.Budget) (T, error)) (T, error) {
	return jvmParse(context.Background(), l, prefix+":"+f.SHA256, f.Source(), parse)
}

// LoadParsed returns a stored artifact parsed, from the cache when it is there.
func LoadParsed[T any](ctx context.Context, l *Loader, a store.ReportArtifact, prefix string, parse func(io.Reader, *analyze.Budget) (T, error)) (T, error) {
	return jvmParse(ctx, l, prefix+":"+a.SHA256, kind.Stored(l.d.Store, a.SHA256, a.Name), parse)
}

// jvmParse parses src (gzip and zstd removed) into the JVM cache under key. What
// the parse keeps is charged while it runs; the cache keeps it charged to the
// server's budget at that cost. Errors name the file.
func jvmParse[T any](ctx context.Context, l *Loader, key string, src kind.Source, parse func(io.Reader, *analyze.Budget) (T, error)) (T, error) {
	var zero T
	e, err := kind.Load(ctx, l.d, l.cache, kind.Parse[Entry]{Key: key, Sources: []kind.Source{src},
		Decompress: true, Limit: l.d.Limits.MaxDecompressed, Wrap: true,
		Run: func(_ context.Context, in []io.Reader, b *analyze.Budget) (Entry, error) {
			v, err := parse(in[0], b)
			if err != nil {
				return Entry{}, err
			}
			return Entry{Value: v, Cost: b.Used()}, nil
		}})
	if err != nil {
		return zero, err
	}
	t, ok := e.Value.(T)
	if !ok {
		return zero, fmt.Errorf("the JVM cache holds a %T under %s", e.Value, key)
	}
	return t, nil
}

// Plan parses every uploaded file into its snapshots, orders them oldest
// first (by the time each says it was taken when all say it, else in upload
// order), reorders form.files to match, and returns the snapshots in that order
// with the parameters that record it.
func Plan[T any](l *Loader, form *kind.Upload, prefix, timeName string, parse func(io.Reader, *analyze.Budget) ([]T, error), timeOf func(T) time.Time) ([]T, Params, error) {
	type snap struct {
		ref Ref
		v   T
		t   time.Time
	}
	var all []snap
	timed := true
	for i, f := range form.Files {
		vs, err := ParseReceived(l, f, prefix, parse)
		if err != nil {
			return nil, Params{}, err
		}
		for k, v := range vs {
			t := timeOf(v)
			timed = timed && !t.IsZero()
			all = append(all, snap{Ref{i, k}, v, t})
		}
	}
	if len(all) == 0 {
		return nil, Params{}, fmt.Errorf("%w: the upload holds nothing to analyze", analyze.ErrEmpty)
	}
	params := Params{}
	if len(all) > 1 {
		params.OrderedBy = "upload order"
		if timed {
			params.OrderedBy = timeName
			sort.SliceStable(all, func(a, b int) bool { return all[a].t.Before(all[b].t) })
		}
	}
	// Files go in the order of their first snapshot, so the report lists them
	// oldest first too.
	position := map[int]int{}
	files := make([]*kind.Received, 0, len(form.Files))
	out := make([]T, len(all))
	for i, sn := range all {
		p, ok := position[sn.ref.File]
		if !ok {
			p = len(files)
			position[sn.ref.File] = p
			files = append(files, form.Files[sn.ref.File])
		}
		out[i] = sn.v
		params.Snapshots = append(params.Snapshots, Ref{File: p, Index: sn.ref.Index})
	}
	form.Files = files
	return out, params, nil
}

// LoadAll loads a stored report's snapshots in analysis order, and for each
// the artifact it comes from. Reports without stored snapshots take every snapshot
// of every file in upload order.
func LoadAll[T any](ctx context.Context, l *Loader, rep *store.Report, prefix string, parse func(io.Reader, *analyze.Budget) ([]T, error)) ([]T, []Ref, error) {
	perFile := make([][]T, len(rep.Artifacts))
	for i, a := range rep.Artifacts {
		vs, err := LoadParsed(ctx, l, a, prefix, parse)
		if err != nil {
			return nil, nil, err
		}
		perFile[i] = vs
	}
	var p Params
	if len(rep.Params) > 0 {
		if err := json.Unmarshal(rep.Params, &p); err != nil {
			return nil, nil, fmt.Errorf("report %s: params: %w", rep.ID, err)
		}
	}
	refs := p.Snapshots
	if len(refs) == 0 {
		for i, vs := range perFile {
			for k := range vs {
				refs = append(refs, Ref{i, k})
			}
		}
	}
	out := make([]T, len(refs))
	for i, ref := range refs {
		if ref.File < 0 || ref.File >= len(perFile) || ref.Index < 0 || ref.Index >= len(perFile[ref.File]) {
			return nil, nil, fmt.Errorf("report %s: snapshot %+v is not in its files", rep.ID, ref)
		}
		out[i] = perFile[ref.File][ref.Index]
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("report %s has no snapshots", rep.ID)
	}
	return out, refs, nil
}

// Query is everything a JVM report page is parameterised by; all of it comes
// from the URL, so a link reproduces the view.
type Query struct {
	Rows int // rows per table, 0 for all
	// order ranks histogram tables (sort=bytes or sort=instances).
	Order jvm.Order
	// snapshot shows one snapshot alone (snapshot=K), -1 for the report's own view.
	Snapshot int
	// base and target are the snapshots a diff compares.
	Base, Target int
	Values       url.Values
}

// queryKeys are the parameters a JVM page understands and keeps in its links.
var jvmQueryKeys = []string{"n", "sort", "snapshot", "base", "target"}

// ParseQuery reads the query string of a JVM report of n snapshots.
func ParseQuery(r *http.Request, n int) (Query, error) {
	v := r.URL.Query()
	q := Query{Rows: page.DefaultRows, Snapshot: -1, Base: 0, Target: n - 1, Values: url.Values{}}
	for _, k := range jvmQueryKeys {
		if s := v.Get(k); s != "" {
			q.Values.Set(k, s)
		}
	}
	switch rows := v.Get("n"); rows {
	case "":
	case "all":
		q.Rows = 0
	default:
		k, err := strconv.Atoi(rows)
		if err != nil || k < 1 {
			return q, serrors.Errorf(http.StatusBadRequest, "n must be a positive number of rows or \"all\", not %q", rows)
		}
		q.Rows = k
	}
	switch o := v.Get("sort"); o {
	case "", "bytes":
	case "instances":
		q.Order = jvm.ByInstances
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "sort must be bytes or instances, not %q", o)
	}
	index := func(name string, def int) (int, error) {
		s := v.Get(name)
		if s == "" {
			return def, nil
		}
		k, err := strconv.Atoi(s)
		if err != nil || k < 0 || k >= n {
			return 0, serrors.Errorf(http.StatusBadRequest, "%s must be a snapshot number from 0 to %d, not %q", name, n-1, s)
		}
		return k, nil
	}
	var err error
	if q.Snapshot, err = index("snapshot", -1); err != nil {
		return q, err
	}
	if q.Base, err = index("base", 0); err != nil {
		return q, err
	}
	if q.Target, err = index("target", n-1); err != nil {
		return q, err
	}
	if n > 1 && q.Base == q.Target {
		return q, serrors.Errorf(http.StatusBadRequest, "base and target must be different snapshots, both are %d", q.Base)
	}
	return q, nil
}

// url renders the query back into a URL under path, with changes applied.
func (q Query) URL(path string, change func(v url.Values)) string {
	v := url.Values{}
	for k, vals := range q.Values {
		v[k] = append([]string(nil), vals...)
	}
	if change != nil {
		change(v)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// showAll is the query's URL with every row.
func (q Query) ShowAll(path string) string {
	return q.URL(path, func(v url.Values) { v.Set("n", "all") })
}

// First returns the first q.rows elements of s (all when q.rows is 0).
func First[T any](s []T, rows int) []T {
	if rows > 0 && len(s) > rows {
		return s[:rows]
	}
	return s
}

// Header builds the part of a page every JVM report shares.
func Header(rep *store.Report, q Query, title string, kindOf func(i int) string, timeOf func(i int) time.Time) view.JVMHeader {
	path := page.ReportURL(rep.ID)
	h := view.JVMHeader{
		Title: title, Created: page.FormatTime(rep.CreatedAt), Permalink: path,
		Links: []view.Link{
			{Label: "JSON", URL: q.URL(page.ReportJSONURL(rep.ID), nil)},
			{Label: "Markdown", URL: q.URL(path+".md", nil)},
		},
	}
	for i, a := range rep.Artifacts {
		fi := view.FileInfo{Name: a.Name, Kind: kindOf(i), Size: analyze.FormatBytes(a.Size), SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)}
		if notes := FormatNotes(a.Format); notes != "" {
			fi.Kind += " (" + notes + ")"
		}
		if t := timeOf(i); !t.IsZero() {
			fi.Time = page.FormatTime(t)
		}
		h.Files = append(h.Files, fi)
		if h.Label == "" {
			h.Label = a.Label
		}
	}
	return h
}

// Tabs offers the diff and each snapshot alone, for a report of several
// snapshots; many snapshots are reached from the snapshot table instead.
func Tabs(rep *store.Report, q Query, names []string) []view.Link {
	if len(names) < 2 {
		return nil
	}
	path := page.ReportURL(rep.ID)
	tabs := []view.Link{{Label: "diff", Current: q.Snapshot < 0, URL: q.URL(path, func(v url.Values) { v.Del("snapshot") })}}
	if len(names) > 12 {
		return tabs
	}
	for i, name := range names {
		tabs = append(tabs, view.Link{Label: fmt.Sprintf("#%d %s", i+1, name), Current: q.Snapshot == i,
			URL: q.URL(path, func(v url.Values) { v.Set("snapshot", strconv.Itoa(i)) })})
	}
	return tabs
}

// Table lists a report's snapshots with the base and the target marked.
func Table(rep *store.Report, q Query, refs []Ref, what string, totals []string,
	lineOf func(i int) int, timeOf func(i int) time.Time, values func(i int) []string) *view.JVMSnapshotTable {
	if len(refs) < 2 {
		return nil
	}
	path := page.ReportURL(rep.ID)
	t := &view.JVMSnapshotTable{What: what, Totals: totals}
	for i, ref := range refs {
		row := view.JVMSnapshotRow{Number: i + 1, File: rep.Artifacts[ref.File].Name, Values: values(i),
			Base: q.Snapshot < 0 && i == q.Base, Target: q.Snapshot < 0 && i == q.Target, Current: q.Snapshot == i,
			View: q.URL(path, func(v url.Values) { v.Set("snapshot", strconv.Itoa(i)) })}
		if l := lineOf(i); l > 0 {
			row.Line = strconv.Itoa(l)
		}
		if tm := timeOf(i); !tm.IsZero() {
			row.Time = page.FormatTime(tm)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Name names snapshot i for titles: its file, with its number in the file
// when the file holds several.
func Name(rep *store.Report, refs []Ref, i int) string {
	ref := refs[i]
	name := rep.Artifacts[ref.File].Name
	n := 0
	for _, r := range refs {
		if r.File == ref.File {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s #%d", name, ref.Index+1)
	}
	return name
}

// JSON describes one snapshot of a report in its JSON twin.
type JSON struct {
	Snapshot int        `json:"snapshot"`
	Name     string     `json:"name"`
	SHA256   string     `json:"sha256"`
	Index    int        `json:"index"`
	Line     int        `json:"line,omitempty"`
	Time     *time.Time `json:"time,omitempty"`
}

func Of(rep *store.Report, refs []Ref, i, line int, t time.Time) JSON {
	a := rep.Artifacts[refs[i].File]
	s := JSON{Snapshot: i, Name: a.Name, SHA256: a.SHA256, Index: refs[i].Index, Line: line}
	if !t.IsZero() {
		s.Time = &t
	}
	return s
}

// MarkdownHead starts a JVM report's Markdown: the link and the files.
func MarkdownHead(w io.Writer, r *http.Request, rep *store.Report, q Query, title string) {
	fmt.Fprint(w, markdown.Heading(3, "leakui: "+markdown.Escape(title)))
	fmt.Fprintf(w, "- Report: %s\n", page.Absolute(r, q.URL(page.ReportURL(rep.ID), nil)))
	for _, a := range rep.Artifacts {
		fmt.Fprintf(w, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	}
	fmt.Fprintln(w)
}

// FormatNotes returns what a stored artifact's format says was done to its text
// before it was read (see analyze.Detection.FullFormat: "UTF-16LE", "kubectl logs
// --timestamps prefixes stripped"), or "" when nothing was.
func FormatNotes(format string) string {
	if _, notes, ok := strings.Cut(format, "; "); ok {
		return notes
	}
	return ""
}

// Loader parses JVM outputs into the JVM cache, charged to the server's budget.
type Loader struct {
	d     *kind.Deps
	cache *kind.Cache[Entry]
}

// NewLoader registers the JVM cache (shared by the JVM kinds and heap dump
// comparisons) in d.Caches.
func NewLoader(d *kind.Deps) *Loader {
	return &Loader{d: d, cache: kind.Register(d.Caches, "jvm", kind.NewSizedCache(16, CacheBytes, Entry.MemSize))}
}

// Cache is the JVM cache, where heap dump comparisons keep their sets too.
func (l *Loader) Cache() *kind.Cache[Entry] { return l.cache }
