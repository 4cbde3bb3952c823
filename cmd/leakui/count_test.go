package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// countCLI runs leakui in-process with args and stdin, returning the exit status
// and what it printed.
func countCLI(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(context.Background(), args, stdio{in: bytes.NewReader(stdin), out: &out, err: &errw})
	return code, out.String(), errw.String()
}

// countGrepC is the anchor: GNU grep -c (-F or -E) on one file.
func countGrepC(t *testing.T, mode, pattern, path string) int64 {
	return greptest.CountWith(t, "-a", mode, "-e", pattern, "--", path)
}

// TestCountJSONContract checks the JSON shape the issue fixes ({"lines",
// "bytes","patterns":[{"pattern","count"}],"pairs":[{"name","starts","closes",
// "open","unclosed_keys"}],"buckets"}) and every count against grep -c on
// two real broker logs.
func TestCountJSONContract(t *testing.T) {
	defer goleak.VerifyNone(t)
	a := fixtures.Path(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-13-23")
	b := fixtures.Path(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-14-00")
	code, out, errOut := countCLI(t, nil, "count", "-json", "-e", "INFO", "-E", `(WARN|ERROR)`,
		"-pair", "members=Adding new member ,removing member", "-key", `(?:Adding new|removing) member ([^\s);]+)`, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	for _, k := range []string{"lines", "bytes", "patterns", "pairs", "buckets"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var rep struct {
		Lines, Bytes int64
		Patterns     []struct {
			Pattern string
			Regexp  bool
			Count   int64
			Files   []int64
		}
		Pairs []struct {
			Name                 string
			Starts, Closes, Open int64
			UnclosedKeys         []json.RawMessage `json:"unclosed_keys"`
		}
		Buckets []struct {
			Start  string
			Counts []int64
			Open   []int64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	lines := countGrepC(t, "-F", "", a) + countGrepC(t, "-F", "", b)
	fa, _ := os.Stat(a)
	fb, _ := os.Stat(b)
	if rep.Lines != lines || rep.Bytes != fa.Size()+fb.Size() {
		t.Errorf("lines %d bytes %d; grep counts %d lines, the files have %d bytes", rep.Lines, rep.Bytes, lines, fa.Size()+fb.Size())
	}
	want := []struct{ mode, pattern string }{{"-F", "INFO"}, {"-E", "(WARN|ERROR)"}, {"-F", "Adding new member "}, {"-F", "removing member"}}
	if len(rep.Patterns) != len(want) {
		t.Fatalf("%d patterns, want %d", len(rep.Patterns), len(want))
	}
	for i, w := range want {
		p := rep.Patterns[i]
		ga, gb := countGrepC(t, w.mode, w.pattern, a), countGrepC(t, w.mode, w.pattern, b)
		if p.Pattern != w.pattern || p.Regexp != (w.mode == "-E") || p.Count != ga+gb || !slices.Equal(p.Files, []int64{ga, gb}) {
			t.Errorf("pattern %d: %+v; grep -c %s %q: %d and %d", i, p, w.mode, w.pattern, ga, gb)
		}
	}
	if len(rep.Pairs) != 1 || rep.Pairs[0].Name != "members" || rep.Pairs[0].Starts != 4 || rep.Pairs[0].Closes != 4 ||
		rep.Pairs[0].Open != 0 || rep.Pairs[0].UnclosedKeys == nil || len(rep.Pairs[0].UnclosedKeys) != 0 {
		t.Errorf("pairs: %+v, want members 4/4/0 with an empty unclosed_keys list", rep.Pairs)
	}
	var sum int64
	for _, bk := range rep.Buckets {
		sum += bk.Counts[0]
	}
	if n := len(rep.Buckets); n < 50 || n > 300 || sum != rep.Patterns[0].Count {
		t.Errorf("%d buckets adding up to %d INFO lines; want 50–300 buckets adding up to %d", n, sum, rep.Patterns[0].Count)
	}
}

// samzaEvidence is a small log in Samza's layout: 7 checkpoint consumers
// started, 2 stopped; 3 Kafka consumers started, one stopped.
const samzaEvidence = `2020-02-25 03:21:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 12
2020-02-25 03:21:00.002 [main] KafkaSystemConsumer [INFO] kafka:consumer-a: Consumer started
2020-02-25 03:21:00.003 [main] KafkaCheckpointManager [INFO] Reading checkpoints for the first time
2020-02-25 03:21:00.004 [main] KafkaCheckpointManager [INFO] Stopping system consumer
2020-02-25 03:21:00.005 [main] KafkaSystemConsumer [INFO] kafka:consumer-a: Stopping Samza kafkaConsumer 
2020-02-25 03:22:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 13
2020-02-25 03:22:00.002 [main] KafkaSystemConsumer [INFO] kafka:consumer-b: Consumer started
2020-02-25 03:23:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 14
2020-02-25 03:23:00.002 [main] KafkaSystemConsumer [INFO] kafka:consumer-c: Consumer started
2020-02-25 03:24:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 15
2020-02-25 03:25:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 16
2020-02-25 03:25:00.002 [main] KafkaCheckpointManager [INFO] Stopping system consumer
2020-02-25 03:26:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 17
2020-02-25 03:27:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 18
`

func countGzipped(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCountPresetFromGzipStdin reads a countGzipped log from standard input with the
// SAMZA-2785 preset, and prints the human tables and the keys never closed.
func TestCountPresetFromGzipStdin(t *testing.T) {
	defer goleak.VerifyNone(t)
	code, out, errOut := countCLI(t, countGzipped(t, samzaEvidence), "count", "-preset", "samza-2785", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"1 file, 14 lines",
		"7 2 5 checkpoint consumers",
		"3 1 2 kafka consumers",
		"kafka consumers: 3 keys started, 1 closed, 2 not closed as often as started",
		"1 1 kafka:consumer-b (stdin):7 2020-02-25 03:22:00.002",
		"1 1 kafka:consumer-c (stdin):9 2020-02-25 03:23:00.002",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestCountCSVAndFailOpen writes the keys never closed as CSV and checks the
// CI gate: exit status 3 while a pair is open, 0 when balanced.
func TestCountCSVAndFailOpen(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "samza.log")
	if err := os.WriteFile(log, []byte(samzaEvidence), 0o644); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "open.csv")
	code, _, errOut := countCLI(t, nil, "count", "-fail-open", "-csv", csvPath, "-preset", "samza-2785", log)
	if code != exitOpen {
		t.Errorf("exit %d, want %d (pairs still open): %s", code, exitOpen, errOut)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "kafka consumers" || rows[1][1] != "kafka:consumer-b" || rows[1][6] != "7" ||
		rows[2][1] != "kafka:consumer-c" || rows[2][7] != "2020-02-25T03:23:00.002Z" {
		t.Errorf("CSV rows: %q", rows)
	}
	code, _, _ = countCLI(t, nil, "count", "-fail-open", "-pair", "x=Reading checkpoints,Stopping Samza", log)
	if code != 0 {
		t.Errorf("balanced pair: exit %d, want 0", code)
	}
}

// TestCountErrors checks the exit statuses and messages of mistakes.
func TestCountErrors(t *testing.T) {
	log := filepath.Join(t.TempDir(), "x.log")
	os.WriteFile(log, []byte("a\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"count", "-E", `consumer (\d+`, log}, 1, "consumer (\\\\d+"},
		{[]string{"count", "-e", "x"}, 2, "no LOG given"},
		{[]string{"count", "-bucket", "soon", log}, 2, "positive duration"},
		{[]string{"count", "-pair", "nope", log}, 2, "NAME=START,CLOSE"},
		{[]string{"count", "-preset", "nope", log}, 1, "samza-2785"},
		{[]string{"count", "-key", `\S+`, "-pair", "p=a,b", log}, 1, "no capture group"},
		{[]string{"count", "-e", "x", filepath.Join(t.TempDir(), "missing.log")}, 1, "no such file"},
		{[]string{"count", "-e", "x", "-", "-"}, 1, "given twice"},
		{[]string{"count", "-json", "-csv", "-", log}, 2, "both write to standard output"},
	} {
		code, _, errOut := countCLI(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestCountProgress checks that -progress always draws a bar on stderr and
// that it is cleared before the report.
func TestCountProgress(t *testing.T) {
	log := filepath.Join(t.TempDir(), "big.log")
	var b bytes.Buffer
	for b.Len() < 9<<20 {
		fmt.Fprintf(&b, "2024-01-01 00:00:%02d.000 line %d\n", b.Len()%60, b.Len())
	}
	os.WriteFile(log, b.Bytes(), 0o644)
	code, out, errOut := countCLI(t, nil, "count", "-progress", "always", "-e", "line", log)
	if code != 0 || !strings.Contains(errOut, "%") || !strings.Contains(errOut, "MB") || !strings.Contains(out, "line") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	_, _, errOut = countCLI(t, nil, "count", "-e", "line", log)
	if errOut != "" {
		t.Errorf("stderr is not a terminal, yet it got %q", errOut)
	}
}

// TestCountContainerLogWithDump counts a container log that holds a SIGQUIT
// goroutine dump 5 MB in (an upload makes a dump report of it): `leakui count`
// still counts it as the log it is, line for line with grep -c.
func TestCountContainerLogWithDump(t *testing.T) {
	dump, err := os.ReadFile(fixtures.Path(t, "goroutines", "goprofnotes-snap2-debug2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Join([][]byte{fixtures.ContainerLog(5 << 20), []byte("SIGQUIT: quit\nPC=0x46e4e1 m=0 sigcode=0\n\n"), dump, fixtures.ContainerLog(4 << 10)}, nil)
	path := filepath.Join(t.TempDir(), "container.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := countCLI(t, nil, "count", "-json", "-e", "INFO", "-e", "goroutine ", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Lines    int64
		Patterns []struct{ Count int64 }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if want := countGrepC(t, "-F", "", path); rep.Lines != want {
		t.Errorf("%d lines, grep -c counts %d", rep.Lines, want)
	}
	for i, p := range []string{"INFO", "goroutine "} {
		if want := countGrepC(t, "-F", p, path); len(rep.Patterns) != 2 || rep.Patterns[i].Count != want {
			t.Errorf("%q: %+v, grep -c counts %d", p, rep.Patterns, want)
		}
	}
}

// TestCountKafka3933PresetOnRealBrokerLogs runs `leakui count -preset kafka-3933
// -json` on each real Kafka broker log of testdata: every recovery line it counts
// is what grep -c counts, the deep-iterator pair is "measurable": false with its
// reason, the recovery time too; the text output says "not measurable" where
// it would print a still-open count, and -fail-open does not fail on it.
func TestCountKafka3933PresetOnRealBrokerLogs(t *testing.T) {
	for _, name := range []string{"kafka-2.1.1-broker-server.log.2020-02-13-23", "kafka-2.1.1-broker-server.log.2020-02-14-00", "kafka-3.6.2-broker-server.log"} {
		path := fixtures.Path(t, "logs", name)
		code, out, errOut := countCLI(t, nil, "count", "-preset", "kafka-3933", "-json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var rep struct {
			Patterns []struct {
				Pattern string
				Regexp  bool
				Count   int64
			}
			Pairs []struct {
				Name          string
				Measurable    *bool
				NotMeasurable string `json:"not_measurable"`
				Open          int64
			}
			Spans []struct {
				Name          string
				Measurable    *bool
				NotMeasurable string `json:"not_measurable"`
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		found := map[string]int64{}
		for _, p := range rep.Patterns {
			mode := "-F"
			if p.Regexp {
				mode = "-E"
			}
			if g := countGrepC(t, mode, p.Pattern, path); g != p.Count {
				t.Errorf("%s: %q counted %d, grep -c %d", name, p.Pattern, p.Count, g)
			}
			found[p.Pattern] = p.Count
		}
		t.Logf("%s: %v", name, found)
		if len(rep.Pairs) != 1 || rep.Pairs[0].Measurable == nil || *rep.Pairs[0].Measurable || !strings.Contains(rep.Pairs[0].NotMeasurable, "leakui.recovery.model") {
			t.Errorf("%s: pairs %+v, want the deep iterators \"measurable\": false", name, rep.Pairs)
		}
		if len(rep.Spans) != 1 || rep.Spans[0].Measurable == nil || *rep.Spans[0].Measurable || rep.Spans[0].NotMeasurable == "" {
			t.Errorf("%s: spans %+v, want the recovery time not measurable", name, rep.Spans)
		}
		code, out, _ = countCLI(t, nil, "count", "-preset", "kafka-3933", "-fail-open", path)
		if code != 0 || !regexp.MustCompile(`(?m)^\s+0\s+0\s+not measurable deep iterators$`).MatchString(out) {
			t.Errorf("%s: exit %d, text:\n%s", name, code, out)
		}
	}
}
