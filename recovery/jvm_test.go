package recovery

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"
	"github.com/leakui/leakui/lab/child"
)

// calibrationStreams is how many streams both sides leave open.
const calibrationStreams = 2000

// Environment of the calibration child.
const (
	envPayloads = "RECOVERY_TEST_PAYLOADS"
	envStreams  = "RECOVERY_TEST_STREAMS"
)

// modelReport is what the Go model's calibration child measured.
type modelReport struct {
	Streams                        int64
	Before, After, Collected       child.Memory
	OffheapAfter, OffheapCollected OffheapStats
	// Resident is what mincore counts of the model's mappings with the streams open.
	Resident int64
}

func init() {
	children["gzipstreams"] = childGzipStreams
}

// calibrationPayloads writes a log of the default shape (gzip, format v0, 20
// records of 512 bytes per wrapper) and the wrapper messages' values, the
// compressed inner message sets a deep iterator reads, to a file of
// length-prefixed payloads that GzipLeak.java reads too.
func calibrationPayloads(t *testing.T) string {
	t.Helper()
	cfg := DefaultLogConfig()
	cfg.Partitions, cfg.Segments, cfg.BatchesPerSegment = 1, 1, 100
	dir, _ := writeLog(t, cfg)
	path := filepath.Join(t.TempDir(), "payloads.bin")
	if n, err := WriteJVMPayloads(dir, cfg, path); err != nil || n != cfg.BatchesPerSegment {
		t.Fatalf("%d payloads: %v", n, err)
	}
	return path
}

// readPayloads reads the file calibrationPayloads writes.
func readPayloads(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for len(b) >= 4 {
		n := int(binary.BigEndian.Uint32(b))
		if n > len(b)-4 {
			return nil, errors.New("truncated payload file")
		}
		out = append(out, b[4:4+n])
		b = b[4+n:]
	}
	return out, nil
}

// childGzipStreams is the model's side of the calibration: the same streams as
// GzipLeak.java, through 0.10.0.0's deep iterator over v0 wrappers, left open.
func childGzipStreams() (any, error) {
	payloads, err := readPayloads(os.Getenv(envPayloads))
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(os.Getenv(envStreams))
	if err != nil {
		return nil, err
	}
	wrapper := MessageHeader{Magic: 0, Attributes: int8(CodecGzip)}
	openOne := func(i int) (*LegacyIterator, error) {
		// Each stream owns its payload, as each wrapper message owned its buffer.
		it, err := OpenLegacyIterator(wrapper, bytes.Clone(payloads[i%len(payloads)]), DecodersModel, false)
		if err != nil {
			return nil, err
		}
		_, err = it.Next()
		return it, err
	}
	// Warm up as the JVM side does, closing what it opens.
	for i := range 200 {
		it, err := openOne(i)
		if err != nil {
			return nil, err
		}
		it.Close()
	}
	runtime.GC()
	runtime.GC()
	rep := modelReport{Streams: int64(n), Before: child.ReadMemory()}
	open := make([]*LegacyIterator, 0, n)
	for i := range n {
		it, err := openOne(i)
		if err != nil {
			return nil, err
		}
		open = append(open, it)
	}
	rep.After, rep.OffheapAfter = child.ReadMemory(), ReadOffheap()
	if rep.Resident, err = OffheapResident(); err != nil {
		return nil, err
	}
	runtime.KeepAlive(open)
	open = nil
	for deadline := time.Now().Add(10 * time.Second); ReadOffheap().Blocks > 0 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	// Give the Go heap's free pages back, so that what stays resident is what
	// the allocator model keeps.
	debug.FreeOSMemory()
	rep.Collected, rep.OffheapCollected = child.ReadMemory(), ReadOffheap()
	return rep, nil
}

// runGzipLeak runs the JVM reference over the payloads, or skips (fails under
// CI=true) without a JDK.
func runGzipLeak(t *testing.T, payloads string, streams int) (JVMResult, string) {
	t.Helper()
	testtool.Require(t, "jdk", "javac")
	testtool.Require(t, "jdk", "java")
	out := t.TempDir()
	rep, err := RunJVMReference(context.Background(), payloads, streams, out)
	if err != nil {
		t.Fatal(err)
	}
	return rep, out
}

