package logs

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// writeLog writes a log into the test's temporary directory.
func writeLog(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// countFiles runs Count over several files in order.
func countFiles(t testing.TB, v countVariant, opts CountOptions, paths ...string) *Report {
	t.Helper()
	opts.blockSize, opts.partSize, opts.maxLine, opts.Workers = v.block, v.part, v.maxLine, v.worker
	var inputs []Input
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var r = any(f).(interface{ Read([]byte) (int, error) })
		if v.stream {
			r = streamOnly{f}
		}
		inputs = append(inputs, Input{Name: filepath.Base(p), Reader: r})
	}
	rep, err := Count(context.Background(), opts, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func at(ts string) *time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", ts)
	if err != nil {
		panic(err)
	}
	return &t
}

// TestCountLogsKeysNeverClosed checks the key table on a built log whose answer
// is worked out by hand: a key started twice and closed once, a key started
// without a timestamp (it inherits the line above's), a key closed in the next
// file, a close without a start, a start without a key.
func TestCountLogsKeysNeverClosed(t *testing.T) {
	a := writeLog(t, "a.log", ""+
		"2024-03-01 10:00:00.000 INFO consumer c1 started\n"+ // 1
		"2024-03-01 10:00:01.000 INFO consumer c2 started\n"+ // 2
		"\tat some.stack.Frame(Frame.java:1)\n"+ // 3
		"2024-03-01 10:00:02.000 INFO consumer c1 stopped\n"+ // 4
		"2024-03-01 10:00:03.000 INFO consumer c3 started\n"+ // 5
		"2024-03-01 10:00:04.000 INFO consumer c3 started\n"+ // 6
		"consumer c4 started\n"+ // 7, inherits 10:00:04
		"2024-03-01 10:00:05.000 INFO consumer started\n") // 8, no key
	b := writeLog(t, "b.log", ""+
		"2024-03-01 11:00:00.000 INFO consumer c2 stopped\n"+
		"2024-03-01 11:00:01.000 INFO consumer c3 stopped\n"+
		"2024-03-01 11:00:02.000 INFO consumer c9 stopped\n")
	opts := CountOptions{
		Pairs: []Pair{{Name: "consumers", Start: Literal(" started"), Close: Literal(" stopped")}},
		Key:   `consumer (\S+) (?:started|stopped)`,
	}
	want := []OpenKey{
		{Key: "c3", Starts: 2, Closes: 1, Open: 1,
			First: Place{File: "a.log", Line: 5, Time: at("2024-03-01 10:00:03.000")},
			Last:  Place{File: "a.log", Line: 6, Time: at("2024-03-01 10:00:04.000")}},
		{Key: "c4", Starts: 1, Closes: 0, Open: 1,
			First: Place{File: "a.log", Line: 7, Time: at("2024-03-01 10:00:04.000")},
			Last:  Place{File: "a.log", Line: 7, Time: at("2024-03-01 10:00:04.000")}},
	}
	for _, v := range []countVariant{{name: "default"}, {name: "stream", stream: true},
		{name: "a line per part", block: 16, part: 1, worker: 3}, {name: "tiny", block: 20, part: 60, worker: 2}} {
		rep := countFiles(t, v, opts, a, b)
		p := rep.Pairs[0]
		if p.Starts != 6 || p.Closes != 4 || p.Open != 2 {
			t.Errorf("%s: starts/closes/open %d/%d/%d, want 6/4/2", v.name, p.Starts, p.Closes, p.Open)
		}
		if p.KeysStarted != 4 || p.KeysClosed != 4 || p.UnkeyedStarts != 1 || p.UnkeyedCloses != 0 {
			t.Errorf("%s: keys started %d closed %d, unkeyed %d/%d; want 4, 4, 1/0", v.name, p.KeysStarted, p.KeysClosed, p.UnkeyedStarts, p.UnkeyedCloses)
		}
		if !equalOpenKeys(p.UnclosedKeys, want) {
			t.Errorf("%s: unclosed keys\n got %s\nwant %s", v.name, showKeys(p.UnclosedKeys), showKeys(want))
		}
	}
}

func equalOpenKeys(a, b []OpenKey) bool {
	return slices.EqualFunc(a, b, func(x, y OpenKey) bool {
		return x.Key == y.Key && x.Starts == y.Starts && x.Closes == y.Closes && x.Open == y.Open &&
			equalPlace(x.First, y.First) && equalPlace(x.Last, y.Last)
	})
}

func equalPlace(a, b Place) bool {
	if a.File != b.File || a.Line != b.Line || (a.Time == nil) != (b.Time == nil) {
		return false
	}
	return a.Time == nil || a.Time.Equal(*b.Time)
}

func showKeys(keys []OpenKey) string {
	var s []string
	for _, k := range keys {
		s = append(s, fmt.Sprintf("%s(%d/%d/%d %v %v)", k.Key, k.Starts, k.Closes, k.Open, k.First, k.Last))
	}
	return strings.Join(s, " ")
}

// samzaLog builds a container log in Samza's layout with the production
// evidence of SAMZA-2785 (DESIGN.md): 1741 checkpoint consumers started and 14
// stopped; 168 Kafka consumers started, 3 of them stopped; noise in between,
// including lines that contain the words without being the log lines.
func samzaLog(seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	var b strings.Builder
	t := time.Date(2020, 2, 25, 3, 0, 0, 0, time.UTC)
	emit := func(logger, msg string) {
		t = t.Add(time.Duration(rng.Intn(900)) * time.Millisecond)
		fmt.Fprintf(&b, "%s [main] %s [INFO] %s\n", t.Format("2006-01-02 15:04:05.000"), logger, msg)
	}
	consumers := 0
	for i := 0; i < 1741; i++ {
		emit("KafkaCheckpointManager", fmt.Sprintf("Starting the checkpoint SystemConsumer from oldest offset %d", rng.Intn(5000)))
		if i%10 == 3 && consumers < 168 {
			consumers++
			id := fmt.Sprintf("kafka:samza-consumer-%d", consumers)
			emit("KafkaSystemConsumer", id+": Registering ssp: SystemStreamPartition [kafka, t, 0] with offset: 0")
			emit("KafkaSystemConsumer", id+": Consumer started")
			if consumers == 5 || consumers == 80 || consumers == 150 {
				emit("KafkaSystemConsumer", id+": Stopping Samza kafkaConsumer ")
			}
		}
		if i%124 == 0 && i/124 < 14 {
			emit("KafkaCheckpointManager", "Reading checkpoints for the first time")
			emit("KafkaCheckpointManager", "Stopping system consumer")
		}
		for k := rng.Intn(4); k > 0; k-- {
			emit("RunLoop", "Processed 1000 envelopes; consumer started fine, Stopping nothing")
		}
		if rng.Intn(20) == 0 {
			b.WriteString("java.lang.IllegalStateException: Stopping the system consumer failed\n\tat org.apache.samza.Foo(Foo.java:1)\n")
		}
	}
	return b.String()
}

// TestCountLogsSamzaPreset counts the SAMZA-2785 evidence with the preset and
// checks every figure against grep: counts with grep -c, the keys never
// closed with grep -o (started ids minus stopped ids), their lines with
// grep -n.
func TestCountLogsSamzaPreset(t *testing.T) {
	path := writeLog(t, "samza.log", samzaLog(1))
	for _, v := range []countVariant{{name: "default"}, {name: "parts", block: 4096, part: 20000, worker: 2}, {name: "stream", stream: true}} {
		rep := countFiles(t, v, CountOptions{Preset: "samza-2785"}, path)
		cp, ok := rep.Pair("checkpoint consumers")
		if !ok {
			t.Fatal("no checkpoint consumers pair")
		}
		if cp.Starts != 1741 || cp.Closes != 14 || cp.Open != 1727 {
			t.Errorf("%s: checkpoint consumers %d/%d/%d, want the seed's 1741/14/1727", v.name, cp.Starts, cp.Closes, cp.Open)
		}
		if g := grepCount(t, cp.Start, path); g != cp.Starts {
			t.Errorf("%s: starts %d, grep -c %d", v.name, cp.Starts, g)
		}
		if g := grepCount(t, cp.Close, path); g != cp.Closes {
			t.Errorf("%s: closes %d, grep -c %d", v.name, cp.Closes, g)
		}
		kc, _ := rep.Pair("kafka consumers")
		if kc.Starts != 168 || kc.Closes != 3 || kc.KeysStarted != 168 || kc.KeysClosed != 3 || len(kc.UnclosedKeys) != 165 {
			t.Errorf("%s: kafka consumers %d/%d keys %d/%d unclosed %d; want 168/3 keys 168/3 unclosed 165",
				v.name, kc.Starts, kc.Closes, kc.KeysStarted, kc.KeysClosed, len(kc.UnclosedKeys))
		}
		// The anchor: ids that grep sees started and not stopped, with the
		// line grep -n puts them on.
		startedAt := map[string]int64{}
		for _, l := range greptest.Output(t, "-n", "-E", "[^ ]+: Consumer started", "--", path) {
			num, rest, _ := strings.Cut(l, ":")
			f := strings.Fields(rest)
			id := strings.TrimSuffix(f[len(f)-3], ":")
			n, _ := strconv.ParseInt(num, 10, 64)
			startedAt[id] = n
		}
		for _, l := range greptest.Output(t, "-o", "-E", "[^ ]+: Stopping Samza kafkaConsumer", "--", path) {
			delete(startedAt, strings.TrimSuffix(strings.Fields(l)[0], ":"))
		}
		if len(startedAt) != len(kc.UnclosedKeys) {
			t.Errorf("%s: %d keys never closed, grep finds %d", v.name, len(kc.UnclosedKeys), len(startedAt))
		}
		for _, k := range kc.UnclosedKeys {
			if line, ok := startedAt[k.Key]; !ok || line != k.First.Line || k.Last.Line != k.First.Line || k.First.Time == nil {
				t.Errorf("%s: key %s first at %v; grep has it at line %d (found %v)", v.name, k.Key, k.First, line, ok)
			}
		}
	}
}

// TestCountLogsKafkaGroupPreset counts consumer group members in the real
// broker logs: grep finds every member of the 2.1.1 broker added and removed
// on LeaveGroup across its two rolled files, and the one console consumer of
// the 3.6.2 broker added and never removed.
func TestCountLogsKafkaGroupPreset(t *testing.T) {
	older := fixtures.Path(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-13-23")
	newer := fixtures.Path(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-14-00")
	rep := countFiles(t, countVariant{}, CountOptions{Preset: "kafka-group-members"}, older, newer)
	p := rep.Pairs[0]
	adds := grepCount(t, Literal("Adding new member "), older) + grepCount(t, Literal("Adding new member "), newer)
	removes := grepCount(t, Regexp("removing member [^ ]+ on (LeaveGroup|heartbeat expiration)"), older) +
		grepCount(t, Regexp("removing member [^ ]+ on (LeaveGroup|heartbeat expiration)"), newer)
	if p.Starts != adds || p.Closes != removes || adds != 4 || removes != 4 {
		t.Errorf("2.1.1: %d added, %d removed; grep: %d, %d (the fixture has 4 and 4)", p.Starts, p.Closes, adds, removes)
	}
	if p.KeysStarted != 4 || p.KeysClosed != 4 || len(p.UnclosedKeys) != 0 {
		t.Errorf("2.1.1: keys %d started, %d closed, %d unclosed; want 4, 4, 0", p.KeysStarted, p.KeysClosed, len(p.UnclosedKeys))
	}

	path := fixtures.Path(t, "logs", "kafka-3.6.2-broker-server.log")
	rep = countFiles(t, countVariant{}, CountOptions{Preset: "kafka-group-members"}, path)
	p = rep.Pairs[0]
	lines := greptest.Output(t, "-n", "Adding new member ", "--", path)
	if len(lines) != 1 || p.Starts != 1 || p.Closes != 0 || len(p.UnclosedKeys) != 1 {
		t.Fatalf("3.6.2: %d added, %d removed, %d unclosed; grep -n: %q", p.Starts, p.Closes, len(p.UnclosedKeys), lines)
	}
	num, _, _ := strings.Cut(lines[0], ":")
	k := p.UnclosedKeys[0]
	if k.Key != "console-consumer-62fcdc45-f245-4f8e-b1e1-4461ff61e5f2" || strconv.FormatInt(k.First.Line, 10) != num ||
		k.First.Time == nil || !k.First.Time.Equal(*at("2024-07-21 17:23:12.477")) {
		t.Errorf("3.6.2: unclosed %s at %v; grep -n puts the member at line %s, 17:23:12,477", k.Key, k.First, num)
	}
}

// TestCountLogsKeyLimit checks that past MaxKeys counting goes on exactly and
// the table says it is truncated.
func TestCountLogsKeyLimit(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "2024-01-01 00:00:%02d.000 open id=%d\n", i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "2024-01-01 00:00:%02d.500 close id=%d\n", i, i)
		}
	}
	path := writeLog(t, "many.log", b.String())
	for _, v := range []countVariant{{name: "default"}, {name: "parts", block: 64, part: 200, worker: 2}} {
		rep := countFiles(t, v, CountOptions{MaxKeys: 10, Key: `id=(\d+)`,
			Pairs: []Pair{{Name: "ids", Start: Literal(" open "), Close: Literal(" close ")}}}, path)
		p := rep.Pairs[0]
		if p.Starts != 50 || p.Closes != 5 || p.Open != 45 || !p.KeysTruncated || p.KeysStarted > 10 || len(p.UnclosedKeys) > 10 {
			t.Errorf("%s: %d/%d/%d truncated=%v keys=%d unclosed=%d; want 50/5/45, truncated, at most 10 keys",
				v.name, p.Starts, p.Closes, p.Open, p.KeysTruncated, p.KeysStarted, len(p.UnclosedKeys))
		}
	}
}

