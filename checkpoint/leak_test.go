package checkpoint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"testing"

	"github.com/leakui/leakui/internal/testtool"
	"go.uber.org/goleak"
)

// outcome is what a run of one variant in one scenario does, as measured.
type outcome struct {
	starts, stops, refused, failed, managerStops int64
}

// TestEveryVariantInEveryScenario runs every variant in every scenario against a
// broker in another process and checks the consumers against the outcomes measured
// and explained in docs/reproductions.md: in a storm every container interrupted
// in its first read fails, and only pr1674 stops its consumer; a steady run leaks
// nothing; reusing one manager starts its consumer once and refuses every later
// registration, except with guard-start, which skips it. Every failed container
// stops its processor, which the application restarts.
func TestEveryVariantInEveryScenario(t *testing.T) {
	const n, tasks, fraction = 20, 2, 0.1
	const r = 2 // round(20 × 0.1): rebalances 5 and 15 read their checkpoints
	b := startBrokerProcess(t)
	active := map[Scenario]map[Variant]outcome{
		Storm: {
			Leaky:      {starts: n, stops: r, failed: n - r, managerStops: r},
			PR1674:     {starts: n, stops: n, failed: n - r, managerStops: n},
			Reset:      {starts: n, stops: r, failed: n - r, managerStops: r},
			GuardStart: {starts: n, stops: r, failed: n - r, managerStops: r},
		},
		Steady: {
			Leaky:      {starts: n, stops: n, managerStops: n},
			PR1674:     {starts: n, stops: n, managerStops: n},
			Reset:      {starts: n, stops: n, managerStops: n},
			GuardStart: {starts: n, stops: n, managerStops: n},
		},
		Reuse: {
			Leaky:      {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: 1},
			PR1674:     {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: 1},
			Reset:      {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: 1},
			GuardStart: {starts: 1, stops: 1, managerStops: 1},
		},
	}
	// Standby: every stop() of upstream's logic stops the consumer again (the
	// consumer only warns "Attempting to stop stopped consumer."); pr1674's flag
	// stops it once.
	standby := map[Scenario]map[Variant]outcome{
		Reuse: {
			Leaky:      {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: n},
			PR1674:     {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: 1},
			Reset:      {starts: 1, stops: 1, refused: n - 1, failed: n - 1, managerStops: n},
			GuardStart: {starts: 1, stops: 1, failed: n - 1, managerStops: n}, // reads from the stopped consumer fail
		},
	}
	for _, m := range Modes {
		for _, sc := range Scenarios {
			for _, v := range Variants {
				want := active[sc][v]
				if m == Standby {
					var ok bool
					if want, ok = standby[sc][v]; !ok {
						want = outcome{starts: n, stops: n, managerStops: n} // stop() stops every consumer
						if sc == Storm {
							want.failed = n - r // though the interrupted containers fail
						}
					}
				}
				t.Run(fmt.Sprintf("%s/%s/%s", sc, v, m), func(t *testing.T) {
					ignore := goleak.IgnoreCurrent()
					res, w := run(t, b, Config{Variant: v, Mode: m, Scenario: sc, ReadFraction: fraction, Cycles: n, Tasks: tasks})
					got := outcome{res.ConsumerStarts, res.ConsumerStops, res.RefusedRegistrations, res.FailedContainers, res.ManagerConsumerStops}
					if got != want {
						t.Errorf("starts/stops/refused/failed/manager stops = %+v, want %+v", got, want)
					}
					if res.ProcessorRestarts != res.FailedContainers {
						t.Errorf("%d processor restarts for %d failed containers", res.ProcessorRestarts, res.FailedContainers)
					}
					if wantInterrupts := int64(n - r); sc == Storm && res.Interrupts != wantInterrupts || sc != Storm && res.Interrupts != 0 {
						t.Errorf("%d containers interrupted in their first read", res.Interrupts)
					}
					if open := res.ConsumerStarts - res.ConsumerStops; res.OpenConsumers != open {
						t.Errorf("open consumers %d, want starts − stops = %d", res.OpenConsumers, open)
					}
					if int64(res.PollLoopGoroutines) != res.OpenConsumers || int64(res.ReaderGoroutines) != res.OpenConsumers {
						t.Errorf("%d poll loops and %d readers for %d open consumers", res.PollLoopGoroutines, res.ReaderGoroutines, res.OpenConsumers)
					}
					if res.SecondStarts != 0 {
						t.Errorf("%d second starts; upstream's consumer refuses the registration before", res.SecondStarts)
					}
					if res.OpenConsumers == 0 {
						goleak.VerifyNone(t, ignore) // back to the baseline before Close
					}
					if reaped, err := w.Close(); int64(reaped) != res.OpenConsumers || err != nil {
						t.Errorf("Close reaped %d (err %v), want %d", reaped, err, res.OpenConsumers)
					}
					goleak.VerifyNone(t, ignore)
				})
			}
		}
	}
}

