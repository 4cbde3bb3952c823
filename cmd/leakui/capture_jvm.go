package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze/capture"
)

// jvmCapture is how `leakui capture jvm` reaches a JVM: the /proc directory,
// the jcmd to run and how long each step may take.
type jvmCapture struct {
	proc    string
	jcmd    string
	timeout time.Duration
	// jcmdArgs go before the pid: -J options keeping jcmd's own JVM small, so
	// that it starts beside a JVM that uses the machine's memory (and under the
	// lab's address-space limit).
	jcmdArgs []string
}

// jcmdSmallJVM are the -J options of every jcmd leakui runs.
var jcmdSmallJVM = []string{"-J-Xmx64m", "-J-XX:ReservedCodeCacheSize=32m", "-J-XX:CompressedClassSpaceSize=64m", "-J-XX:+UseSerialGC"}

// nmtOffHint says how to turn Native Memory Tracking on.
const nmtOffHint = "Native Memory Tracking is off: start the JVM with -XX:NativeMemoryTracking=summary (it cannot be turned on in a running JVM; it costs a few percent of memory and CPU). Without it, leakui cannot tell memory the JVM tracks from memory it does not."

// attachHint says what jcmd needs to attach.
const attachHint = "jcmd attaches as the JVM's own user, in the JVM's mount namespace: run leakui as that user (sudo -u USER), in the JVM's container (kubectl exec), or from a debug container that shares its process namespace and runs as the same user; a JVM started with -XX:+DisableAttachMechanism cannot be attached."

// runCaptureJVM implements `leakui capture jvm PID -o FILE.tar.gz` and, to
// feed a JVM watch, `leakui capture jvm PID -every 1m -push URL -watch NAME`.
func runCaptureJVM(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("capture jvm", "PID -o FILE.tar.gz | -push URL [-watch NAME -every 1m [-count N]]", std.err)
	out := fs.String("o", "", "write the bundle to this file (.tar.gz; '-' for standard output)")
	jcmd := fs.String("jcmd", "", "the jcmd to run (default: the one beside the JVM's own java, else jcmd on PATH)")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long one step may take (a class histogram of a large heap takes seconds)")
	watchName := fs.String("watch", "", "with -push, push each bundle to this JVM watch of the server (declared there as NAME=jvm,token=…), with its push token (-token or $"+watchTokenEnv+")")
	every := fs.Duration("every", 0, "with -watch, capture and push every this long until interrupted (or -count bundles)")
	count := fs.Int("count", 0, "with -every, stop after this many bundles (0: until interrupted)")
	push := addPushFlags(fs)
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		fs.Usage()
		return errUsage
	}
	if err := checkCaptureOutput(*out, push); err != nil {
		fmt.Fprintln(std.err, "leakui capture jvm:", err)
		return errUsage
	}
	if err := checkWatchPush(*watchName, *every, *count, *out, push); err != nil {
		fmt.Fprintln(std.err, "leakui capture jvm:", err)
		return errUsage
	}
	pid, err := strconv.Atoi(positional[0])
	if err != nil || pid <= 0 {
		fmt.Fprintf(std.err, "leakui capture jvm: %q is not a process id\n", positional[0])
		return errUsage
	}
	c := jvmCapture{proc: "/proc", jcmd: *jcmd, timeout: *timeout, jcmdArgs: jcmdSmallJVM}
	if *watchName != "" {
		return c.pushEvery(ctx, pid, watchPush{push: push, watch: *watchName}, *every, *count, std)
	}
	w, err := c.run(ctx, pid, std.err)
	if err != nil {
		return err
	}
	return finishCapture(ctx, func(path string) error { return writeBundle(w, path, std) }, *out, push, std)
}

