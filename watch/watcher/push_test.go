package watcher_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// The two bundles a real JVM's 20,000 dropped GZIPInputStreams were captured
// in (testdata/capture), pushed to a JVM watch: the first alone is
// inconclusive, the second makes the native memory verdict leak, with the
// Inflaters as suspect, and the change is told once. Only the watch's token
// is authorized; a Go capture, garbage, or a budget with no room store
// nothing, and the refusal is counted.
func TestPushedBundlesDecideTheNativeVerdict(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(fixtures.Path(t, "capture", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before, after := read("jvm-unclosed-gzip-before.tar.gz"), read("jvm-unclosed-gzip-after.tar.gz")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("broker-push-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var goBundle bytes.Buffer
	gw := capture.NewWriter(capture.KindGo, capture.Target{Host: "h", URL: "http://127.0.0.1:6060/debug/pprof/"}, "test", time.Now())
	gw.Add(capture.Step{Name: capture.StepMemStats, Command: "GET /debug/vars"}, []byte(`{"memstats":{"HeapAlloc":1}}`), nil)
	if err := gw.Write(&goBundle, time.Now()); err != nil {
		t.Fatal(err)
	}
	eachDatabase(t, func(t *testing.T, db database) {
		st := db.openStore(t)
		rec := &recorder{}
		var refused []string
		decls := []watch.Declaration{mustParse(t, "broker=jvm,keep=8,token=file:"+tokenFile), mustParse(t, "api=http://127.0.0.1:1")}
		w := watcher.New(watcher.Config{Store: st, Notifier: rec, Logger: quietLogger(), Budget: analyze.NewBudget(256 << 20),
			BudgetRefused: func(what string) { refused = append(refused, what) }}, decls)
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name, token string
			want        error
		}{
			{"broker", "broker-push-token-0123456789", nil},
			{"broker", "broker-push-token-012345678", watcher.ErrToken},
			{"broker", "", watcher.ErrToken},
			{"api", "broker-push-token-0123456789", watcher.ErrNotPushed},
			{"nobody", "broker-push-token-0123456789", watcher.ErrNotPushed},
		} {
			if err := w.Authorize(c.name, c.token); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("Authorize(%s, %q): %v, want %v", c.name, c.token, err, c.want)
			}
		}
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		for _, bad := range [][]byte{goBundle.Bytes(), []byte("not a bundle")} {
			if _, err := w.Push(ctx, "broker", bad, t0); err == nil {
				t.Errorf("a push of %.12q was stored", bad)
			}
		}
		if _, err := w.Push(ctx, "broker", goBundle.Bytes(), t0); !errors.Is(err, watcher.ErrNotJVM) {
			t.Errorf("a Go capture: %v, want ErrNotJVM", err)
		}
		st1, err := w.Push(ctx, "broker", before, t0)
		if err != nil {
			t.Fatal(err)
		}
		if st1.Verdict != watch.Inconclusive || st1.Snapshots != 1 {
			t.Errorf("after the first bundle: %+v", st1)
		}
		st2, err := w.Push(ctx, "broker", after, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", st2.Verdict, st2.Reason)
		if st2.Verdict != watch.Leak || st2.Snapshots != 2 || !strings.HasPrefix(st2.Suspect, "java.util.zip.Inflater") ||
			!strings.Contains(st2.Reason, "20,000 java.util.zip.Inflater alive") || st2.GrowthPerHour <= 0 || st2.Unit != "bytes" {
			t.Errorf("after the second bundle: %+v", st2)
		}
		changes := rec.of("broker")
		if len(changes) != 2 || changes[0].To != watch.Inconclusive || changes[1].From != watch.Inconclusive || changes[1].To != watch.Leak ||
			changes[1].Suspect != st2.Suspect {
			t.Errorf("changes told: %+v", changes)
		}
		// A budget with no room for a bundle: refused, counted, nothing stored.
		tight := watcher.New(watcher.Config{Store: st, Logger: quietLogger(), Budget: analyze.NewBudget(64 << 10),
			BudgetRefused: func(what string) { refused = append(refused, what) }}, decls)
		if _, err := tight.Push(ctx, "broker", after, t0.Add(2*time.Minute)); err == nil {
			t.Error("a push beyond the budget was stored")
		}
		if cur, _ := st.Watch(ctx, "broker"); cur.Snapshots != 2 {
			t.Errorf("%d snapshots after the refused pushes, want 2", cur.Snapshots)
		}
		if strings.Join(refused, " ") != "watch_push" {
			t.Errorf("refusals told: %q", refused)
		}
	})
}
