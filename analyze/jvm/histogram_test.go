package jvm

import (
	"os"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/jvmtext"
)

// TestHistogramInThreadDumpLog parses the old JDK 5/6 histogram that follows the
// thread dump in the TDA fixture and checks it against the file itself, read with
// grep: the Total line, the number of rows and the sums of the rows' columns.
func TestHistogramInThreadDumpLog(t *testing.T) {
	path := fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hs, err := ParseHistograms(f)
	if err != nil {
		t.Fatal(err)
	}
	totals := greptest.Output(t, "-a", "--", `^Total`, path)
	if len(hs) != len(totals) || len(hs) != 1 {
		t.Fatalf("found %d histograms, the file has %d Total lines (want 1)", len(hs), len(totals))
	}
	h := hs[0]
	fields := strings.Fields(totals[0])
	if h.TotalInstances != greptest.Int(t, fields[1]) || h.TotalBytes != greptest.Int(t, fields[2]) || !h.HasTotal {
		t.Errorf("totals %d instances, %d bytes; the file's Total line is %q", h.TotalInstances, h.TotalBytes, totals[0])
	}
	rows := greptest.Output(t, "-a", "--", `^ *[0-9]\+: \+[0-9]\+ \+[0-9]\+ `, path)
	var inst, byt int64
	for _, r := range rows {
		f := strings.Fields(r)
		inst += greptest.Int(t, f[1])
		byt += greptest.Int(t, f[2])
	}
	if len(h.Classes) != len(rows) || h.RowInstances != inst || h.RowBytes != byt {
		t.Errorf("%d rows adding up to %d instances / %d bytes; grep finds %d rows adding up to %d / %d",
			len(h.Classes), h.RowInstances, h.RowBytes, len(rows), inst, byt)
	}
	if h.RowBytes != h.TotalBytes || h.RowInstances != h.TotalInstances || len(h.Warnings) != 0 {
		t.Errorf("a complete histogram must add up to its Total line without warnings; warnings: %q", h.Warnings)
	}
	first := strings.Fields(rows[0])
	if c := h.Classes[0]; c.Name != strings.Join(first[3:], " ") || c.Bytes != greptest.Int(t, first[2]) || c.Rank != 1 {
		t.Errorf("first row %+v, the file's first row is %q", c, rows[0])
	}
	var noName *Class
	for i := range h.Classes {
		if h.Classes[i].Name == "<no name>" {
			noName = &h.Classes[i]
		}
	}
	if noName == nil {
		t.Error("the row named \"<no name>\" (a name with a space) was not parsed whole")
	}
	if h.Format != formatClassic {
		t.Errorf("format %q, want %q", h.Format, formatClassic)
	}
}

// samzaHeap returns the classes of a Samza container's heap with n leaked
// KafkaSystemConsumers (each holding its consumer, proxy and buffers).
func samzaHeap(n int64) []jvmtext.Class {
	rows := []jvmtext.Class{
		{Name: "[B", Module: "java.base@11.0.20", Instances: 90_000 + 2000*n, Bytes: 600_000_000 + 4_000_000*n},
		{Name: "org.apache.samza.system.kafka.KafkaSystemConsumer", Instances: n, Bytes: 88 * n},
		{Name: "org.apache.kafka.clients.consumer.KafkaConsumer", Instances: n, Bytes: 120 * n},
		{Name: "java.util.concurrent.LinkedBlockingQueue", Module: "java.base@11.0.20", Instances: 400 + 64*n, Bytes: 19_200 + 3072*n},
		{Name: "java.lang.String", Module: "java.base@11.0.20", Instances: 1_000_000, Bytes: 24_000_000},
		{Name: "java.lang.invoke.LambdaForm$MH/0x0000000800c0c000", Module: "java.base@11.0.20", Instances: 3, Bytes: 96},
		{Name: "[Ljava.lang.Object;", Module: "java.base@11.0.20", Instances: 50_000, Bytes: 4_000_000},
		{Name: "com.example.Unchanged", Instances: 10, Bytes: 160},
	}
	jvmtext.SortByBytes(rows) // as the JVM prints them
	return rows
}

