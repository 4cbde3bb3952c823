package logs

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/markdown"
)

// logCountText counts a log held in a string.
func logCountText(t *testing.T, opts logs.CountOptions, name, text string) *logs.Report {
	t.Helper()
	rep, err := logs.Count(context.Background(), opts, logs.Input{Name: name, Reader: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestLogReportMarkdownPreset is the Markdown evidence of the SAMZA-2785 preset
// for a ticket, whole (it was analyze/logs' ExampleCount before the rendering
// moved to web; the output is unchanged).
func TestLogReportMarkdownPreset(t *testing.T) {
	log := `2020-02-25 03:21:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 12
2020-02-25 03:21:00.004 [main] KafkaCheckpointManager [INFO] Stopping system consumer
2020-02-25 03:22:00.001 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 13
2020-02-25 03:22:00.002 [main] KafkaSystemConsumer [INFO] kafka:consumer-b: Consumer started
`
	got := logReportMarkdown(logCountText(t, logs.CountOptions{Preset: "samza-2785"}, "container.log", log))
	want := "Log counts over `container.log`: 4 lines, 423 B.\n" +
		"\n**checkpoint consumers**\n\n" +
		"- `Starting the checkpoint SystemConsumer from oldest offset`: 2\n" +
		"- `Stopping system consumer`: 1\n" +
		"- still open: 1\n" +
		"\n**kafka consumers**\n\n" +
		"- `: Consumer started`: 1\n" +
		"- `Stopping Samza kafkaConsumer`: 0\n" +
		"- still open: 1\n" +
		"- keys (`(\\S+): (?:Consumer started\\|Stopping Samza kafkaConsumer)`): 1 started, 0 closed, 1 never closed\n" +
		"\n| key | starts | closes | first start | last start |\n|---|---:|---:|---|---|\n" +
		"| `kafka:consumer-b` | 1 | 0 | container.log:4 2020-02-25 03:22:00.002 | container.log:4 2020-02-25 03:22:00.002 |\n" +
		"\n**consumer poll threads**\n\n" +
		"- `Starting consumer poll thread`: 0\n" +
		"- `Shutting down KafkaConsumerProxy poll thread`: 0\n" +
		"- Not measurable: no line matches “Starting consumer poll thread” or “Shutting down KafkaConsumerProxy poll thread”, so nothing says whether they balance.\n"
	if got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}

// TestLogReportMarkdownHostileKeys checks that keys written by anyone into a
// log cannot break out of their code span or table cell in the Markdown
// summary (moved from analyze/logs with the rendering).
func TestLogReportMarkdownHostileKeys(t *testing.T) {
	log := "start k=`a|b`\nstart k=``x\nstart k=*bold*<script>\nstart k=#x~y\u2028z\n"
	rep := logCountText(t, logs.CountOptions{Key: `k=(.+)`,
		Pairs: []logs.Pair{{Name: "p|q *x* #1 ~y~", Start: logs.Literal("start"), Close: logs.Literal("stop")}}}, "h.log", log)
	md := logReportMarkdown(rep)
	for _, want := range []string{
		"| ``` ``x ``` |",                // fence longer than the run inside, padded
		"| `` `a\\|b` `` |",              // pipe escaped inside the cell
		"| `*bold*<script>` |",           // inside a code span nothing is interpreted
		"| `#x~y z` |",                   // U+2028 folded into a space
		"**p\\|q \\*x\\* \\#1 \\~y\\~**", // the pair name escaped, # and ~ too
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| `") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 6 {
			t.Errorf("table row with %d cells: %q", strings.Count(line, "|")-1, line)
		}
	}
	if strings.ContainsRune(md, '\u2028') {
		t.Errorf("Markdown holds a line separator:\n%s", md)
	}
}

// FuzzLogMarkdown counts any bytes with a pattern and a pair that any text may
// name, and renders the Markdown summary: it keeps the shape checkMarkdownShape
// checks, whatever the log, the pattern or the pair's name hold.
func FuzzLogMarkdown(f *testing.F) {
	f.Add([]byte("2020-02-25 03:21:00.001 open <script>alert(1)</script>\n2020-02-25 03:21:00.002 close x\n"), "<", "things")
	f.Add([]byte("open \x00\xff\xfe\u2028 \"'\nopen `a|b`\r\nclose =1+1\nopen ``x\n"), "a`|b", "p|q *x* #1 ~y~ <i>")
	f.Fuzz(func(t *testing.T, data []byte, pattern, name string) {
		opts := logs.CountOptions{
			Patterns: []logs.Pattern{logs.Literal(pattern)},
			Pairs:    []logs.Pair{{Name: name, Start: logs.Literal("open "), Close: logs.Literal("close "), Key: `(?:open|close) (\S+)`}},
		}
		lr, err := logs.Count(context.Background(), opts, logs.Input{Name: name + ".log", Reader: bytes.NewReader(data)})
		if err != nil {
			return // an empty pattern or a name the options refuse
		}
		checkMarkdownShape(t, logReportMarkdown(lr))
	})
}

// checkMarkdownShape is the web root test of the same name: clean UTF-8, no
// markup outside code spans, and tables whose rows all have as many cells.
func checkMarkdownShape(t testing.TB, md string) {
	t.Helper()
	if !utf8.ValidString(md) || strings.ContainsAny(md, "\u2028\u2029\r\x00") {
		t.Fatalf("the Markdown is not clean UTF-8 text:\n%q", md)
	}
	prose := strings.NewReplacer(`\<`, "", `\>`, "").Replace(markdown.Prose(md))
	for _, line := range strings.Split(prose, "\n") {
		line = strings.TrimPrefix(strings.TrimLeft(line, " "), "> ")
		if strings.ContainsAny(line, "<>") {
			t.Fatalf("markup outside code spans in %q:\n%s", line, md)
		}
	}
	cells := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if cells < 0 {
			cells = n
		} else if n != cells {
			t.Fatalf("a row with %d borders in a table of %d: %q\n%s", n, cells, line, md)
		}
	}
}
