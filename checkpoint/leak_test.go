package checkpoint

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"runtime/pprof"
	"testing"

	"go.uber.org/goleak"
)

// ownedGoroutines starts one consumer on b and returns how many goroutines the
// process gained for it (its own and the broker's side of its connection), then stops
// it and waits until they are gone.
func ownedGoroutines(t *testing.T, b *Broker) int {
	t.Helper()
	topic := "owned-" + jobName(t)
	createTopicForTest(t, b, topic, 3)
	before := settledGoroutineCount()
	f := NewConsumerFactory(ConsumerConfig{Brokers: b.Addrs()}, nil)
	c := f.New()
	if err := c.Register(SSP{"kafka", topic, 0}, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return CountGoroutines(ReaderFrame) == 1 && f.Stats().Connections == 1 },
		func() string { return "the consumer's reader never connected" })
	owned := settledGoroutineCount() - before
	c.Stop()
	eventually(t, func() bool { return runtime.NumGoroutine() <= before },
		func() string {
			return fmt.Sprintf("goroutines %d after Stop, %d before Start", runtime.NumGoroutine(), before)
		})
	return owned
}

func TestLeakyActiveLeaksEveryConsumerButTheFirst(t *testing.T) {
	const cycles, tasks = 12, 4
	b := startBroker(t)
	owned := ownedGoroutines(t, b)
	if owned < 2 {
		t.Fatalf("one started consumer owns %d goroutines, want at least its poll loop and its reader", owned)
	}
	ignore := goleak.IgnoreCurrent()
	baseline := settledGoroutineCount()

	res, w := run(t, b, Config{Variant: Leaky, Mode: Active, Cycles: cycles, Tasks: tasks})

	if res.ConsumerStarts != cycles || res.ConsumerStops != 1 || res.OpenConsumers != cycles-1 {
		t.Errorf("starts/stops/open = %d/%d/%d, want %d/1/%d", res.ConsumerStarts, res.ConsumerStops, res.OpenConsumers, cycles, cycles-1)
	}
	if res.PollLoopGoroutines != cycles-1 || res.ReaderGoroutines != cycles-1 {
		t.Errorf("goroutines with %s: %d, with %s: %d; want %d each", PollLoopFrame, res.PollLoopGoroutines, ReaderFrame, res.ReaderGoroutines, cycles-1)
	}
	if res.OpenConnections != cycles-1 {
		t.Errorf("open consumer connections = %d, want %d", res.OpenConnections, cycles-1)
	}
	grown := settledGoroutineCount() - baseline
	t.Logf("one consumer owns %d goroutines; %d leaked consumers grew the process by %d", owned, cycles-1, grown)
	if grown < (cycles-1)*owned {
		t.Errorf("goroutines grew by %d, want at least %d leaked consumers × %d", grown, cycles-1, owned)
	}

	// Each leaked poll loop carries its Samza thread name as a pprof label, and the
	// reader it started inherits it: two goroutines per leaked consumer, one name each.
	var prof bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&prof, 1); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	re := regexp.MustCompile(`(?m)^(\d+) @[^\n]*\n# labels: \{"thread":"(Samza KafkaConsumerProxy Poll samza-consumer-checkpoint-\d+ - kafka)"\}`)
	for _, m := range re.FindAllStringSubmatch(prof.String(), -1) {
		var n int
		fmt.Sscan(m[1], &n)
		names[m[2]] += n
	}
	if len(names) != cycles-1 {
		t.Errorf("%d poll thread names in the goroutine profile, want %d", len(names), cycles-1)
	}
	for name, n := range names {
		if n != 2 {
			t.Errorf("%q labels %d goroutines, want 2 (poll loop and reader)", name, n)
		}
	}

	reaped, err := w.Close()
	if err != nil || reaped != cycles-1 {
		t.Fatalf("Close reaped %d (err %v), want %d", reaped, err, cycles-1)
	}
	goleak.VerifyNone(t, ignore)
}

func TestFixesAndStandbyStopEveryConsumer(t *testing.T) {
	const cycles, tasks = 8, 3
	b := startBroker(t)
	for _, v := range Variants {
		for _, m := range Modes {
			if v == Leaky && m == Active {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", v, m), func(t *testing.T) {
				ignore := goleak.IgnoreCurrent()
				res, w := run(t, b, Config{Variant: v, Mode: m, Cycles: cycles, Tasks: tasks})
				if res.ConsumerStarts != cycles || res.ConsumerStops != cycles || res.OpenConsumers != 0 {
					t.Errorf("starts/stops/open = %d/%d/%d, want %d/%d/0", res.ConsumerStarts, res.ConsumerStops, res.OpenConsumers, cycles, cycles)
				}
				if res.PollLoopGoroutines != 0 || res.ReaderGoroutines != 0 || res.OpenConnections != 0 {
					t.Errorf("after the run: %d poll loops, %d readers, %d connections; want none",
						res.PollLoopGoroutines, res.ReaderGoroutines, res.OpenConnections)
				}
				// Back to the baseline with the broker still up and the workload not
				// closed: nothing of the run is left to reap.
				goleak.VerifyNone(t, ignore)
				if reaped, err := w.Close(); reaped != 0 || err != nil {
					t.Errorf("Close reaped %d (err %v), want 0", reaped, err)
				}
			})
		}
	}
}
