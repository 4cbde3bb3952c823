package recovery

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// kafkaLines are the lines a Kafka 0.10.0.0 broker writes while it loads and
// recovers its logs, in its log4j layout "[%d] %p %m (%c)%n"
// (config/log4j.properties:26), each with the logger of the class that writes
// it (apache/kafka at tag 0.10.0.0, core/src/main/scala/kafka/log/).
var kafkaLines = []struct {
	where string
	re    *regexp.Regexp
}{
	{"LogManager.scala:110", regexp.MustCompile(`^INFO Loading logs\. \(kafka\.log\.LogManager\)$`)},
	{"Log.scala:265", regexp.MustCompile(`^INFO Recovering unflushed segment \d+ in log \S+\. \(kafka\.log\.Log\)$`)},
	{"LogSegment.scala:198", regexp.MustCompile(`^WARN Found invalid messages in log segment \S+ at byte offset \d+: .+\. \(kafka\.log\.LogSegment\)$`)},
	{"Log.scala:278", regexp.MustCompile(`^WARN Corruption found in segment \d+ of log \S+, truncating to offset \d+\. \(kafka\.log\.Log\)$`)},
	{"Log.scala:820", regexp.MustCompile(`^INFO Scheduling log segment \d+ for log \S+ for deletion\. \(kafka\.log\.Log\)$`)},
	{"Log.scala:834", regexp.MustCompile(`^INFO Deleting segment \d+ from log \S+\. \(kafka\.log\.Log\)$`)},
	{"Log.scala:108", regexp.MustCompile(`^INFO Completed load of log \S+ with log end offset \d+ \(kafka\.log\.Log\)$`)},
	{"LogManager.scala:181", regexp.MustCompile(`^INFO Logs loading complete\. \(kafka\.log\.LogManager\)$`)},
}

// modelLines are the lines only the model writes, under its own logger.
var modelLines = []struct {
	where string
	re    *regexp.Regexp
}{
	{"opened", regexp.MustCompile(`^DEBUG Opened deep iterator \(\w+(?:, magic \d)?\) for the batch at byte offset \d+ in log segment \S+ \(leakui\.recovery\.model\)$`)},
	{"closed", regexp.MustCompile(`^DEBUG Closed deep iterator \(\w+(?:, magic \d)?\) for the batch at byte offset \d+ in log segment \S+ after \d+ (?:messages|records) \(leakui\.recovery\.model\)$`)},
}

var logTimestamp = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] `)

// TestLogLinesAreKafkasOrTheModels recovers damaged logs with every variant and
// checks every line of the log: each is one Kafka 0.10.0.0 writes, word for
// word and under the logger of the class that writes it, or one of the model's
// deep-iterator lines under the model's own logger. No line the model invents
// carries a Kafka logger (kafka.log.LogSegment above all, whose only line here
// is the invalid-messages warning), and every Kafka line above is seen.
func TestLogLinesAreKafkasOrTheModels(t *testing.T) {
	seen := map[string]int{}
	for _, format := range []Format{FormatV0, FormatV1, FormatV2} {
		cfg := damagedLog(format)
		clean, _ := writeLog(t, cfg)
		if _, err := Corrupt(clean, cfg, Damage{Batch: 30}); err != nil {
			t.Fatal(err)
		}
		for _, v := range Variants {
			dir := copyDir(t, clean)
			logFile := filepath.Join(t.TempDir(), "server.log")
			recoverWithLog(t, dir, logFile, v, cfg.IndexIntervalBytes)
			b, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				line := sc.Text()
				stamp := logTimestamp.FindString(line)
				if stamp == "" {
					t.Fatalf("%s %s: line without the log4j timestamp: %q", format, v, line)
				}
				msg, where := line[len(stamp):], ""
				for _, k := range append(kafkaLines, modelLines...) {
					if k.re.MatchString(msg) {
						where = k.where
						break
					}
				}
				if where == "" {
					t.Errorf("%s %s: a line Kafka 0.10.0.0 does not write, and not one of the model's own: %q", format, v, line)
					continue
				}
				seen[where]++
			}
		}
	}
	for _, k := range append(kafkaLines, modelLines...) {
		if seen[k.where] == 0 {
			t.Errorf("no line of %s (%s) was written: the damaged logs should produce every one", k.where, k.re)
		}
	}
	t.Logf("lines by source: %v", seen)
}
