package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/leakui/leakui/checkpoint"
)

// workBrokerEnv marks a process started as the checkpoint workload's broker; the
// test binary, which cannot take `work broker` as arguments, looks for it.
const workBrokerEnv = "LEAKUI_WORK_BROKER"

// runWorkBroker runs `leakui work broker`: an embedded kfake broker that prints its
// host:port on stdout and serves until stdin closes or a signal comes. The
// checkpoint workload starts it as its child, so the workload's profiles hold the
// Samza side only.
func runWorkBroker(ctx context.Context, args []string, std stdio) error {
	if len(args) > 0 {
		fmt.Fprintf(std.err, "leakui work broker: unexpected argument %q (it takes none)\n", args[0])
		return errUsage
	}
	return checkpoint.ServeBroker(ctx, std.in, std.out)
}

// brokerCommand is the command line that starts `leakui work broker`: this same
// binary, with workBrokerEnv set.
func brokerCommand() (argv, env []string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("broker process: %w", err)
	}
	return []string{exe, "work", "broker"}, []string{workBrokerEnv + "=1"}, nil
}

// choiceUsage lists the choices of a -variant or -scenario flag for -h: their
// names joined by "|", then each on a line of its own with its description.
func choiceUsage[C interface {
	~string
	Description() string
}](choices []C) string {
	names := make([]string, len(choices))
	lines := ""
	for i, c := range choices {
		names[i] = string(c)
		lines += "\n  " + string(c) + ": " + c.Description()
	}
	return strings.Join(names, "|") + lines
}