// run takes the JVM's evidence in the order that keeps it: /proc first (the
// resident set at one instant), then NMT, the heap, the class histogram with
// -all (no GC: a full GC would let the Cleaner free the unreachable Inflaters
// whose native memory is the leak), the threads, the version and the flags.
// A step that fails is recorded with its error and the rest still run.
func (c jvmCapture) run(ctx context.Context, pid int, progress io.Writer) (*capture.Writer, error) {
	dir := filepath.Join(c.proc, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return nil, fmt.Errorf("no process %d: %w", pid, err)
	}
	target := capture.Target{Host: hostName(), PID: pid}
	target.StartTicks, _ = capture.ParseStatStart(stat)
	if c.jcmd == "" {
		c.jcmd = findJcmd(dir)
	}
	w := capture.NewWriter(capture.KindJVM, target, captureTool, time.Now())
	p := &captureProgress{w: progress, total: len(capture.JVMSteps)}
	fmt.Fprintf(progress, "leakui capture: JVM %d on %s with %s, %d steps\n", pid, target.Host, c.jcmd, len(capture.JVMSteps))
	record := func(s capture.Step, data []byte, err error) {
		s.Finished = time.Now()
		switch {
		case err == nil || s.Hint != "":
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) && strings.HasPrefix(s.Command, "jcmd"):
			s.Hint = noJcmdHint
		case isAttachFailure(err):
			s.Hint = attachHint
		}
		w.Add(s, data, err)
		p.step(s, data, err)
	}
	for _, name := range []string{capture.StepProcStatus, capture.StepSmapsRollup, capture.StepSmaps} {
		file := map[string]string{capture.StepProcStatus: "status", capture.StepSmapsRollup: "smaps_rollup", capture.StepSmaps: "smaps"}[name]
		s := capture.Step{Name: name, Command: filepath.Join(dir, file), Started: time.Now()}
		data, err := os.ReadFile(s.Command)
		record(s, data, err)
	}
	for _, j := range []struct{ step, command string }{
		{capture.StepNMT, "VM.native_memory summary"},
		{capture.StepHeapInfo, "GC.heap_info"},
		{capture.StepClassHistogram, "GC.class_histogram -all"},
		{capture.StepThreads, "Thread.print"},
		{capture.StepVersion, "VM.version"},
		{capture.StepFlags, "VM.flags"},
	} {
		s := capture.Step{Name: j.step, Command: "jcmd " + strconv.Itoa(pid) + " " + j.command, Started: time.Now()}
		data, err := c.jcmdRun(ctx, pid, strings.Fields(j.command))
		if err == nil && j.step == capture.StepNMT && bytes.Contains(data, []byte("Native memory tracking is not enabled")) {
			err, s.Hint = errors.New("native memory tracking is not enabled in this JVM"), nmtOffHint
		}
		record(s, data, err)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return w, nil
}

// jcmdRun runs one jcmd command against pid within the step timeout.
func (c jvmCapture) jcmdRun(ctx context.Context, pid int, command []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	args := append(append(append([]string{}, c.jcmdArgs...), strconv.Itoa(pid)), command...)
	cmd := exec.CommandContext(ctx, c.jcmd, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("jcmd %s timed out after %s", strings.Join(command, " "), c.timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stdout.String() + " " + stderr.String())
		if len(msg) > 400 {
			msg = msg[:400] + "…"
		}
		if msg == "" {
			return nil, fmt.Errorf("jcmd %s: %w", strings.Join(command, " "), err)
		}
		return nil, fmt.Errorf("jcmd %s: %w: %s", strings.Join(command, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// noJcmdHint says what to do without a jcmd.
const noJcmdHint = "no jcmd here: it comes with a JDK (a JRE has none); pass -jcmd PATH to a jcmd of the JVM's major version, or capture from a container that has a JDK (see the capture guide)."

// isAttachFailure tells a jcmd that could not reach the JVM at all.
func isAttachFailure(err error) bool {
	s := err.Error()
	return strings.Contains(s, "AttachNotSupportedException") || strings.Contains(s, "Unable to open socket file") ||
		strings.Contains(s, "Permission denied") || strings.Contains(s, "No such process")
}

// findJcmd returns the jcmd beside the JVM's own java (/proc/PID/exe), so that
// jcmd and the JVM are of one version, else jcmd on PATH.
func findJcmd(procDir string) string {
	if exe, err := os.Readlink(filepath.Join(procDir, "exe")); err == nil {
		j := filepath.Join(filepath.Dir(exe), "jcmd")
		if st, err := os.Stat(j); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return j
		}
	}
	if j, err := exec.LookPath("jcmd"); err == nil {
		return j
	}
	return "jcmd"
}
