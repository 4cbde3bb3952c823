package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/hostile"
)

// hostileText holds what must never reach a terminal raw: ESC with a colour
// code, NUL, a carriage return, a line feed, a bidi override and a byte that
// is not UTF-8.
const hostileText = "evil\x1b[31m\x00\r\nX\u202e\xff"

// rawControls returns a description of the first control character (or
// invalid UTF-8) in out other than the line feeds that end its lines, or "".
func rawControls(out string) string {
	for i, r := range out {
		switch {
		case r == '\n':
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(out[i:]); size == 1 {
				return fmt.Sprintf("byte %#x at %d", out[i], i)
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, !unicode.IsPrint(r) && r != ' ':
			return fmt.Sprintf("%q at %d in %q", r, i, out[max(0, i-40):min(len(out), i+40)])
		}
	}
	return ""
}

// TestLogLinesEscapeControlCharacters: the slog text handler serve installs
// writes a message, keys, values, an error and a group holding control
// characters and invalid UTF-8 escaped, as %q would, and its lines pass the
// strict writer of serve, work and migrate unchanged. slog's JSON handler
// writes a bidi override raw: through the strict writer it is escaped as
// \u202e, the same JSON string. A line written without slog has its control
// characters, tabs included, escaped by the strict writer, all but the line
// feed, which ends it: values are written through visible, which escapes that
// too.
func TestLogLinesEscapeControlCharacters(t *testing.T) {
	for name, handler := range map[string]func(w *bytes.Buffer) slog.Handler{
		"text": func(w *bytes.Buffer) slog.Handler { return slog.NewTextHandler(w, nil) },
		"json": func(w *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(w, nil) },
	} {
		var direct bytes.Buffer
		log := slog.New(handler(&direct))
		log.Info("upload "+hostileText, "name"+hostileText, hostileText, "err", errors.New(hostileText))
		log.WithGroup(hostileText).Info("grouped", "label", hostileText)
		out := direct.String()
		if what := rawControls(out); what != "" && name == "text" {
			t.Errorf("%s handler: %s", name, what)
		}
		if strings.Count(out, "\n") != 2 {
			t.Errorf("%s handler: %d lines, want 2:\n%s", name, strings.Count(out, "\n"), out)
		}
		if name == "text" && !strings.Contains(out, `msg="upload evil\x1b[31m\x00\r\nX\u202e\xff"`) {
			t.Errorf("text handler: the message is not quoted as %%q would:\n%s", out)
		}
		var through bytes.Buffer
		w := newStrictVisibleWriter(&through)
		direct.WriteTo(w)
		if what := rawControls(through.String()); what != "" {
			t.Errorf("%s handler through the strict writer: %s", name, what)
		}
		if want := strings.ReplaceAll(out, "\u202e", `\u202e`); through.String() != want {
			t.Errorf("%s handler: the strict writer changed a slog line:\n%s\nto\n%s", name, out, through.String())
		}
	}
	var b bytes.Buffer
	w := newStrictVisibleWriter(&b)
	fmt.Fprintf(w, "leakui serve: %s\tend\n", strings.ReplaceAll(hostileText, "\n", ""))
	w.Flush()
	if want := `leakui serve: evil\x1b[31m\x00\rX\u202e\xff\tend` + "\n"; b.String() != want {
		t.Errorf("strict writer: %q, want %q", b.String(), want)
	}
	if got, want := visible(hostileText+"\t"), `evil\x1b[31m\x00\r\nX\u202e\xff\t`; got != want {
		t.Errorf("visible: %q, want %q", got, want)
	}
}

// hostilePath is hostileText without what a file name cannot hold (NUL, and
// the byte that is not UTF-8, which SQLite's file names refuse).
const hostilePath = "evil\x1b[31m\r\nX\u202e"

// escapedPath is hostilePath as visible writes it.
const escapedPath = `evil\x1b[31m\r\nX\u202e`

// progressDraw is one redraw of migrate's progress bar, the control
// characters leakui draws with itself: a carriage return and an erase code.
var progressDraw = regexp.MustCompile("\r([^\r\x1b\n]*)\x1b\\[K")

// checkOutput fails when out holds a control character raw or misses want
// (the hostile value, escaped: proof that it reached the output).
func checkOutput(t *testing.T, what, out, want string) {
	t.Helper()
	if c := rawControls(out); c != "" {
		t.Errorf("%s: raw %s", what, c)
	}
	if !strings.Contains(out, want) {
		t.Errorf("%s lacks %s:\n%s", what, want, out)
	}
}

// TestLogStreamsEscapeHostileValues runs real child processes (hostile names
// escaped everywhere). `leakui serve`, its data directory named with ESC, CR,
// LF and a bidi override, receives an upload whose label holds hostileText
// (its file name a bidi override: a MIME header holds no control character)
// and a request whose path holds hostileText; its stderr then holds every
// value escaped, no control character raw but the line feed ending each log
// line. `leakui migrate -progress always` copies that store into a directory
// named the same way: its stdout and stderr (the progress bar's own carriage
// returns and erase codes aside) hold nothing raw. `leakui work recovery` with
// such a -dir holding a stray file refuses it on one escaped line.
func TestLogStreamsEscapeHostileValues(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	root := t.TempDir()
	data := filepath.Join(root, "data"+hostilePath)
	s := startServer(t, data)
	// A file name reaches the server in a MIME header, which may hold no
	// control character (Go's reader refuses one): the bidi override, then.
	body, ct := multipartUpload(t, part{name: "evil\u202e.pb.gz", data: hostile.SmallProfile()}, part{field: "label", data: []byte(hostileText)})
	if a, _ := s.send(t, bytes.NewReader(body), ct, int64(len(body)), time.Minute); a.Status != http.StatusCreated {
		t.Fatalf("upload: %d %.300s", a.Status, a.Raw)
	}
	if code, _ := s.get(t, "/"+url.PathEscape(hostileText)); code != http.StatusNotFound {
		t.Errorf("GET of the hostile path: %d, want 404", code)
	}
	s.stop(t)
	checkOutput(t, "leakui serve's stderr", s.log.String(), `\x1b[31m\x00\r\nX\u202e\xff`)

	bin := leakuiBinary(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "migrate", "-progress", "always", "-from", data, "-to", filepath.Join(root, "copy"+hostilePath))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("leakui migrate: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	checkOutput(t, "leakui migrate's stdout", stdout.String(), escapedPath)
	bar := progressDraw.ReplaceAllString(stderr.String(), "$1")
	checkOutput(t, "leakui migrate's stderr", bar, "copy artifacts")
	if bar == stderr.String() {
		t.Errorf("leakui migrate -progress always drew no progress bar: %q", stderr.String())
	}

	dir := filepath.Join(root, "run"+hostilePath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stray"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	cmd = exec.Command(bin, "work", "recovery", "-dir", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("leakui work recovery on a directory of other files: %v, want exit 2", err)
	}
	checkOutput(t, "leakui work recovery's stderr", stderr.String(), escapedPath)
	if n := strings.Count(stderr.String(), "\n"); n != 1 {
		t.Errorf("leakui work recovery wrote %d lines, want 1: %q", n, stderr.String())
	}
}
