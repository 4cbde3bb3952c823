package goroutines

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

func readGoroutineFixture(t testing.TB, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// completeGoroutineHeaders counts the goroutine header lines present in full in text.
func completeGoroutineHeaders(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, "]:") {
			n++
		}
	}
	return n
}

// TestGoroutineDumpCutAnywhere cuts a real dump at every byte: each prefix parses
// without error (once it holds a header), holds exactly the goroutines whose header
// line it holds, and is flagged truncated when the cut falls inside a line of a
// goroutine's frames, but not when it falls between goroutines.
func TestGoroutineDumpCutAnywhere(t *testing.T) {
	for _, name := range []string{"goleak-http-debug2-go121.txt", "goleak-http-tracebackancestors.txt", "gin-fatal-error-unexpected-signal-darwin.txt"} {
		full := string(readGoroutineFixture(t, "goroutines", name))
		step := 1
		if name != "goleak-http-debug2-go121.txt" {
			step = 11 // every byte of one dump, one in 11 of the others, to keep the test quick
		}
		for cut := 1; cut <= len(full); cut += step {
			prefix := full[:cut]
			d, err := Parse(strings.NewReader(prefix), 0)
			headers := completeGoroutineHeaders(prefix)
			if headers == 0 {
				if err == nil && len(d.Goroutines) > 0 {
					t.Fatalf("%s cut at %d: %d goroutines before any header", name, cut, len(d.Goroutines))
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s cut at %d: %v", name, cut, err)
			}
			if d.Total() != headers {
				t.Fatalf("%s cut at %d: %d goroutines, the prefix has %d headers", name, cut, d.Total(), headers)
			}
			// Inside a goroutine: a full header line follows the last blank line.
			lastBlock := prefix[strings.LastIndex(prefix, "\n\n")+1:]
			inGoroutine := completeGoroutineHeaders(strings.TrimSuffix(lastBlock, lastBlock[strings.LastIndexByte(lastBlock, '\n')+1:])) > 0
			midLine := !strings.HasSuffix(prefix, "\n")
			switch {
			case strings.HasSuffix(prefix, "\n\n") && d.Truncated:
				t.Fatalf("%s cut at %d, between goroutines: flagged truncated", name, cut)
			case inGoroutine && midLine && !d.Truncated:
				t.Fatalf("%s cut at %d, inside a goroutine's line %q: not flagged truncated", name, cut, prefix[strings.LastIndexByte(prefix, '\n')+1:])
			}
		}
	}
}

// TestGoroutineDumpVariants reads the same dumps in other clothes: CRLF line ends,
// gzip and zstd, a megabyte of one line in the middle, log lines around it. The
// groups are the same each time.
func TestGoroutineDumpVariants(t *testing.T) {
	raw := readGoroutineFixture(t, "goroutines", "goprofnotes-snap2-debug2.txt")
	want := goroutineGroupSummary(Groups(mustParseGoroutines(t, raw)))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zs := enc.EncodeAll(raw, nil)
	enc.Close()
	mid := bytes.Index(raw, []byte("\n\ngoroutine 3 ")) + 1
	long := concatGoroutineBytes(raw[:mid], bytes.Repeat([]byte("x"), 1<<20), []byte("\n"), raw[mid:])
	logged := concatGoroutineBytes([]byte("2024-01-02 03:04:05 INFO starting\n2024-01-02 03:04:06 WARN dumping goroutines\n\n"), raw, []byte("\n2024-01-02 03:04:07 INFO done\nexit status 2\n"))
	for name, in := range map[string][]byte{
		"crlf":        bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")),
		"gzip":        gz.Bytes(),
		"zstd":        zs,
		"long line":   long,
		"inside logs": logged,
	} {
		d := mustParseGoroutines(t, in)
		if got := goroutineGroupSummary(Groups(d)); got != want {
			t.Errorf("%s: groups\n%s\nwant\n%s", name, got, want)
		}
		if d.Truncated {
			t.Errorf("%s: flagged truncated", name)
		}
	}
}

func concatGoroutineBytes(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// goroutineGroupSummary writes groups as text for comparisons.
func goroutineGroupSummary(groups []Group) string {
	var b strings.Builder
	for _, g := range groups {
		fmt.Fprintf(&b, "%d [%s %d-%d %v] %v %v\n", g.Count, g.State, g.WaitMin, g.WaitMax, g.Locked, g.IDs, g.Stack.Funcs())
	}
	return b.String()
}

// TestGoroutineWaitFoldsIntoRange gives the goroutines of a real dump different
// wait times, as the runtime prints them, and checks that the groups stay the same
// with each group's wait range spanning exactly its goroutines' waits.
func TestGoroutineWaitFoldsIntoRange(t *testing.T) {
	startGoroutineLivePopulation(t)
	raw := string(captureGoroutineStacks())
	before := Groups(mustParseGoroutines(t, []byte(raw)))
	minutes := 0
	rewritten := regexp.MustCompile(`(?m)^(goroutine \d+ \[chan receive)((?:, locked to thread)?\]:)$`).ReplaceAllStringFunc(raw, func(h string) string {
		minutes++
		i := strings.Index(h, "[chan receive") + len("[chan receive")
		return h[:i] + fmt.Sprintf(", %d minutes", minutes) + h[i:]
	})
	if minutes < liveReceivers {
		t.Fatalf("rewrote %d headers", minutes)
	}
	path := writeGoroutineTemp(t, []byte(rewritten))
	after := Groups(parseGoroutineFile(t, path))
	if len(after) != len(before) {
		t.Fatalf("%d groups with waits, %d without", len(after), len(before))
	}
	checkGoroutineWaitsAgainstGrep(t, "rewritten", path, after)
	receivers := goroutineGroupsWith(after, goroutineTestPkg+"liveChanReceive")
	if len(receivers) != 1 || receivers[0].WaitMin == receivers[0].WaitMax || receivers[0].Count != liveReceivers {
		t.Errorf("receivers: %+v", receivers)
	}
}

//go:noinline
func liveRecurse(depth int, ch chan struct{}) {
	if depth > 0 {
		liveRecurse(depth-1, ch)
		return
	}
	<-ch
}

// TestGoroutineDeepStacksGroup checks that goroutines in recursions of different
// depths, which the runtime prints as 50 inner frames, "...N frames elided...", and
// 50 outer frames, form one group.
func TestGoroutineDeepStacksGroup(t *testing.T) {
	ch := make(chan struct{})
	var wg sync.WaitGroup
	depths := []int{300, 400, 500}
	for _, depth := range depths {
		wg.Add(1)
		go func() { defer wg.Done(); liveRecurse(depth, ch) }()
	}
	defer wg.Wait()
	defer close(ch)
	waitGoroutinesBlocked(blockedGoroutines{"[chan receive]:", "frames elided...", len(depths)})
	groups := goroutineGroupsWith(Groups(mustParseGoroutines(t, captureGoroutineStacks())), goroutineTestPkg+"liveRecurse")
	if len(groups) != 1 || groups[0].Count != len(depths) {
		t.Fatalf("%d groups of %d goroutines, want one of %d", len(groups), countGoroutines(groups), len(depths))
	}
	elided := 0
	for _, f := range groups[0].Stack.Frames {
		if f.Elided {
			elided++
		}
	}
	if elided != 1 {
		t.Errorf("%d elided markers in %v", elided, groups[0].Stack.Funcs())
	}
}

// TestParseGoroutineDumpRefuses checks the errors for inputs that are no goroutine
// dump: other kinds name what they are, an empty file is ErrEmpty, a debug=1 header
// without records is ErrMalformed.
func TestParseGoroutineDumpRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want error
		says string
	}{
		{"heap profile", readGoroutineFixture(t, "pprof", "flameshow-heap.pb.gz"), analyze.ErrUnsupportedKind, "not a goroutine profile"},
		{"log", readGoroutineFixture(t, "logs", "loghub-HDFS_2k.log"), analyze.ErrUnsupportedKind, "text log"},
		{"jvm threads", readGoroutineFixture(t, "jvm", "tda-jstack-jdk8-openjdk.log"), analyze.ErrUnsupportedKind, "JVM thread dump"},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), analyze.ErrUnsupportedKind, "ELF"},
		{"empty", nil, analyze.ErrEmpty, ""},
		{"blank", []byte("\n\n  \n"), analyze.ErrEmpty, ""},
		{"header only", []byte("goroutine profile: total 5\n"), analyze.ErrMalformed, "no goroutine"},
		{"broken proto", []byte{0x0a, 0x05, 0x01, 0x02}, analyze.ErrMalformed, "profile.proto"},
	} {
		_, err := Parse(bytes.NewReader(tc.in), 0)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.want, tc.says)
		}
	}
	var big bytes.Buffer
	for big.Len() < 2<<20 {
		big.WriteString("goroutine 1 [running]:\nmain.main()\n\t/x.go:1 +0x1\n\n")
	}
	if _, err := Parse(&big, 1<<20); !errors.Is(err, analyze.ErrTooLarge) {
		t.Errorf("2 MiB under a 1 MiB limit: %v, want ErrTooLarge", err)
	}
}

