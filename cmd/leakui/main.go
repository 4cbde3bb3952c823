// Command leakui is a web dashboard and command-line tool for heap and leak forensics.
//
// Run it with no arguments to serve the dashboard; see -h for every subcommand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// stdio carries the standard streams, so tests can run subcommands in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand of leakui.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, io stdio) error
}

// commands lists every subcommand by name. Keep the summaries to one line.
var commands = map[string]command{
	// "serve" is registered in serve.go.
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
func run(ctx context.Context, args []string, io stdio) int {
	name := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		usage(io.err)
		return 0
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(io.err, "leakui: unknown command %q\n\n", name)
		usage(io.err)
		return 2
	}
	err := cmd.run(ctx, args, io)
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
		fmt.Fprintf(io.err, "leakui %s: %v\n", name, err)
		return 1
	}
}

// errUsage reports a command-line mistake that the flag package has already explained.
var errUsage = errors.New("usage")

// usage prints every subcommand with its one-line summary.
func usage(w io.Writer) {
	fmt.Fprintln(w, "leakui: heap and leak forensics for Go (and JVM) services.")
	fmt.Fprintln(w, "\nUsage: leakui [command] [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-12s %s\n", name, commands[name].summary)
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
		fs.PrintDefaults()
	}
	return fs
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
