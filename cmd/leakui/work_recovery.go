package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/leakui/leakui/lab/child"
	"github.com/leakui/leakui/recovery"
)

// recoveryFlags are the flags of `leakui work recovery`.
type recoveryFlags struct {
	work          workFlags
	variant       string
	codec         string
	format        string
	quietHeap     bool
	decoders      string
	partitions    int
	segments      int
	batches       int
	records       int
	valueBytes    int
	indexInterval int
	dir           string
	writeOnly     bool
	corruptBatch  int
	corruptTail   bool
	jvmOut        string
}

func (f *recoveryFlags) register(fs *flag.FlagSet) {
	d := recovery.DefaultLogConfig()
	fs.StringVar(&f.variant, "variant", "leaky", "how a compressed batch's first offset is read: leaky (0.10.0.0: deep iterator never closed), close, drain (0.10.0.1) or header (modern Kafka); jvm runs the JVM reference (GzipLeak.java, needs a JDK) on the streams leaky leaves open")
	fs.StringVar(&f.jvmOut, "jvm-out", "", "with -variant jvm, the directory for the JVM's jcmd outputs (default: jvm/ in the log directory)")
	fs.StringVar(&f.codec, "codec", d.Codec.String(), "compression of the written batches: none, gzip, snappy, lz4 or zstd (zstd: record batches v2 only; its goroutine leak is klauspost/compress's, not Kafka's)")
	fs.StringVar(&f.format, "format", "", "message format of the written log: v0 or v1 (message sets of Kafka 0.10, a compressed batch is one wrapper message) or v2 (record batches, Kafka 0.11+); default v0, v2 for zstd")
	fs.BoolVar(&f.quietHeap, "quiet-heap", true, "recover without garbage collection until the Go heap reaches 1 GiB (GOGC=off GOMEMLIMIT=1GiB), like a JVM whose almost empty heap never collects, so unclosed gzip streams are not finalized; an explicit GOGC in the environment wins")
	fs.StringVar(&f.decoders, "decoders", recovery.DecodersModel.String(), "decompressors: model (gzip: off-heap JVM zlib model; zstd: klauspost NewReader defaults) or kafka-go (kafka-go's pooled codecs)")
	fs.IntVar(&f.partitions, "partitions", d.Partitions, "partitions to write")
	fs.IntVar(&f.segments, "segments", d.Segments, "segments per partition")
	fs.IntVar(&f.batches, "batches", d.BatchesPerSegment, "record batches per segment")
	fs.IntVar(&f.records, "records", d.RecordsPerBatch, "records per batch")
	fs.IntVar(&f.valueBytes, "value-bytes", d.ValueBytes, "bytes per record value")
	fs.IntVar(&f.indexInterval, "index-interval", d.IndexIntervalBytes, "bytes between offset index entries (Kafka's index.interval.bytes; 1 indexes every batch)")
	fs.StringVar(&f.dir, "dir", "", "log directory; an existing log there is recovered as it is (default: a temporary directory removed at exit)")
	fs.BoolVar(&f.writeOnly, "write-only", false, "write the log into -dir and exit without recovering it")
	fs.IntVar(&f.corruptBatch, "corrupt-batch", -1, "after writing, flip one byte in the middle of the compressed payload of this batch of partition 0's first segment and recompute its CRC: only variants that decompress it to the end see it (-1: none)")
	fs.BoolVar(&f.corruptTail, "corrupt-trailer", false, "with -corrupt-batch, flip a byte of the gzip trailer (its CRC-32) instead")
}

