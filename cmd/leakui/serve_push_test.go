package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/internal/javatest"
)

// postBundle POSTs body to a watch's bundles path with token ("" for none).
func postBundle(t *testing.T, base, name, token string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+pushPrefix+name+pushSuffix, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// lines collects a child's output lines.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all = append(l.all, sc.Text())
		l.mu.Unlock()
	}
}

func (l *lines) find(sub string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.all {
		if strings.Contains(s, sub) {
			return s
		}
	}
	return ""
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// A real JVM opens 20,000 GZIPInputStreams and drops them unclosed while
// the real `leakui capture jvm PID -every 2s -push URL -watch broker` runs
// as a child process and pushes a bundle per tick to a served JVM watch: the
// watch's native memory verdict forms as leak (untracked native memory, the
// 20,000 Inflaters alive), the leak alert reaches a real webhook receiver
// with the suspect and a growth per hour, and /metrics shows the verdict. The
// push token pushes to its watch and nothing else: not to another watch,
// not to the web's API; the server's own token does not push.
func TestServeJVMWatchPush(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a JVM and pushes its bundles for about 30 s")
	}
	p := javatest.Start(t, filepath.Join("testdata", "jvm", "UnclosedGzip.java"), gzipJVMArgs, "drop", strconv.Itoa(gzipStreams))
	dir := t.TempDir()
	const token, otherToken = "broker-push-token-0123456789", "other-push-token-0123456789"
	for name, tok := range map[string]string{"broker.token": token, "other.token": otherToken} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook := &webhook{}
	receiver := httptest.NewServer(hook)
	defer receiver.Close()
	s := startServer(t, filepath.Join(dir, "data"), "-token", "upload-secret", "-base-url", "https://leakui.example",
		"-watch", "broker=jvm,keep=8,every=2s,token=file:"+filepath.Join(dir, "broker.token"),
		"-watch", "other=jvm,keep=8,token=file:"+filepath.Join(dir, "other.token"),
		"-alert", "webhook="+receiver.URL)

	// The token's reach, before any bundle: a wrong or missing token, the
	// server's token and another watch's token are refused before the body is
	// read; the push token reads nothing of the web's.
	for _, c := range []struct {
		watch, token string
		want         int
	}{
		{"broker", "", http.StatusUnauthorized},
		{"broker", "upload-secret", http.StatusUnauthorized},
		{"broker", otherToken, http.StatusUnauthorized},
		{"other", token, http.StatusUnauthorized},
		{"nobody", token, http.StatusNotFound},
	} {
		if code, body := postBundle(t, s.base, c.watch, c.token, []byte("not a bundle")); code != c.want {
			t.Errorf("push to %s with %q: %d %s, want %d", c.watch, c.token, code, body, c.want)
		}
	}
	if code, body := postBundle(t, s.base, "broker", token, []byte("not a bundle")); code != http.StatusBadRequest {
		t.Errorf("garbage with the right token: %d %s, want 400", code, body)
	}
	up, ct := multipartUpload(t, part{name: "goroutines.txt", data: []byte("goroutine 1 [running]:\nmain.main()\n")})
	for _, path := range []string{"/api/artifacts", "/metrics"} {
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		if path == "/api/artifacts" {
			req, _ = http.NewRequest(http.MethodPost, s.base+path, bytes.NewReader(up))
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s with the push token: %d, want 401", req.Method, path, resp.StatusCode)
		}
	}

	capture := exec.Command(leakuiBinary(t), "capture", "jvm", strconv.Itoa(p.PID), "-every", "3s", "-push", s.base, "-watch", "broker")
	capture.Env = append(os.Environ(), watchTokenEnv+"="+token)
	out, errs := &lines{}, &lines{}
	stdout, _ := capture.StdoutPipe()
	stderr, _ := capture.StderrPipe()
	if err := capture.Start(); err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); out.read(stdout) }()
	go func() { defer readers.Done(); errs.read(stderr) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		capture.Process.Signal(syscall.SIGINT)
		readers.Wait()
		if err := capture.Wait(); err != nil {
			t.Errorf("leakui capture jvm -every: %v\n%s", err, errs.String())
		}
	}
	defer stop()

	// The first bundle is taken before the streams: one bundle decides nothing.
	waitFor(t, 30*time.Second, "the first push", func() bool { return errs.find("pushed to watch broker: 1 of 8") != "" })
	if first := errs.find("pushed to watch broker: 1 of 8"); !strings.Contains(first, "verdict inconclusive") {
		t.Errorf("the first push: %s", first)
	}
	p.Next(t) // 20,000 streams opened and dropped
	// A capture that began while the streams were being opened may read part
	// of their memory: the leak forms then, and the next bundles, all after
	// the streams, name the Inflaters.
	waitFor(t, 40*time.Second, "the leak alert of the JVM watch", func() bool {
		return len(hook.find("broker", func(a alert.Payload) bool { return a.Verdict == alert.Leak })) > 0
	})
	const inflaters = "java.util.zip.Inflater alive ≈ 237.4 MB at 12.2 kB each: unclosed GZIPInputStream/Inflater (KAFKA-3933)"
	waitFor(t, 30*time.Second, "the Inflaters' verdict", func() bool { return errs.find(inflaters) != "" })
	stop()
	got := hook.find("broker", func(a alert.Payload) bool { return a.Verdict == alert.Leak })[0]
	t.Logf("delivered: %+v", got)
	leakLine := errs.find(inflaters)
	t.Logf("the push that named the Inflaters: %s", leakLine)
	if got.From != alert.Inconclusive || got.Suspect == "" || got.ReportURL != "https://leakui.example/watch/broker" || got.GrowthPerHour <= 0 {
		t.Errorf("the leak alert: %+v", got)
	}
	// The count of Inflaters is the JVM's own (GC.class_histogram -all): the
	// 20,000 streams the program opened, exactly.
	for _, want := range []string{"verdict leak", "beyond what NMT tracks", "20,000 " + inflaters} {
		if !strings.Contains(leakLine, want) {
			t.Errorf("the push's verdict does not say %q: %s", want, leakLine)
		}
	}
	if !strings.Contains(out.String(), "leak") {
		t.Errorf("capture's standard output: %q", out.String())
	}
	code, text := scrapeMetrics(t, s.base, "upload-secret")
	if code != http.StatusOK || !strings.Contains(text, `leakui_watch_verdict{verdict="leak",watch="broker"} 1`) ||
		!strings.Contains(text, `leakui_http_requests_total{code="201",route="/api/watches/{name}/bundles"}`) {
		t.Errorf("/metrics (%d) lacks the JVM watch's verdict or its pushes:\n%s", code, text)
	}
	// The leak alert opened the watch's incident, with the alert on its timeline.
	req, _ := http.NewRequest(http.MethodGet, s.base+"/api/incidents", nil)
	req.Header.Set("Authorization", "Bearer upload-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Incidents []struct {
			Slug, Title, State string
			Annotations        int64
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Incidents) != 1 {
		t.Fatalf("incidents: %+v, %v", list, err)
	}
	if in := list.Incidents[0]; !strings.HasPrefix(in.Slug, "leak-broker-") || in.State != "open" || in.Annotations != 1 ||
		in.Title != "Leak suspected on watch broker: "+got.Suspect {
		t.Errorf("the watch's incident: %+v", in)
	}
	s.stop(t)
	if strings.Contains(s.log.String(), "level=ERROR") {
		t.Errorf("the server logged errors:\n%s", s.log.String())
	}
}

