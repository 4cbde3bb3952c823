// Command leakui is a web dashboard and command-line tool for heap and leak forensics.
//
// Run it with no arguments to serve the dashboard; see -h for every subcommand.
//
// It owns every subcommand, its flags and the wiring. store.go chooses the
// database drivers for the one -db: openStore for the store (a postgres:// URL
// opens store/postgres, anything else is a data directory with store/sqlite's
// file) and openJobs for the job system in the same database; it is the only
// package that imports a driver, web, checkpoint and recovery.
//
// serve opens the store, the server and the lab together and stops them together
// on SIGINT or SIGTERM (requests in flight get -shutdown-timeout). It also owns
// the upload spool (DATA/uploads/<id>, locked while the server runs; the spools of
// dead servers are removed at start), -debug-pprof (loopback addresses only) and
// the -retain duration flag that takes days.
//
// The defaults make `go run ./cmd/leakui` just work: a SQLite file under
// ./leakui-data/ created on first start, an embedded Kafka broker (franz-go's
// kfake, the real Kafka protocol on loopback, in a `leakui work broker` child) for
// the checkpoint workload when no -brokers is given, and 127.0.0.1:8080.
//
// work is the child side of the reproductions: it runs package checkpoint or
// package recovery and reports through package lab/child's events. The
// command-line contract (exit statuses, -json, every command's flags) is in
// docs/cli.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// stdio carries the standard streams, so tests can run subcommands in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand of leakui.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, std stdio) error
}

// commandList returns every subcommand in the order usage prints them (by name).
// Keep the summaries to one line. It is a function rather than a variable because
// the commands' run functions reach back to it (through usage), which a package
// variable's initializer may not.
func commandList() []command {
	return []command{
		{"capture", "capture a JVM (capture jvm PID) or a Go process (capture go URL) into one bundle to upload, in the order that keeps the evidence", runCapture},
		{"count", "count log lines per pattern, start/close pairs and keys never closed (like grep -c)", runCount},
		{"diff", "compare two profiles, as go tool pprof -top -diff_base does", runDiff},
		{"goroutines", "group a goroutine dump or profile by stack; with BASE, what is new or grew", runGoroutines},
		{"hprof", "JVM heap dump (jcmd GC.heap_dump, .hprof or .hprof.gz): leak suspects with their path to a GC root, retained sizes, dominator tree; exit 3 over -fail-share", runHprof},
		{"graph", "draw a profile's call graph as go tool pprof -dot does (DOT or JSON)", runGraph},
		{"histo", "JVM class histogram (jmap -histo, jcmd GC.class_histogram): classes by bytes, or what grew since BASE", runHisto},
		{"labels", "the values of each label key of a profile with their share, as go tool pprof -tags prints them", runLabels},
		{"migrate", "copy a store into another (SQLite into PostgreSQL), then check that every row arrived", runMigrate},
		{"nmt", "JVM native memory (jcmd VM.native_memory summary or summary.diff): categories, growth since BASE; exit 3 on a native leak", runNMT},
		{"series", "find leak suspects in 3+ snapshots of one program (exit 3 when a leak is suspected, 4 when too few snapshots decide nothing)", runSeries},
		{"serve", "serve the dashboard (the default when no command is given)", runServe},
		{"threads", "JVM thread dump (jstack, jcmd Thread.print, SIGQUIT): threads grouped by stack and state, or what grew since BASE", runThreads},
		{"top", "print the top functions of a profile, as go tool pprof -top does", runTop},
		{"work", "run a leak reproduction (checkpoint: SAMZA-2785, recovery: KAFKA-3933)", runWork},
	}
}

// lookupCommand returns the command called name in list.
func lookupCommand(list []command, name string) (command, bool) {
	for _, c := range list {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// exitError asks main to exit with a specific status without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr})
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and turns its error into an exit status.
func run(ctx context.Context, args []string, std stdio) int {
	name := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		usage(std.err)
		return 0
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	cmd, ok := lookupCommand(commandList(), name)
	if !ok {
		fmt.Fprintf(std.err, "leakui: unknown command %q\n\n", name)
		usage(std.err)
		return 2
	}
	newWriter := newVisibleWriter
	if logCommand(name) {
		newWriter = newStrictVisibleWriter
	}
	out, errw := newWriter(std.out), newWriter(std.err)
	defer out.Flush()
	defer errw.Flush()
	std.out, std.err = out, errw
	err := cmd.run(ctx, args, std)
	var exit exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &exit):
		return exit.code
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(std.err, "leakui %s: %s\n", name, visible(err.Error())) // one line, whatever the error quotes
		return 1
	}
}

// logCommand reports whether the command called name writes logs and events
// rather than tables: serve (slog lines), work (events, its workload's log)
// and migrate. Every command writes its output with control characters
// visibly escaped (see visibleWriter); these escape tabs too, so that nothing
// but the line feed ending a record reaches the terminal raw. (slog's text
// handler already quotes what it logs as %q would, which passes unchanged;
// migrate's progress bar draws with \r and an erase code on the terminal
// itself, its text escaped.)
func logCommand(name string) bool { return name == "serve" || name == "work" || name == "migrate" }

// errUsage reports a command-line mistake that the flag package has already explained.
var errUsage = errors.New("usage")

// usage prints every subcommand with its one-line summary.
func usage(w io.Writer) {
	fmt.Fprintln(w, "leakui: heap and leak forensics for Go (and JVM) services.")
	fmt.Fprintln(w, "\nUsage: leakui [command] [flags] [args]\n\nCommands:")
	for _, c := range commandList() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'leakui COMMAND -h' for the flags of one command.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and prints
// its usage on the given writer.
func newFlagSet(name, argsUsage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("leakui "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: leakui %s [flags] %s\n\nFlags:\n", name, argsUsage)
		fmt.Fprint(w, flagDefaults(fs))
	}
	return fs
}

// flagDefaults is fs.PrintDefaults' text with the tab before each usage made
// spaces: the commands' writers show control characters escaped, and a log
// command's escapes tabs too, which printed "\t" before every flag.
func flagDefaults(fs *flag.FlagSet) string {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	s := strings.ReplaceAll(b.String(), "\n    \t", "\n      ")
	return strings.ReplaceAll(s, "\t", "    ") // a one-letter flag's usage follows on its line
}

// parseFlags parses args into fs and maps a parse failure to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