// runWorkRecovery is `leakui work recovery`: write a Kafka log directory, then
// recover it the way the chosen variant does, reporting every segment and ending
// with a one-line verdict. With no flags it is KAFKA-3933 as it happened: gzip
// in message format v0, recovered by 0.10.0.0 (leaky) under a quiet heap.
func runWorkRecovery(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("work recovery", "", std.err)
	var f recoveryFlags
	f.work.register(fs)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(std.err, "leakui work recovery: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	jvm := f.variant == "jvm"
	if jvm {
		f.variant = "leaky" // the streams the JVM leaves open are leaky's
	}
	logCfg, recCfg, err := f.configs()
	if err == nil && jvm && (logCfg.Format != recovery.FormatV0 || logCfg.Codec != recovery.CodecGzip) {
		err = errors.New("-variant jvm reproduces 0.10.0.0 over gzip wrappers of message format v0")
	}
	if err != nil {
		fmt.Fprintf(std.err, "leakui work recovery: %v\n", err)
		return errUsage
	}
	if f.writeOnly && f.dir == "" {
		fmt.Fprintln(std.err, "leakui work recovery: -write-only needs -dir")
		return errUsage
	}
	dir := f.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "leakui-recovery-*"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	existing, err := holdsLog(dir)
	if errors.Is(err, errNotALogDir) {
		fmt.Fprintf(std.err, "leakui work recovery: %s\n", visible(err.Error()))
		return errUsage
	}
	if err != nil {
		return err
	}
	if jvm && existing {
		fmt.Fprintln(std.err, "leakui work recovery: -variant jvm writes its own log; -dir already holds one")
		return errUsage
	}
	if f.corruptBatch >= 0 && existing {
		fmt.Fprintln(std.err, "leakui work recovery: -corrupt-batch damages the log it writes; -dir already holds one")
		return errUsage
	}
	if f.writeOnly && existing {
		fmt.Fprintf(std.err, "leakui work recovery: %s already holds a log; remove it or choose another -dir\n", visible(dir))
		return errUsage
	}

	sess, err := f.work.open(std)
	if err != nil {
		return err
	}
	defer sess.Close()
	fail := func(err error) error {
		msg := err.Error()
		if ctx.Err() != nil {
			msg = "interrupted: " + msg
		}
		sess.Events.Emit(child.Event{Kind: child.EventError, Message: msg})
		return err
	}

	var damage *recovery.DamageReport
	if !existing {
		start := time.Now()
		var emitErr error
		logCfg.Progress = func(p recovery.WriteProgress) {
			if emitErr == nil {
				emitErr = sess.Events.Emit(writeProgressEvent(p))
			}
		}
		info, err := recovery.WriteLog(ctx, dir, logCfg)
		if err != nil {
			return fail(fmt.Errorf("write log: %w", err))
		}
		if emitErr != nil {
			return emitErr
		}
		if f.corruptBatch >= 0 {
			rep, err := recovery.Corrupt(dir, logCfg, recovery.Damage{Batch: f.corruptBatch, Trailer: f.corruptTail})
			if err != nil {
				return fail(fmt.Errorf("corrupt batch %d: %w", f.corruptBatch, err))
			}
			damage = &rep
		}
		if jvm {
			return runJVMRecovery(ctx, sess, &f, dir, logCfg, info, std, fail)
		}
		if f.writeOnly {
			err := sess.Events.Emit(child.Event{Kind: child.EventDone, StepName: "partition",
				Step: int64(len(info.Partitions)), Steps: int64(len(info.Partitions)), Memory: child.ReadMemory(),
				Counters: writeCounters(info, time.Since(start))})
			if err != nil {
				return err
			}
			child.Hold(ctx, f.work.hold)
			return nil
		}
	}
	// A broker recovers in a fresh process: drop what writing left on the heap.
	runtime.GC()
	debug.FreeOSMemory()
	quiet := f.quietHeap && os.Getenv("GOGC") == ""
	if quiet {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		if os.Getenv("GOMEMLIMIT") == "" {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
		}
	}

	start := time.Now()
	memBefore := child.ReadMemory()
	gcBase := gcCycles()
	var emitErr error
	recCfg.Log = sess.Log
	recCfg.Progress = func(p recovery.Progress) {
		if emitErr == nil {
			emitErr = sess.Events.Emit(progressEvent(child.EventProgress, p.Counters, p.Offheap, gcCycles()-gcBase, time.Since(start)))
		}
	}
	res, err := recovery.Recover(ctx, dir, recCfg)
	if err != nil {
		return fail(fmt.Errorf("recover: %w", err))
	}
	if emitErr != nil {
		return emitErr
	}
	done := progressEvent(child.EventDone, res.Counters, recovery.ReadOffheap(), gcCycles()-gcBase, time.Since(start))
	done.Counters["partitions"] = int64(len(res.Partitions))
	var end int64
	for _, p := range res.Partitions {
		end += p.LogEndOffset
	}
	done.Counters["log_end_offsets"] = end
	if logCfg.Codec == recovery.CodecGzip && recCfg.Decoders == recovery.DecodersModel {
		// The figure that came from the JVM, for the pages to set beside the
		// model's own, which mincore counts apart from the Go heap.
		done.Counters["jvm_bytes_per_open_stream"] = recovery.JVMGzipStreamBytes
		if resident, err := recovery.OffheapResident(); err == nil {
			done.Counters["offheap_resident_bytes"] = resident
		}
	}
	if damage != nil {
		done.Counters["corrupt_batch_position"] = damage.Position
		done.Counters["corrupt_batch_offset"] = damage.FirstOffset
		done.Counters["corrupt_batch_indexed"] = boolCount(damage.Indexed)
	}
	done.Message = recoveryVerdict(recCfg.Variant, logCfg, res, done.Counters, memBefore, done.Memory) + damageVerdict(recCfg.Variant, logCfg, damage, res)
	if err := sess.Events.Emit(done); err != nil {
		return err
	}
	if !f.work.json {
		fmt.Fprintln(std.out, done.Message)
	}
	child.Hold(ctx, f.work.hold)
	return nil
}

// configs turns the flags into the package's configurations.
func (f *recoveryFlags) configs() (recovery.LogConfig, recovery.RecoverConfig, error) {
	variant, err := recovery.ParseVariant(f.variant)
	if err != nil {
		return recovery.LogConfig{}, recovery.RecoverConfig{}, err
	}
	codec, err := recovery.ParseCodec(f.codec)
	if err != nil {
		return recovery.LogConfig{}, recovery.RecoverConfig{}, err
	}
	decoders, err := recovery.ParseDecoders(f.decoders)
	if err != nil {
		return recovery.LogConfig{}, recovery.RecoverConfig{}, err
	}
	format := recovery.FormatV0
	switch {
	case f.format != "":
		if format, err = recovery.ParseFormat(f.format); err != nil {
			return recovery.LogConfig{}, recovery.RecoverConfig{}, err
		}
	case codec == recovery.CodecZstd:
		format = recovery.FormatV2
	}
	for _, c := range []struct {
		name     string
		value    int
		smallest int
	}{
		{"-partitions", f.partitions, 1}, {"-segments", f.segments, 1}, {"-batches", f.batches, 1},
		{"-records", f.records, 1}, {"-value-bytes", f.valueBytes, 0}, {"-index-interval", f.indexInterval, 1},
	} {
		if c.value < c.smallest {
			return recovery.LogConfig{}, recovery.RecoverConfig{}, fmt.Errorf("%s must be at least %d", c.name, c.smallest)
		}
	}
	logCfg := recovery.LogConfig{
		Partitions: f.partitions, Segments: f.segments, BatchesPerSegment: f.batches, RecordsPerBatch: f.records,
		ValueBytes: f.valueBytes, Codec: codec, Format: format, IndexIntervalBytes: f.indexInterval,
	}
	recCfg := recovery.RecoverConfig{Variant: variant, Decoders: decoders, IndexIntervalBytes: logCfg.IndexIntervalBytes}
	return logCfg, recCfg, nil
}

// errNotALogDir refuses a -dir that holds files but no Kafka log: recovery
// truncates and deletes segment files, so it only works on directories it owns.
var errNotALogDir = errors.New("holds files but no Kafka log (no " + recovery.RecoveryPointFile + "); choose an empty or new directory")

// holdsLog reports whether dir already holds a Kafka log (its recovery-point
// checkpoint). A missing or empty directory holds none; any other is refused.
func holdsLog(dir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, recovery.RecoveryPointFile))
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return false, fmt.Errorf("%s %w", dir, errNotALogDir)
}

