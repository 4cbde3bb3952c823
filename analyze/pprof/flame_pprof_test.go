package pprof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
)

// pprofStacks is the data of the flame graph of `go tool pprof -http`
// (report.StackSet, as its /ui/flamegraph page embeds it for stacks.js).
type pprofStacks struct {
	Total  int64
	Stacks []struct {
		Value   int64
		Sources []int
	}
	Sources []struct{ FullName string }
}

// servePprofFlame starts the real pprof's web UI on a free loopback port with
// args (the profile files last), fetches its flame graph page and returns the
// stacks the page draws; the server is stopped before it returns.
func servePprofFlame(t *testing.T, args ...string) pprofStacks {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	full := append([]string{"-http=" + addr, "-no_browser", "-symbolize=none"}, args...)
	cmd := exec.Command(pprofTool(t), full...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-done
	}()
	var page []byte
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get("http://" + addr + "/ui/flamegraph")
		if err == nil {
			page, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				break
			}
			t.Fatalf("pprof %v: %d %v\n%.500s", full, resp.StatusCode, err, page)
		}
		select {
		case err := <-done:
			t.Fatalf("pprof %v ended: %v\n%s", full, err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("pprof %v did not serve in a minute:\n%s", full, out.String())
		}
	}
	// stacks.html ends with the call stackViewer({{.Stacks}}, {{.Nodes}});
	// the script before it defines the function.
	at := bytes.LastIndex(page, []byte("stackViewer("))
	if at < 0 {
		t.Fatalf("pprof's flame graph page has no stackViewer call:\n%.500s", page)
	}
	var st pprofStacks
	if err := json.NewDecoder(bytes.NewReader(page[at+len("stackViewer("):])).Decode(&st); err != nil {
		t.Fatalf("pprof's stacks: %v", err)
	}
	return st
}

// pprofBox is a box of pprof's flame graph, the way stacks.js groups stacks
// (partitionPlaces): sumpos and sumneg, the values of the positive and the
// negative stacks through it (in a diff, the target's and the base's).
type pprofBox struct {
	pos, neg int64
	kids     map[int]*pprofBox // by source, as stacks.js groups them
	names    map[string]int    // how many sources of each name are among kids
}

// pprofTree groups pprof's stacks from the root down as stacks.js does.
func pprofTree(st pprofStacks) *pprofBox {
	root := &pprofBox{}
	add := func(b *pprofBox, v int64) {
		if v < 0 {
			b.neg -= v
		} else {
			b.pos += v
		}
	}
	for _, s := range st.Stacks {
		b := root
		add(b, s.Value)
		for _, src := range s.Sources[1:] { // Sources[0] is the root
			if b.kids == nil {
				b.kids, b.names = map[int]*pprofBox{}, map[string]int{}
			}
			k := b.kids[src]
			if k == nil {
				k = &pprofBox{}
				b.kids[src] = k
				b.names[st.Sources[src].FullName]++
			}
			add(k, s.Value)
			b = k
		}
	}
	return root
}

// flameValues are a box's values by path (names from the root, joined by
// newlines): the target's and the base's.
type flameValues map[string][2]int64

// pprofValues sums pprof's boxes by path (pprof draws a function that is
// inlined at some calls and not at others, or two functions of one name in
// different files, as two boxes of one name; leakui as one).
func pprofValues(st pprofStacks) flameValues {
	out := flameValues{}
	var walk func(b *pprofBox, path string)
	walk = func(b *pprofBox, path string) {
		v := out[path]
		out[path] = [2]int64{v[0] + b.pos, v[1] + b.neg}
		for src, k := range b.kids {
			walk(k, path+"\n"+st.Sources[src].FullName)
		}
	}
	walk(pprofTree(st), "root")
	return out
}

// treeValues lists every node of two trees merged, by path.
func treeValues(target, base *FlameTree) flameValues {
	c := &FlameCut{target: target, base: base}
	c.targetRank, c.baseRank = unionRanks(target.names, base.names)
	out := flameValues{}
	var walk func(p flamePair, path string)
	walk = func(p flamePair, path string) {
		var v [2]int64
		if p.t >= 0 {
			v[0] = target.node(p.t).value
		}
		if p.b >= 0 {
			v[1] = base.node(p.b).value
		}
		out[path] = v
		for _, k := range c.children(p, nil) {
			name := ""
			if k.t >= 0 {
				name = target.label(k.t)
			} else {
				name = base.label(k.b)
			}
			walk(k, path+"\n"+name)
		}
	}
	walk(flamePair{0, 0}, "root")
	return out
}