// TestStormReplaysTheProductionInputs replays SAMZA-2785's storm against a broker
// in another process, with the seed's counts as its inputs: 1741 rebalances
// (-cycles) of which 14 read their checkpoints (-read-fraction 0.008, 14/1741,
// the default). That the log then holds 1741 starts and 14 stops is the replay
// doing what it was told, checked with the real grep as the seed's reporter
// counted. What the model decides on its own is the rest: every one of the 1727
// interrupted containers fails in readCheckpoints and logs upstream's error
// once, its processor is restarted, and upstream's logic (leaky) leaves its
// consumer running, poll loop and reader alive, while only pr1674 stops every
// consumer and the goroutines return to the baseline.
func TestStormReplaysTheProductionInputs(t *testing.T) {
	testtool.Require(t, "grep", "grep")
	if testing.Short() {
		t.Skip("1741 rebalances; run without -short")
	}
	const n, reads = 1741, 14     // inputs: -cycles, and -read-fraction's 14/1741
	const interrupted = n - reads // the containers the storm interrupts
	for _, c := range []struct {
		v    Variant
		open int64 // result: consumers left running
	}{
		{Leaky, interrupted},
		{PR1674, 0},
		{Reset, interrupted},
		{GuardStart, interrupted},
	} {
		t.Run(string(c.v), func(t *testing.T) {
			b := startBrokerProcess(t)
			ignore := goleak.IgnoreCurrent()
			path := filepath.Join(t.TempDir(), "samza.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			res, w := run(t, b, Config{Variant: c.v, Cycles: n, ReadFraction: DefaultReadFraction, Tasks: 4, History: 1, Log: f})
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			starts := grepCount(t, "Starting the checkpoint SystemConsumer from oldest offset", path)
			stops := grepCount(t, "Stopping system consumer", path)
			failed := grepCount(t, "Caught exception/error while initializing container.", path)
			t.Logf("%s: %d starts, %d stops, %d failed containers, %d processor restarts, %d open, %d poll loops, in %v",
				c.v, starts, stops, failed, res.ProcessorRestarts, res.OpenConsumers, res.PollLoopGoroutines, res.Elapsed)
			// The inputs, replayed.
			if starts != n || res.FirstReads != reads || res.Interrupts != interrupted {
				t.Errorf("grep -c starts = %d, %d first reads, %d interrupted; the inputs were %d rebalances, %d reads", starts, res.FirstReads, res.Interrupts, n, reads)
			}
			// The results.
			if failed != interrupted || res.FailedContainers != interrupted || res.ProcessorRestarts != interrupted {
				t.Errorf("grep -c 'Caught exception/error while initializing container.' = %d, %d failed containers, %d restarts; want one each per interrupted container, %d",
					failed, res.FailedContainers, res.ProcessorRestarts, interrupted)
			}
			if got := grepCount(t, "failed with an exception. Stopping the stream processor", path); got != interrupted {
				t.Errorf("grep -c StreamProcessor's failure line = %d, want %d", got, interrupted)
			}
			if got := grepCount(t, "Received an interrupt during initialization.", path); got != 0 {
				t.Errorf("grep -c 'Received an interrupt during initialization.' = %d: upstream cannot log it here, its start() swallows the interrupt", got)
			}
			if got := grepCount(t, "org.apache.samza.SamzaException: java.lang.InterruptedException", path); got != 2*interrupted {
				t.Errorf("grep -c the SamzaException around the InterruptedException = %d, want 2 per failed container (the container's error and the processor's)", got)
			}
			if wantStops := n - c.open; stops != wantStops || res.ConsumerStops != wantStops {
				t.Errorf("grep -c 'Stopping system consumer' = %d, %d consumers stopped; want %d", stops, res.ConsumerStops, wantStops)
			}
			if got := grepCount(t, ": Consumer started", path); got != res.ConsumerStarts || got != n {
				t.Errorf("grep -c ': Consumer started' = %d, counter %d, want %d", got, res.ConsumerStarts, n)
			}
			if got := grepCount(t, "Stopping Samza kafkaConsumer ", path); got != res.ConsumerStops {
				t.Errorf("grep -c 'Stopping Samza kafkaConsumer ' = %d, counter %d", got, res.ConsumerStops)
			}
			if got := grepCount(t, "Attempting to start the consumer for the second", path); got != 0 {
				t.Errorf("grep -c second starts = %d, want 0 (the seed's reporter found 0)", got)
			}
			if res.OpenConsumers != c.open || int64(res.PollLoopGoroutines) != c.open || int64(res.ReaderGoroutines) != c.open {
				t.Errorf("open %d, poll loops %d, readers %d; want %d each", res.OpenConsumers, res.PollLoopGoroutines, res.ReaderGoroutines, c.open)
			}
			if c.open > 0 {
				checkPollThreadLabels(t, int(c.open))
			} else {
				goleak.VerifyNone(t, ignore)
			}
			if reaped, err := w.Close(); int64(reaped) != c.open || err != nil {
				t.Errorf("Close reaped %d (err %v), want %d", reaped, err, c.open)
			}
			goleak.VerifyNone(t, ignore)
		})
	}
}

// checkPollThreadLabels checks that each leaked consumer's poll loop carries its
// Samza thread name as a pprof label, which the reader it started inherits: two
// goroutines per leaked consumer, one name each.
func checkPollThreadLabels(t *testing.T, open int) {
	t.Helper()
	var prof bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&prof, 1); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	re := regexp.MustCompile(`(?m)^(\d+) @[^\n]*\n# labels: \{"thread":"(Samza KafkaConsumerProxy Poll Thread-\d+ - kafka)"\}`)
	for _, m := range re.FindAllStringSubmatch(prof.String(), -1) {
		var k int
		fmt.Sscan(m[1], &k)
		names[m[2]] += k
	}
	if len(names) != open {
		t.Errorf("%d poll thread names in the goroutine profile, want %d", len(names), open)
	}
	// Each leaked consumer's label is on its poll loop and its reader. A goroutine
	// kafka-go starts from the reader for a moment (a fetch's dial or timer)
	// inherits the label too, so a few labels may carry a third one while the
	// profile is taken; never fewer than two, and a lasting third would show on
	// most of them.
	extra := 0
	for name, k := range names {
		if k < 2 {
			t.Errorf("%q labels %d goroutines, want 2 (poll loop and reader)", name, k)
		}
		if k > 2 {
			extra++
			t.Logf("%q labels %d goroutines while the profile was taken", name, k)
		}
	}
	if extra*100 > open {
		t.Errorf("%d of %d poll thread labels carry more than the poll loop and the reader", extra, open)
	}
}
