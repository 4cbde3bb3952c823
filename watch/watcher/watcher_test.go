package watcher_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// A real Go program that strands a goroutine holding 64 KiB every 200 ms is
// watched every second beside a steady one, through River's periodic jobs:
// the leaking one's verdict becomes leak within 15 ticks, its suspect the
// function that holds the bytes and growth per hour what the program
// strands (64 KiB × 5 a second); the steady one never reads leak, and its
// window keeps its newest 8 snapshots.
func TestLeakingTargetReachesLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("watches two programs for about 15 s per database")
	}
	eachDatabase(t, func(t *testing.T, db database) {
		t.Parallel()
		leaky, steady := watchtarget.Start(t, "leaky"), watchtarget.Start(t, "steady")
		st, backend := db.open(t)
		rec := &recorder{}
		w := watcher.New(watcher.Config{Store: st, Notifier: rec, Logger: quietLogger(),
			ReportURL: func(name string) string { return "https://leakui.example/watch/" + name }},
			[]watch.Declaration{mustParse(t, "leaky="+leaky.URL+",every=1s,keep=24"), mustParse(t, "steady="+steady.URL+",every=1s,keep=8")})
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		r := jobs.New(backend, jobs.Config{Queues: map[string]int{watcher.Queue: 2}, PollInterval: 50 * time.Millisecond, Logger: quietLogger()})
		w.Register(r)
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() {
			stop, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := r.Stop(stop); err != nil {
				t.Error(err)
			}
		}()
		var leakAt int
		waitUntil(t, 40*time.Second, "the leaking target's verdict", func() bool {
			cur, err := st.Watch(ctx, "leaky")
			if err != nil {
				t.Fatal(err)
			}
			if cur.Verdict == string(watch.Leak) {
				leakAt = cur.Snapshots
				return true
			}
			return false
		})
		cur, _ := st.Watch(ctx, "leaky")
		t.Logf("leaky: %s after %d snapshots: %s (%.0f %s/h)", cur.Verdict, leakAt, cur.Reason, cur.GrowthPerHour, cur.Unit)
		if leakAt > 15 {
			t.Errorf("the leak verdict formed after %d ticks, want 15 at most", leakAt)
		}
		if !strings.HasSuffix(cur.Suspect, "watchtarget.hold") {
			t.Errorf("suspect %q, want the function that holds the bytes, watchtarget.hold", cur.Suspect)
		}
		// The program holds 64 KiB more every 200 ms: 1,179,648,000 bytes an
		// hour (an input); the slope fitted to the heap profiles is the result.
		want := float64(watchtarget.Bytes) * float64(time.Hour/watchtarget.Step)
		if cur.Unit != "bytes" || math.Abs(cur.GrowthPerHour-want) > 0.25*want {
			t.Errorf("growth %.0f %s per hour, want %.0f bytes ± 25%%", cur.GrowthPerHour, cur.Unit, want)
		}
		changes := rec.of("leaky")
		if len(changes) == 0 || changes[len(changes)-1].To != watch.Leak {
			t.Fatalf("changes told: %+v, want the last to leak", changes)
		}
		last := changes[len(changes)-1]
		if last.Suspect != cur.Suspect || last.GrowthPerHour != cur.GrowthPerHour || last.ReportURL != "https://leakui.example/watch/leaky" ||
			!last.At.Equal(cur.Changed) || last.At.UnixMilli()%1000 != 0 {
			t.Errorf("the change told %+v, the state %+v", last, cur.WatchState)
		}
		// The window is the ticks from the first snapshot to the leak's, a
		// second apart: too short for a rate per hour, so the growth is told
		// as the change over it, what the program stranded in that time.
		snaps, err := st.WatchSnapshots(ctx, "leaky")
		if err != nil || len(snaps) == 0 {
			t.Fatal(len(snaps), err)
		}
		if span := last.At.Sub(snaps[0].Tick); last.Window != span || span < time.Duration(leakAt-2)*time.Second {
			t.Errorf("the change's window %s, want the ticks from %s to %s (%s, %d snapshots)", last.Window, snaps[0].Tick, last.At, span, leakAt)
		}
		text := watch.GrowthText(last.GrowthPerHour, last.Window, func(v int64) string { return strconv.FormatInt(v, 10) })
		wantText := " in " + strconv.Itoa(int(last.Window/time.Second)) + " s"
		grew, _ := strconv.ParseFloat(strings.TrimSuffix(text, wantText), 64)
		stranded := float64(watchtarget.Bytes) * float64(last.Window/watchtarget.Step)
		if !strings.HasSuffix(text, wantText) || math.Abs(grew-stranded) > 0.25*stranded {
			t.Errorf("the growth reads %q, want about +%.0f%s", text, stranded, wantText)
		}
		for i, c := range changes {
			if c.From == c.To || i > 0 && c.From != changes[i-1].To {
				t.Errorf("change %d %+v does not follow %+v", i, c, changes[max(i-1, 0)])
			}
		}
		// The steady program: 12 ticks, never a leak, 8 held.
		waitUntil(t, 30*time.Second, "12 ticks of the steady target", func() bool {
			cur, err := st.Watch(ctx, "steady")
			return err == nil && !cur.LastScrape.IsZero() && cur.Snapshots == 8 && time.Since(cur.CreatedAt) > 12*time.Second
		})
		sc, _ := st.Watch(ctx, "steady")
		t.Logf("steady: %s: %s", sc.Verdict, sc.Reason)
		for _, c := range rec.of("steady") {
			if c.To == watch.Leak {
				t.Errorf("the steady target read leak: %+v", c)
			}
		}
		if sc.Verdict == string(watch.Leak) || sc.Snapshots != 8 || sc.LastError != "" {
			t.Errorf("steady: %+v", sc)
		}
		snaps, err = st.WatchSnapshots(ctx, "steady")
		if err != nil || len(snaps) != 8 {
			t.Fatalf("steady holds %d snapshots (%v)", len(snaps), err)
		}
		for i := 1; i < len(snaps); i++ {
			if !snaps[i].Tick.After(snaps[i-1].Tick) {
				t.Errorf("ticks out of order: %v", snaps)
			}
		}
	})
}

