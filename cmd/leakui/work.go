package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// workloadList returns the reproductions `leakui work NAME` runs, in the order its
// usage prints them (by name).
func workloadList() []command {
	return []command{
		{"broker", "a kfake Kafka broker in its own process: prints host:port, serves until stdin closes", runWorkBroker},
		{"checkpoint", "SAMZA-2785: a new checkpoint manager per rebalance, leaking the consumer of each one interrupted in its first read", runWorkCheckpoint},
		{"recovery", "KAFKA-3933: recover Kafka log segments with leaky or fixed deep iterators", runWorkRecovery},
	}
}

// runWork dispatches `leakui work NAME [flags]`.
func runWork(ctx context.Context, args []string, std stdio) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintln(std.err, "Usage: leakui work WORKLOAD [flags]\n\nWorkloads:")
		for _, w := range workloadList() {
			fmt.Fprintf(std.err, "  %-12s %s\n", w.name, w.summary)
		}
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	w, ok := lookupCommand(workloadList(), args[0])
	if !ok {
		fmt.Fprintf(std.err, "leakui work: unknown workload %q\n", args[0])
		return errUsage
	}
	return w.run(ctx, args[1:], std)
}

// workFlags are the flags every workload shares.
type workFlags struct {
	pprofAddr string
	logPath   string
	hold      time.Duration
	json      bool
	sync      bool
}

// register adds -pprof, -log, -hold and -json to fs.
func (f *workFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.pprofAddr, "pprof", "127.0.0.1:0", "serve net/http/pprof and expvar on this address (the bound address is printed)")
	fs.StringVar(&f.logPath, "log", "", "write the workload's log to this file ('-' for stderr; default: no log)")
	fs.DurationVar(&f.hold, "hold", 0, "stay alive this long after the last step, so a profiler can take a final snapshot")
	fs.BoolVar(&f.json, "json", false, "write JSON event lines on stdout (what the lab reads)")
	fs.BoolVar(&f.sync, "sync", false, "after every ready and progress event, wait for a line on stdin (the lab snapshots at exact steps)")
}

// workSession is what a running workload shares with the lab: its debug endpoint,
// its event stream and its log.
type workSession struct {
	Debug    *child.DebugServer
	Events   *child.Emitter
	Log      io.Writer
	closeLog func() error
}

// open starts the debug endpoint and the log, then emits the ready event.
func (f *workFlags) open(std stdio) (*workSession, error) {
	s := &workSession{Events: child.NewEmitter(std.out, f.json), Log: nopWriter{}, closeLog: func() error { return nil }}
	if f.sync {
		s.Events.SyncWith(std.in)
	}
	switch f.logPath {
	case "":
	case "-":
		s.Log = std.err
	default:
		file, err := os.Create(f.logPath)
		if err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
		s.Log, s.closeLog = file, file.Close
	}
	d, err := child.ListenDebug(f.pprofAddr)
	if err != nil {
		s.closeLog()
		return nil, err
	}
	s.Debug = d
	if err := s.Events.Emit(child.Event{Kind: child.EventReady, Pprof: d.Addr()}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the debug endpoint and closes the log file.
func (s *workSession) Close() error {
	err := s.Debug.Close()
	if cerr := s.closeLog(); err == nil {
		err = cerr
	}
	return err
}

// nopWriter discards the log when no -log is given.
type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
