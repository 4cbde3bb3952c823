package recovery

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// gzipLeakJava is the JVM reference program, compiled and run by RunJVMReference.
//
//go:embed testdata/jvm/GzipLeak.java
var gzipLeakJava []byte

// ErrNoJDK is returned when javac or java is not on PATH.
var ErrNoJDK = errors.New("no JDK: javac and java must be on PATH (apt-get install -y openjdk-17-jdk-headless)")

// JVMResult is what GzipLeak.java measured.
type JVMResult struct {
	// Streams is how many GZIPInputStreams it left open, over Payloads payloads.
	Streams  int64 `json:"streams"`
	Payloads int64 `json:"payloads"`
	// RSSBefore and RSSAfter are the resident set before and with the streams
	// open; RSSCollected after they were dropped and collected.
	RSSBefore    int64 `json:"rss_before"`
	RSSAfter     int64 `json:"rss_after"`
	RSSCollected int64 `json:"rss_collected"`
	// NMTCommittedBefore and NMTCommittedAfter are Native Memory Tracking's
	// committed totals (jcmd VM.native_memory summary).
	NMTCommittedBefore int64 `json:"nmt_committed_before"`
	NMTCommittedAfter  int64 `json:"nmt_committed_after"`
	// Files are the jcmd outputs it wrote: nmt-before.txt, nmt-after.txt and
	// histo.txt (GC.class_histogram with the streams open).
	Files []string `json:"-"`
}

// BytesPerStream is the resident-set growth per open stream.
func (r JVMResult) BytesPerStream() int64 {
	if r.Streams == 0 {
		return 0
	}
	return (r.RSSAfter - r.RSSBefore) / r.Streams
}

// FindJDK returns the javac and java on PATH, or ErrNoJDK.
func FindJDK() (javac, java string, err error) {
	if javac, err = exec.LookPath("javac"); err != nil {
		return "", "", ErrNoJDK
	}
	if java, err = exec.LookPath("java"); err != nil {
		return "", "", ErrNoJDK
	}
	return javac, java, nil
}

// WriteJVMPayloads writes the values of the compressed wrapper messages in
// partition 0's first segment of the log in dir (what a deep iterator
// decompresses) to path, each prefixed by its length (int32, big-endian), the
// input GzipLeak.java reads. It returns how many it wrote.
func WriteJVMPayloads(dir string, cfg LogConfig, path string) (int, error) {
	if err := cfg.normalize(); err != nil {
		return 0, err
	}
	f, err := os.Open(filepath.Join(dir, PartitionDirName(cfg.Topic, 0), SegmentFileName(0, logSuffix)))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := NewBatchReader(f, st.Size(), 0)
	var out []byte
	n := 0
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		if !b.Legacy() || b.Codec() != CodecGzip {
			return n, fmt.Errorf("%w: the JVM reference reads gzip wrappers of format v0 or v1; the entry at %d is magic %d, %s",
				ErrInvalidConfig, b.Position, b.Magic, b.Codec())
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b.Records())))
		out = append(out, b.Records()...)
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: no wrapper in %s", ErrInvalidConfig, f.Name())
	}
	return n, os.WriteFile(path, out, 0o644)
}

// RunJVMReference compiles GzipLeak.java into a temporary directory and runs it
// on the JDK on PATH over the payloads file: streams GZIPInputStreams left open
// after their first inner message, with the Java heap committed and touched up
// front so that the resident set grows by native memory only, and Native Memory
// Tracking on. The jcmd outputs land in out.
func RunJVMReference(ctx context.Context, payloads string, streams int, out string) (JVMResult, error) {
	return RunJVMReferenceCaptured(ctx, payloads, streams, out, nil)
}

// JVMCapture takes the evidence of the reference JVM (process pid) at a phase,
// "before" its streams or "after" them, while the JVM waits.
type JVMCapture func(ctx context.Context, pid int, phase string) error

// RunJVMReferenceCaptured is RunJVMReference that, with capture set, lets the
// JVM wait before its streams and again with them open while capture takes its
// evidence (as `leakui capture jvm` does on a host).
func RunJVMReferenceCaptured(ctx context.Context, payloads string, streams int, out string, capture JVMCapture) (JVMResult, error) {
	javac, java, err := FindJDK()
	if err != nil {
		return JVMResult{}, err
	}
	if streams < 1 {
		return JVMResult{}, fmt.Errorf("%w: %d streams", ErrInvalidConfig, streams)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return JVMResult{}, err
	}
	src, err := os.MkdirTemp("", "leakui-gzipleak-")
	if err != nil {
		return JVMResult{}, err
	}
	defer os.RemoveAll(src)
	if err := os.WriteFile(filepath.Join(src, "GzipLeak.java"), gzipLeakJava, 0o644); err != nil {
		return JVMResult{}, err
	}
	// javac, java and the jcmd GzipLeak starts are JVMs with small reservations
	// (heap, code cache, class space), so that they start under the lab's
	// address-space limit (-run-memory) as well as without one.
	if b, err := exec.CommandContext(ctx, javac, "-J-Xmx256m", "-J-XX:ReservedCodeCacheSize=64m", "-J-XX:CompressedClassSpaceSize=64m", "-J-XX:+UseSerialGC",
		"-d", src, filepath.Join(src, "GzipLeak.java")).CombinedOutput(); err != nil {
		return JVMResult{}, fmt.Errorf("javac GzipLeak.java: %w: %s", err, bytes.TrimSpace(b))
	}
	// The heap holds the streams' small Java objects: 64 MiB plus 4 KiB a stream.
	heap := strconv.Itoa(64+streams/256) + "m"
	args := []string{"-Xms" + heap, "-Xmx" + heap, "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC",
		"-XX:ReservedCodeCacheSize=64m", "-XX:CompressedClassSpaceSize=64m",
		"-XX:NativeMemoryTracking=summary", "-cp", src, "GzipLeak", payloads, strconv.Itoa(streams), out}
	if capture != nil {
		args = append(args, "capture")
	}
	cmd := exec.CommandContext(ctx, java, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return JVMResult{}, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return JVMResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return JVMResult{}, err
	}
	var last []byte
	var captureErr error
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Bytes()
		phase, ok := bytes.CutPrefix(line, []byte("capture "))
		if !ok {
			if len(bytes.TrimSpace(line)) > 0 {
				last = append(last[:0], line...)
			}
			continue
		}
		if capture != nil && captureErr == nil {
			captureErr = capture(ctx, cmd.Process.Pid, string(phase))
		}
		if _, err := io.WriteString(stdin, "\n"); err != nil && captureErr == nil {
			captureErr = err
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return JVMResult{}, fmt.Errorf("java GzipLeak: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if captureErr != nil {
		return JVMResult{}, fmt.Errorf("capturing GzipLeak: %w", captureErr)
	}
	var res JVMResult
	if err := json.Unmarshal(last, &res); err != nil {
		return res, fmt.Errorf("GzipLeak printed %q: %w", last, err)
	}
	for _, name := range []string{"nmt-before.txt", "nmt-after.txt", "histo.txt"} {
		res.Files = append(res.Files, filepath.Join(out, name))
	}
	return res, nil
}
