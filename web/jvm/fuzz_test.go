package jvm

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// FuzzNMTPages feeds arbitrary text to the native memory parser and builds and
// renders every page the web shows for what it accepts (one report, the diff,
// each alone, all rows): no panic, and the HTML is valid UTF-8 whatever bytes
// the input holds.
func FuzzNMTPages(f *testing.F) {
	for _, path := range fixtures.Glob(f, "jvm", "nmt-*") {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		ns, err := jvm.ParseNMTs(strings.NewReader(text))
		if err != nil {
			return
		}
		ns = append(ns, ns[0])
		rep := &store.Report{ID: "fuzz", Params: []byte(`{}`), Artifacts: []store.ReportArtifact{{Name: "fuzz.txt"}, {Name: "other.txt"}}}
		refs := make([]snapshot.Ref, len(ns))
		for i := range refs {
			refs[i] = snapshot.Ref{File: i % 2, Index: i}
		}
		for _, u := range []string{"/r/fuzz", "/r/fuzz?n=all&sort=instances", "/r/fuzz?snapshot=0", "/r/fuzz?base=1&target=0&n=3"} {
			q, err := snapshot.ParseQuery(httptest.NewRequest("GET", u, nil), len(ns))
			if err != nil {
				continue
			}
			set := &nmtSet{&snapshot.Set[*jvm.NMT]{Rep: rep, Items: ns, Refs: refs, Q: q}}
			for what, c := range map[string]templ.Component{
				"native memory":      view.JVMNMTPageView(set.nmtPage(0)),
				"native memory diff": view.JVMNMTPageView(set.diffPage()),
			} {
				var buf bytes.Buffer
				if err := view.Layout(view.Page{Title: "fuzz"}).Render(templ.WithChildren(context.Background(), c), &buf); err != nil {
					t.Fatal(err)
				}
				if !utf8.Valid(buf.Bytes()) {
					t.Fatalf("the %s page is not valid UTF-8", what)
				}
			}
		}
	})
}

// FuzzThreadPages feeds arbitrary text to the thread dump analysis and builds
// and renders the pages the web shows for what it accepts (one dump, the diff):
// no panic, and the HTML is valid UTF-8 whatever bytes the input holds.
func FuzzThreadPages(f *testing.F) {
	for _, path := range fixtures.Glob(f, "jvm", "*") {
		if data, err := os.ReadFile(path); err == nil && len(data) < 256<<10 && !strings.Contains(path, "utf16") {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := jvm.AnalyzeThreads(strings.NewReader(text))
		if err != nil {
			return
		}
		reps := []*jvm.ThreadReport{r, r}
		rep := &store.Report{ID: "fuzz", Params: []byte(`{}`), Artifacts: []store.ReportArtifact{{Name: "fuzz.txt"}, {Name: "other.txt"}}}
		refs := []snapshot.Ref{{File: 0, Index: 0}, {File: 1, Index: 1}}
		for _, u := range []string{"/r/fuzz", "/r/fuzz?n=all&sort=instances", "/r/fuzz?snapshot=0", "/r/fuzz?base=1&target=0&n=3"} {
			q, err := snapshot.ParseQuery(httptest.NewRequest("GET", u, nil), 2)
			if err != nil {
				continue
			}
			set := &threadSet{&snapshot.Set[*jvm.ThreadReport]{Rep: rep, Items: reps, Refs: refs, Q: q}}
			for what, c := range map[string]templ.Component{
				"thread dump": view.JVMThreadsPageView(set.threadsPage(0)),
				"thread diff": view.JVMThreadsPageView(set.diffPage()),
			} {
				var buf bytes.Buffer
				if err := view.Layout(view.Page{Title: "fuzz"}).Render(templ.WithChildren(context.Background(), c), &buf); err != nil {
					t.Fatal(err)
				}
				if !utf8.Valid(buf.Bytes()) {
					t.Fatalf("the %s page is not valid UTF-8", what)
				}
			}
		}
	})
}
