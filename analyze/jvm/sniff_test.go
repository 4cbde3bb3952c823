package jvm

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/jvmtext"
)

// TestDetectKindFormats checks the kind detection on the JVM formats the shared
// fixtures do not cover, written by the same generators as the parser tests.
func TestDetectKindFormats(t *testing.T) {
	jdk21Fragment := `"Reference Handler" #9 [30467] daemon prio=10 os_prio=31 cpu=0.44ms elapsed=25574.11s tid=0x000000010328e320 nid=30467 waiting on condition  [0x000000016e7c2000]
   java.lang.Thread.State: RUNNABLE
	at java.lang.ref.Reference.waitForReferencePendingList(java.base@21.0.9/Native Method)
`
	for _, tc := range []struct {
		name, text string
		kind       analyze.Kind
	}{
		{"jmap -histo JDK 9+", jvmtext.Histogram(jvmtext.JDK9, samzaHeap(3)), analyze.KindJVMHistogram},
		{"jcmd GC.class_histogram", "12345:\n" + jvmtext.Histogram(jvmtext.JDK9, samzaHeap(3)), analyze.KindJVMHistogram},
		{"jmap -histo JDK 8", jvmtext.Histogram(jvmtext.JDK8, samzaHeap(3)), analyze.KindJVMHistogram},
		{"jmap -F -histo", "Attaching to process ID 4711, please wait...\n" + jvmtext.Histogram(jvmtext.SA, samzaHeap(3)), analyze.KindJVMHistogram},
		{"jstack JDK 8", jvmtext.Dump("2020-02-25 09:21:02", samzaPollThreads(3)), analyze.KindJVMThreads},
		{"jstack without its first lines", strings.SplitN(jvmtext.Dump("2020-02-25 09:21:02", samzaPollThreads(3)), "\n\n", 2)[1], analyze.KindJVMThreads},
		{"jstack JDK 21 fragment", jdk21Fragment, analyze.KindJVMThreads},
		{"SIGQUIT dump in a container log", "2020-02-25 03:21:02.227 [main] SamzaContainer [INFO] Starting\n" + jvmtext.Dump("2020-02-25 09:21:02", samzaPollThreads(3)), analyze.KindJVMThreads},
		{"NMT summary.diff", nmtDiffText(kafkaBroker("Internal", 1<<30)), analyze.KindJVMNMT},
		{"NMT summary", nmtSummaryText(kafkaBroker("Other", 0)), analyze.KindJVMNMT},
	} {
		if got := analyze.DetectKind([]byte(tc.text)); got.Kind != tc.kind {
			t.Errorf("%s: detected %v, want %s", tc.name, got, tc.kind)
		}
	}
}
