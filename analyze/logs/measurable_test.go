package logs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// realBrokerLogs are the real Kafka broker logs of testdata/logs.
var realBrokerLogs = []string{
	"kafka-2.1.1-broker-server.log.2020-02-13-23",
	"kafka-2.1.1-broker-server.log.2020-02-14-00",
	"kafka-3.6.2-broker-server.log",
}

// TestNoPairReadsAsBalancedWithoutItsLines counts every real log of testdata
// (and an empty one) with every preset: a pair neither of whose patterns
// matched a line is not measurable, says why and rests on nothing; a pair with
// lines is measurable. Some pairs of each kind occur, or the test proves nothing.
func TestNoPairReadsAsBalancedWithoutItsLines(t *testing.T) {
	paths := append(fixtures.Glob(t, "logs", "*"), writeLog(t, "empty.log", ""))
	var unmeasured, measured int
	for _, path := range paths {
		for _, preset := range Presets() {
			rep := countFiles(t, countVariant{}, CountOptions{Preset: preset.Name}, path)
			for _, p := range rep.Pairs {
				what := fmt.Sprintf("%s, %s, %s", filepath.Base(path), preset.Name, p.Name)
				if p.Starts+p.Closes == 0 {
					unmeasured++
					if p.Measurable || p.Basis != BasisNone || !strings.HasPrefix(p.NotMeasurable, "Not measurable: no line matches") {
						t.Errorf("%s: no line, yet measurable %v, basis %q, reason %q", what, p.Measurable, p.Basis, p.NotMeasurable)
					}
					continue
				}
				measured++
				if !p.Measurable || p.NotMeasurable != "" || p.Basis == BasisNone {
					t.Errorf("%s: %d starts and %d closes, yet measurable %v, basis %q, reason %q", what, p.Starts, p.Closes, p.Measurable, p.Basis, p.NotMeasurable)
				}
			}
		}
	}
	if unmeasured == 0 || measured == 0 {
		t.Errorf("%d pairs without lines and %d with: the fixtures should give both", unmeasured, measured)
	}
}

// TestKafka3933PresetOnRealBrokerLogs counts each real Kafka broker log with
// the KAFKA-3933 preset: every recovery line it counts is what grep -c counts,
// the deep-iterator pair is not measurable and says why (no broker logs its
// iterators), and the recovery time is not measurable either, because none of
// these brokers recovered a segment.
func TestKafka3933PresetOnRealBrokerLogs(t *testing.T) {
	completed := map[string]int64{"kafka-2.1.1-broker-server.log.2020-02-14-00": 51}
	for _, name := range realBrokerLogs {
		path := fixtures.Path(t, "logs", name)
		for _, v := range []countVariant{{name: "default"}, {name: "stream", stream: true}, {name: "tiny parts", block: 64, part: 100, worker: 3}} {
			rep := countFiles(t, v, CountOptions{Preset: "kafka-3933"}, path)
			for _, pc := range rep.Patterns {
				if g := grepCount(t, Pattern{pc.Pattern, pc.Regexp}, path); pc.Count != g {
					t.Errorf("%s %s: %q counted %d, grep -c %d", name, v.name, pc.Pattern, pc.Count, g)
				}
			}
			if c, _ := rep.Pattern("Completed load of log"); c.Count != completed[name] {
				t.Errorf("%s %s: %d logs loaded, want %d", name, v.name, c.Count, completed[name])
			}
			p, _ := rep.Pair("deep iterators")
			if p.Measurable || p.Open != 0 || !strings.Contains(p.NotMeasurable, "leakui.recovery.model") {
				t.Errorf("%s %s: deep iterators measurable %v, open %d, reason %q", name, v.name, p.Measurable, p.Open, p.NotMeasurable)
			}
			if len(rep.Spans) != 1 || rep.Spans[0].Measurable || rep.Spans[0].Start != nil ||
				!strings.Contains(rep.Spans[0].NotMeasurable, "unclean shutdown") {
				t.Errorf("%s %s: spans %+v, want the recovery time not measurable: no segment recovered", name, v.name, rep.Spans)
			}
		}
	}
}

