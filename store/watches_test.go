package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

func snapshot(watch string, tick time.Time, leak []byte) store.WatchSnapshot {
	return store.WatchSnapshot{Watch: watch, Tick: tick, TakenAt: tick.Add(150 * time.Millisecond),
		Heap: []byte("heap " + tick.Format(time.TimeOnly)), Goroutine: []byte("goroutine " + tick.Format(time.TimeOnly)), GoroutineLeak: leak}
}

// Declaring watches adds, keeps, resets and deletes them; a state is written
// only over the verdict it was decided from.
func testWatches(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	declare := func(ws ...store.Watch) {
		t.Helper()
		if err := db.DeclareWatches(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	api := store.Watch{Name: "api", URL: "http://127.0.0.1:6060", Every: time.Minute, Keep: 10}
	worker := store.Watch{Name: "worker", URL: "http://127.0.0.1:6061/internal", Every: 5 * time.Second, Keep: 8}
	declare(api, worker)
	for i := range 3 {
		for _, w := range []string{"api", "worker"} {
			if added, err := db.AddWatchSnapshot(ctx, snapshot(w, t0.Add(time.Duration(i)*time.Minute), nil)); err != nil || !added {
				t.Fatalf("%s snapshot %d: added %v, %v", w, i, added, err)
			}
		}
	}
	// A tick stored again is not stored twice.
	if added, err := db.AddWatchSnapshot(ctx, snapshot("api", t0, []byte("other"))); err != nil || added {
		t.Errorf("the same tick again: added %v, %v", added, err)
	}
	if _, err := db.AddWatchSnapshot(ctx, snapshot("nobody", t0, nil)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a snapshot of an undeclared watch: %v, want ErrNotFound", err)
	}
	if _, err := db.AddWatchSnapshot(ctx, store.WatchSnapshot{Watch: "api", Tick: t0.Add(time.Hour)}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a snapshot without profiles: %v, want ErrInvalid", err)
	}
	st := store.WatchState{Verdict: "inconclusive", Suspect: "main.leak", GrowthPerHour: 3.5e6, Unit: "bytes", Reason: "Too few snapshots.",
		LastScrape: t0.Add(2 * time.Minute), LastDuration: 42 * time.Millisecond, Changed: t0.Add(2 * time.Minute)}
	if ok, err := db.SetWatchState(ctx, "api", "", st); err != nil || !ok {
		t.Fatalf("first state: %v %v", ok, err)
	}
	// Another tick decided from the verdict before: not written.
	if ok, err := db.SetWatchState(ctx, "api", "", store.WatchState{Verdict: "leak"}); err != nil || ok {
		t.Errorf("a state over a stale verdict was written (%v, %v)", ok, err)
	}
	if _, err := db.SetWatchState(ctx, "nobody", "", st); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the state of an undeclared watch: %v", err)
	}
	got, err := db.Watch(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != api.URL || got.Every != time.Minute || got.Keep != 10 || got.Snapshots != 3 || got.WatchState != st {
		t.Errorf("api reads back as %+v", got)
	}
	snaps, err := db.WatchSnapshots(ctx, "api")
	if err != nil || len(snaps) != 3 || !snaps[0].Tick.Equal(t0) || !bytes.Equal(snaps[0].Heap, []byte("heap 10:00:00")) || snaps[0].GoroutineLeak != nil ||
		!snaps[0].TakenAt.Equal(t0.Add(150*time.Millisecond)) {
		t.Errorf("api's snapshots: %d, %v; first %+v", len(snaps), err, snaps)
	}
	// Declared again: api's window shrinks to its two newest, worker moves to
	// another program (its state and snapshots go), and a third is new.
	api.Keep = 8
	declare(store.Watch{Name: "api", URL: api.URL, Every: 30 * time.Second, Keep: 2},
		store.Watch{Name: "worker", URL: "http://127.0.0.1:7000", Every: 5 * time.Second, Keep: 8},
		store.Watch{Name: "batch", URL: "https://batch.internal:6060", Every: time.Hour, Keep: 100})
	ws, err := db.Watches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, w := range ws {
		listed = append(listed, fmt.Sprintf("%s %s %s %d %d %q", w.Name, w.URL, w.Every, w.Keep, w.Snapshots, w.Verdict))
	}
	want := []string{
		`api http://127.0.0.1:6060 30s 2 2 "inconclusive"`,
		`batch https://batch.internal:6060 1h0m0s 100 0 ""`,
		`worker http://127.0.0.1:7000 5s 8 0 ""`,
	}
	if fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Errorf("watches:\n%q\nwant\n%q", listed, want)
	}
	if snaps, _ := db.WatchSnapshots(ctx, "api"); len(snaps) != 2 || !snaps[0].Tick.Equal(t0.Add(time.Minute)) {
		t.Errorf("after shrinking the window, api holds %d snapshots: %+v", len(snaps), snaps)
	}
	// No longer declared: gone with its snapshots.
	declare(store.Watch{Name: "batch", URL: "https://batch.internal:6060", Every: time.Hour, Keep: 100})
	if _, err := db.Watch(ctx, "api"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an undeclared watch reads: %v", err)
	}
	if snaps, _ := db.WatchSnapshots(ctx, "api"); len(snaps) != 0 {
		t.Errorf("an undeclared watch keeps %d snapshots", len(snaps))
	}
	if err := db.DeclareWatches(ctx, []store.Watch{{Name: "x", URL: "http://a", Every: time.Second, Keep: 8}, {Name: "x", URL: "http://b", Every: time.Second, Keep: 8}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a watch declared twice: %v", err)
	}
}

// A watch holds its newest Keep snapshots, whatever order the ticks are
// stored in.
func testWatchSnapshotsKeepTheNewest(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	if err := db.DeclareWatches(ctx, []store.Watch{{Name: "w", URL: "http://127.0.0.1:1", Every: time.Second, Keep: 8}}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	order := []int{3, 1, 0, 2, 4, 5, 9, 6, 7, 8, 10, 11}
	for _, i := range order {
		if _, err := db.AddWatchSnapshot(ctx, snapshot("w", t0.Add(time.Duration(i)*time.Second), []byte{byte(i)})); err != nil {
			t.Fatal(err)
		}
	}
	snaps, err := db.WatchSnapshots(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	var ticks []int
	for _, s := range snaps {
		ticks = append(ticks, int(s.Tick.Sub(t0)/time.Second))
		if !bytes.Equal(s.GoroutineLeak, []byte{byte(ticks[len(ticks)-1])}) {
			t.Errorf("tick %d holds goroutineleak %v", ticks[len(ticks)-1], s.GoroutineLeak)
		}
	}
	if fmt.Sprint(ticks) != "[4 5 6 7 8 9 10 11]" {
		t.Errorf("held ticks %v, want the newest 8", ticks)
	}
}

// A pushed watch's snapshot is a bundle, read back as stored, with no
// profiles; a snapshot with both or neither is refused. The incident a
// watch's alerts go to is kept.
func testWatchBundles(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	if err := db.DeclareWatches(ctx, []store.Watch{{Name: "broker", URL: "jvm", Every: time.Minute, Keep: 8}}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	bundle := []byte("\x1f\x8b a bundle")
	if added, err := db.AddWatchSnapshot(ctx, store.WatchSnapshot{Watch: "broker", Tick: t0, TakenAt: t0, Bundle: bundle}); err != nil || !added {
		t.Fatalf("a bundle's snapshot: added %v, %v", added, err)
	}
	if _, err := db.AddWatchSnapshot(ctx, store.WatchSnapshot{Watch: "broker", Tick: t0.Add(time.Minute), Bundle: bundle, Heap: []byte("h")}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a bundle with a profile: %v, want ErrInvalid", err)
	}
	snaps, err := db.WatchSnapshots(ctx, "broker")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("%d snapshots, %v", len(snaps), err)
	}
	if s := snaps[0]; !bytes.Equal(s.Bundle, bundle) || s.Heap != nil || s.Goroutine != nil || s.GoroutineLeak != nil || s.Size() != int64(len(bundle)) {
		t.Errorf("read back %+v", s)
	}
	if err := db.SetWatchIncident(ctx, "broker", "leak-broker"); err != nil {
		t.Fatal(err)
	}
	if w, err := db.Watch(ctx, "broker"); err != nil || w.Incident != "leak-broker" {
		t.Errorf("the watch's incident: %+v, %v", w, err)
	}
	if err := db.SetWatchIncident(ctx, "nobody", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the incident of no watch: %v", err)
	}
}