// tickEvery runs ticks of a watch by hand, every period from t0.
func tickAt(t *testing.T, w *watcher.Watcher, name string, at time.Time) {
	t.Helper()
	if err := w.Tick(context.Background(), name, at); err != nil {
		t.Fatal(err)
	}
}

// A real target scraped tick by tick: each tick stores one snapshot (a tick
// run twice stores it once), the target's 404 for goroutineleak is no error,
// and the window keeps the newest snapshots.
func TestTicksStoreSnapshots(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		tg := watchtarget.Start(t, "steady")
		st := db.openStore(t)
		w := watcher.New(watcher.Config{Store: st, Logger: quietLogger()}, []watch.Declaration{mustParse(t, "app="+tg.URL+",every=10s,keep=8")})
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().Truncate(10 * time.Second)
		for i := range 10 {
			tickAt(t, w, "app", t0.Add(time.Duration(i)*10*time.Second))
		}
		tickAt(t, w, "app", t0.Add(90*time.Second))
		cur, err := st.Watch(ctx, "app")
		if err != nil {
			t.Fatal(err)
		}
		snaps, err := st.WatchSnapshots(ctx, "app")
		if err != nil {
			t.Fatal(err)
		}
		if cur.Snapshots != 8 || len(snaps) != 8 || !snaps[0].Tick.Equal(t0.Add(20*time.Second)) || cur.LastError != "" || cur.Failures != 0 {
			t.Errorf("after 10 ticks: %d snapshots from %v, state %+v", len(snaps), snaps[0].Tick, cur.WatchState)
		}
		for _, s := range snaps {
			if len(s.Heap) == 0 || len(s.Goroutine) == 0 || s.GoroutineLeak != nil {
				t.Errorf("snapshot %v: heap %d, goroutine %d, goroutineleak %v bytes", s.Tick, len(s.Heap), len(s.Goroutine), s.GoroutineLeak)
			}
		}
		if cur.Verdict == string(watch.None) || cur.Reason == "" || cur.LastDuration <= 0 {
			t.Errorf("no verdict recorded: %+v", cur.WatchState)
		}
		statuses, err := w.Statuses(ctx)
		if err != nil || len(statuses) != 1 || statuses[0].Name != "app" || statuses[0].Snapshots != 8 || statuses[0].Verdict != watch.Verdict(cur.Verdict) {
			t.Errorf("statuses %+v (%v)", statuses, err)
		}
	})
}

// switchable is a stable URL in front of a target that a test replaces, as
// a restarted program comes back at the same address.
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