// progressEvent is a progress or done line: the keys, the off-heap
// figures the lab charts next to RSS and heap, and the collections so far.
func progressEvent(kind string, c recovery.Counters, off recovery.OffheapStats, gcs uint64, elapsed time.Duration) child.Event {
	return child.Event{
		Kind: kind, StepName: "segment", Step: c.SegmentsDone, Steps: c.Segments, Memory: child.ReadMemory(),
		Counters: map[string]int64{
			"segments_done":               c.SegmentsDone,
			"segments":                    c.Segments,
			"batches":                     c.Batches,
			"records":                     c.Records,
			"bytes":                       c.Bytes,
			"index_entries":               c.IndexEntries,
			"iterators_opened":            c.IteratorsOpened,
			"iterators_closed":            c.IteratorsClosed,
			"iterators_open":              c.IteratorsOpened - c.IteratorsClosed,
			"records_decompressed":        c.RecordsDecompressed,
			"truncations":                 c.Truncations,
			"truncated_bytes":             c.TruncatedBytes,
			"segments_deleted":            c.SegmentsDeleted,
			"offheap_bytes":               off.Bytes,
			"offheap_windows":             off.Blocks,
			"offheap_released_by_close":   off.ReleasedByClose,
			"offheap_released_by_cleanup": off.ReleasedByCleanup,
			"gc_cycles":                   int64(gcs),
			"elapsed_ms":                  elapsed.Milliseconds(),
		},
	}
}

// writePhase is the step name of the write phase's progress events: the lab
// shows them as the run's phase line ("writing segments 3 of 80"), apart from
// the recovery's own steps, the segments recovered.
const writePhase = "writing segments"

// writeProgressEvent is the progress line after a segment written.
func writeProgressEvent(p recovery.WriteProgress) child.Event {
	return child.Event{
		Kind: child.EventProgress, StepName: writePhase, Step: p.SegmentsWritten, Steps: p.Segments, Memory: child.ReadMemory(),
		Counters: map[string]int64{"segments_written": p.SegmentsWritten, "bytes_written": p.Bytes},
	}
}

// writeCounters are the totals of a -write-only run.
func writeCounters(info recovery.LogInfo, elapsed time.Duration) map[string]int64 {
	segments := int64(0)
	for _, p := range info.Partitions {
		segments += int64(len(p.Segments))
	}
	return map[string]int64{
		"partitions":         int64(len(info.Partitions)),
		"segments":           segments,
		"batches":            info.Batches,
		"records":            info.Records,
		"bytes":              info.Bytes,
		"uncompressed_bytes": info.UncompressedBytes,
		"elapsed_ms":         elapsed.Milliseconds(),
	}
}

// gcCycles is the number of completed garbage collections.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
