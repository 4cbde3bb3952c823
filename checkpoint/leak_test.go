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
// and explained in docs/reproductions.md: in a storm only pr1674 stops the
// consumers of the containers interrupted before their first read; a steady run
// leaks nothing; reusing one manager starts its consumer once and refuses every
// later registration, except with guard-start, which skips it.
func TestEveryVariantInEveryScenario(t *testing.T) {
	const n, tasks, fraction = 20, 2, 0.1
	const r = 2 // round(20 × 0.1): rebalances 5 and 15 reach their first read
	b := startBrokerProcess(t)
	active := map[Scenario]map[Variant]outcome{
		Storm: {
			Leaky:      {starts: n, stops: r, managerStops: r},
			PR1674:     {starts: n, stops: n, managerStops: n},
			Reset:      {starts: n, stops: r, managerStops: r},
			GuardStart: {starts: n, stops: r, managerStops: r},
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
					}
				}
				t.Run(fmt.Sprintf("%s/%s/%s", sc, v, m), func(t *testing.T) {
					ignore := goleak.IgnoreCurrent()
					res, w := run(t, b, Config{Variant: v, Mode: m, Scenario: sc, ReadFraction: fraction, Cycles: n, Tasks: tasks})
					got := outcome{res.ConsumerStarts, res.ConsumerStops, res.RefusedRegistrations, res.FailedContainers, res.ManagerConsumerStops}
					if got != want {
						t.Errorf("starts/stops/refused/failed/manager stops = %+v, want %+v", got, want)
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

// TestStormReproducesTheProductionCounts runs SAMZA-2785's 1741 rebalances with the
// defaults against a broker in another process and counts the log with the real
// grep, as the seed's reporter did: 1741 starts, 14 stops (±2), and every consumer
// that was not stopped still running its poll loop and its reader. pr1674 then
// stops every consumer and the goroutines return to the baseline.
func TestStormReproducesTheProductionCounts(t *testing.T) {
	testtool.Require(t, "grep", "grep")
	if testing.Short() {
		t.Skip("1741 rebalances; run without -short")
	}
	const n = 1741
	b := startBrokerProcess(t)
	for _, c := range []struct {
		v                  Variant
		stopsMin, stopsMax int64
	}{
		{Leaky, 12, 16},
		{PR1674, n, n},
	} {
		t.Run(string(c.v), func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			path := filepath.Join(t.TempDir(), "samza.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			res, w := run(t, b, Config{Variant: c.v, Cycles: n, Tasks: 4, History: 1, Log: f})
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			starts := grepCount(t, "Starting the checkpoint SystemConsumer from oldest offset", path)
			stops := grepCount(t, "Stopping system consumer", path)
			t.Logf("%s: %d starts, %d stops, %d open, %d poll loops, in %v", c.v, starts, stops, res.OpenConsumers, res.PollLoopGoroutines, res.Elapsed)
			if starts != n {
				t.Errorf("grep -c starts = %d, want %d", starts, n)
			}
			if stops < c.stopsMin || stops > c.stopsMax {
				t.Errorf("grep -c 'Stopping system consumer' = %d, want %d-%d", stops, c.stopsMin, c.stopsMax)
			}
			if got := grepCount(t, ": Consumer started", path); got != res.ConsumerStarts || got != n {
				t.Errorf("grep -c ': Consumer started' = %d, counter %d, want %d", got, res.ConsumerStarts, n)
			}
			if got := grepCount(t, "Stopping Samza kafkaConsumer ", path); got != res.ConsumerStops || got != stops {
				t.Errorf("grep -c 'Stopping Samza kafkaConsumer ' = %d, counter %d, want %d", got, res.ConsumerStops, stops)
			}
			if got := grepCount(t, "Attempting to start the consumer for the second", path); got != 0 {
				t.Errorf("grep -c second starts = %d, want 0 (the seed's reporter found 0)", got)
			}
			open := starts - stops
			if res.OpenConsumers != open || int64(res.PollLoopGoroutines) != open || int64(res.ReaderGoroutines) != open {
				t.Errorf("open %d, poll loops %d, readers %d; want starts − stops = %d each", res.OpenConsumers, res.PollLoopGoroutines, res.ReaderGoroutines, open)
			}
			if open > 0 {
				checkPollThreadLabels(t, int(open))
			} else {
				goleak.VerifyNone(t, ignore)
			}
			if reaped, err := w.Close(); int64(reaped) != open || err != nil {
				t.Errorf("Close reaped %d (err %v), want %d", reaped, err, open)
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
	re := regexp.MustCompile(`(?m)^(\d+) @[^\n]*\n# labels: \{"thread":"(Samza KafkaConsumerProxy Poll samza-consumer-checkpoint-\d+ - kafka)"\}`)
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
