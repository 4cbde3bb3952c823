package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "127.0.0.2:6060": true, "[::1]:6060": true, "localhost:0": true, "LOCALHOST:1": true,
		"0.0.0.0:6060": false, ":6060": false, "[::]:6060": false, "192.168.1.10:6060": false,
		"example.com:6060": false, "127.0.0.1": false, "[::ffff:10.0.0.1]:1": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want accepted %v", addr, err, ok)
		}
	}
}

// TestDebugPprofFlag: -debug-pprof refuses a non-loopback address; on loopback it
// serves the profiles and memory statistics on a listener of its own, never on
// the dashboard's, and never the command line (which may hold -token).
func TestDebugPprofFlag(t *testing.T) {
	var errb bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), io.Discard, &errb})
	if err := m.ParseFlags([]string{"-debug-pprof", "0.0.0.0:6060"}); !errors.Is(err, errUsage) || !strings.Contains(errb.String(), "must listen on a loopback address") {
		t.Errorf("-debug-pprof 0.0.0.0:6060: %v, %q", err, errb.String())
	}

	var out bytes.Buffer
	m = NewMain(stdio{strings.NewReader(""), &out, io.Discard})
	if err := m.ParseFlags([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-debug-pprof", "127.0.0.1:0", "-token", "do-not-show-me"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	debug := "http://" + m.debug.Addr()
	if !strings.Contains(out.String(), "leakui debug endpoint on "+debug+"/debug/pprof/") {
		t.Errorf("stdout = %q", out.String())
	}
	get := func(url string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, vars := get(debug + "/debug/vars")
	var v struct {
		Memstats struct{ HeapAlloc uint64 } `json:"memstats"`
	}
	if code != 200 || json.Unmarshal(vars, &v) != nil || v.Memstats.HeapAlloc == 0 {
		t.Errorf("/debug/vars: %d %.200s", code, vars)
	}
	if bytes.Contains(vars, []byte("cmdline")) || bytes.Contains(vars, []byte("do-not-show-me")) {
		t.Error("/debug/vars shows the command line")
	}
	if code, body := get(debug + "/debug/pprof/cmdline"); code != 404 || bytes.Contains(body, []byte("do-not-show-me")) {
		t.Errorf("/debug/pprof/cmdline: %d %q", code, body)
	}
	if code, body := get(debug + "/debug/pprof/goroutine?debug=1"); code != 200 || !bytes.HasPrefix(body, []byte("goroutine profile: total ")) {
		t.Errorf("goroutine profile: %d %.100q", code, body)
	}
	if code, _ := get("http://" + m.Addr + "/debug/pprof/"); code != 404 {
		t.Errorf("the dashboard serves /debug/pprof/ (%d)", code)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a second Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second Close hangs")
	}
	if _, err := http.Get(debug + "/debug/vars"); err == nil {
		t.Error("the debug endpoint still answers after Close")
	}
}
