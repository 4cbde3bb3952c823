package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leakui/leakui/web/classhist"
	webjvm "github.com/leakui/leakui/web/jvm"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/jvmtext"
	"github.com/leakui/leakui/internal/markdown"
)

// The Markdown assertions that lived in analyze/jvm's tests before the
// rendering moved to web, and the hostile names of each JVM summary.

// TestJVMThreadMarkdownHostileName checks that a thread name cannot break out of
// its table cell or code span. The span's fence is padded only when the name
// starts or ends with a backtick now (analyze/jvm padded every name holding a
// backtick); both show the same name.
func TestJVMThreadMarkdownHostileName(t *testing.T) {
	text := jvmtext.Dump("2024-01-01 00:00:00", []jvmtext.Thread{{Name: "evil | `x` <script> #x ~", State: "RUNNABLE", Status: "runnable", Frames: []string{"a.B.c(B.java:1)"}}})
	tf, err := jvm.ParseThreadDumps(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	md := webjvm.ThreadGroupsMarkdown(jvm.GroupThreads(tf.Dumps[0]), 5)
	row := ""
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| 1 |") {
			row = l
		}
	}
	if !strings.Contains(row, "``evil \\| `x` <script> #x ~``") || strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") != 6 {
		t.Errorf("row %q: the name must stay one escaped code span in one cell", row)
	}
	if strings.ContainsAny(markdown.Prose(md), "<>") {
		t.Errorf("markup outside code spans:\n%s", md)
	}
}

