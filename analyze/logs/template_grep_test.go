package logs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestTemplateCountsMatchGrep is the overview's anchor: on real logs, every
// listed template's count equals what the real `grep -cE` prints for the
// template's own regular expression, whichever way the file is split; the
// levels add up to the lines.
func TestTemplateCountsMatchGrep(t *testing.T) {
	for _, name := range []string{"loghub-Zookeeper_2k.log", "loghub-HDFS_2k.log", "kafka-2.1.1-broker-server.log.2020-02-14-00", "erigon-node.log"} {
		t.Run(name, func(t *testing.T) {
			path := fixtures.Path(t, "logs", name)
			want := countFile(t, countVariants[0], path, CountOptions{Overview: true})
			ov := want.Overview
			if ov == nil || len(ov.Templates) == 0 {
				t.Fatalf("no templates: %+v", ov)
			}
			if lines := grepLines(t, path); want.Lines != lines {
				t.Fatalf("lines %d, grep %d", want.Lines, lines)
			}
			var sum, listed int64
			for _, l := range ov.Levels {
				sum += l.Lines
			}
			if sum != want.Lines {
				t.Errorf("levels add up to %d, want %d lines", sum, want.Lines)
			}
			for _, tp := range ov.Templates {
				if got := greptest.Count(t, tp.Regexp, true, path); got != tp.Count {
					t.Errorf("template %q: count %d, grep -cE %q says %d", tp.Template, tp.Count, tp.Regexp, got)
				}
				listed += tp.Count
			}
			if listed+ov.OtherLines != want.Lines {
				t.Errorf("listed %d + other %d != %d lines", listed, ov.OtherLines, want.Lines)
			}
			for _, v := range countVariants[1:] {
				if v.maxLine != 0 {
					continue // lines past maxLine have no template, by design
				}
				got := countFile(t, v, path, CountOptions{Overview: true}).Overview
				if fmt.Sprint(got.Levels) != fmt.Sprint(ov.Levels) || len(got.Templates) != len(ov.Templates) {
					t.Fatalf("%s: levels %v, %d templates; want %v, %d", v.name, got.Levels, len(got.Templates), ov.Levels, len(ov.Templates))
				}
				for i := range got.Templates {
					if got.Templates[i].Regexp != ov.Templates[i].Regexp || got.Templates[i].Count != ov.Templates[i].Count || got.Templates[i].First.String() != ov.Templates[i].First.String() || got.Templates[i].Last.String() != ov.Templates[i].Last.String() {
						t.Errorf("%s: template %d is %+v, want %+v", v.name, i, got.Templates[i], ov.Templates[i])
					}
				}
			}
		})
	}
}

// TestZookeeperOverview checks the Zookeeper log's levels against grep on its
// layout (`date time - LEVEL  [`), its masked fields and its time axis.
func TestZookeeperOverview(t *testing.T) {
	path := fixtures.Path(t, "logs", "loghub-Zookeeper_2k.log")
	rep := countFile(t, countVariants[0], path, CountOptions{Overview: true})
	for _, l := range rep.Overview.Levels {
		if l.Level == "none" {
			continue
		}
		want := greptest.Count(t, `^[^ ]+ [^ ]+ - `+l.Level+` `, true, path)
		if l.Lines != want {
			t.Errorf("level %s: %d lines, grep says %d", l.Level, l.Lines, want)
		}
	}
	top := rep.Overview.Templates[0]
	if !strings.HasPrefix(top.Template, "<DATE> <NUM>:<NUM>:<NUM>,<NUM> - ") {
		t.Errorf("top template %q does not mask the timestamp", top.Template)
	}
	var ip bool
	for _, tp := range rep.Overview.Templates {
		ip = ip || strings.Contains(tp.Template, "/<IP>:<NUM>")
	}
	if !ip {
		t.Errorf("no template masks an address as /<IP>:<NUM>")
	}
	if len(rep.Buckets) < MinAutoBuckets {
		t.Fatalf("%d buckets", len(rep.Buckets))
	}
	var inBuckets int64
	for _, b := range rep.Buckets {
		for _, n := range b.Levels {
			inBuckets += n
		}
	}
	if inBuckets+rep.Overview.UntimedLines != rep.Lines {
		t.Errorf("buckets hold %d lines and %d are untimed, want %d", inBuckets, rep.Overview.UntimedLines, rep.Lines)
	}
}