// A leak that forms, then clears when the leaking program is replaced by a
// steady one at the same address: the restart starts the window again (the
// verdict is inconclusive until the steady program's snapshots decide), the
// verdict is no leak once they do, and the changes say so with a resolution
// first.
func TestLeakClearsWhenTargetIsFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("ticks a real program every second for about 20 s per database")
	}
	eachDatabase(t, func(t *testing.T, db database) {
		t.Parallel()
		leaky := watchtarget.Start(t, "leaky")
		sw := &switchable{}
		sw.point(t, leaky.URL)
		front := httptest.NewServer(sw)
		defer front.Close()
		st := db.openStore(t)
		rec := &recorder{}
		w := watcher.New(watcher.Config{Store: st, Notifier: rec, Logger: quietLogger()},
			[]watch.Declaration{mustParse(t, "app="+front.URL+",every=1s,keep=8")})
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		verdict := func() watch.Verdict {
			cur, err := st.Watch(ctx, "app")
			if err != nil {
				t.Fatal(err)
			}
			return watch.Verdict(cur.Verdict)
		}
		tick := time.Now().Truncate(time.Second)
		ticks := 0
		for ; verdict() != watch.Leak; ticks++ {
			if ticks == 15 {
				t.Fatalf("no leak after 15 ticks: %s", verdict())
			}
			tick = tick.Add(time.Second)
			time.Sleep(time.Until(tick))
			tickAt(t, w, "app", tick)
		}
		leakTicks := ticks
		// The program is restarted, fixed.
		leaky.Stop()
		sw.point(t, watchtarget.Start(t, "steady").URL)
		for ticks = 0; verdict() != watch.NoLeak; ticks++ {
			if ticks == 1 {
				cur, _ := st.Watch(ctx, "app")
				if cur.Verdict != string(watch.Inconclusive) || !strings.Contains(cur.Reason, "The target restarted between") {
					t.Errorf("the tick after the restart: %s: %s", cur.Verdict, cur.Reason)
				}
			}
			if ticks == 15 {
				cur, _ := st.Watch(ctx, "app")
				t.Fatalf("the verdict did not clear in 15 ticks: %s: %s", cur.Verdict, cur.Reason)
			}
			tick = tick.Add(time.Second)
			time.Sleep(time.Until(tick))
			tickAt(t, w, "app", tick)
		}
		t.Logf("leak after %d ticks, cleared %d ticks after the switch", leakTicks, ticks)
		changes := rec.of("app")
		var path []string
		for _, c := range changes {
			path = append(path, string(c.To))
		}
		last := changes[len(changes)-1]
		if len(path) < 3 || path[len(path)-3] != string(watch.Leak) || path[len(path)-2] != string(watch.Inconclusive) || last.To != watch.NoLeak ||
			!changes[len(changes)-2].Resolved() {
			t.Errorf("changes told: %q; want leak, then inconclusive (resolving it) at the restart, then no leak", path)
		}
		if ticks < 3 {
			t.Errorf("the verdict cleared %d ticks after the restart, before 3 snapshots of the new program", ticks)
		}
		if last.Suspect != "" || last.GrowthPerHour != 0 {
			t.Errorf("the cleared change names a suspect: %+v", last)
		}
	})
}

