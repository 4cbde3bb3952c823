// Package testworkload is a small workload for the lab's tests: a real process with
// a real pprof endpoint that leaks real goroutines, one per cycle in the "leaky"
// variant, and speaks the lab/child event protocol, so the lab's process handling can
// be tested without Kafka. A test binary calls Main from its TestMain when
// LEAKUI_LAB_CHILD is set: "1" runs, "fail" fails like an unreachable broker.
// LEAKUI_LAB_STEP is the time one cycle takes; LEAKUI_LAB_IGNORE_TERM makes it
// ignore SIGTERM.
package testworkload

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// Main runs `work NAME [flags]` and returns the exit status.
func Main(args []string) int {
	if len(args) < 2 || args[0] != "work" {
		fmt.Fprintln(os.Stderr, "usage: work NAME [flags]")
		return 2
	}
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	variant := fs.String("variant", "leaky", "")
	fs.String("mode", "active", "")
	fs.String("scenario", "storm", "")
	fs.Float64("read-fraction", 0.008, "")
	cycles := fs.Int("cycles", 10, "")
	fs.Int("tasks", 1, "")
	pprofAddr := fs.String("pprof", "127.0.0.1:0", "")
	logPath := fs.String("log", "", "")
	hold := fs.Duration("hold", 0, "")
	asJSON := fs.Bool("json", false, "")
	syncAcks := fs.Bool("sync", false, "")
	fs.String("brokers", "", "")
	if err := fs.Parse(args[2:]); err != nil {
		return 2
	}
	if os.Getenv("LEAKUI_LAB_CHILD") == "fail" {
		fmt.Fprintln(os.Stderr, "leakui work checkpoint: cannot reach the broker at 127.0.0.1:1")
		return 1
	}
	stepDelay, _ := time.ParseDuration(os.Getenv("LEAKUI_LAB_STEP"))
	if os.Getenv("LEAKUI_LAB_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM) // a workload that will not stop politely
	}
	d, err := child.ListenDebug(*pprofAddr)
	if err != nil {
		return 1
	}
	defer d.Close()
	var log *os.File
	if *logPath != "" {
		log, _ = os.Create(*logPath)
		defer log.Close()
	}
	em := child.NewEmitter(os.Stdout, *asJSON)
	if *syncAcks {
		em.SyncWith(os.Stdin)
	}
	em.Emit(child.Event{Kind: child.EventReady, Pprof: d.Addr()})
	// LEAKUI_LAB_PHASE=n emits n progress events of a phase without cycles
	// ("prepare" k of n) first; LEAKUI_LAB_GATE=path then waits (up to a minute)
	// until that file exists, so a test can look at the phase while it lasts.
	if n, _ := strconv.Atoi(os.Getenv("LEAKUI_LAB_PHASE")); n > 0 {
		for k := 1; k <= n; k++ {
			em.Emit(child.Event{Kind: child.EventProgress, Step: int64(k), Steps: int64(n), StepName: "prepare", Memory: child.ReadMemory()})
		}
		if gate := os.Getenv("LEAKUI_LAB_GATE"); gate != "" {
			for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(gate); err == nil {
					break
				}
			}
		}
	}
	stop := make(chan struct{})
	var leaked sync.WaitGroup
	starts, stops := int64(0), int64(0)
	for c := 1; c <= *cycles; c++ {
		starts++
		leaked.Add(1)
		go func() { defer leaked.Done(); <-stop }() // the "consumer"'s poll loop
		if *variant != "leaky" {
			stops++
		}
		if log != nil {
			fmt.Fprintf(log, "2026-01-01 00:00:%02d.000 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 0\n", c%60)
		}
		time.Sleep(stepDelay)
		open := starts - stops
		if *variant != "leaky" {
			open = 0
		}
		em.Emit(child.Event{Kind: child.EventProgress, Step: int64(c), Steps: int64(*cycles), StepName: "cycle",
			Memory: child.ReadMemory(), Counters: map[string]int64{"cycle": int64(c), "cycles": int64(*cycles),
				"consumer_starts": starts, "consumer_stops": stops, "open_consumers": open}})
	}
	if *variant != "leaky" {
		close(stop)
		leaked.Wait()
	}
	em.Emit(child.Event{Kind: child.EventDone, Step: int64(*cycles), Steps: int64(*cycles), StepName: "cycle",
		Memory: child.ReadMemory(), Counters: map[string]int64{"consumer_starts": starts, "consumer_stops": stops}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	child.Hold(ctx, *hold)
	return 0
}
