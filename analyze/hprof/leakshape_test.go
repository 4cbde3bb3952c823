package hprof

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
)

// The SAMZA-2785 shape LeakShape builds: leakN consumers of leakB bytes each, each
// held by a parked thread; a HashMap of cacheM arrays of cacheB bytes.
const (
	leakN  = 12
	leakB  = 1 << 20
	cacheM = 20000
	cacheB = 100
)

// leakShapeHeap runs LeakShape and parses its dump.
func leakShapeHeap(t *testing.T, gz bool) (*Heap, *Report, *jvm.Histogram, string) {
	t.Helper()
	jh := runJava(t, "LeakShape", gz, []string{"-XX:+UseSerialGC", "-Xmx256m"},
		itoa(leakN), itoa(leakB), itoa(cacheM), itoa(cacheB))
	hist, err := jvm.ParseHistogram(bytes.NewReader(jh.Histogram))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	rep, err := h.NewReport(ReportOptions{SuspectShare: 0.05}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h, rep, hist, jh.Dump
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLeakShapeAgainstJcmd checks the dump of LeakShape's heap against jcmd's class
// histogram of the same heap and against the sizes the program built.
func TestLeakShapeAgainstJcmd(t *testing.T) {
	h, rep, hist, dump := leakShapeHeap(t, false)

	// The dump cut in the middle is malformed.
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) / 2, len(data) - 1} {
		if _, err := Parse(bytes.NewReader(data[:cut]), int64(cut), Options{}); !errors.Is(err, analyze.ErrMalformed) {
			t.Errorf("the dump cut to %d of %d bytes: %v", cut, len(data), err)
		}
	}

	// Instance counts of the application classes equal GC.class_histogram's; so do
	// the bytes of classes without @Contended fields (java.lang.Thread has them,
	// and the padding they get is not in the dump).
	ours := map[string]ClassRow{}
	for _, r := range rep.Histogram {
		ours[r.Name] = r
	}
	byHistogramName := map[string]string{}
	for _, c := range h.Classes {
		byHistogramName[c.HistogramName()] = c.Name
	}
	app := 0
	for _, row := range hist.Classes {
		if !strings.HasPrefix(row.Name, "LeakShape") {
			continue
		}
		app++
		got := ours[byHistogramName[row.Name]]
		if got.Instances != row.Instances {
			t.Errorf("%s: %d instances in the dump, jcmd GC.class_histogram counts %d", row.Name, got.Instances, row.Instances)
		}
		if row.Name != "LeakShape$ConsumerThread" && got.Shallow != row.Bytes {
			t.Errorf("%s: %d bytes in the dump, jcmd GC.class_histogram counts %d", row.Name, got.Shallow, row.Bytes)
		}
	}
	if app != 3 { // ConsumerThread, Consumer, SoftOnly (LeakShape itself has no instances)
		t.Errorf("%d application classes in jcmd's histogram, want 3", app)
	}
	for _, name := range []string{"[B", "java.lang.Integer", "java.util.HashMap$Node"} {
		i := slices.IndexFunc(hist.Classes, func(c jvm.Class) bool { return c.Name == name })
		if i < 0 {
			t.Fatalf("jcmd printed no %s row", name)
		}
		if got := ours[byHistogramName[name]]; got.Instances != hist.Classes[i].Instances || got.Shallow != hist.Classes[i].Bytes {
			t.Errorf("%s: dump %d instances, %d bytes; jcmd %d, %d", name, got.Instances, got.Shallow, hist.Classes[i].Instances, hist.Classes[i].Bytes)
		}
	}

	// The leak is the first suspect: N consumers, each retaining its own size and
	// its buffer's, computed from the dump's field layout of the consumer class.
	consumer := h.classByName("LeakShape$Consumer")
	if consumer == nil {
		t.Fatal("no LeakShape$Consumer class in the dump")
	}
	var fieldBytes int64
	for _, f := range consumer.fields {
		if f.typ == typeObject {
			fieldBytes += h.Layout.Ref
		} else {
			fieldBytes += int64(typeSize(f.typ, 8))
		}
	}
	perConsumer := h.Layout.InstanceSize(fieldBytes) + h.Layout.ArraySize(leakB, 1)
	want := int64(leakN) * perConsumer
	if len(rep.Suspects) == 0 {
		t.Fatal("no suspects")
	}
	s := rep.Suspects[0]
	t.Logf("first suspect: %s", s.Sentence)
	if s.Holder != "LeakShape$Consumer" || s.HolderInstances != leakN {
		t.Fatalf("first suspect holds %d %s, want %d LeakShape$Consumer", s.HolderInstances, s.Holder, leakN)
	}
	if s.HolderRetained != want {
		t.Errorf("the consumers retain %d bytes, want %d × (%d + %d) = %d", s.HolderRetained, leakN, h.Layout.InstanceSize(fieldBytes), h.Layout.ArraySize(leakB, 1), want)
	}
	if diff := math.Abs(float64(s.Retained-want)) / float64(want); diff > 0.01 {
		t.Errorf("the suspect retains %d bytes, %.2f%% off %d", s.Retained, 100*diff, want)
	}
	if len(s.Threads) != min(leakN, MaxHoldingThreads) || s.ThreadCount != leakN || !strings.HasPrefix(s.Threads[0], "KafkaConsumerProxy-") {
		t.Errorf("accumulated in threads %q of %d, want the first %d of the %d KafkaConsumerProxy threads", s.Threads, s.ThreadCount, MaxHoldingThreads, leakN)
	}
	// Its path to a GC root names the thread and the field.
	if len(s.Path) != 2 || !strings.HasPrefix(s.Path[0].Root, "thread KafkaConsumerProxy-") ||
		s.Path[1].Field != "consumer" || s.Path[1].Object.Class != "LeakShape$Consumer" {
		t.Errorf("path to the GC root: %+v", s.Path)
	}
	if !strings.Contains(s.Sentence, itoa(leakN)+" instances of `LeakShape$Consumer` retain") ||
		!strings.Contains(s.Sentence, "accumulated in threads `KafkaConsumerProxy-") {
		t.Errorf("sentence %q", s.Sentence)
	}

	// The HashMap accumulation: the static CACHE's table.
	i := slices.IndexFunc(rep.Suspects, func(s Suspect) bool { return s.Holder == "java.util.HashMap$Node[]" })
	if i < 0 {
		t.Fatalf("no suspect accumulates in a HashMap$Node[]: %+v", rep.Suspects)
	}
	cache := rep.Suspects[i]
	var fields []string
	for _, st := range cache.Path {
		fields = append(fields, st.Field)
	}
	if !slices.Contains(fields, "static CACHE") || fields[len(fields)-1] != "table" {
		t.Errorf("path to the cache's table through fields %q", fields)
	}
	// 20,000 entries of an Integer key (cached below 128), a node and a byte[100].
	node := h.classByName("java.util.HashMap$Node")
	integer := h.classByName("java.lang.Integer")
	minCache := int64(cacheM) * (int64(node.shallow) + h.Layout.ArraySize(cacheB, 1) + int64(integer.shallow))
	if cache.Accumulation.Retained < minCache*99/100 || cache.Accumulation.Retained > minCache*101/100+1<<20 {
		t.Errorf("the cache's table retains %d, want about %d", cache.Accumulation.Retained, minCache)
	}

	// Weak and soft references hold nothing: each consumer is dominated by its
	// thread although a WeakReference refers to it too; every WeakReference retains
	// only itself; SoftOnly, which only a SoftReference reaches, is unreachable.
	threadClass := h.classByName("LeakShape$ConsumerThread")
	var consumers, weak, softOnly int
	for o := range uint32(h.Objects()) {
		switch h.ClassOf(o).Name {
		case "LeakShape$Consumer":
			consumers++
			d, ok := h.Dominator(o)
			if !ok || h.ClassOf(d) != threadClass {
				t.Errorf("consumer %d is dominated by %v (%v), not by its thread", o, d, ok)
			}
		case "java.lang.ref.WeakReference":
			weak++
			if h.Retained(o) != h.ShallowSize(o) {
				t.Errorf("WeakReference %d retains %d bytes, its shallow size is %d", o, h.Retained(o), h.ShallowSize(o))
			}
		case "LeakShape$SoftOnly":
			softOnly++
			if h.Reachable(o) || h.Retained(o) != 0 {
				t.Errorf("SoftOnly is strongly reachable (retains %d)", h.Retained(o))
			}
			for _, ref := range h.References(o) {
				if h.Reachable(ref) {
					t.Errorf("SoftOnly's payload is strongly reachable")
				}
			}
		}
	}
	if consumers != leakN || weak < leakN || softOnly != 1 {
		t.Errorf("%d consumers, %d weak references, %d SoftOnly", consumers, weak, softOnly)
	}
	if rep.UnreachableBytes < h.Layout.ArraySize(64<<10, 1) {
		t.Errorf("unreachable: %d bytes, less than SoftOnly's payload", rep.UnreachableBytes)
	}

	// The dominator tree's top levels: each consumer thread dominates its consumer,
	// which dominates its buffer.
	threadsSeen := 0
	for _, d := range rep.Dominators {
		if d.Class != "LeakShape$ConsumerThread" {
			continue
		}
		threadsSeen++
		if !strings.HasPrefix(d.Text, "KafkaConsumerProxy-") || len(d.Children) == 0 || d.Children[0].Class != "LeakShape$Consumer" ||
			len(d.Children[0].Children) == 0 || d.Children[0].Children[0].Class != "byte[]" || d.Children[0].Children[0].Shallow != h.Layout.ArraySize(leakB, 1) {
			t.Errorf("dominator subtree of %s: %+v", d.Text, d)
		}
	}
	if threadsSeen != leakN {
		t.Errorf("%d consumer threads at the top of the dominator tree, want %d", threadsSeen, leakN)
	}

	// Threads: each consumer thread with its name, retained size and stack.
	found := 0
	for _, th := range rep.Threads {
		if !strings.HasPrefix(th.Name, "KafkaConsumerProxy-") {
			continue
		}
		found++
		if th.Object.Retained < perConsumer {
			t.Errorf("thread %s retains %d, less than its consumer", th.Name, th.Object.Retained)
		}
		var frames []string
		for _, f := range th.Stack {
			frames = append(frames, f.Class+"."+f.Method)
		}
		if !slices.Contains(frames, "LeakShape$ConsumerThread.run") || !slices.Contains(frames, "java.util.concurrent.locks.LockSupport.park") {
			t.Errorf("thread %s stack %q", th.Name, frames)
		}
	}
	if found != leakN {
		t.Errorf("%d KafkaConsumerProxy threads in the thread list, want %d", found, leakN)
	}
	// "LeakShape" is held by several Strings (class name, source file, …).
	if !slices.ContainsFunc(rep.DuplicateStrings, func(d DuplicateString) bool { return d.Text == "LeakShape" && d.Count >= 2 }) {
		t.Errorf("LeakShape is not among the duplicate strings: %+v", rep.DuplicateStrings)
	}
	// Packages: the unnamed package (the consumers' classes, and the primitive
	// arrays) retains the leak.
	if p := rep.Packages[0]; p.Package != "" || p.Retained < want {
		t.Errorf("top package %q retains %d, less than the leak", p.Package, p.Retained)
	}
}
