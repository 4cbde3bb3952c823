package workload

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDebugServerServesProfilesAndVars(t *testing.T) {
	d, err := ListenDebug("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for path, want := range map[string]string{
		"/debug/pprof/goroutine?debug=1": "goroutine profile: total",
		"/debug/vars":                    `"memstats"`,
	} {
		resp, err := client.Get("http://" + d.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("%s: status %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
}

func TestHoldReturnsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	Hold(ctx, time.Hour)
	if time.Since(start) > 5*time.Second {
		t.Fatal("Hold ignored the cancelled context")
	}
}