// The flags of a capture that feeds a JVM watch are checked before anything
// is captured: a usage error (exit 2) that says what goes with what.
func TestCaptureJVMWatchUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-every", "1m", "-push", "http://127.0.0.1:1"}, "-every and -count go with -watch NAME"},
		{[]string{"-watch", "broker", "-o", "x.tar.gz"}, "-watch NAME goes with -push URL"},
		{[]string{"-watch", "broker", "-push", "http://127.0.0.1:1", "-o", "x.tar.gz"}, "leave -o out"},
		{[]string{"-watch", "broker", "-push", "http://127.0.0.1:1", "-incident", "inc-1"}, "-incident and -label go with an upload"},
		{[]string{"-watch", "broker", "-push", "http://127.0.0.1:1", "-every", "500ms"}, "-every is at least 1s"},
		{[]string{"-watch", "broker", "-push", "http://127.0.0.1:1", "-count", "3"}, "-count N goes with -every"},
		{[]string{"-watch", "no/such", "-push", "http://127.0.0.1:1"}, "is not a watch's name"},
	} {
		var out, errb bytes.Buffer
		code := run(t.Context(), append([]string{"capture", "jvm", "1"}, c.args...), stdio{strings.NewReader(""), &out, &errb})
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("capture jvm 1 %q: exit %d, %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
