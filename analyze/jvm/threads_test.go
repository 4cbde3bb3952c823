package jvm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/jvmtext"
)

// threadFixtures are the thread dumps among the shared fixtures.
var threadFixtures = []string{
	"jthreaddump-jstack-deadlock.txt",
	"sjk-jstack-jdk8-hazelcast-160threads.txt",
	"tda-jdk15-threaddump-with-class-histogram.log",
	"tda-jstack-jdk21-macos.log",
	"tda-jstack-jdk8-openjdk.log",
	"tda-threaddump-hpux-jdk15-jeus-large.log",
}

func parseThreadFile(t *testing.T, path string) *ThreadFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tf, err := ParseThreadDumps(f)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return tf
}

// TestThreadDumpFixtures parses every thread dump fixture and checks it against
// grep on the same file: every thread header found at its line, the dumps at theirs,
// each dump's threads between its line and the next, the frames and lock lines all
// read, and every string valid UTF-8 (the HP-UX dump has Korean bytes in it).
func TestThreadDumpFixtures(t *testing.T) {
	for _, name := range threadFixtures {
		t.Run(name, func(t *testing.T) {
			path := fixtures.Path(t, "jvm", name)
			tf := parseThreadFile(t, path)
			headers := grepLineNumbers(t, `^".*tid=`, path)
			if tf.Threads() != len(headers) || len(headers) == 0 {
				t.Fatalf("%d threads, grep counts %d headers", tf.Threads(), len(headers))
			}
			dumps := grepLineNumbers(t, `^Full thread dump`, path)
			if len(tf.Dumps) != len(dumps) {
				t.Fatalf("%d dumps, grep finds %d 'Full thread dump' lines", len(tf.Dumps), len(dumps))
			}
			var lines []int
			for i, d := range tf.Dumps {
				if d.Line != dumps[i] {
					t.Errorf("dump %d at line %d, grep says %d", i+1, d.Line, dumps[i])
				}
				next := 1 << 62
				if i+1 < len(dumps) {
					next = dumps[i+1]
				}
				inDump := 0
				for _, h := range headers {
					if h > dumps[i] && h < next {
						inDump++
					}
				}
				if len(d.Threads) != inDump {
					t.Errorf("dump %d has %d threads, grep counts %d headers in its lines", i+1, len(d.Threads), inDump)
				}
				g := GroupThreads(d)
				sum := 0
				for _, grp := range g.Groups {
					sum += grp.Count
				}
				if sum != len(d.Threads) || g.Total != len(d.Threads) {
					t.Errorf("dump %d: groups hold %d threads, total %d, the dump has %d", i+1, sum, g.Total, len(d.Threads))
				}
				for _, th := range d.Threads {
					lines = append(lines, th.Line)
					checkUTF8(t, th)
				}
				if !utf8.ValidString(d.Header) {
					t.Errorf("dump header %q is not valid UTF-8", d.Header)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(headers) {
				t.Errorf("thread lines differ from grep's header lines")
			}
			if len(tf.Warnings) != 0 {
				t.Errorf("warnings %q", tf.Warnings)
			}
			deadlockReports := grepCount(t, `^Found one Java-level deadlock`, path)
			got := 0
			for _, d := range tf.Dumps {
				got += len(d.Deadlocks)
			}
			if got != deadlockReports {
				t.Errorf("%d deadlocks, grep counts %d reports", got, deadlockReports)
			}
			if deadlockReports > 0 {
				return // its "Java stack information" repeats frames; see TestThreadDeadlockFixture
			}
			frames, locks := 0, 0
			for _, d := range tf.Dumps {
				for _, th := range d.Threads {
					frames += len(th.Frames)
					for _, l := range th.Locks {
						if l.Kind != "owns" {
							locks++
						}
					}
				}
			}
			if want := grepCount(t, `^[[:space:]]\+at `, path); frames != want {
				t.Errorf("%d frames, grep counts %d 'at' lines", frames, want)
			}
			if want := grepCount(t, `^[[:space:]]\+- \(locked\|waiting\|parking\|eliminated\)`, path); locks != want {
				t.Errorf("%d lock lines, grep counts %d", locks, want)
			}
		})
	}
}

// grepLineNumbers returns the line numbers grep -n finds for pattern.
func grepLineNumbers(t *testing.T, pattern, path string) []int {
	t.Helper()
	var out []int
	for _, l := range greptest.Output(t, "-a", "-n", "--", pattern, path) {
		n, err := strconv.Atoi(l[:strings.IndexByte(l, ':')])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func checkUTF8(t *testing.T, th Thread) {
	t.Helper()
	all := append([]string{th.Name, th.State, th.Status, th.TID, th.NID}, th.Frames...)
	for _, l := range th.Locks {
		all = append(all, l.Kind, l.Class, l.Address)
	}
	for _, s := range all {
		if !utf8.ValidString(s) {
			t.Errorf("thread at line %d: %q is not valid UTF-8", th.Line, s)
		}
	}
}

// TestThreadStatesMatchGrep checks the state counts of the JDK 8 and JDK 21 dumps
// against `grep -c "java.lang.Thread.State: X"`.
func TestThreadStatesMatchGrep(t *testing.T) {
	for _, name := range []string{"tda-jstack-jdk8-openjdk.log", "tda-jstack-jdk21-macos.log", "sjk-jstack-jdk8-hazelcast-160threads.txt"} {
		path := fixtures.Path(t, "jvm", name)
		g := GroupThreads(parseThreadFile(t, path).Dumps[0])
		withState := 0
		for _, s := range g.States {
			jvmState := map[string]bool{"NEW": true, "RUNNABLE": true, "BLOCKED": true, "WAITING": true, "TIMED_WAITING": true, "TERMINATED": true}
			if jvmState[strings.Fields(s.State)[0]] {
				withState += s.Count
				if want := grepCount(t, "java.lang.Thread.State: "+s.State+"$", path); s.Count != want {
					t.Errorf("%s: %d threads %s, grep counts %d", name, s.Count, s.State, want)
				}
			}
		}
		if want := grepCount(t, "java.lang.Thread.State: ", path); withState != want {
			t.Errorf("%s: %d threads with a Java state, grep counts %d", name, withState, want)
		}
	}
}

// TestThreadDeadlockFixture checks the deadlock the JVM reported in the jstack of
// OpenJDK 25: its two threads, who holds what, and that their groups come first.
func TestThreadDeadlockFixture(t *testing.T) {
	path := fixtures.Path(t, "jvm", "jthreaddump-jstack-deadlock.txt")
	tf := parseThreadFile(t, path)
	d := tf.Dumps[0]
	if len(d.Deadlocks) != 1 || len(d.Deadlocks[0].Threads) != 2 {
		t.Fatalf("deadlocks %+v, want one of two threads", d.Deadlocks)
	}
	a, b := d.Deadlocks[0].Threads[0], d.Deadlocks[0].Threads[1]
	if a.Name != "DeadlockThread-A" || a.HeldBy != "DeadlockThread-B" || b.Name != "DeadlockThread-B" || b.HeldBy != "DeadlockThread-A" ||
		!strings.HasPrefix(a.Waiting, "waiting to lock monitor 0x0000600002f9dba0") {
		t.Errorf("deadlock %+v", d.Deadlocks[0])
	}
	g := GroupThreads(d)
	for i := range 2 {
		grp := g.Groups[i]
		if !grp.Deadlocked || grp.Count != 1 || !strings.HasPrefix(grp.State, "BLOCKED") {
			t.Errorf("group %d: %+v; want the deadlocked threads first", i, grp)
			continue
		}
		wait := grp.Locks[0]
		other := map[string]string{"DeadlockThread-A": "DeadlockThread-B", "DeadlockThread-B": "DeadlockThread-A"}[grp.Names[0].Pattern]
		if wait.Kind != "waiting to lock" || len(wait.HeldBy) != 1 || wait.HeldBy[0] != other {
			t.Errorf("group %d (%s): lock %+v, want waiting to lock held by %s", i, grp.Names[0].Pattern, wait, other)
		}
	}
	if h := g.Headline(); !strings.HasPrefix(h, "The JVM reported 1 deadlock: `DeadlockThread-A` waits for `DeadlockThread-B`") {
		t.Errorf("the headline does not lead with the deadlock: %s", h)
	}
	threads := 0
	for _, th := range d.Threads {
		if th.Name == "DeadlockThread-A" {
			threads++
			if len(th.Frames) != 4 {
				t.Errorf("DeadlockThread-A has %d frames, want its 4 (the deadlock report's copy must not be added)", len(th.Frames))
			}
		}
	}
	if threads != 1 {
		t.Errorf("%d threads named DeadlockThread-A, want 1", threads)
	}
}

// TestThreadHPUXNotUTF8 checks the non-UTF-8 header of the HP-UX dump is kept
// with the bad bytes replaced, and the second dump diffs against the first.
func TestThreadHPUXNotUTF8(t *testing.T) {
	path := fixtures.Path(t, "jvm", "tda-threaddump-hpux-jdk15-jeus-large.log")
	tf := parseThreadFile(t, path)
	h := tf.Dumps[0].Header
	if !strings.Contains(h, "\uFFFD") || !strings.HasSuffix(h, "IA64W mixed mode):") || !strings.Contains(h, "14:48:56 KST 2008") {
		t.Errorf("header %q", h)
	}
	th := tf.Dumps[0].Threads[0]
	if th.Name != "ACJH_SOPSI_BAN_01-w13 [container1-361]" || th.TID != "60000000044e3840" || th.Status != "runnable" ||
		len(th.Frames) != 9 || th.Locks[0].Address != "9fffffff59c52280" || th.Locks[0].Class != "java.io.BufferedInputStream" {
		t.Errorf("first thread %+v", th)
	}
	d := DiffThreads(GroupThreads(tf.Dumps[0]), GroupThreads(tf.Dumps[1]))
	if d.BaseTotal != 574 || d.TargetTotal != 574 {
		t.Errorf("diff totals %d → %d", d.BaseTotal, d.TargetTotal)
	}
}

// TestThreadHistogramInDump checks that the thread dump parser also returns the
// histogram printed after the dump.
func TestThreadHistogramInDump(t *testing.T) {
	path := fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")
	tf := parseThreadFile(t, path)
	total := strings.Fields(greptest.Output(t, "-a", "--", `^Total`, path)[0])
	if len(tf.Histograms) != 1 || tf.Histograms[0].TotalBytes != greptest.Int(t, total[2]) || tf.Histograms[0].TotalInstances != greptest.Int(t, total[1]) {
		t.Fatalf("histograms %v, want the one with the Total line %v", tf.Histograms, total)
	}
}

// samzaPollThreads returns n KafkaConsumerProxy poll threads of a Samza container,
// named the way Samza names them, with varying middle parts.
func samzaPollThreads(n int) []jvmtext.Thread {
	middles := []string{"SamzaContainerThread-%d", "main", "Samza StreamProcessor Container Thread-%d", "checkpoint-consumer-%d-samza"}
	var out []jvmtext.Thread
	for i := range n {
		m := middles[i%len(middles)]
		if strings.Contains(m, "%d") {
			m = fmt.Sprintf(m, i)
		}
		out = append(out, jvmtext.Thread{
			Name: "Samza KafkaConsumerProxy Poll " + m + " - kafka", Daemon: true, State: "RUNNABLE", Status: "runnable",
			Frames: []string{
				"sun.nio.ch.EPollArrayWrapper.epollWait(Native Method)",
				"sun.nio.ch.EPollArrayWrapper.poll(EPollArrayWrapper.java:269)",
				"sun.nio.ch.EPollSelectorImpl.doSelect(EPollSelectorImpl.java:93)",
				"sun.nio.ch.SelectorImpl.lockAndDoSelect(SelectorImpl.java:86)",
				"- locked ADDR (a sun.nio.ch.Util$3)",
				"- locked ADDR (a java.util.Collections$UnmodifiableSet)",
				"- locked ADDR (a sun.nio.ch.EPollSelectorImpl)",
				"sun.nio.ch.SelectorImpl.select(SelectorImpl.java:97)",
				"org.apache.kafka.common.network.Selector.select(Selector.java:794)",
				"org.apache.kafka.common.network.Selector.poll(Selector.java:467)",
				"org.apache.kafka.clients.consumer.KafkaConsumer.poll(KafkaConsumer.java:1175)",
				"org.apache.samza.system.kafka.KafkaConsumerProxy.fetchMessages(KafkaConsumerProxy.java:313)",
				"org.apache.samza.system.kafka.KafkaConsumerProxy$1.run(KafkaConsumerProxy.java:177)",
				"java.lang.Thread.run(Thread.java:748)",
			},
		})
	}
	return out
}

// samzaContainerThreads returns the threads every Samza container has, with one run
// loop thread contending for the lock the main thread holds.
func samzaContainerThreads() []jvmtext.Thread {
	return []jvmtext.Thread{
		{Name: "main", State: "RUNNABLE", Status: "runnable", Frames: []string{
			"org.apache.samza.container.SamzaContainer.run(SamzaContainer.scala:712)",
			"- locked <0x00000000d7ffff00> (a java.lang.Object)",
			"org.apache.samza.runtime.LocalContainerRunner.main(LocalContainerRunner.java:103)",
		}},
		{Name: "Samza Container Run Loop", State: "BLOCKED (on object monitor)", Status: "waiting for monitor entry", Frames: []string{
			"org.apache.samza.container.RunLoop.run(RunLoop.java:120)",
			"- waiting to lock <0x00000000d7ffff00> (a java.lang.Object)",
			"java.lang.Thread.run(Thread.java:748)",
		}},
		{Name: "Finalizer", Daemon: true, State: "WAITING (on object monitor)", Status: "in Object.wait()", Frames: []string{
			"java.lang.Object.wait(Native Method)",
			"- waiting on ADDR (a java.lang.ref.ReferenceQueue$Lock)",
			"java.lang.ref.ReferenceQueue.remove(ReferenceQueue.java:144)",
			"- locked ADDR (a java.lang.ref.ReferenceQueue$Lock)",
			"java.lang.ref.Finalizer$FinalizerThread.run(Finalizer.java:216)",
		}},
	}
}

// TestThreadGroupsAndDiff builds the SAMZA-2785 picture in two dumps written in
// jstack's layout, 3 and 168 poll threads, and checks the groups, the name pattern,
// the contention and the diff against what was written.
func TestThreadGroupsAndDiff(t *testing.T) {
	base := jvmtext.Dump("2020-02-25 03:21:02", append(samzaContainerThreads(), samzaPollThreads(3)...))
	target := jvmtext.Dump("2020-02-25 09:21:02", append(samzaPollThreads(168), samzaContainerThreads()...))
	parse := func(text string) *ThreadGroups {
		tf, err := ParseThreadDumps(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return GroupThreads(tf.Dumps[0])
	}
	bg, tg := parse(base), parse(target)
	if tg.Total != 171 || tg.Daemon != 169 || len(tg.Groups) != 4 || tg.Time.Format("15:04") != "09:21" {
		t.Fatalf("target: %d threads, %d daemon, %d groups, at %v; want 171, 169, 4, 09:21", tg.Total, tg.Daemon, len(tg.Groups), tg.Time)
	}
	poll := tg.Groups[0]
	if poll.Count != 168 || poll.Daemon != 168 || poll.State != "RUNNABLE" || len(poll.Stack) != 11 || poll.Stack[10] != "java.lang.Thread.run(Thread.java:748)" {
		t.Errorf("poll group %+v", poll)
	}
	if len(poll.Names) != 1 || poll.Names[0].Pattern != "Samza KafkaConsumerProxy Poll … - kafka" || poll.Names[0].Count != 168 {
		t.Errorf("poll group names %+v, want one pattern with the varying part folded", poll.Names)
	}
	if len(poll.Locks) != 3 || poll.Locks[0].Objects != 168 || poll.Locks[0].Frame != 3 || poll.Locks[0].Class != "sun.nio.ch.Util$3" {
		t.Errorf("poll group locks %+v, want 3 locks on frame 3, 168 objects each", poll.Locks)
	}
	var runLoop *ThreadGroup
	for i := range tg.Groups {
		if tg.Groups[i].Names[0].Pattern == "Samza Container Run Loop" {
			runLoop = &tg.Groups[i]
		}
	}
	if runLoop == nil || len(runLoop.Locks) != 1 || runLoop.Locks[0].Kind != "waiting to lock" || fmt.Sprint(runLoop.Locks[0].HeldBy) != "[main]" {
		t.Errorf("run loop group %+v, want it waiting for the lock main holds", runLoop)
	}

	d := DiffThreads(bg, tg)
	if d.BaseTotal != 6 || d.TargetTotal != 171 || len(d.New) != 0 || len(d.Grown) != 1 || d.Grown[0].Delta != 165 || d.Grown[0].BaseCount != 3 {
		t.Fatalf("diff %d → %d, new %d, grown %+v", d.BaseTotal, d.TargetTotal, len(d.New), d.Grown)
	}
	// Per name, the folded names of the poll threads: four kinds of middle part.
	var grownNames int
	for _, n := range d.Names {
		if strings.HasPrefix(n.Pattern, "Samza KafkaConsumerProxy Poll ") {
			grownNames += n.Delta
		}
	}
	if grownNames != 165 || d.Names[0].Delta != 42 || d.Names[0].Base != 0 {
		t.Errorf("name changes %+v; want +165 poll threads in all, first the 42 of the kind the base lacks", d.Names)
	}
	if g := d.Grown[0]; g.Count != 168 || g.State != "RUNNABLE" || len(g.Names) != 1 || g.Names[0].Pattern != "Samza KafkaConsumerProxy Poll … - kafka" {
		t.Errorf("grown group %+v, want the 168 RUNNABLE poll threads", g)
	}
	if h := d.Headline(); !strings.HasPrefix(h, "Threads: 6 → 171 (+165).") {
		t.Errorf("diff headline: %s", h)
	}

	// A new group: the base has no thread in the run loop's state.
	d2 := DiffThreads(parse(jvmtext.Dump("2020-02-25 03:00:00", samzaPollThreads(2))), tg)
	if len(d2.New) != 3 || d2.New[0].BaseCount != 0 || len(d2.Grown) != 1 {
		t.Errorf("new groups %d, grown %d; want the 3 container threads new and the poll group grown", len(d2.New), len(d2.Grown))
	}
	gone := DiffThreads(tg, bg)
	if len(gone.Shrunk) != 1 || gone.Shrunk[0].Delta != -165 || gone.Shrunk[0].Count != 3 {
		t.Errorf("shrunk %+v", gone.Shrunk)
	}
}

func TestFoldThreadName(t *testing.T) {
	for in, want := range map[string]string{
		"hz._hzInstance_2_dev.cached.thread-4":   "hz._hzInstance_…_dev.cached.thread-…",
		"GC Thread#7":                            "GC Thread#…",
		"G1 Conc#0":                              "G1 Conc#…",
		"C2 CompilerThread0":                     "C2 CompilerThread…",
		"pool-12-thread-345":                     "pool-…-thread-…",
		"worker-0x7f3a9c":                        "worker-…",
		"req-9f86d081884c7d65-handler":           "req-…-handler",
		"process reaper (pid 25679)":             "process reaper (pid …)",
		"Reference Handler":                      "Reference Handler",
		"facade-dedicated":                       "facade-dedicated",
		"AG1 thread":                             "AG… thread",
		"kafka-producer-network-thread | prod-1": "kafka-producer-network-thread | prod-…",
	} {
		if got := foldThreadName(in); got != want {
			t.Errorf("foldThreadName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestThreadBadInput checks hostile and broken dumps give a clear error or a
// partial result, never a panic.
func TestThreadBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		err        error
		threads    int
	}{
		{"empty", "", analyze.ErrEmpty, 0},
		{"a log", "2020-02-25 03:21:02.227 [main] INFO hello\n", analyze.ErrUnsupportedKind, 0},
		{"header without threads", "Full thread dump OpenJDK:\n\nJNI global references: 3\n", analyze.ErrUnsupportedKind, 0},
		{"lone quote", "\"tid=\n", nil, 1},
		{"quote only", "\"\n\"", analyze.ErrUnsupportedKind, 0},
		{"cut mid-thread", "\"a\" tid=0x1 nid=0x2 runnable\n   java.lang.Thread.State: RUN", nil, 1},
		{"lock without object", "\"a\" tid=0x1 nid=0x2 waiting\n\tat x.Y.z(Y.java:1)\n\t- waiting on <no object reference available>\n\t- locked <\n\t- \n", nil, 1},
		{"deadlock without dump", "Found one Java-level deadlock:\n=====\n\"a\":\n  which is held by \"b\"\nFound 1 deadlock.\n\"a\" tid=1\n", nil, 1},
		{"binary", "\"\xfe\x00\xff\" tid=\x00\n\tat \xff\n\x00\x01\n", nil, 1},
		{"long name", "\"" + strings.Repeat("x", 200_000) + "\" tid=0x1 runnable\n\tat a.b(c)\n", analyze.ErrUnsupportedKind, 0},
		{"long frame", "\"a\" tid=0x1 runnable\n\tat " + strings.Repeat("x", 200_000) + "\n\"b\" tid=0x2 runnable\n", nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf, err := ParseThreadDumps(strings.NewReader(tc.text))
			if tc.err != nil {
				if !isErr(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tf.Threads() != tc.threads {
				t.Errorf("%d threads, want %d", tf.Threads(), tc.threads)
			}
			for _, d := range tf.Dumps {
				for _, th := range d.Threads {
					checkUTF8(t, th)
				}
				_ = GroupThreads(d).Headline()
			}
		})
	}
}

// TestAnalyzeThreads checks the one-call report: the last dump's groups, the
// first-to-last diff of a file with two dumps, the histogram of the TDA log.
func TestAnalyzeThreads(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open(fixtures.Path(t, "jvm", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	rep, err := AnalyzeThreads(open("tda-threaddump-hpux-jdk15-jeus-large.log"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dumps != 2 || rep.Groups.Total != 574 || rep.Diff == nil || rep.Diff.BaseTotal != 574 {
		t.Errorf("HP-UX report: %d dumps, %d threads, diff %v", rep.Dumps, rep.Groups.Total, rep.Diff)
	}
	rep, err = AnalyzeThreads(open("tda-jdk15-threaddump-with-class-histogram.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := grepLineNumbers(t, `^num `, fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log"))[0]
	if rep.Diff != nil || len(rep.Histograms) != 1 || rep.Histograms[0].Line != line || !strings.HasPrefix(rep.Histograms[0].Headline(), "1,084 classes") {
		t.Errorf("TDA report: diff %v, %d histograms", rep.Diff, len(rep.Histograms))
	}
}
