// Copyright 2022 Google Inc. All Rights Reserved.
// Copyright 2026 the leakui authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// The cases of TestDisplayNames are ported from github.com/google/pprof (the
// module cache's github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b):
// internal/report/shortnames_test.go, TestShortNames.
//
// Changed by the leakui authors: run against DisplayNames, with Go, Rust and
// C++ names added, and TestDisplayNamesEqualPprofFlameGraph, which reads the
// labels of go tool pprof's own flame graph.

package pprof

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// TestDisplayNames holds DisplayNames to pprof's cases for shortNameList.
func TestDisplayNames(t *testing.T) {
	for _, c := range []struct {
		in  string
		out []string
	}{
		{"", []string{""}},
		{"foo", []string{"foo"}},
		{"foo.bar.", []string{"foo.bar.", "bar."}},
		{"a::b::c", []string{"a::b::c", "b::c", "c"}},
		{"a.b.c", []string{"a.b.c", "b.c", "c"}},
		{"a::b.c::d", []string{"a::b.c::d", "b.c::d", "c::d", "d"}},
		{"foo::operator()", []string{"foo::operator()", "operator()"}},
		{"github.com/x/y/stages.StageLoop", []string{"stages.StageLoop", "StageLoop"}},
		{"github.com/dgraph-io/badger/v3.(*DB).Open", []string{"badger.(*DB).Open", "(*DB).Open", "Open"}},
		{"mozilla::dom::Element::SetAttr<nsAtom>", []string{"Element::SetAttr<nsAtom>", "SetAttr<nsAtom>"}},
		{"core::ptr::drop_in_place<tokio::runtime::Runtime>", []string{"core::ptr::drop_in_place<tokio::runtime::Runtime>",
			"ptr::drop_in_place<tokio::runtime::Runtime>", "drop_in_place<tokio::runtime::Runtime>", "runtime::Runtime>", "Runtime>"}},
	} {
		if got := DisplayNames(c.in); !slices.Equal(got, c.out) {
			t.Errorf("DisplayNames(%q) = %#v, want %#v", c.in, got, c.out)
		}
	}
}

// TestDisplayNamesEqualPprofFlameGraph runs `go tool pprof -http` on every
// fixture and on a profile of Rust, C++ and Java names, reads the labels its
// flame graph tries for each frame (report.Stacks' Display lists, embedded in
// /ui/flamegraph) and requires DisplayNames to give the same lists. (pprof
// draws nothing but the root of an unsymbolized legacy profile.)
func TestDisplayNamesEqualPprofFlameGraph(t *testing.T) {
	paths := append(fixturesGlob(t, "pprof"), foreignNamesProfile(t))
	var frames, foreign int
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			// An unsymbolized legacy profile's flame graph holds its root alone.
			sources := pprofFlameSources(t, path)
			frames += len(sources)
			for _, s := range sources {
				if got := DisplayNames(s.FullName); !slices.Equal(got, s.Display) {
					t.Errorf("DisplayNames(%q) = %q, pprof's flame graph: %q", s.FullName, got, s.Display)
				}
				if strings.Contains(s.FullName, "::") {
					foreign++
				}
			}
		})
	}
	if frames < 1000 || foreign < 5 {
		t.Errorf("%d frames compared, %d of them with C++ or Rust names", frames, foreign)
	}
}

// flameSource is one frame of pprof's flame graph data (report.StackSource).
type flameSource struct {
	FullName string
	Display  []string
}

var flameSourceRE = regexp.MustCompile(`"FullName":("(?:[^"\\]|\\.)*"),.*?"Display":(\[(?:"(?:[^"\\]|\\.)*",?)*\])`)

// pprofFlameSources serves path with `go tool pprof -http` and reads the frames
// of its flame graph page.
func pprofFlameSources(t *testing.T, path string) []flameSource {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(pprofTool(t), "-http="+addr, "-no_browser", "-symbolize=none", path)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	var body []byte
	for deadline := time.Now().Add(60 * time.Second); ; {
		resp, err := client.Get("http://" + addr + "/ui/flamegraph")
		if err == nil {
			body, err = readAllClose(resp)
			if err == nil && resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pprof -http on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	client.CloseIdleConnections()
	var out []flameSource
	for _, m := range flameSourceRE.FindAllSubmatch(body, -1) {
		var s flameSource
		if err := json.Unmarshal(m[1], &s.FullName); err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		if err := json.Unmarshal(m[2], &s.Display); err != nil {
			t.Fatalf("%s: %v", m[2], err)
		}
		out = append(out, s)
	}
	return out
}

func readAllClose(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// foreignNamesProfile writes a CPU profile whose frames have Rust, C++ and
// Java names, one stack of each, and returns its path.
func foreignNamesProfile(t *testing.T) string {
	t.Helper()
	names := [][]string{
		{"<alloc::alloc::Global as core::alloc::Allocator>::allocate", "core::ptr::drop_in_place<tokio::runtime::Runtime>", "tokio::runtime::scheduler::multi_thread::worker::run", "std::rt::lang_start_internal"},
		{"std::vector<int>::push_back", "mozilla::dom::Element::SetAttr<nsAtom>", "(anonymous namespace)::Bar::Foo", "cpp::namespace::Class::method()::$_100::operator()", "main"},
		{"java.util.concurrent.ThreadPoolExecutor$Worker.run", "com.google.perftools.gwp.benchmark.FloatBench.lambda$run$0", "java.lang.Thread.run"},
		{"github.com/foo/bar/v4.(*Foo).Bar", "example.org/v2xyz.Foo", "main.main"},
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7,
	}
	fns := map[string]*profile.Function{}
	for i, stack := range names {
		s := &profile.Sample{Value: []int64{int64(i + 1), int64(i+1) * 1e7}}
		for _, name := range stack {
			f := fns[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(fns) + 1), Name: name, SystemName: name}
				fns[name] = f
				p.Function = append(p.Function, f)
			}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			s.Location = append(s.Location, l)
		}
		p.Sample = append(p.Sample, s)
	}
	path := filepath.Join(t.TempDir(), "foreign-names.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