// The profiles a verdict holds are charged to the budget while it is
// decided and given back after; a budget with no room for them leaves the
// verdict as it was, records why, and keeps the snapshot.
func TestVerdictWithinBudget(t *testing.T) {
	tg := watchtarget.Start(t, "steady")
	eachDatabase(t, func(t *testing.T, db database) {
		st := db.openStore(t)
		budget := analyze.NewBudget(64 << 20)
		decl := mustParse(t, "app="+tg.URL+",every=10s,keep=8")
		w := watcher.New(watcher.Config{Store: st, Logger: quietLogger(), Budget: budget}, []watch.Declaration{decl})
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().Truncate(10 * time.Second)
		for i := range 4 {
			tickAt(t, w, "app", t0.Add(time.Duration(i)*10*time.Second))
		}
		cur, _ := st.Watch(ctx, "app")
		if cur.LastError != "" || cur.Verdict == "" || budget.Used() != 0 {
			t.Fatalf("within the budget: %+v, %d bytes still charged", cur.WatchState, budget.Used())
		}
		verdict := cur.Verdict
		// A budget with room for one profile at a time but not for the
		// window's heap profiles together.
		snaps, err := st.WatchSnapshots(ctx, "app")
		if err != nil {
			t.Fatal(err)
		}
		var largest, sum int64
		for _, s := range snaps {
			p, err := pprof.Open(pprof.Reader(bytes.NewReader(s.Heap)), pprof.Options{})
			if err != nil {
				t.Fatal(err)
			}
			largest, sum = max(largest, p.MemSize()), sum+p.MemSize()
			p.Close()
		}
		if sum <= 2*largest {
			t.Fatalf("the heap profiles hold %d bytes, the largest %d", sum, largest)
		}
		small := analyze.NewBudget(2 * largest)
		var refused []string
		count := func(what string) { refused = append(refused, what) }
		w = watcher.New(watcher.Config{Store: st, Logger: quietLogger(), Budget: small, BudgetRefused: count}, []watch.Declaration{decl})
		tickAt(t, w, "app", t0.Add(40*time.Second))
		cur, _ = st.Watch(ctx, "app")
		if !strings.Contains(cur.LastError, "deciding the verdict") || !strings.Contains(cur.LastError, "memory budget") ||
			cur.Verdict != verdict || cur.Snapshots != 5 || small.Used() != 0 {
			t.Errorf("over the budget: %+v, %d snapshots, %d bytes still charged", cur.WatchState, cur.Snapshots, small.Used())
		}
		// With no room for one profile, the scrape itself is refused and
		// nothing is stored.
		tiny := analyze.NewBudget(4 << 10)
		w = watcher.New(watcher.Config{Store: st, Logger: quietLogger(), Budget: tiny, BudgetRefused: count}, []watch.Declaration{decl})
		tickAt(t, w, "app", t0.Add(50*time.Second))
		cur, _ = st.Watch(ctx, "app")
		if !strings.HasSuffix(cur.LastError, "the analysis needs more than its memory budget of 4.0 kB (-memory-budget)") || strings.Contains(cur.LastError, "not a profile") ||
			cur.Snapshots != 5 || cur.Failures != 1 || tiny.Used() != 0 {
			t.Errorf("no room for a profile: %+v, %d snapshots", cur.WatchState, cur.Snapshots)
		}
		// Both refusals were counted, as /metrics counts them.
		if strings.Join(refused, " ") != "watch_tick watch_tick" {
			t.Errorf("refusals told: %q", refused)
		}
	})
}

// Two replicas on one database, each with its runner and watcher, scrape
// the target once per tick between them, counted at the target by the tick
// each scrape says it belongs to.
func TestTwoReplicasScrapeOncePerTick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two replicas for 8 ticks per database")
	}
	tg := watchtarget.Start(t, "steady")
	target, err := url.Parse(tg.URL)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	eachDatabase(t, func(t *testing.T, db database) {
		t.Parallel()
		var mu sync.Mutex
		heaps := map[string]int{} // heap GETs by tick
		counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/debug/pprof/heap" {
				mu.Lock()
				heaps[r.Header.Get(watcher.TickHeader)]++
				mu.Unlock()
			}
			forward.ServeHTTP(w, r)
		}))
		defer counting.Close()
		decl := mustParse(t, "app="+counting.URL+",every=1s,keep=100")
		ctx := context.Background()
		var runners []*jobs.Runner
		var st *store.DB
		for i := range 2 {
			s, backend := db.open(t)
			st = s
			w := watcher.New(watcher.Config{Store: s, Logger: quietLogger()}, []watch.Declaration{decl})
			if err := w.Declare(ctx); err != nil {
				t.Fatal(err)
			}
			r := jobs.New(backend, jobs.Config{ID: fmt.Sprintf("replica-%d", i), Queues: map[string]int{watcher.Queue: 2},
				PollInterval: 50 * time.Millisecond, Logger: quietLogger()})
			w.Register(r)
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			runners = append(runners, r)
		}
		waitUntil(t, 60*time.Second, "8 snapshots", func() bool {
			cur, err := st.Watch(ctx, "app")
			return err == nil && cur.Snapshots >= 8
		})
		for _, r := range runners {
			stop, cancel := context.WithTimeout(ctx, 30*time.Second)
			if err := r.Stop(stop); err != nil {
				t.Error(err)
			}
			cancel()
		}
		mu.Lock()
		defer mu.Unlock()
		for tick, n := range heaps {
			if n != 1 || tick == "" {
				t.Errorf("tick %q scraped %d times", tick, n)
			}
		}
		if len(heaps) < 8 {
			t.Errorf("%d ticks scraped", len(heaps))
		}
		t.Logf("%d ticks, each scraped once", len(heaps))
	})
}

// TestMinRateWindowIsTheSeriesOwn: the watches tell a growth per hour from
// the window on which the series analysis gives a rate per minute.
func TestMinRateWindowIsTheSeriesOwn(t *testing.T) {
	if watch.MinRateWindow != series.MinRateSpan {
		t.Errorf("watch.MinRateWindow %s, series.MinRateSpan %s", watch.MinRateWindow, series.MinRateSpan)
	}
}
