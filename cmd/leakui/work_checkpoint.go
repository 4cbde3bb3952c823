package main

import (
	"bytes"
	"context"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/leakui/leakui/checkpoint"
	"github.com/leakui/leakui/lab/child"
)

// exitInterrupted is the exit status of a checkpoint run stopped by SIGINT or SIGTERM
// before its last cycle.
const exitInterrupted = 130

// runWorkCheckpoint runs `leakui work checkpoint [flags]`.
func runWorkCheckpoint(ctx context.Context, args []string, std stdio) error {
	cfg, wf, err := parseCheckpointFlags(args, std)
	if err != nil {
		return err
	}
	if len(cfg.Brokers) > 0 {
		// Before the ready event: a wrong -brokers is one line on stderr, nothing else.
		if err := checkpoint.CheckBrokers(ctx, cfg.Brokers, checkpoint.DefaultDialTimeout); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if len(cfg.Brokers) == 0 {
		if cfg.BrokerCommand, cfg.BrokerEnv, err = brokerCommand(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	sess, err := wf.open(std)
	if err != nil {
		return err
	}
	defer sess.Close()
	publishCheckpointVars()
	cfg.Log = sess.Log
	cfg.Progress = func(p checkpoint.Progress) {
		checkpointVars.Store(&p)
		sess.Events.Emit(child.Event{
			Kind: child.EventProgress, StepName: "cycle", Step: int64(p.Cycle), Steps: int64(p.Cycles),
			Memory: child.ReadMemory(), Counters: progressCounters(p),
		})
	}
	w, err := checkpoint.New(cfg)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Run(ctx)
	if err != nil {
		msg := fmt.Sprintf("checkpoint: %v", err)
		sess.Events.Emit(child.Event{Kind: child.EventError, Message: msg})
		if ctx.Err() != nil {
			fmt.Fprintf(std.err, "leakui work %s\n", msg)
			return exitError{exitInterrupted}
		}
		return errors.New(msg)
	}
	checkpointVars.Store(&res.Progress)
	if err := sess.Events.Emit(child.Event{
		Kind: child.EventDone, StepName: "cycle", Step: int64(res.Cycle), Steps: int64(res.Cycles),
		Memory: child.ReadMemory(), Counters: resultCounters(res), Message: resultSummary(res),
	}); err != nil {
		return err
	}
	child.Hold(ctx, wf.hold)
	return nil
}

// parseCheckpointFlags parses the flags into a checked configuration. A mistake is
// reported in one line on stderr and returned as errUsage.
func parseCheckpointFlags(args []string, std stdio) (checkpoint.Config, workFlags, error) {
	var (
		usage bytes.Buffer
		wf    workFlags
		cfg   checkpoint.Config
	)
	fs := newFlagSet("work checkpoint", "", &usage)
	variant := fs.String("variant", string(checkpoint.Leaky), "manager logic: "+choiceUsage(checkpoint.Variants))
	mode := fs.String("mode", string(checkpoint.Active), "container kind: active (stopConsumerAfterFirstRead) or standby")
	scenario := fs.String("scenario", string(checkpoint.Storm), "how containers meet rebalances: "+choiceUsage(checkpoint.Scenarios))
	fs.Float64Var(&cfg.ReadFraction, "read-fraction", checkpoint.DefaultReadFraction, "storm: share of containers that read their checkpoints before the next rebalance interrupts them, in (0, 1]; an input (the seed's 14 of 1741 is 0.008)")
	var samzaConfig stringList
	fs.Var(&samzaConfig, "config", "a Samza setting `key=value` by upstream's name, repeatable: "+checkpoint.ConfigStopAfterFirstRead+", "+checkpoint.ConfigFetchThreshold("kafka"))
	fs.IntVar(&cfg.Cycles, "cycles", 100, fmt.Sprintf("standalone rebalances to run, 1-%d; an input (the seed's log had 1741)", checkpoint.MaxCycles))
	fs.IntVar(&cfg.Tasks, "tasks", 8, fmt.Sprintf("tasks (GroupByPartition's \"Partition <n>\"), 1-%d", checkpoint.MaxTasks))
	fs.IntVar(&cfg.History, "history", checkpoint.DefaultHistory, fmt.Sprintf("checkpoints of every task on the topic before the first rebalance, 1-%d", checkpoint.MaxHistory))
	brokers := fs.String("brokers", "", "Kafka brokers host:port,... (default: a kfake broker in a child process, leakui work broker)")
	fs.StringVar(&cfg.Job, "job", checkpoint.DefaultJob, "job name: the topic is __samza_checkpoint_ver_1_for_<job>_<job-id>, every consumer's client id kafka_consumer-<job>-<job-id>")
	fs.StringVar(&cfg.JobID, "job-id", checkpoint.DefaultJobID, "job id, the last part of the topic name and of the client ids")
	fs.IntVar(&cfg.FetchThreshold, "fetch-threshold", checkpoint.DefaultFetchThreshold, "messages one consumer buffers before its poll loop blocks (systems.kafka.samza.fetch.threshold)")
	wf.register(fs)
	fail := func(format string, a ...any) (checkpoint.Config, workFlags, error) {
		fmt.Fprintf(std.err, "leakui work checkpoint: "+format+"\n", a...)
		return cfg, wf, errUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			std.err.Write(usage.Bytes())
			return cfg, wf, err
		}
		return fail("%v (see -h)", err)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (see -h)", fs.Arg(0))
	}
	var err error
	if cfg.Variant, err = checkpoint.ParseVariant(*variant); err != nil {
		return fail("-variant: %v", err)
	}
	if cfg.Mode, err = checkpoint.ParseMode(*mode); err != nil {
		return fail("-mode: %v", err)
	}
	if cfg.Scenario, err = checkpoint.ParseScenario(*scenario); err != nil {
		return fail("-scenario: %v", err)
	}
	if !(cfg.ReadFraction > 0 && cfg.ReadFraction <= 1) {
		return fail("-read-fraction must be in (0, 1], got %v", cfg.ReadFraction)
	}
	if len(samzaConfig) > 0 {
		m, threshold, err := checkpoint.ParseSamzaConfig(samzaConfig)
		if err != nil {
			return fail("-config: %v", err)
		}
		if m != "" {
			cfg.Mode = m
		}
		if threshold != 0 {
			cfg.FetchThreshold = threshold
		}
	}
	if strings.TrimSpace(*brokers) != "" {
		if cfg.Brokers, err = checkpoint.ParseBrokers(*brokers); err != nil {
			return fail("-brokers: %v", err)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"cycles", cfg.Cycles}, {"tasks", cfg.Tasks}, {"history", cfg.History}, {"fetch-threshold", cfg.FetchThreshold}} {
		if f.v < 1 {
			return fail("-%s must be at least 1, got %d", f.name, f.v)
		}
	}
	if err := cfg.Check(); err != nil {
		return fail("%v", err)
	}
	return cfg, wf, nil
}

// progressCounters are the keys of a progress event, besides the memory figures
// every event carries.
func progressCounters(p checkpoint.Progress) map[string]int64 {
	return map[string]int64{
		"cycle":                  int64(p.Cycle),
		"cycles":                 int64(p.Cycles),
		"containers":             p.Containers,
		"first_reads":            p.FirstReads,
		"interrupts":             p.Interrupts,
		"failed_containers":      p.FailedContainers,
		"processor_restarts":     p.ProcessorRestarts,
		"consumer_starts":        p.ConsumerStarts,
		"consumer_stops":         p.ConsumerStops,
		"manager_consumer_stops": p.ManagerConsumerStops,
		"refused_registrations":  p.RefusedRegistrations,
		"second_starts":          p.SecondStarts,
		"open_consumers":         p.OpenConsumers,
		"open_connections":       p.OpenConnections,
		"checkpoints_read":       p.CheckpointsRead,
		"checkpoints_written":    p.CheckpointsWritten,
		"messages_read":          p.MessagesRead,
		"elapsed_ms":             p.Elapsed.Milliseconds(),
	}
}

// resultCounters are the keys of the done event: the progress keys and the totals.
func resultCounters(r checkpoint.Result) map[string]int64 {
	c := progressCounters(r.Progress)
	c["tasks"] = int64(r.Tasks)
	c["checkpoints_seeded"] = r.CheckpointsSeeded
	c["topic_reads"] = r.TopicReads
	c["missing_reads"] = r.MissingReads
	c["poll_loop_goroutines"] = int64(r.PollLoopGoroutines)
	c["reader_goroutines"] = int64(r.ReaderGoroutines)
	return c
}

// resultSummary is the message of the done event.
func resultSummary(r checkpoint.Result) string {
	where := strings.Join(r.Brokers, ",")
	if r.BrokerPID != 0 {
		where += fmt.Sprintf(" (kfake in process %d)", r.BrokerPID)
	} else if r.Embedded {
		where += " (embedded)"
	}
	return fmt.Sprintf("scenario=%s variant=%s mode=%s topic=%s brokers=%s: %d rebalances, %d read their checkpoints, %d interrupted in the read; "+
		"%d containers failed, %d processor restarts; %d consumers started, %d stopped, %d still open; %d registrations refused",
		r.Scenario, r.Variant, r.Mode, r.Topic, where, r.Cycle, r.FirstReads, r.Interrupts,
		r.FailedContainers, r.ProcessorRestarts, r.ConsumerStarts, r.ConsumerStops, r.OpenConsumers, r.RefusedRegistrations)
}

// checkpointVars holds the latest progress of the run in this process, served as
// the expvar "checkpoint" on the -pprof endpoint.
var (
	checkpointVars      atomic.Pointer[checkpoint.Progress]
	publishVarsOnce     sync.Once
	checkpointVarsValue = func() any {
		p := checkpointVars.Load()
		if p == nil {
			return nil
		}
		return progressCounters(*p)
	}
)

// publishCheckpointVars registers the expvar once per process.
func publishCheckpointVars() {
	publishVarsOnce.Do(func() { expvar.Publish("checkpoint", expvar.Func(checkpointVarsValue)) })
}

// stringList is a repeatable string flag.
type stringList []string

// String joins the values.
func (l *stringList) String() string { return strings.Join(*l, " ") }

// Set appends one value.
func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}