// brokerRecoveryLog is a Kafka 0.10.0.0 broker's log of a recovery, its lines
// written with the formats of apache/kafka 0.10.0.0 (LogManager.scala:110,
// Log.scala:265, :108, LogSegment.scala:198, LogManager.scala:174,
// KafkaServer.scala:261): an OutOfMemoryError of an earlier start comes first,
// then logs load and recover until, when oom is set, the OutOfMemoryError.
func brokerRecoveryLog(oom bool) string {
	var b strings.Builder
	b.WriteString("[2016-07-05 09:58:01,002] FATAL Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n")
	b.WriteString("java.lang.OutOfMemoryError: Java heap space\n")
	b.WriteString("[2016-07-05 10:00:00,000] INFO Loading logs. (kafka.log.LogManager)\n")
	b.WriteString("[2016-07-05 10:00:00,250] INFO Completed load of log clean-0 with log end offset 12 (kafka.log.Log)\n")
	for i := range 40 {
		fmt.Fprintf(&b, "[2016-07-05 10:00:%02d,%03d] INFO Recovering unflushed segment %d in log events-%d. (kafka.log.Log)\n", 1+i, 100+i, i*1000, i)
		fmt.Fprintf(&b, "[2016-07-05 10:00:%02d,%03d] INFO Completed load of log events-%d with log end offset %d (kafka.log.Log)\n", 1+i, 900+i, i, i*1000+999)
		if oom && i == 30 {
			b.WriteString("[2016-07-05 10:00:31,950] ERROR There was an error in one of the threads during logs loading: java.lang.OutOfMemoryError (kafka.log.LogManager)\n")
			b.WriteString("[2016-07-05 10:00:31,960] FATAL Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n")
			b.WriteString("java.lang.OutOfMemoryError\n\tat java.util.zip.Inflater.init(Native Method)\n")
			break
		}
	}
	return b.String()
}

// TestRecoverySpan measures the time from the first segment recovered to the
// OutOfMemoryError that follows it (not the one of an earlier start, and not a
// log loaded in between), or, without one, to the last log loaded, however the
// log is cut into parts.
func TestRecoverySpan(t *testing.T) {
	for _, c := range []struct {
		name      string
		oom       bool
		endLine   int64
		ms        int64
		endedBy   string
		startLine int64
	}{
		{"out of memory", true, 67, 30850, "java.lang.OutOfMemoryError", 5},
		{"loaded", false, 84, 39839, "Completed load of log", 5},
	} {
		path := writeLog(t, "server.log", brokerRecoveryLog(c.oom))
		for _, v := range countVariants {
			if v.compress != "" {
				continue
			}
			rep := countFiles(t, v, CountOptions{Preset: "kafka-3933"}, path)
			sp := rep.Spans[0]
			if !sp.Measurable || sp.Start == nil || sp.End == nil || sp.Start.Line != c.startLine || sp.End.Line != c.endLine ||
				sp.Millis != c.ms || sp.EndedBy != c.endedBy {
				t.Errorf("%s, %s: span %+v (start %v, end %v); want line %d to line %d (%s), %d ms", c.name, v.name, sp, sp.Start, sp.End,
					c.startLine, c.endLine, c.endedBy, c.ms)
			}
		}
	}
	// Before any recovery only: nothing follows the first recovery.
	path := writeLog(t, "server.log", "[2016-07-05 10:00:01,000] INFO Completed load of log a-0 with log end offset 1 (kafka.log.Log)\n"+
		"[2016-07-05 10:00:02,000] INFO Recovering unflushed segment 0 in log b-0. (kafka.log.Log)\n")
	sp := countFiles(t, countVariant{}, CountOptions{Preset: "kafka-3933"}, path).Spans[0]
	if sp.Measurable || sp.Start == nil || sp.End != nil || !strings.Contains(sp.NotMeasurable, "follows the first") {
		t.Errorf("a recovery with nothing after it: %+v", sp)
	}
	// Without timestamps.
	path = writeLog(t, "server.log", "Recovering unflushed segment 0 in log b-0.\njava.lang.OutOfMemoryError\n")
	sp = countFiles(t, countVariant{}, CountOptions{Preset: "kafka-3933"}, path).Spans[0]
	if sp.Measurable || sp.End == nil || sp.End.Line != 2 || !strings.Contains(sp.NotMeasurable, "no timestamp") {
		t.Errorf("lines without timestamps: %+v", sp)
	}
}