// keptPaths lists a cut's boxes by path.
func keptPaths(c *FlameCut) map[string]bool {
	out := map[string]bool{}
	var path []string
	for b := range c.Walk() {
		path = append(path[:b.Depth], b.Name)
		out[strings.Join(path, "\n")] = true
	}
	return out
}

// pprofDrawn lists the boxes pprof's flame graph draws on a chart of width
// pixels, by path, with stacks.js's arithmetic: xscale = (width − 2·PADDING) /
// total (render), a box is drawn when xscale·(sumpos + sumneg) ≥ MIN_WIDTH and
// its parent is (renderGroup). It also lists the paths it cannot compare:
// those of a name that pprof draws as two boxes under one parent (see
// pprofValues), whose subtrees it leaves out.
func pprofDrawn(st pprofStacks, width float64) (drawn, split map[string]bool) {
	const padding, minWidth = 2, 4
	root := pprofTree(st)
	xscale := (width - 2*padding) / float64(root.pos+root.neg)
	drawn, split = map[string]bool{}, map[string]bool{}
	var walk func(b *pprofBox, path string)
	walk = func(b *pprofBox, path string) {
		if xscale*float64(b.pos+b.neg) < minWidth {
			return
		}
		drawn[path] = true
		for src, k := range b.kids {
			name := st.Sources[src].FullName
			if b.names[name] > 1 {
				split[path+"\n"+name] = true
				continue
			}
			walk(k, path+"\n"+name)
		}
	}
	walk(root, "root")
	return drawn, split
}

// underSplit reports whether a path is at or under one of split.
func underSplit(path string, split map[string]bool) bool {
	for i := range len(path) + 1 {
		if (i == len(path) || path[i] == '\n') && split[path[:i]] {
			return true
		}
	}
	return false
}

// TestDiffFlameMatchesPprof compares leakui's diff flame graph with the one
// `go tool pprof -http -diff_base=BASE TARGET` serves at /ui/flamegraph, on
// real profile pairs and several sample types: every box's target and base
// values equal pprof's sumpos and sumneg at the same path, and no box is on
// one side only; then the boxes the cut keeps at fraction 4/(W−4) are the
// boxes pprof's stacks.js draws on a chart W pixels wide, for a few widths.
func TestDiffFlameMatchesPprof(t *testing.T) {
	for _, pair := range diffPairs {
		basePath, targetPath := fixtures.Path(t, "pprof", pair[0]), fixtures.Path(t, "pprof", pair[1])
		base, target := loadFile(t, basePath), loadFile(t, targetPath)
		types := []int{target.DefaultSampleIndex()}
		if n := len(target.SampleTypes()); n > 1 {
			types = append(types, (types[0]+1)%n)
		}
		for _, si := range types {
			t.Run(fmt.Sprintf("%s→%s/%s", pair[0], pair[1], target.SampleTypes()[si].Type), func(t *testing.T) {
				t.Parallel()
				st := servePprofFlame(t, "-sample_index="+strconv.Itoa(si), "-diff_base="+basePath, targetPath)
				tt, err := target.FlameTree(si, nil)
				if err != nil {
					t.Fatal(err)
				}
				bt, err := base.FlameTree(si, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, want := treeValues(tt, bt), pprofValues(st)
				compared := 0
				for path, w := range want {
					if w == [2]int64{} {
						continue // stacks of value 0 for this sample type: pprof keeps them, at width 0
					}
					compared++
					if g, ok := got[path]; !ok || g != w {
						t.Errorf("box %q: leakui target/base %v (present %v), pprof sumpos/sumneg %v", path, g, ok, w)
					}
				}
				for path, g := range got {
					if _, ok := want[path]; !ok {
						t.Errorf("box %q (%v) is not in pprof's flame graph", path, g)
					}
				}
				if compared < 2 {
					t.Fatalf("only %d boxes compared", compared)
				}
				for _, width := range []float64{400, 1200, 4000} {
					drawn, split := pprofDrawn(st, width)
					cut, err := CutDiffFlame(bt, tt, 4/(width-4))
					if err != nil {
						t.Fatal(err)
					}
					kept := keptPaths(cut)
					if cut.Nodes >= maxFlameNodes {
						t.Fatalf("width %v: the cut holds %d boxes, its cap", width, cut.Nodes)
					}
					for path := range drawn {
						if !kept[path] {
							t.Errorf("width %v: pprof draws %q, the cut leaves it out", width, path)
						}
					}
					for path := range kept {
						if !drawn[path] && !underSplit(path, split) {
							t.Errorf("width %v: the cut keeps %q, pprof does not draw it", width, path)
						}
					}
					t.Logf("width %v: %d boxes drawn by both (%d names that pprof splits in two, not compared); %d boxes in all", width, len(drawn), len(split), len(got))
				}
			})
		}
	}
}