// TestGzipModelMatchesTheJVM is the calibration of the gzip model against a real
// JVM: GzipLeak.java and the model open the same number of gzip streams over the
// same payloads (v0 wrapper values written by WriteLog), read the first inner
// message of each and leave them open. The model's growth of the memory outside
// the Go heap per stream must be within ±25% of the JVM's resident-set growth
// per stream (its Java heap committed and touched up front, so the growth is
// native memory).
func TestGzipModelMatchesTheJVM(t *testing.T) {
	payloads := calibrationPayloads(t)
	jvm, out := runGzipLeak(t, payloads, calibrationStreams)
	var model modelReport
	runInChild(t, "gzipstreams", &model, envPayloads+"="+payloads, envStreams+"="+strconv.Itoa(calibrationStreams), "GOGC=off")

	jvmPer := float64(jvm.RSSAfter-jvm.RSSBefore) / float64(jvm.Streams)
	nmtPer := float64(jvm.NMTCommittedAfter-jvm.NMTCommittedBefore) / float64(jvm.Streams)
	jvmKept := float64(jvm.RSSCollected-jvm.RSSBefore) / float64(jvm.RSSAfter-jvm.RSSBefore)
	modelPer := float64(gap(model.After)-gap(model.Before)) / float64(model.Streams)
	modelKept := float64(model.Collected.RSS-model.Before.RSS) / float64(gap(model.After)-gap(model.Before))
	t.Logf("JVM: RSS %+.0f B per stream, NMT committed %+.0f B per stream, %.0f%% of the growth kept after the streams were collected",
		jvmPer, nmtPer, 100*jvmKept)
	t.Logf("model: RSS − heap in use %+.0f B per stream (%.2f× the JVM), %.0f%% kept after collection; heap in use %+d B",
		modelPer, modelPer/jvmPer, 100*modelKept, model.After.HeapInuse-model.Before.HeapInuse)
	residentPer := float64(model.Resident) / float64(model.Streams)
	t.Logf("model: %.0f B resident per stream by mincore (the warm-up's blocks included)", residentPer)
	if r := residentPer / jvmPer; r < 0.75 || r > 1.25 {
		t.Errorf("mincore counts %.0f B per stream, %.2f× the JVM's %.0f B", residentPer, r, jvmPer)
	}
	if jvmPer < 4096 {
		t.Fatalf("the JVM grew by %.0f B per open stream: the reference measured nothing", jvmPer)
	}
	if r := JVMGzipStreamBytes / jvmPer; r < 0.85 || r > 1.15 {
		t.Errorf("JVMGzipStreamBytes (%d) is %.2f× what the JVM measured now (%.0f B): measure it again", JVMGzipStreamBytes, r, jvmPer)
	}
	// Under the race detector its shadow of the Go heap adds to RSS − heap in
	// use; mincore's count above is the model's own either way.
	if r := modelPer / jvmPer; !raceEnabled && (r < 0.75 || r > 1.25) {
		t.Errorf("the model grows by %.0f B per stream, %.2f× the JVM's %.0f B (want within ±25%%)", modelPer, r, jvmPer)
	}
	if model.OffheapAfter.Blocks != model.Streams || model.OffheapCollected.Blocks != 0 ||
		model.OffheapCollected.ReleasedByCleanup-model.OffheapAfter.ReleasedByCleanup != model.Streams {
		t.Errorf("model: %d blocks live with the streams open, %d after collection, %d released by cleanups",
			model.OffheapAfter.Blocks, model.OffheapCollected.Blocks, model.OffheapCollected.ReleasedByCleanup-model.OffheapAfter.ReleasedByCleanup)
	}
	if d := modelKept - jvmKept; !raceEnabled && (d < -0.25 || d > 0.25) {
		t.Errorf("after collection the model keeps %.0f%% of its growth resident, the JVM %.0f%% (want within 25 points)", 100*modelKept, 100*jvmKept)
	}
	// The jcmd outputs: NMT's summary, and a class histogram that counts the
	// open streams' Inflaters.
	nmt, err := os.ReadFile(filepath.Join(out, "nmt-after.txt"))
	if err != nil || !bytes.Contains(nmt, []byte("Native Memory Tracking:")) || jvm.NMTCommittedAfter <= 0 {
		t.Errorf("nmt-after.txt: %v %.200q", err, nmt)
	}
	histo, err := os.ReadFile(filepath.Join(out, "histo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := histogramInstances(histo, "java.util.zip.Inflater"); n < jvm.Streams {
		t.Errorf("the class histogram counts %d java.util.zip.Inflater instances for %d open streams", n, jvm.Streams)
	}
}

// histogramInstances reads the instance count of a class from jcmd
// GC.class_histogram's output ("  12:   2000   96000  java.util.zip.Inflater").
func histogramInstances(histo []byte, class string) int64 {
	for _, line := range bytes.Split(histo, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) >= 4 && string(f[3]) == class {
			n, _ := strconv.ParseInt(string(f[1]), 10, 64)
			return n
		}
	}
	return -1
}