// samzaSharedIDLog is a container log as upstream Samza writes it: every
// consumer of the job is "kafka:kafka_consumer-<job>-<id>" (KafkaSystemFactory.scala:45),
// each poll thread has a name of its own (KafkaConsumerProxy.java:89-92). Five
// consumers start; the second and the fourth are stopped.
func samzaSharedIDLog() string {
	var b strings.Builder
	line := func(s int, thread, logger, msg string) {
		fmt.Fprintf(&b, "2023-06-21 10:00:%02d.000 [%s] %s [INFO] %s\n", s, thread, logger, msg)
	}
	const id = "kafka:kafka_consumer-orders-1"
	for i := range 5 {
		thread := fmt.Sprintf("Samza KafkaConsumerProxy Poll Thread-%d - kafka", 3+i)
		line(10*i, "main", "KafkaCheckpointManager", "Starting the checkpoint SystemConsumer from oldest offset 0")
		line(10*i+1, thread, "KafkaConsumerProxy", "Starting consumer poll thread "+thread+" for system kafka")
		line(10*i+2, "main", "KafkaSystemConsumer", id+": Consumer started")
		if i == 1 || i == 3 {
			line(10*i+3, "main", "KafkaCheckpointManager", "Stopping system consumer")
			line(10*i+4, "main", "KafkaSystemConsumer", id+": Stopping Samza kafkaConsumer ")
			line(10*i+5, "main", "KafkaConsumerProxy", "Shutting down KafkaConsumerProxy poll thread "+thread+" for consumerProxy-kafka-kafka_consumer-orders-1")
		}
	}
	return b.String()
}

// TestSharedKeysFallBackToCounts counts upstream's shared client id with the
// SAMZA-2785 preset: the consumers' key was started again while open, so that
// pair's balance rests on the counts and says why, while the poll threads, one
// name per consumer, list the three never shut down. A key reused only after it
// was closed stays a key.
func TestSharedKeysFallBackToCounts(t *testing.T) {
	path := writeLog(t, "container.log", samzaSharedIDLog())
	for _, v := range []countVariant{{name: "default"}, {name: "stream", stream: true}, {name: "a line per part", block: 16, part: 1, worker: 3}} {
		rep := countFiles(t, v, CountOptions{Preset: "samza-2785"}, path)
		kc, _ := rep.Pair("kafka consumers")
		if kc.Starts != 5 || kc.Closes != 2 || kc.Open != 3 || kc.Basis != BasisCounts || kc.KeysShared != 1 ||
			kc.SharedKey != "kafka:kafka_consumer-orders-1" || kc.SharedKeyPeak != 3 ||
			!strings.Contains(kc.Fallback, "KafkaSystemFactory.scala:45") || !strings.Contains(kc.Fallback, "3 open at once") {
			t.Errorf("%s: kafka consumers %d/%d/%d basis %q shared %d %q peak %d; fallback %q", v.name, kc.Starts, kc.Closes, kc.Open,
				kc.Basis, kc.KeysShared, kc.SharedKey, kc.SharedKeyPeak, kc.Fallback)
		}
		pt, _ := rep.Pair("consumer poll threads")
		var open []string
		for _, k := range pt.UnclosedKeys {
			open = append(open, k.Key)
		}
		if pt.Starts != 5 || pt.Closes != 2 || pt.Basis != BasisKeys || pt.KeysShared != 0 || pt.Fallback != "" ||
			strings.Join(open, ",") != "Samza KafkaConsumerProxy Poll Thread-3 - kafka,Samza KafkaConsumerProxy Poll Thread-5 - kafka,Samza KafkaConsumerProxy Poll Thread-7 - kafka" {
			t.Errorf("%s: poll threads %d/%d basis %q shared %d, never shut down %q", v.name, pt.Starts, pt.Closes, pt.Basis, pt.KeysShared, open)
		}
		if cp, _ := rep.Pair("checkpoint consumers"); cp.Basis != BasisCounts || cp.Open != 3 || !cp.Measurable {
			t.Errorf("%s: checkpoint consumers %+v", v.name, cp)
		}
	}
	// Started, closed and started again: one at a time, the key still names one.
	path = writeLog(t, "reuse.log", "start k=a\nstop k=a\nstart k=a\nstart k=b\n")
	for _, v := range []countVariant{{name: "default"}, {name: "a line per part", block: 16, part: 1, worker: 3}} {
		p := countFiles(t, v, CountOptions{Key: `k=(\w+)`, Pairs: []Pair{{Name: "things", Start: Literal("start"), Close: Literal("stop")}}}, path).Pairs[0]
		if p.Basis != BasisKeys || p.KeysShared != 0 || len(p.UnclosedKeys) != 2 {
			t.Errorf("%s: basis %q, %d shared, %s", v.name, p.Basis, p.KeysShared, showKeys(p.UnclosedKeys))
		}
	}
}
