package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leakui/leakui/watch"
)

// watchTokenEnv names the environment variable a watch's push token is read
// from when -token is not given.
const watchTokenEnv = "LEAKUI_WATCH_TOKEN"

// watchPush is where `leakui capture jvm -watch NAME -push URL` pushes: the
// watch's bundles path on the server, with its push token.
type watchPush struct {
	push  *pushFlags
	watch string
}

// checkWatchPush checks the flags of a capture that feeds a JVM watch.
func checkWatchPush(name string, every time.Duration, count int, out string, p *pushFlags) error {
	if name == "" {
		if every != 0 || count != 0 {
			return errors.New("-every and -count go with -watch NAME (a JVM watch fed every period)")
		}
		return nil
	}
	switch {
	case *p.url == "":
		return errors.New("-watch NAME goes with -push URL, the server that declares the watch")
	case out != "":
		return errors.New("-watch pushes every bundle and keeps none: leave -o out")
	case *p.incident != "" || *p.label != "":
		return errors.New("-incident and -label go with an upload, not with -watch (the watch's alerts open or join its incident)")
	case every < 0 || (every > 0 && every < watch.MinEvery):
		return fmt.Errorf("-every is at least %s", watch.MinEvery)
	case count < 0 || (count > 0 && every == 0):
		return errors.New("-count N goes with -every")
	}
	if _, err := watch.Parse(name + "=" + watch.JVM + ",token=env:X"); err != nil {
		return fmt.Errorf("-watch %q is not a watch's name", name)
	}
	return nil
}

// token is the push token: -token, else $LEAKUI_WATCH_TOKEN.
func (wp watchPush) token() string {
	if *wp.push.token != "" {
		return *wp.push.token
	}
	return os.Getenv(watchTokenEnv)
}

// send POSTs the bundle at path to the watch and prints the server's
// verdict on standard error.
func (wp watchPush) send(ctx context.Context, path string, std stdio) (*pushAnswerJSON, error) {
	base := strings.TrimSuffix(*wp.push.url, "/")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, *wp.push.timeout)
	defer cancel()
	target := base + pushPrefix + url.PathEscape(wp.watch) + pushSuffix
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, f)
	if err != nil {
		return nil, err
	}
	req.ContentLength = st.Size()
	req.Header.Set("Content-Type", "application/gzip")
	req.Header.Set("Accept", "application/json")
	if tok := wp.token(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("push to watch %s at %s: %w", wp.watch, base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("push to watch %s at %s: reading the answer: %w", wp.watch, base, err)
	}
	var a pushAnswerJSON
	jsonErr := json.Unmarshal(body, &a)
	if resp.StatusCode != http.StatusCreated {
		msg := strings.TrimSpace(string(body))
		if jsonErr == nil && a.Error != "" {
			msg = a.Error
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("push to watch %s at %s: %s: %s", wp.watch, base, resp.Status, visible(msg))
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("push to watch %s at %s: %s without an answer", wp.watch, base, resp.Status)
	}
	fmt.Fprintf(std.err, "leakui capture: pushed to watch %s: %d of %d bundles held, verdict %s: %s\n", visible(a.Watch), a.Snapshots, a.Keep,
		visible(a.Verdict), visible(a.Reason))
	return &a, nil
}

// pushEvery captures the JVM and pushes the bundle to the watch, once, or
// every period (count times, or until ctx ends: an interrupt ends it
// cleanly). A push that fails is reported and the next tick comes; a JVM that
// is gone ends it. The exit status says whether the last push failed.
func (c jvmCapture) pushEvery(ctx context.Context, pid int, wp watchPush, every time.Duration, count int, std stdio) error {
	dir, err := os.MkdirTemp("", "leakui-push-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "capture.tar.gz")
	start := time.Now()
	var lastErr error
	for i := 0; every == 0 && i < 1 || every > 0 && (count == 0 || i < count); i++ {
		if i > 0 {
			// The next tick on the grid from the start; a tick missed while a
			// capture ran late is skipped.
			next := start.Add(time.Duration(i) * every)
			for next.Before(time.Now()) {
				next = next.Add(every)
				i++
			}
			if count > 0 && i >= count {
				break
			}
			t := time.NewTimer(time.Until(next))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		w, err := c.run(ctx, pid, std.err)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err // the JVM is gone
		}
		if err := writeBundle(w, path, stdio{std.in, io.Discard, io.Discard}); err != nil {
			fmt.Fprintln(std.err, "leakui capture:", err)
			lastErr = err
			continue
		}
		a, err := wp.send(ctx, path, std)
		if ctx.Err() != nil {
			return nil
		}
		lastErr = err
		if err != nil {
			fmt.Fprintln(std.err, "leakui capture:", err)
			continue
		}
		fmt.Fprintln(std.out, visible(a.Verdict))
	}
	if lastErr != nil {
		return errors.New("the last push failed (see above)")
	}
	return nil
}
