package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
)

// goCapture is how `leakui capture go` reaches a Go process's pprof endpoint.
type goCapture struct {
	base    *url.URL // the /debug/pprof/ URL
	vars    *url.URL // /debug/vars beside it
	client  *http.Client
	maxSize int64
	gc      bool
}

// runCaptureGo implements `leakui capture go URL -o FILE.tar.gz [-every 30s -count 10]`.
func runCaptureGo(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("capture go", "URL -o FILE.tar.gz | -push URL", std.err)
	out := fs.String("o", "", "write the bundle to this file (.tar.gz; '-' for standard output)")
	every := fs.Duration("every", 30*time.Second, "time between two snapshots")
	count := fs.Int("count", 1, "snapshots to take (3 or more make a series with a verdict)")
	timeout := fs.Duration("timeout", 60*time.Second, "how long one request may take")
	maxSize := fs.Int64("max-size", 256<<20, "the largest answer kept, in bytes")
	gc := fs.Bool("gc", true, "ask for a garbage collection before each heap profile (heap?gc=1), so that in-use figures are current")
	push := addPushFlags(fs)
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 || *count < 1 || *count > 1000 || *every < 0 {
		fs.Usage()
		return errUsage
	}
	if err := checkCaptureOutput(*out, push); err != nil {
		fmt.Fprintln(std.err, "leakui capture go:", err)
		return errUsage
	}
	c, err := newGoCapture(positional[0], *timeout, *maxSize, *gc)
	if err != nil {
		fmt.Fprintln(std.err, "leakui capture go:", err)
		return errUsage
	}
	w, err := c.run(ctx, *count, *every, std.err)
	if err != nil {
		return err
	}
	return finishCapture(ctx, func(path string) error { return writeBundle(w, path, std) }, *out, push, std)
}

// newGoCapture resolves the pprof endpoint from a URL: a host and port
// ("127.0.0.1:6060"), the server's root, or its /debug/pprof/ itself.
func newGoCapture(raw string, timeout time.Duration, maxSize int64, gc bool) (*goCapture, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL of a pprof endpoint", raw)
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimSuffix(u.Path, "/")
	p = strings.TrimSuffix(p, "/debug/pprof")
	base := *u
	base.Path = p + "/debug/pprof/"
	vars := *u
	vars.Path = p + "/debug/vars"
	return &goCapture{base: &base, vars: &vars, client: &http.Client{Timeout: timeout}, maxSize: maxSize, gc: gc}, nil
}

// run takes count snapshots, every apart (from the start of one to the start
// of the next).
func (c *goCapture) run(ctx context.Context, count int, every time.Duration, progress io.Writer) (*capture.Writer, error) {
	shown := *c.base
	shown.User = nil // never store credentials in a bundle
	target := capture.Target{Host: hostName(), URL: shown.String()}
	w := capture.NewWriter(capture.KindGo, target, captureTool, time.Now())
	p := &captureProgress{w: progress, total: count * len(capture.GoSteps)}
	fmt.Fprintf(progress, "leakui capture: Go process at %s, %d snapshot(s) %s apart\n", target.URL, count, every)
	next := time.Now()
	for n := 1; n <= count; n++ {
		if n > 1 {
			next = next.Add(every)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Until(next)):
			}
		}
		for _, step := range capture.GoSteps {
			s := capture.Step{Name: step, Snapshot: n, Started: time.Now()}
			var data []byte
			var err error
			switch step {
			case capture.StepMemStats:
				s.Command, data, err = c.memStats(ctx)
			default:
				q := ""
				if step == capture.StepHeap && c.gc {
					q = "?gc=1"
				}
				s.Command = "GET " + c.endpoint(step) + q
				data, err = c.get(ctx, c.endpoint(step)+q)
				if step == capture.StepGoroutineLeak && errors.Is(err, errNotServed) {
					err = errors.New("not served: the program was built without GOEXPERIMENT=goroutineleakprofile, or does not register net/http/pprof's goroutineleak profile")
				}
			}
			s.Finished = time.Now()
			w.Add(s, data, err)
			p.step(s, data, err)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	return w, nil
}

// endpoint is the URL of one profile.
func (c *goCapture) endpoint(name string) string {
	u := *c.base
	u.Path += name
	return u.String()
}

// errNotServed is a 404 from the endpoint.
var errNotServed = errors.New("404 not found")

// get fetches a URL within maxSize.
func (c *goCapture) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, errNotServed
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.maxSize {
		return nil, fmt.Errorf("the answer is larger than %s (-max-size)", analyze.FormatBytes(c.maxSize))
	}
	return data, nil
}

// memStats takes the runtime's memory statistics: the "memstats" object of
// /debug/vars (expvar) alone — never the rest, whose "cmdline" may hold
// secrets — or, where expvar is not served, the "# runtime.MemStats" lines
// that end /debug/pprof/heap?debug=1.
func (c *goCapture) memStats(ctx context.Context) (string, []byte, error) {
	data, err := c.get(ctx, c.vars.String())
	if err == nil {
		var doc struct {
			MemStats json.RawMessage `json:"memstats"`
		}
		if json.Unmarshal(data, &doc) == nil && len(doc.MemStats) > 0 {
			return "GET " + c.vars.String() + " (its memstats)", append(doc.MemStats, '\n'), nil
		}
	}
	u := c.endpoint(capture.StepHeap) + "?debug=1"
	data, err = c.get(ctx, u)
	if err != nil {
		return "GET " + u, nil, err
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	in := false
	for sc.Scan() {
		l := sc.Text()
		if l == "# runtime.MemStats" {
			in = true
		}
		if in && strings.HasPrefix(l, "# ") {
			out.WriteString(l + "\n")
		}
	}
	if out.Len() == 0 {
		return "GET " + u, nil, errors.New("no runtime.MemStats in heap?debug=1, and no /debug/vars")
	}
	return "GET " + u + " (its # runtime.MemStats lines)", out.Bytes(), nil
}