// TestHistogramLayouts parses histograms written in each layout the JVM tools
// print and checks every row and the totals against the data that was written.
func TestHistogramLayouts(t *testing.T) {
	rows := samzaHeap(1741)
	var wantInst, wantBytes int64
	for _, r := range rows {
		wantInst += r.Instances
		wantBytes += r.Bytes
	}
	for _, tc := range []struct {
		name, text, format string
		modules            bool
	}{
		{"jmap -histo JDK 9+", jvmtext.Histogram(jvmtext.JDK9, rows), formatModules, true},
		{"jcmd GC.class_histogram JDK 17", "12345:\n" + jvmtext.Histogram(jvmtext.JDK9, rows), formatModules, true},
		{"jmap -histo:live JDK 8", jvmtext.Histogram(jvmtext.JDK8, rows), formatClassic, false},
		{"jcmd GC.class_histogram JDK 8", "4711:\n" + jvmtext.Histogram(jvmtext.JDK8, rows), formatClassic, false},
		{"jmap -F -histo", "Attaching to process ID 4711, please wait...\nDebugger attached successfully.\nIterating over heap. This may take a while...\n" + jvmtext.Histogram(jvmtext.SA, rows), formatSA, false},
		{"CRLF", strings.ReplaceAll(jvmtext.Histogram(jvmtext.JDK9, rows), "\n", "\r\n"), formatModules, true},
		{"in a log", "2020-02-25 03:21:02.227 [main] SamzaContainer [INFO] starting\n" + jvmtext.Histogram(jvmtext.JDK8, rows) + "2020-02-25 03:21:03.000 [main] SamzaContainer [INFO] still here\n", formatClassic, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseHistogram(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if h.Format != tc.format || h.TotalInstances != wantInst || h.TotalBytes != wantBytes || len(h.Warnings) != 0 {
				t.Errorf("format %q, totals %d/%d, warnings %q; want %q, %d/%d, none", h.Format, h.TotalInstances, h.TotalBytes, h.Warnings, tc.format, wantInst, wantBytes)
			}
			if len(h.Classes) != len(rows) {
				t.Fatalf("%d classes, want %d", len(h.Classes), len(rows))
			}
			for i, r := range rows {
				c := h.Classes[i]
				module := r.Module
				if !tc.modules {
					module = ""
				}
				if c.Name != r.Name || c.Module != module || c.Instances != r.Instances || c.Bytes != r.Bytes || c.Rank != i+1 {
					t.Errorf("row %d: %+v, want %+v", i+1, c, r)
				}
			}
		})
	}
}

// TestHistogramDiff diffs two Samza heaps built in the test, 14 and 1741 leaked
// consumers apart (the SAMZA-2785 numbers), and checks the ranking and the deltas
// against the data.
func TestHistogramDiff(t *testing.T) {
	base, err := ParseHistogram(strings.NewReader(jvmtext.Histogram(jvmtext.JDK9, samzaHeap(14))))
	if err != nil {
		t.Fatal(err)
	}
	target, err := ParseHistogram(strings.NewReader(jvmtext.Histogram(jvmtext.JDK9, samzaHeap(1741))))
	if err != nil {
		t.Fatal(err)
	}
	d := DiffHistograms(base, target)
	if d.TotalBytes != target.TotalBytes-base.TotalBytes || d.BaseTotalBytes != base.TotalBytes || d.TargetTotalInstances != target.TotalInstances {
		t.Errorf("diff totals %+v", d)
	}
	const leaked = 1741 - 14
	byBytes := d.Grown(ByBytes, 0)
	if len(byBytes) != 4 || byBytes[0].Name != "[B" || byBytes[0].Bytes != 4_000_000*leaked || byBytes[0].Instances != 2000*leaked {
		t.Errorf("growth by bytes: %+v; want [B first with %d bytes, and four classes that grew", byBytes, 4_000_000*leaked)
	}
	byInst := d.Grown(ByInstances, 2)
	if len(byInst) != 2 || byInst[0].Name != "[B" || byInst[1].Name != "java.util.concurrent.LinkedBlockingQueue" || byInst[1].Instances != 64*leaked {
		t.Errorf("growth by instances: %+v", byInst)
	}
	var consumer ClassChange
	for _, c := range d.Classes {
		if c.Name == "org.apache.samza.system.kafka.KafkaSystemConsumer" {
			consumer = c
		}
	}
	if consumer.Instances != leaked || consumer.BaseInstances != 14 || consumer.TargetInstances != 1741 || consumer.Bytes != 88*leaked {
		t.Errorf("KafkaSystemConsumer change %+v, want +%d instances (14 → 1741)", consumer, leaked)
	}
	suspects := d.Suspects(0)
	if len(suspects) != 2 || suspects[0].Name != "org.apache.kafka.clients.consumer.KafkaConsumer" || suspects[1].Name != "org.apache.samza.system.kafka.KafkaSystemConsumer" {
		t.Errorf("suspects %+v; want the two leaked application classes (ties by bytes), no JDK class, not the unchanged one", suspects)
	}
	last := d.Classes[len(d.Classes)-1]
	if last.Bytes != 0 {
		t.Errorf("no class shrank, so the last row should be unchanged; got %+v", last)
	}
	if md := d.Headline(); !strings.HasPrefix(md, "`[B` (`byte[]`) grew most: +"+analyze.FormatBytes(d.Classes[0].Bytes)+" (+3,454,000 instances") {
		t.Errorf("the headline does not name the top growth:\n%s", md)
	}
}

// TestHistogramNewAndGoneClasses checks classes present in only one histogram.
func TestHistogramNewAndGoneClasses(t *testing.T) {
	base := &Histogram{TotalInstances: 3, TotalBytes: 48, Classes: []Class{{Name: "Gone", Instances: 3, Bytes: 48}}}
	target := &Histogram{TotalInstances: 2, TotalBytes: 64, Classes: []Class{{Name: "New", Instances: 2, Bytes: 64}}}
	d := DiffHistograms(base, target)
	if len(d.Classes) != 2 || d.Classes[0].Name != "New" || !d.Classes[0].New() || d.Classes[1].Name != "Gone" || d.Classes[1].Bytes != -48 {
		t.Errorf("changes %+v", d.Classes)
	}
}

