package child

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
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

// doneWatch is a context that reports, by closing asked, the first time its
// Done channel is asked for: then the caller is about to wait on it.
type doneWatch struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *doneWatch) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

// TestHoldReturnsOnCancel cancels the context once Hold waits on it (the
// context was alive when Hold began) and checks that Hold returns long before
// its hour is up.
func TestHoldReturnsOnCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := &doneWatch{Context: parent, asked: make(chan struct{})}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		Hold(ctx, time.Hour)
	}()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	select {
	case <-ctx.asked:
	case <-returned:
		t.Fatal("Hold returned before the context was cancelled")
	case <-timeout.C:
		t.Fatal("Hold never waits on the context")
	}
	cancel()
	select {
	case <-returned:
	case <-timeout.C:
		t.Fatal("Hold ignored the cancelled context")
	}
}
