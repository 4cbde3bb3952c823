package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/leakui/leakui/lab/child"
	"github.com/leakui/leakui/recovery"
)

// runJVMRecovery is `leakui work recovery -variant jvm`: on the log just written,
// the JVM reference (GzipLeak.java on the JDK on PATH) leaves open as many
// GZIPInputStreams as 0.10.0.0's recover leaves deep iterators open — one per
// index entry — over the same wrapper payloads, and reports the JVM's own
// figures. Its jcmd outputs (NMT summaries, class histogram) go to out, with the
// two capture bundles `leakui capture jvm` takes of it before its streams and
// with them open (capture-before.tar.gz, capture-after.tar.gz): what an SRE
// would upload, so that a run and an upload read the same way.
func runJVMRecovery(ctx context.Context, sess *workSession, f *recoveryFlags, dir string, cfg recovery.LogConfig, info recovery.LogInfo, std stdio, fail func(error) error) error {
	out := f.jvmOut
	if _, _, err := recovery.FindJDK(); err != nil {
		return fail(fmt.Errorf("variant jvm: %w", err))
	}
	if out == "" {
		out = filepath.Join(dir, "jvm")
	}
	var streams int64
	for _, p := range info.Partitions {
		streams += int64(p.IndexEntries)
	}
	payloads := filepath.Join(dir, "jvm-payloads.bin")
	n, err := recovery.WriteJVMPayloads(dir, cfg, payloads)
	if err != nil {
		return fail(fmt.Errorf("variant jvm: %w", err))
	}
	counters := map[string]int64{"jvm_streams": streams, "jvm_payloads": int64(n), "index_entries": streams}
	if err := sess.Events.Emit(child.Event{Kind: child.EventProgress, StepName: "running the JVM reference", Step: 1, Steps: 2, Memory: child.ReadMemory(), Counters: counters}); err != nil {
		return err
	}
	res, err := recovery.RunJVMReferenceCaptured(ctx, payloads, int(streams), out, func(ctx context.Context, pid int, phase string) error {
		c := jvmCapture{proc: "/proc", jcmd: findJcmd(filepath.Join("/proc", strconv.Itoa(pid))), timeout: 5 * time.Minute, jcmdArgs: jcmdSmallJVM}
		w, err := c.run(ctx, pid, sess.Log)
		if err != nil {
			return err
		}
		return writeBundle(w, filepath.Join(out, "capture-"+phase+".tar.gz"), stdio{out: io.Discard, err: sess.Log})
	})
	if err != nil {
		return fail(fmt.Errorf("variant jvm: %w", err))
	}
	grown := res.RSSAfter - res.RSSBefore
	for k, v := range map[string]int64{
		"iterators_opened": res.Streams, "iterators_closed": 0, "iterators_open": res.Streams,
		"jvm_rss_before": res.RSSBefore, "jvm_rss_after": res.RSSAfter, "jvm_rss_collected": res.RSSCollected,
		"jvm_nmt_committed_before": res.NMTCommittedBefore, "jvm_nmt_committed_after": res.NMTCommittedAfter,
		"jvm_bytes_per_open_stream": res.BytesPerStream(),
	} {
		counters[k] = v
	}
	verdict := fmt.Sprintf("verdict: %s (JVM reference, OpenJDK on PATH): %d GZIPInputStreams left open after their first message, as 0.10.0.0 leaves its deep iterators, grew the JVM's RSS by %s (%s per stream); Native Memory Tracking saw %s of it (zlib's malloc is not tracked); %s stayed resident after the streams were collected.",
		map[bool]string{true: "LEAK", false: "no leak"}[grown > res.Streams*4096], res.Streams, sizeText(grown), sizeText(res.BytesPerStream()),
		sizeText(res.NMTCommittedAfter-res.NMTCommittedBefore), sizeText(res.RSSCollected-res.RSSBefore))
	done := child.Event{Kind: child.EventDone, StepName: "phase", Step: 2, Steps: 2, Memory: child.ReadMemory(), Counters: counters, Message: verdict}
	if err := sess.Events.Emit(done); err != nil {
		return err
	}
	if !f.work.json {
		fmt.Fprintln(std.out, verdict)
	}
	child.Hold(ctx, f.work.hold)
	return nil
}