// TestGoroutineLineFormats checks lines of formats no fixture has: Go 1.22 headers
// with m=nil, states with attributes leakui does not know, generic and method-value
// frames, a goroutine running elsewhere, unsymbolized debug=1 frames and labels.
func TestGoroutineLineFormats(t *testing.T) {
	in := "goroutine 7 gp=0xc000007a40 m=nil [chan send (durable), 3 minutes, synctest bubble 2]:\n" +
		"main.F[...](0xc0000140a0)\n\t/src/main.go:12 +0x1d fp=0xc0 sp=0xc1 pc=0x4\n" +
		"main.(*T).M-fm()\n\tC:/Program Files/x y/main.go:30 +0x25\n" +
		"panic({0x4a4f60?, 0x55d0b0?})\n\t/usr/lib/go/src/runtime/panic.go:770 +0x132\n" +
		"created by main.main in goroutine 1\n\t/src/main.go:40 +0x5a\n\n" +
		"goroutine 8 [running]:\n\tgoroutine running on other thread; stack unavailable\n\n" +
		"goroutine profile: total 3\n" +
		"3 @ 0x45fe2e 0x4703a5\n# labels: {\"a\":\"1\", \"b\":\"x\\\"y\"}\n#\t0x45fe2e\n#\t0x4703a5\tmain.f+0x25\t\t/src/f.go:9\n\n"
	d := mustParseGoroutines(t, []byte(in))
	if len(d.Goroutines) != 3 || d.Truncated {
		t.Fatalf("%d goroutines, truncated %v", len(d.Goroutines), d.Truncated)
	}
	g := d.Goroutines[0]
	want := []Frame{
		{Func: "main.F[...]", File: "/src/main.go", Line: 12},
		{Func: "main.(*T).M-fm", File: "C:/Program Files/x y/main.go", Line: 30},
		{Func: "panic", File: "/usr/lib/go/src/runtime/panic.go", Line: 770},
	}
	if g.ID != 7 || g.State != "chan send (durable), synctest bubble 2" || g.WaitMinutes != 3 || g.CreatorID != 1 ||
		fmt.Sprint(g.Stack.Frames) != fmt.Sprint(want) || g.Stack.CreatedBy.Line != 40 {
		t.Errorf("goroutine 7: %+v %+v created by %+v", g, g.Stack.Frames, g.Stack.CreatedBy)
	}
	if g := d.Goroutines[1]; g.ID != 8 || len(g.Stack.Frames) != 0 || g.State != "running" {
		t.Errorf("goroutine 8: %+v", g)
	}
	r := d.Goroutines[2]
	if r.Count != 3 || r.Labels["a"] != "1" || r.Labels["b"] != `x"y` ||
		fmt.Sprint(r.Stack.Frames) != fmt.Sprint([]Frame{{Func: "0x45fe2e"}, {Func: "main.f", File: "/src/f.go", Line: 9}}) {
		t.Errorf("debug=1 record: %+v %+v", r, r.Stack.Frames)
	}
}