// TestLogReportCSV checks the CSV export row by row, and that a key that
// looks like a spreadsheet formula is defused.
func TestLogReportCSV(t *testing.T) {
	path := writeLog(t, "x.log", "2024-01-01 00:00:00.000 start k==1+1\n2024-01-01 00:00:01.000 start k=plain\nstart k=late\n")
	rep := countFiles(t, countVariant{}, CountOptions{Key: `k=(\S+)`,
		Pairs: []Pair{{Name: "things", Start: Literal("start"), Close: Literal("stop")}}}, path)
	var buf bytes.Buffer
	if err := rep.WriteUnclosedCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		CSVHeader,
		{"things", "'=1+1", "1", "0", "1", "x.log", "1", "2024-01-01T00:00:00.000Z", "x.log", "1", "2024-01-01T00:00:00.000Z"},
		{"things", "plain", "1", "0", "1", "x.log", "2", "2024-01-01T00:00:01.000Z", "x.log", "2", "2024-01-01T00:00:01.000Z"},
		{"things", "late", "1", "0", "1", "x.log", "3", "2024-01-01T00:00:01.000Z", "x.log", "3", "2024-01-01T00:00:01.000Z"},
	}
	if !slices.EqualFunc(rows, want, slices.Equal[[]string]) {
		t.Errorf("CSV:\n got %q\nwant %q", rows, want)
	}
}

