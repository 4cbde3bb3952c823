package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/watch"
)

// webhook is a real HTTP receiver of the generic JSON webhook.
type webhook struct {
	mu  sync.Mutex
	got []alert.Payload
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var p alert.Payload
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, p)
	h.mu.Unlock()
}

// find returns the payloads of watch name that match.
func (h *webhook) find(name string, match func(alert.Payload) bool) []alert.Payload {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []alert.Payload
	for _, p := range h.got {
		if p.Watch == name && match(p) {
			out = append(out, p)
		}
	}
	return out
}

// switchable proxies to a target that can be replaced, so that a watch's
// URL stays while the program behind it restarts.
type switchable struct {
	mu     sync.Mutex
	target *httputil.ReverseProxy
}

func (s *switchable) point(t *testing.T, raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.target = httputil.NewSingleHostReverseProxy(u)
	s.mu.Unlock()
}

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := s.target
	s.mu.Unlock()
	p.ServeHTTP(w, r)
}

// scrapeMetrics GETs /metrics with token as a bearer token ("" for none).
func scrapeMetrics(t *testing.T, base, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
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

// The served binary watches a real Go program that strands a goroutine and
// 64 KiB every 200 ms beside a steady one, every second: the leak verdict
// reaches a real webhook receiver (with the suspect, its growth per hour and
// the watch's link under -base-url) and /metrics, which asks for a token on
// a server with -token; the steady program never reads leak; restarted as a
// steady program, the leaking one's verdict clears and the resolution is
// delivered.
func TestServeWatchesAlertsAndMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("watches two programs through the served binary for about 25 s")
	}
	leaky, steady := watchtarget.Start(t, "leaky"), watchtarget.Start(t, "steady")
	sw := &switchable{}
	sw.point(t, leaky.URL)
	front := httptest.NewServer(sw)
	defer front.Close()
	hook := &webhook{}
	receiver := httptest.NewServer(hook)
	defer receiver.Close()

	s := startServer(t, t.TempDir(), "-token", "upload-secret", "-metrics-token", "scrape-secret",
		"-base-url", "https://leakui.example",
		"-watch", "leaky="+front.URL+",every=1s,keep=8", "-watch", "steady="+steady.URL+",every=1s,keep=8",
		"-alert", "webhook="+receiver.URL)

	leakOf := func(name string) []alert.Payload {
		return hook.find(name, func(p alert.Payload) bool { return p.Verdict == alert.Leak })
	}
	waitFor(t, 40*time.Second, "the leak alert of the leaking program", func() bool { return len(leakOf("leaky")) > 0 })
	got := leakOf("leaky")[0]
	t.Logf("delivered: %+v", got)
	if got.ReportURL != "https://leakui.example/watch/leaky" || !strings.HasSuffix(got.Suspect, "watchtarget.hold") ||
		got.From == alert.Leak || got.At.IsZero() {
		t.Errorf("the leak alert: %+v", got)
	}
	// The program holds 64 KiB more every 200 ms (inputs): 1,179,648,000
	// bytes an hour; the growth the alert carries is the result.
	want := float64(watchtarget.Bytes) * float64(time.Hour/watchtarget.Step)
	if math.Abs(got.GrowthPerHour-want) > 0.25*want {
		t.Errorf("growth per hour %.0f, want %.0f ± 25%%", got.GrowthPerHour, want)
	}
	// Ticks a second apart, at most 8 held: the window the alert carries is
	// whole seconds under a minute, so its text tells the change over it,
	// which is what the program stranded in that time.
	if w := got.WindowSeconds; w < 2 || w > 7 || w != math.Trunc(w) {
		t.Errorf("the alert's window %v s, want the whole seconds from the first snapshot held to the leak's, 2 to 7", w)
	} else if grew, stranded := got.GrowthPerHour*w/3600, float64(watchtarget.Bytes)*w*float64(time.Second/watchtarget.Step); math.Abs(grew-stranded) > 0.25*stranded {
		t.Errorf("the growth over the alert's %v s is %.0f bytes, the program stranded %.0f", w, grew, stranded)
	}

	// /metrics: the token is asked for, either token reads it.
	if code, _ := scrapeMetrics(t, s.base, ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d, want 401", code)
	}
	if code, _ := scrapeMetrics(t, s.base, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong token: %d, want 401", code)
	}
	if code, _ := scrapeMetrics(t, s.base, "upload-secret"); code != http.StatusOK {
		t.Errorf("/metrics with the server's token: %d, want 200", code)
	}
	// Requests are counted by route pattern, never by path.
	for _, path := range []string{"/healthz", "/api/reports/no-such-report"} {
		resp, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	code, text := scrapeMetrics(t, s.base, "scrape-secret")
	if code != http.StatusOK {
		t.Fatalf("/metrics with the metrics token: %d", code)
	}
	for _, line := range []string{
		`leakui_watch_verdict{verdict="leak",watch="leaky"} 1`,
		`leakui_watch_verdict{verdict="leak",watch="steady"} 0`,
		`leakui_http_requests_total{code="200",route="/healthz"} 1`,
		`leakui_http_requests_total{code="404",route="/api/reports/{id}"} 1`,
		`leakui_http_requests_total{code="401",route="/metrics"} 2`,
		`leakui_job_duration_seconds_count{kind="watch_tick",outcome="done"}`,
		`leakui_job_duration_seconds_count{kind="alert_delivery",outcome="done"}`,
		`leakui_jobs{queue="watches",state="queued"}`,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if strings.Contains(text, "no-such-report") {
		t.Error("/metrics names a request's path")
	}

	// The leaking program restarts, fixed: the leak clears, and the
	// resolution is delivered.
	leaky.Stop()
	sw.point(t, watchtarget.Start(t, "steady").URL)
	waitFor(t, 30*time.Second, "the resolution", func() bool {
		return len(hook.find("leaky", func(p alert.Payload) bool { return p.From == alert.Leak })) > 0
	})
	res := hook.find("leaky", func(p alert.Payload) bool { return p.From == alert.Leak })[0]
	if res.Verdict == alert.Leak || res.ReportURL != "https://leakui.example/watch/leaky" || !res.At.After(got.At) {
		t.Errorf("the resolution: %+v after %+v", res, got)
	}
	if l := leakOf("steady"); len(l) > 0 {
		t.Errorf("the steady program read leak: %+v", l)
	}
	s.stop(t)
	if strings.Contains(s.log.String(), "level=ERROR") {
		t.Errorf("the server logged errors:\n%s", s.log.String())
	}
}

// A bad -watch, -alert or -watch-file is a usage error (exit 2) that says
// what the parser found wrong.
func TestServeWatchUsage(t *testing.T) {
	t.Setenv("LEAKUI_TEST_SHORT_TOKEN", "short")
	file := filepath.Join(t.TempDir(), "watches")
	if err := os.WriteFile(file, []byte("# two of one name\napp=http://10.0.0.7:6060\napp=http://10.0.0.8:6060\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, watchErr := watch.Parse("app=ftp://10.0.0.7:6060")
	_, alertErr := alert.ParseReceiver("pager=https://pager.example/hook")
	_, fileErr := watch.ReadFile(file)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-watch", "app=ftp://10.0.0.7:6060"}, watchErr.Error()},
		{[]string{"-watch", "app=http://10.0.0.7:6060,every=100ms"}, "every"},
		{[]string{"-alert", "pager=https://pager.example/hook"}, alertErr.Error()},
		{[]string{"-watch-file", file}, fileErr.Error()},
		{[]string{"-watch-file", file + ".missing"}, "watches.missing"},
		{[]string{"-watch", "app=http://10.0.0.7:6060", "-watch", "app=http://10.0.0.8:6060"}, "app"},
		// A JVM watch needs its push token, readable and long enough; a
		// scraped target's credentials must be readable.
		{[]string{"-watch", "broker=jvm"}, "needs token=env:VAR or token=file:PATH"},
		{[]string{"-watch", "broker=jvm,token=file:" + file + ".missing"}, "watches.missing"},
		{[]string{"-watch", "broker=jvm,token=env:LEAKUI_TEST_SHORT_TOKEN"}, "a push token has at least 16"},
		{[]string{"-watch", "app=http://10.0.0.7:6060,bearer=env:LEAKUI_TEST_UNSET_TOKEN"}, "no secret there"},
	} {
		var out, errb bytes.Buffer
		// A declaration taken for good would serve: the context ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		code := run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir()}, c.args...), stdio{strings.NewReader(""), &out, &errb})
		cancel()
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("serve %q: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// The alerts are told the watches' verdicts by the names they know, and a
// watch's first verdict is news only when it is a leak.
func TestWatchVerdictsReachAlerts(t *testing.T) {
	for v, a := range map[watch.Verdict]string{watch.NoLeak: alert.NoLeak, watch.Inconclusive: alert.Inconclusive, watch.Leak: alert.Leak} {
		if string(v) != a {
			t.Errorf("watch's %q is alert's %q", v, a)
		}
	}
	for _, v := range watch.Verdicts {
		if string(v) != alert.NoLeak && string(v) != alert.Inconclusive && string(v) != alert.Leak {
			t.Errorf("watch's verdict %q is none of alert's", v)
		}
	}
}

// /metrics is open on a server without tokens, needs the metrics token when
// one is set, the server's token or the metrics token on a server with
// -token, and answers only to the allowed hosts.
func TestMetricsAccess(t *testing.T) {
	for _, c := range []struct {
		flags []string
		open  bool
		reads []string
	}{
		{nil, true, nil},
		{[]string{"-metrics-token", "m"}, false, []string{"m"}},
		{[]string{"-token", "t"}, false, []string{"t"}},
		{[]string{"-token", "t", "-metrics-token", "m"}, false, []string{"t", "m"}},
	} {
		var out, errb bytes.Buffer
		m := NewMain(stdio{strings.NewReader(""), &out, &errb})
		if err := m.ParseFlags(append([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir()}, c.flags...)); err != nil {
			t.Fatal(err)
		}
		if err := m.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		base := "http://" + m.Addr
		if code, text := scrapeMetrics(t, base, ""); (code == http.StatusOK) != c.open {
			t.Errorf("%q: /metrics without a token: %d", c.flags, code)
		} else if c.open && !strings.Contains(text, "go_goroutines") {
			t.Errorf("%q: /metrics: %.200s", c.flags, text)
		}
		for _, tok := range c.reads {
			if code, _ := scrapeMetrics(t, base, tok); code != http.StatusOK {
				t.Errorf("%q: /metrics with %q: %d", c.flags, tok, code)
			}
		}
		if code, _ := scrapeMetrics(t, base, "nope"); code != http.StatusOK && c.open || code != http.StatusUnauthorized && !c.open {
			t.Errorf("%q: /metrics with a wrong token: %d", c.flags, code)
		}
		// A rebound name is refused, as the web refuses it.
		req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		req.Host = "rebound.example"
		if resp, err := http.DefaultClient.Do(req); err != nil {
			t.Errorf("%q: /metrics for another host: %v", c.flags, err)
		} else if resp.Body.Close(); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("%q: /metrics for another host: %d, want 421", c.flags, resp.StatusCode)
		}
		// The web behind it answers as before, HEAD by its GET.
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, base+"/healthz", nil)
			if resp, err := http.DefaultClient.Do(req); err != nil {
				t.Errorf("%s /healthz: %v", method, err)
			} else if resp.Body.Close(); resp.StatusCode != http.StatusOK {
				t.Errorf("%s /healthz: %d", method, resp.StatusCode)
			}
		}
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}
}

// The watches' verdicts are charged to their share of -memory-budget (a
// quarter): with no room in it for one profile, a tick records the budget's
// error. The server runs in this process, and its job runner leaves no
// goroutine behind once it is closed.
func TestServeWatchBudget(t *testing.T) {
	tg := watchtarget.Start(t, "steady")
	ignore := goleak.IgnoreCurrent()
	var out, errb bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), &out, &errb})
	if err := m.ParseFlags([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-memory-budget", "16384",
		"-watch", "app=" + tg.URL + ",every=1s"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var st watch.Status
	waitFor(t, 20*time.Second, "a tick", func() bool {
		ss, err := m.bg.watcher.Statuses(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		st = ss[0]
		return st.LastError != ""
	})
	if !strings.HasSuffix(st.LastError, "memory budget of 4.0 kB (-memory-budget)") || st.Snapshots != 0 {
		t.Errorf("the watch over its budget: %q, %d snapshots", st.LastError, st.Snapshots)
	}
	code, text := scrapeMetrics(t, "http://"+m.Addr, "")
	if code != http.StatusOK || !strings.Contains(text, `leakui_watch_last_scrape_error{watch="app"} 1`) {
		t.Errorf("/metrics: %d\n%s", code, text)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	goleak.VerifyNone(t, ignore)
}
