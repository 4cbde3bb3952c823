package logs

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestTroubleFirstLastMatchGrep anchors the errors and warnings of real logs
// on grep: each FATAL, ERROR and WARN template's count is `grep -cE` of its
// regexp, its first and last lines are the first and last that `grep -nE`
// prints, and their times are those lines' own timestamps, however the file
// is split into parts.
func TestTroubleFirstLastMatchGrep(t *testing.T) {
	for _, tc := range []struct {
		name, layout string
		skip         int // bytes before the timestamp
	}{
		{"kafka-3.6.2-broker-server.log", "2006-01-02 15:04:05,000", 1},
		{"loghub-Zookeeper_2k.log", "2006-01-02 15:04:05,000", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixtures.Path(t, "logs", tc.name)
			rep := countFile(t, countVariants[0], path, CountOptions{Overview: true})
			trouble := rep.Overview.Trouble
			if len(trouble) == 0 {
				t.Fatal("no errors or warnings found")
			}
			at := func(line string) time.Time {
				ts, err := time.Parse(tc.layout, line[tc.skip:tc.skip+len(tc.layout)])
				if err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				return ts
			}
			for _, tp := range trouble {
				hits := greptest.Output(t, "-nE", tp.Regexp, path)
				if int64(len(hits)) != tp.Count {
					t.Errorf("%s %q: count %d, grep -cE says %d", tp.Level, tp.Template, tp.Count, len(hits))
					continue
				}
				for _, c := range []struct {
					what string
					got  Place
					hit  string
				}{{"first", tp.First, hits[0]}, {"last", tp.Last, hits[len(hits)-1]}} {
					n, text, _ := strings.Cut(c.hit, ":")
					if strconv.FormatInt(c.got.Line, 10) != n || c.got.File != tc.name {
						t.Errorf("%q: %s at %s:%d, grep -n says line %s", tp.Template, c.what, c.got.File, c.got.Line, n)
					}
					if want := at(text); c.got.Time == nil || !c.got.Time.Equal(want) {
						t.Errorf("%q: %s time %v, the line says %v", tp.Template, c.what, c.got.Time, want)
					}
				}
			}
			for _, v := range countVariants[1:] {
				if v.maxLine != 0 {
					continue // lines past maxLine have no template, by design
				}
				got := countFile(t, v, path, CountOptions{Overview: true}).Overview.Trouble
				if len(got) != len(trouble) {
					t.Fatalf("%s: %d templates, want %d", v.name, len(got), len(trouble))
				}
				for i := range got {
					if got[i].First.String() != trouble[i].First.String() || got[i].Last.String() != trouble[i].Last.String() {
						t.Errorf("%s: %q first %s last %s, want %s and %s", v.name, got[i].Template,
							got[i].First, got[i].Last, trouble[i].First, trouble[i].Last)
					}
				}
			}
		})
	}
}

// TestTroubleInText: `leakui count -overview` prints each error and warning
// template with the first and last lines grep -n finds (the Zookeeper log's
// most frequent WARN template: lines 4 and 1,917).
func TestTroubleInText(t *testing.T) {
	rep := countFile(t, countVariants[0], fixtures.Path(t, "logs", "loghub-Zookeeper_2k.log"), CountOptions{Overview: true})
	var buf bytes.Buffer
	if err := rep.Overview.writeText(&buf); err != nil {
		t.Fatal(err)
	}
	want := "first loghub-Zookeeper_2k.log:4 2015-07-29 19:04:29.079, last loghub-Zookeeper_2k.log:1917 2015-07-29 19:37:09.092\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("the text lacks %q:\n%s", want, buf.String())
	}
}
