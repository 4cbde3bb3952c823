package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	weblogs "github.com/leakui/leakui/web/logs"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/web/kind"
)

// logGrepCount runs the real GNU grep -c on a file: -a so NUL bytes do not make
// it a "binary file", -F or -E as the pattern says, LC_ALL=C so it matches bytes.
// The pattern goes through a file (an argument cannot hold a NUL byte). grep
// exits 1 when nothing matches, a count of 0.
func logGrepCount(t testing.TB, p logs.Pattern, path string) int64 {
	t.Helper()
	return greptest.Count(t, p.Text, p.Regexp, path)
}

// logGrepLines is grep's line count of a file (every line matches "").
func logGrepLines(t testing.TB, path string) int64 {
	return logGrepCount(t, logs.Literal(""), path)
}

// logFields numbers patterns and pairs the way the forms do: p1, re1, pair1…
func logFields(patterns []logs.Pattern, pairs []string, extra ...string) map[string]string {
	f := map[string]string{}
	for i, p := range patterns {
		n := strconv.Itoa(i + 1)
		f["p"+n] = p.Text
		if p.Regexp {
			f["re"+n] = "1"
		}
	}
	for i, p := range pairs {
		f["pair"+strconv.Itoa(i+1)] = p
	}
	for i := 0; i+1 < len(extra); i += 2 {
		f[extra[i]] = extra[i+1]
	}
	return f
}

// logDocument is the JSON twin of a log report.
type logDocument struct {
	Kind      string          `json:"kind"`
	Params    json.RawMessage `json:"params"`
	Artifacts []kind.Artifact `json:"artifacts"`
	Analysis  struct {
		Params  weblogs.Params `json:"params"`
		Own     bool           `json:"own"`
		URL     string         `json:"url"`
		CSVURL  string         `json:"csv_url"`
		Report  logs.Report    `json:"report"`
		Notices []string       `json:"notices"`
	} `json:"analysis"`
}

// logGetJSON fetches and decodes a log report's JSON twin.
func logGetJSON(t *testing.T, ts *testServer, path string) (logDocument, []byte) {
	t.Helper()
	code, _, body := ts.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	var doc logDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
	return doc, body
}

// logGetPage fetches a page and parses it.
func logGetPage(t *testing.T, ts *testServer, path string) (*goquery.Document, []byte) {
	t.Helper()
	return ts.web().Page(t, path)
}

// logPageCounts reads the pattern table of a page: pattern text → the count
// in data-count, and the count as shown.
func logPageCounts(doc *goquery.Document) map[string][2]string {
	out := map[string][2]string{}
	doc.Find("[data-testid=log-pattern]").Each(func(_ int, s *goquery.Selection) {
		text := s.Find("[data-testid=pattern-text]").Text()
		if s.AttrOr("data-regexp", "") == "true" {
			text = "/" + text + "/"
		}
		out[text] = [2]string{s.AttrOr("data-count", ""), s.Find("[data-testid=pattern-count]").Text()}
	})
	return out
}

func logGzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// samzaLog is a container log with the SAMZA-2785 evidence, built so that
// every answer is known: the checkpoint manager starts its consumer
// checkpointStarts times and stops it checkpointStops times; Kafka system
// consumers (keys kafka:consumer-0…) are started kafkaStartsPerKey times each
// and closed once each for the first closedKeys of them.
type samzaLog struct {
	text bytes.Buffer
	line int64
	at   time.Time
	// firstStart and lastStart hold each Kafka consumer key's first and last
	// start line, 1-based.
	firstStart, lastStart map[string]int64
}

const (
	samzaCheckpointStarts = 1741
	samzaCheckpointStops  = 14
	samzaKafkaKeys        = 56
	samzaKafkaStartsPer   = 3
	samzaKafkaClosedKeys  = 3
)

func samzaKey(i int) string { return fmt.Sprintf("kafka:consumer-%d", i) }

func (s *samzaLog) write(format string, args ...any) {
	s.line++
	s.at = s.at.Add(1500 * time.Millisecond)
	fmt.Fprintf(&s.text, "%s [main] %s\n", s.at.Format("2006-01-02 15:04:05.000"), fmt.Sprintf(format, args...))
}

// buildSamzaLog writes the log: rebalance after rebalance, each starting a new
// checkpoint consumer (stopped only in the first 14) and starting a round of
// Kafka consumers.
func buildSamzaLog() *samzaLog {
	s := &samzaLog{at: time.Date(2020, 2, 25, 3, 0, 0, 0, time.UTC), firstStart: map[string]int64{}, lastStart: map[string]int64{}}
	kafkaStarts := 0
	for c := 0; c < samzaCheckpointStarts; c++ {
		s.write("KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset %d", c*7)
		s.write("KafkaCheckpointManager [INFO] Reading checkpoints for the first time")
		if c < samzaCheckpointStops {
			s.write("KafkaCheckpointManager [INFO] Stopping system consumer")
		}
		if kafkaStarts < samzaKafkaKeys*samzaKafkaStartsPer && c%5 == 0 {
			for k := 0; k < 4 && kafkaStarts < samzaKafkaKeys*samzaKafkaStartsPer; k++ {
				key := samzaKey(kafkaStarts % samzaKafkaKeys)
				s.write("KafkaSystemConsumer [INFO] %s: Consumer started", key)
				if _, ok := s.firstStart[key]; !ok {
					s.firstStart[key] = s.line
				}
				s.lastStart[key] = s.line
				kafkaStarts++
			}
		}
		if c == 1000 {
			for k := 0; k < samzaKafkaClosedKeys; k++ {
				s.write("KafkaSystemConsumer [INFO] %s: Stopping Samza kafkaConsumer ", samzaKey(k))
			}
		}
	}
	return s
}
