package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// hostileTypeProfile is a heap profile whose sample type and unit names are
// markup, as anyone who writes a profile.proto may choose them.
func hostileTypeProfile(t *testing.T, value int64) []byte {
	t.Helper()
	fn := &profile.Function{ID: 1, Name: "main.<b>grow</b>", Filename: "/src/main.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 5}}}
	typ := &profile.ValueType{Type: "<img src=x onerror=alert(1)>|*x*|", Unit: "[u](javascript:alert(1))"}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{typ},
		PeriodType: typ, Period: 1,
		Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{value}}},
		Location: []*profile.Location{loc}, Function: []*profile.Function{fn},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMarkdownEscapesSampleTypes checks that the sample type names of a
// profile, a diff and a series reach the Markdown summary only through the
// escaper: no raw HTML, link or extra table cell outside code spans.
func TestMarkdownEscapesSampleTypes(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, files := range [][]file{
		{{name: "one.pb", data: hostileTypeProfile(t, 10)}},
		{{name: "a.pb", data: hostileTypeProfile(t, 10)}, {name: "b.pb", data: hostileTypeProfile(t, 20)}},
		{{name: "a.pb", data: hostileTypeProfile(t, 10)}, {name: "b.pb", data: hostileTypeProfile(t, 20)}, {name: "c.pb", data: hostileTypeProfile(t, 30)}},
	} {
		t.Run(fmt.Sprint(len(files)), func(t *testing.T) {
			up := ts.mustUpload(t, nil, files...)
			code, _, md := ts.get(t, up.ReportURL+".md")
			if code != http.StatusOK {
				t.Fatalf("%d %s", code, md)
			}
			if !strings.Contains(string(md), `\<img src=x onerror=alert(1)\>`) {
				t.Errorf("the sample type is not in the summary, escaped:\n%s", md)
			}
			checkMarkdownShape(t, string(md))
		})
	}
}