// TestHistogramSnapshot checks the series shape: rows of one name (a class loaded
// by two class loaders) are added up.
func TestHistogramSnapshot(t *testing.T) {
	text := jvmtext.Histogram(jvmtext.JDK8, []jvmtext.Class{{Name: "com.example.Plugin", Instances: 5, Bytes: 80}, {Name: "com.example.Plugin", Instances: 2, Bytes: 32}, {Name: "[C", Instances: 1, Bytes: 24}})
	h, err := ParseHistogram(strings.NewReader("2024-03-01 10:00:00\n" + text))
	if err != nil {
		t.Fatal(err)
	}
	s := h.Snapshot()
	if s.Bytes["com.example.Plugin"] != 112 || s.Instances["com.example.Plugin"] != 7 || s.Bytes["[C"] != 24 || len(s.Bytes) != 2 {
		t.Errorf("snapshot %+v", s)
	}
	if s.Time.Format("2006-01-02 15:04:05") != "2024-03-01 10:00:00" {
		t.Errorf("time %v, want the time stamp line before the histogram", s.Time)
	}
}

// TestHistogramSeveralInOneFile reads a log with two histograms, as
// -XX:+PrintClassHistogram writes on every SIGQUIT.
func TestHistogramSeveralInOneFile(t *testing.T) {
	text := jvmtext.Histogram(jvmtext.JDK8, samzaHeap(3)) + "some log line\n" + jvmtext.Histogram(jvmtext.JDK8, samzaHeap(30))
	hs, err := ParseHistograms(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Line != 1 || hs[1].Line != 13 {
		t.Fatalf("histograms at lines %v, want 2 at lines 1 and 13", histogramLines(hs))
	}
	last, err := ParseHistogram(strings.NewReader(text))
	if err != nil || last.TotalBytes != hs[1].TotalBytes {
		t.Errorf("ParseHistogram should return the last histogram: %v, %v", last, err)
	}
}

func histogramLines(hs []*Histogram) []int {
	var lines []int
	for _, h := range hs {
		lines = append(lines, h.Line)
	}
	return lines
}

// TestHistogramBadInput checks that broken histograms give the right error or a
// warning, never a panic.
func TestHistogramBadInput(t *testing.T) {
	good := jvmtext.Histogram(jvmtext.JDK9, samzaHeap(5))
	lines := strings.Split(good, "\n")
	for _, tc := range []struct {
		name, text string
		err        error
		warning    string
	}{
		{"empty", "", analyze.ErrEmpty, ""},
		{"a log", "2020-02-25 03:21:02.227 [main] INFO hello\n", analyze.ErrUnsupportedKind, ""},
		{"header only", lines[0] + "\n" + lines[1] + "\n", analyze.ErrMalformed, ""},
		{"overflowing count", lines[0] + "\n   1: 99999999999999999999999 16 [B\n", analyze.ErrMalformed, ""},
		{"sum overflows", lines[0] + "\n   1: 999999999999999999 16 [B\n   2: 999999999999999999 16 [C\n   3: 999999999999999999 16 [I\n   4: 999999999999999999 16 [J\n   5: 999999999999999999 16 [S\n   6: 999999999999999999 16 [Z\n   7: 999999999999999999 16 [F\n   8: 999999999999999999 16 [D\n   9: 999999999999999999 16 [L\n  10: 999999999999999999 16 [X\n", analyze.ErrMalformed, ""},
		{"cut short", strings.Join(lines[:5], "\n") + "\n", nil, "no Total line"},
		{"a row removed", strings.Join(append(lines[:3:3], lines[4:]...), "\n"), nil, "out of sequence"},
		{"wrong total", strings.Join(lines[:len(lines)-2], "\n") + "\nTotal 1 2\n", nil, "the rows add up to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseHistogram(strings.NewReader(tc.text))
			if tc.err != nil {
				if !isErr(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(h.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q, want one containing %q", h.Warnings, tc.warning)
			}
		})
	}
}

func TestClassDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"[B": "byte[]", "[[I": "int[][]", "[Ljava.lang.String;": "java.lang.String[]", "[[Lcom.x.Y;": "com.x.Y[][]",
		"java.lang.String": "java.lang.String", "[": "[", "[Q": "[Q", "[L;": "[L;", "<symbolKlass>": "<symbolKlass>",
	} {
		if got := ClassDisplayName(in); got != want {
			t.Errorf("ClassDisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBacktickQuote pins how the JSON and command-line headlines quote names.
func TestBacktickQuote(t *testing.T) {
	for in, want := range map[string]string{
		"[B":     "`[B`",
		"a|b":    "`a\\|b`",
		"x`y":    "`` x`y ``",
		"``evil": "``` ``evil ```",
	} {
		if got := backtickQuote(in); got != want {
			t.Errorf("backtickQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