// TestJVMThreadMarkdownFixtures renders the real dumps: the deadlock leads, the
// histogram inside a TDA log is named by its line, and every summary is valid
// UTF-8 without markup outside code spans.
func TestJVMThreadMarkdownFixtures(t *testing.T) {
	md := webjvm.ThreadReportMarkdown(jvmAnalyzeThreadsFile(t, fixtures.Path(t, "jvm", "jthreaddump-jstack-deadlock.txt")), 5)
	if !strings.Contains(md, "\n\nThe JVM reported 1 deadlock: `DeadlockThread-A` waits for `DeadlockThread-B`") {
		t.Errorf("the Markdown does not lead with the deadlock:\n%s", md)
	}
	rep := jvmAnalyzeThreadsFile(t, fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log"))
	if len(rep.Histograms) != 1 {
		t.Fatalf("%d histograms", len(rep.Histograms))
	}
	if md := webjvm.ThreadReportMarkdown(rep, 3); !strings.Contains(md, fmt.Sprintf("\nClass histogram at line %d: 1,084 classes", rep.Histograms[0].Line)) {
		t.Errorf("the TDA report's Markdown lacks its histogram:\n%s", md)
	}
	for _, name := range []string{"jthreaddump-jstack-deadlock.txt", "sjk-jstack-jdk8-hazelcast-160threads.txt", "tda-jdk15-threaddump-with-class-histogram.log",
		"tda-jstack-jdk21-macos.log", "tda-jstack-jdk8-openjdk.log", "tda-threaddump-hpux-jdk15-jeus-large.log"} {
		rep := jvmAnalyzeThreadsFile(t, fixtures.Path(t, "jvm", name))
		md := webjvm.ThreadReportMarkdown(rep, 0)
		if strings.ContainsAny(markdown.Prose(md), "<>") || strings.ContainsRune(md, '\u2028') {
			t.Errorf("%s: markup or a line separator outside code spans", name)
		}
	}
}

// TestJVMNMTMarkdown checks that growth NMT tracks is called out, named by its
// category (direct buffers in Internal, never KAFKA-3933), and that a diff's rows
// carry the category's committed memory and its growth.
func TestJVMNMTMarkdown(t *testing.T) {
	const leakedKB = 800 << 10
	diffText, _ := jvmNMTDiffText(jvmKafkaBroker(0), jvmKafkaBroker(leakedKB))
	n, err := jvm.ParseNMT(strings.NewReader(diffText))
	if err != nil {
		t.Fatal(err)
	}
	if md := webjvm.NMTMarkdown(n); !strings.Contains(md, "\n**") || !strings.Contains(md, "direct buffers") || strings.Contains(md, "KAFKA-3933") {
		t.Errorf("the summary.diff's Markdown must call the growth out by its category:\n%s", md)
	}
	parse := func(cats []jvmNMTCategory) *jvm.NMT {
		text, _, _ := jvmNMTSummaryText("", cats)
		n, err := jvm.ParseNMT(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	md := webjvm.NMTDiffMarkdown(jvm.DiffNMT(parse(jvmKafkaBroker(0)), parse(jvmKafkaBroker(leakedKB))))
	if row := "| Internal | " + analyze.FormatBytes((12288+leakedKB)<<10) + " | +" + analyze.FormatBytes(leakedKB<<10) + " |"; !strings.Contains(md, row) {
		t.Errorf("the diff's Markdown lacks %q:\n%s", row, md)
	}
	if !strings.Contains(md, "direct buffers") || strings.Contains(md, "KAFKA-3933") {
		t.Errorf("the diff's Markdown does not name the growth by its category:\n%s", md)
	}
}

// TestJVMHistogramMarkdownHostile renders class names with every character the
// three old escapers disagreed on: each stays one code span in its cell, with
// its Java spelling beside it.
func TestJVMHistogramMarkdownHostile(t *testing.T) {
	text := jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{
		{Name: "com.x.A#b~c|d`e", Instances: 10, Bytes: 1000}, {Name: "[Lcom.y.<script>;", Instances: 5, Bytes: 500}, {Name: "[B", Instances: 2, Bytes: 64}})
	h := jvmParseHistogram(t, []byte(text))
	md := classhist.Markdown(h, 10)
	for _, want := range []string{
		"| 1 | ``com.x.A#b~c\\|d`e`` | 10 |",
		"| 2 | `[Lcom.y.<script>;` (`com.y.<script>[]`) | 5 |",
		"| 3 | `[B` (`byte[]`) | 2 |",
		"Largest: ``com.x.A#b~c\\|d`e`` with",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsAny(markdown.Prose(md), "<>") {
		t.Errorf("markup outside code spans:\n%s", md)
	}
	grown := jvmtext.Histogram(jvmtext.JDK9, []jvmtext.Class{{Name: "[B", Instances: 3_454_002, Bytes: 1 << 30}, {Name: "com.x.A#b~c|d`e", Instances: 10, Bytes: 1000}})
	d := jvm.DiffHistograms(h, jvmParseHistogram(t, []byte(grown)))
	if md := classhist.DiffMarkdown(d, 5); !strings.Contains(md, "**`[B` (`byte[]`) grew most: +") || !strings.Contains(md, "(+3,454,000 instances") {
		t.Errorf("the diff's headline does not name the top growth:\n%s", md)
	}
}

// FuzzJVMMarkdown renders every JVM summary of whatever the parsers accept: a
// histogram and its diff with itself, a thread dump file and its diff, a native
// memory report and its diff. Each keeps the shape checkMarkdownShape checks.
func FuzzJVMMarkdown(f *testing.F) {
	histo, _, _ := jvmHistogramText("2020-02-25 03:21:02", jvmSamzaHeap(3))
	dump := jvmtext.Dump("2020-02-25 03:21:02", append(jvmContainerThreads(), jvmPollThreads(2)...))
	nmt, _, _ := jvmNMTSummaryText("", jvmKafkaBroker(100))
	diff, _ := jvmNMTDiffText(jvmKafkaBroker(0), jvmKafkaBroker(100000))
	for _, s := range []string{histo, dump, dump + dump, nmt, diff} {
		f.Add(s)
	}
	f.Add(" num #instances #bytes class name\n 1: 1 1 \xff\xfe<script>|`#~\u2028\nTotal 1 1\n")
	f.Add("\"a|`<b>`\xc5\" tid=0x1 nid=0x2 runnable\n\tat x.y<z>(Z.java:1)\n\t- locked <0x1> (a \"q|r\")\n\nFound one Java-level deadlock:\n\"a\xc5\":\n  waiting to lock x,\n  which is held by \"b\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		if hs, err := jvm.ParseHistograms(strings.NewReader(text)); err == nil {
			checkMarkdownShape(t, classhist.Markdown(hs[0], 10))
			checkMarkdownShape(t, classhist.DiffMarkdown(jvm.DiffHistograms(hs[0], hs[len(hs)-1]), 10))
		}
		if r, err := jvm.AnalyzeThreads(strings.NewReader(text)); err == nil {
			checkMarkdownShape(t, webjvm.ThreadReportMarkdown(r, 5))
			checkMarkdownShape(t, webjvm.ThreadDiffMarkdown(jvm.DiffThreads(r.Groups, r.Groups), 5))
		}
		if ns, err := jvm.ParseNMTs(strings.NewReader(text)); err == nil {
			checkMarkdownShape(t, webjvm.NMTMarkdown(ns[0]))
			checkMarkdownShape(t, webjvm.NMTDiffMarkdown(jvm.DiffNMT(ns[0], ns[len(ns)-1])))
		}
	})
}
