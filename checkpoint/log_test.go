package checkpoint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"

	"github.com/leakui/leakui/internal/greptest"
)

// samzaLine is Samza's log4j layout: "2020-02-25 03:21:02.227 [main] Logger [INFO] msg".
var samzaLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[[^\]]+\] [\w.]+ \[(INFO|WARN|ERROR)\] .*$`)

// javaThrowableLine is the line log4j writes under an ERROR line with a throwable:
// the exception's class and message.
var javaThrowableLine = regexp.MustCompile(`^(?:[a-z]\w*\.)+[A-Z]\w*(?:Exception|Error)(?:: .*)?$`)

func TestLogLayout(t *testing.T) {
	var buf bytes.Buffer
	l := NewLog(&buf)
	l.now = func() time.Time { return time.Date(2020, 2, 25, 3, 21, 2, 227_000_000, time.UTC) }
	l.Info("main", "SamzaContainer", "Shutting down SamzaContainer.")
	l.Warn("main", LoggerSystemConsumer, "kafka:c-1: Attempting to stop stopped consumer.")
	l.Error("main", LoggerSystemConsumer, "offset \"1\nforged line\r\"")
	l.Throwable("main", LoggerSamzaContainer, LevelError, "Caught exception/error while initializing container.", "org.apache.samza.SamzaException: a\nb")
	want := "2020-02-25 03:21:02.227 [main] SamzaContainer [INFO] Shutting down SamzaContainer.\n" +
		"2020-02-25 03:21:02.227 [main] KafkaSystemConsumer [WARN] kafka:c-1: Attempting to stop stopped consumer.\n" +
		"2020-02-25 03:21:02.227 [main] KafkaSystemConsumer [ERROR] offset \"1\\nforged line\\r\"\n" +
		"2020-02-25 03:21:02.227 [main] SamzaContainer [ERROR] Caught exception/error while initializing container.\n" +
		"org.apache.samza.SamzaException: a\\nb\n"
	if buf.String() != want {
		t.Errorf("log =\n%s\nwant\n%s", buf.String(), want)
	}
	var nilLog *Log
	nilLog.Info("main", "X", "a nil log discards") // must not panic
	if nilLog.Err() != nil {
		t.Error("a nil log reports an error")
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, fmt.Errorf("disk full")
}

func TestLogKeepsTheFirstWriteError(t *testing.T) {
	fw := &failingWriter{}
	l := NewLog(fw)
	l.Info("main", "X", "one")
	l.Info("main", "X", "two")
	if l.Err() == nil || fw.n != 1 {
		t.Errorf("err %v after %d writes; want the error and no write after it", l.Err(), fw.n)
	}
}

// grepCount runs the real grep -c -F on file: the anchor an SRE uses.
func grepCount(t *testing.T, pattern, file string) int64 {
	return greptest.Count(t, pattern, false, file)
}

func TestLogCountsEqualTheCounters(t *testing.T) {
	testtool.Require(t, "grep", "grep")
	const cycles, tasks = 15, 3
	b := startBrokerProcess(t)
	for _, c := range []struct {
		sc Scenario
		v  Variant
		m  Mode
	}{
		{Storm, Leaky, Active},
		{Storm, PR1674, Active},
		{Steady, Leaky, Standby},
		{Reuse, Leaky, Active},
		{Reuse, GuardStart, Active},
	} {
		t.Run(fmt.Sprintf("%s/%s/%s", c.sc, c.v, c.m), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "samza.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := run(t, b, Config{Scenario: c.sc, Variant: c.v, Mode: c.m, ReadFraction: 0.2, Cycles: cycles, Tasks: tasks, Log: f})
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				pattern string
				want    int64
			}{
				{"Creating KafkaCheckpointManager for checkpointTopic:" + res.Topic, res.Containers},
				{"Starting the checkpoint SystemConsumer from oldest offset", cycles},
				{": Consumer started", res.ConsumerStarts},
				{"Stopping system consumer", res.ManagerConsumerStops},
				{"Stopping Samza kafkaConsumer ", res.ConsumerStops},
				{"Registering ssp: SystemStreamPartition [kafka, " + res.Topic + ", 0] with offset: 0", res.ConsumerStarts},
				// The container's error and the processor's each print the exception.
				{"org.apache.samza.SamzaException: KafkaSystemConsumer: kafka:kafka_consumer-" + strings.ReplaceAll(jobName(t), "-", "_") + "-1 had started. Registration of ssp: SystemStreamPartition [kafka, " + res.Topic + ", 0], offset: 0 failed.", 2 * res.RefusedRegistrations},
				{"Got checkpoint state for taskName - ", res.CheckpointsRead},
				{"Read ", res.TopicReads},                           // "Read <n> messages from system:kafka topic:<t>"
				{"Received an interrupt during initialization.", 0}, // upstream's start() swallows the interrupt
				{"Caught exception/error while initializing container.", res.FailedContainers},
				{"failed with an exception. Stopping the stream processor", res.FailedContainers},
				{"leakui.checkpoint.model [INFO] The stream processor ", res.ProcessorRestarts},
				{"Starting consumer poll thread Samza KafkaConsumerProxy Poll Thread-", res.ConsumerStarts},
				{"Shutting down KafkaConsumerProxy poll thread Samza KafkaConsumerProxy Poll Thread-", res.ConsumerStops},
				{"kafka:kafka_consumer-" + strings.ReplaceAll(jobName(t), "-", "_") + "-1: Consumer started", res.ConsumerStarts},
				{"Reading checkpoint for taskName ", res.CheckpointsRead + res.Interrupts},
				{"CheckpointManager stopped.", cycles},
				{"Attempting to", 0}, // no second start, no stop of a stopped consumer
			} {
				if got := grepCount(t, p.pattern, path); got != p.want {
					t.Errorf("grep -c %q = %d, want %d", p.pattern, got, p.want)
				}
			}
			if c.sc == Storm {
				if got := grepCount(t, "Reading checkpoints for the first time", path); got != cycles || res.FirstReads+res.Interrupts != cycles {
					t.Errorf("grep -c 'Reading checkpoints for the first time' = %d, %d read and %d interrupted; want every one of the %d containers", got, res.FirstReads, res.Interrupts, cycles)
				}
			}
			checkLayout(t, path)
		})
	}
}

// checkLayout checks that every line of the log has Samza's layout.
func checkLayout(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	n, afterError := 0, false
	for s.Scan() {
		n++
		m := samzaLine.FindStringSubmatch(s.Text())
		if m == nil && !(afterError && javaThrowableLine.MatchString(s.Text())) {
			t.Fatalf("line %d is not in Samza's layout, nor a throwable under an ERROR line: %q", n, s.Text())
		}
		afterError = m != nil && m[1] == LevelError
	}
	if n == 0 {
		t.Fatal("empty log")
	}
}