// TestCountLogsRecoveryPreset counts a log of leakui's recovery model: Kafka
// 0.10.0.0's own lines and the model's deep-iterator lines under its own
// logger, iterators opened against closed and keyed by batch, the recovery
// lines counted as grep -c counts them.
func TestCountLogsRecoveryPreset(t *testing.T) {
	seg := "/data/orders-0/00000000000000000000.log"
	log := "" +
		"[2020-02-14 01:34:02,114] INFO Loading logs. (kafka.log.LogManager)\n" +
		"[2020-02-14 01:34:02,120] INFO Recovering unflushed segment 0 in log orders-0. (kafka.log.Log)\n" +
		"[2020-02-14 01:34:02,121] DEBUG Opened deep iterator (gzip, magic 0) for the batch at byte offset 0 in log segment " + seg + " (leakui.recovery.model)\n" +
		"[2020-02-14 01:34:02,122] DEBUG Closed deep iterator (gzip, magic 0) for the batch at byte offset 0 in log segment " + seg + " after 20 messages (leakui.recovery.model)\n" +
		"[2020-02-14 01:34:02,123] DEBUG Opened deep iterator (gzip, magic 0) for the batch at byte offset 812 in log segment " + seg + " (leakui.recovery.model)\n" +
		"[2020-02-14 01:34:02,124] DEBUG Opened deep iterator (zstd) for the batch at byte offset 1650 in log segment " + seg + " (leakui.recovery.model)\n" +
		"[2020-02-14 01:34:02,125] WARN Found invalid messages in log segment " + seg + " at byte offset 2400: Message is corrupt (stored crc = 1, computed crc = 2). (kafka.log.LogSegment)\n" +
		"[2020-02-14 01:34:02,126] WARN Corruption found in segment 0 of log orders-0, truncating to offset 60. (kafka.log.Log)\n" +
		"[2020-02-14 01:34:02,130] INFO Completed load of log orders-0 with log end offset 60 (kafka.log.Log)\n" +
		"[2020-02-14 01:34:02,131] INFO Logs loading complete. (kafka.log.LogManager)\n"
	path := writeLog(t, "server.log", log)
	rep := countFiles(t, countVariant{}, CountOptions{Preset: "kafka-3933"}, path)
	p, _ := rep.Pair("deep iterators")
	if p.Starts != 3 || p.Closes != 1 || p.Open != 2 || len(p.UnclosedKeys) != 2 || !p.Measurable || p.Basis != BasisKeys ||
		p.UnclosedKeys[0].Key != "byte offset 812 in log segment "+seg || p.UnclosedKeys[1].Key != "byte offset 1650 in log segment "+seg ||
		p.UnclosedKeys[0].First.Line != 5 || p.UnclosedKeys[1].First.Line != 6 {
		t.Errorf("deep iterators: %d/%d/%d measurable %v basis %s, unclosed %s", p.Starts, p.Closes, p.Open, p.Measurable, p.Basis, showKeys(p.UnclosedKeys))
	}
	for _, pc := range rep.Patterns {
		if g := grepCount(t, Pattern{pc.Pattern, pc.Regexp}, path); g != pc.Count {
			t.Errorf("%q: %d, grep -c %d", pc.Pattern, pc.Count, g)
		}
	}
	for text, want := range map[string]int64{"Recovering unflushed segment": 1, "Found invalid messages in log segment": 1,
		"Corruption found in segment": 1, "Completed load of log": 1, "java.lang.OutOfMemoryError": 0} {
		if c, _ := rep.Pattern(text); c.Count != want {
			t.Errorf("%q: %d lines, want %d", text, c.Count, want)
		}
	}
	if sp := rep.Spans[0]; !sp.Measurable || sp.Millis != 10 || sp.Start.Line != 2 || sp.End.Line != 9 || sp.EndedBy != "Completed load of log" {
		t.Errorf("span %+v: want 10 ms from line 2 to the log loaded on line 9", sp)
	}
}

// TestCountLogsKeyCapSharedByPairs checks that the key cap holds over all
// pairs together.
func TestCountLogsKeyCapSharedByPairs(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "a-open id=%d\nb-open id=%d\n", i, i)
	}
	rep := countFiles(t, countVariant{}, CountOptions{MaxKeys: 20, Key: `id=(\d+)`, Pairs: []Pair{
		{Name: "a", Start: Literal("a-open"), Close: Literal("a-close")},
		{Name: "b", Start: Literal("b-open"), Close: Literal("b-close")}}}, writeLog(t, "two.log", b.String()))
	for _, p := range rep.Pairs {
		if p.Starts != 30 || p.KeysStarted != 10 || !p.KeysTruncated {
			t.Errorf("%s: %d starts, %d keys, truncated %v; want 30 starts, 10 keys (half of 20), truncated", p.Name, p.Starts, p.KeysStarted, p.KeysTruncated)
		}
	}
}