// TestTemplatesExactWhenTablesOverflow writes a log with more distinct
// templates than a table keeps, counts it in many small parts, and checks every
// listed template against its regexp run over every line: a template that a
// full table refused somewhere is left out, never listed short.
func TestTemplatesExactWhenTablesOverflow(t *testing.T) {
	var b bytes.Buffer
	for i := range 30000 {
		// Words without digits make distinct templates; numbers do not.
		fmt.Fprintf(&b, "2024-01-02 03:04:%02d INFO event %s happened %d times\n", i%60, wordOf(i%(3*MaxTemplates)), i)
		if i%7 == 0 {
			fmt.Fprintf(&b, "2024-01-02 03:04:%02d WARN common line %d\n", i%60, i)
		}
	}
	path := filepath.Join(t.TempDir(), "many.log")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, v := range []countVariant{{name: "default"}, {name: "parts", block: 4096, part: 50000, worker: 2}, {name: "stream", stream: true}} {
		ov := countFile(t, v, path, CountOptions{Overview: true}).Overview
		if !ov.Truncated || ov.Overflow == 0 || ov.Distinct != MaxTemplates {
			t.Fatalf("%s: want a full table: %+v", v.name, ov)
		}
		if len(ov.Templates) == 0 || ov.TemplateBytes <= 0 || ov.TemplateBytes > MaxTemplates*(MaxTemplateBytes+templateSample+templateOverhead) {
			t.Fatalf("%s: %d templates, %d bytes", v.name, len(ov.Templates), ov.TemplateBytes)
		}
		for _, tp := range ov.Templates[:min(40, len(ov.Templates))] {
			re := regexp.MustCompile(tp.Regexp)
			var want int64
			for _, l := range lines {
				if re.MatchString(l) {
					want++
				}
			}
			if tp.Count != want {
				t.Errorf("%s: %q counted %d, its regexp matches %d lines", v.name, tp.Template, tp.Count, want)
			}
		}
	}
}

// wordOf spells n in letters only (a word the masker keeps).
func wordOf(n int) string {
	var s []byte
	for {
		s = append(s, byte('g'+n%20))
		n /= 20
		if n == 0 {
			return string(s)
		}
	}
}

// TestErrorsAndWarningsFirst: the overview lists the templates of the ERROR
// and WARN lines of the Zookeeper and Hadoop logs apart, most lines first,
// every one of them: their counts add up to grep -c of the lines of each level,
// and each is grep -cE of its own regexp.
func TestErrorsAndWarningsFirst(t *testing.T) {
	for _, c := range []struct{ name, line string }{
		{"loghub-Zookeeper_2k.log", `^[^ ]+ [^ ]+ - %s `},
		{"loghub-Hadoop_2k.log", `^[^ ]+ [^ ]+ %s `},
	} {
		path := fixtures.Path(t, "logs", c.name)
		rep := countFile(t, countVariants[0], path, CountOptions{Overview: true})
		sums := map[string]int64{}
		for i, tp := range rep.Overview.Trouble {
			if tp.Level != "ERROR" && tp.Level != "WARN" && tp.Level != "FATAL" {
				t.Errorf("%s: trouble template %q of level %s", c.name, tp.Template, tp.Level)
			}
			if i > 0 && tp.Count > rep.Overview.Trouble[i-1].Count {
				t.Errorf("%s: trouble template %d has more lines (%d) than the one before it", c.name, i, tp.Count)
			}
			if want := greptest.Count(t, tp.Regexp, true, path); tp.Count != want {
				t.Errorf("%s: %q counts %d, grep -cE says %d", c.name, tp.Template, tp.Count, want)
			}
			sums[tp.Level] += tp.Count
		}
		for _, level := range []string{"ERROR", "WARN"} {
			want := greptest.Count(t, fmt.Sprintf(c.line, level), true, path)
			if want == 0 || sums[level] != want {
				t.Errorf("%s: the %s templates hold %d lines, grep -c says %d", c.name, level, sums[level], want)
			}
		}
	}
}
