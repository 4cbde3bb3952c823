package watcher_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/watchtarget"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// processCPU is this process's user and system time, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkTick is one tick of a watch whose window is full (keep=24) on
// SQLite: the scrape of a real steady program's three profiles (its 404 for
// goroutineleak), the snapshot stored and the oldest deleted, the restart
// check and the series verdict over 24 heap and 24 goroutine profiles.
// cpu-ns/op is this process's CPU (not the target's); snapshot-B is one
// snapshot's bytes.
func BenchmarkTick(b *testing.B) {
	tg := watchtarget.Start(b, "steady")
	ctx := context.Background()
	db, err := storesqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d, err := watch.Parse("app=" + tg.URL + ",every=1m,keep=24")
	if err != nil {
		b.Fatal(err)
	}
	w := watcher.New(watcher.Config{Store: db, Logger: quietLogger()}, []watch.Declaration{d})
	if err := w.Declare(ctx); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Truncate(time.Minute)
	for i := range 24 {
		if err := w.Tick(ctx, "app", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := range b.N {
		if err := w.Tick(ctx, "app", t0.Add(time.Duration(24+i)*time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	b.StopTimer()
	cur, err := db.Watch(ctx, "app")
	if err != nil || cur.Snapshots != 24 || cur.LastError != "" {
		b.Fatalf("%+v, %v", cur, err)
	}
	snaps, _ := db.WatchSnapshots(ctx, "app")
	b.ReportMetric(float64(snaps[len(snaps)-1].Size()), "snapshot-B")
}
