package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
)

// copyWatch copies one watch with its state when dst lacks it, then each of
// its snapshots that dst lacks, one transaction each (a watch holds at most
// its Keep), and returns how many rows it wrote.
func copyWatch(ctx context.Context, dst, src *DB, name string) (written int64, err error) {
	w, err := src.Watch(ctx, name)
	if err != nil {
		return 0, err
	}
	has, err := dst.has(ctx, "watches", "name", name)
	if err != nil {
		return 0, err
	}
	if !has {
		err := dst.inTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, dst.q(`INSERT INTO watches (`+watchColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				w.Name, w.URL, w.Every.Milliseconds(), w.Keep, w.Verdict, w.Suspect, w.GrowthPerHour, w.Unit, w.Reason,
				millisOrZero(w.LastScrape), w.LastDuration.Milliseconds(), w.LastError, w.Failures, millisOrZero(w.NextScrape),
				millisOrZero(w.Changed), millis(w.CreatedAt), millis(w.UpdatedAt), w.Incident)
			if err != nil {
				return fmt.Errorf("store: watch: %w", err)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		written++
	}
	snaps, err := src.WatchSnapshots(ctx, name)
	if err != nil {
		return written, err
	}
	for _, s := range snaps {
		err := dst.inTx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, dst.q(`SELECT COUNT(*) FROM watch_snapshots WHERE watch = ? AND tick = ?`), name, millis(s.Tick)).Scan(&n); err != nil {
				return fmt.Errorf("store: %w", err)
			}
			if n > 0 {
				return nil
			}
			heap, goroutine, leak, bundle := s.snapshotValues()
			if _, err := tx.ExecContext(ctx, dst.q(`INSERT INTO watch_snapshots (watch, tick, taken_at, heap, goroutine, goroutineleak, bundle) VALUES (?, ?, ?, ?, ?, ?, ?)`),
				name, millis(s.Tick), millis(s.TakenAt), heap, goroutine, leak, bundle); err != nil {
				return fmt.Errorf("store: watch snapshot: %w", err)
			}
			written++
			return nil
		})
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

func sameWatch(a, b *Watch) bool {
	return a.Name == b.Name && a.URL == b.URL && a.Every == b.Every && a.Keep == b.Keep && a.WatchState.equal(b.WatchState) &&
		a.Snapshots == b.Snapshots && a.Incident == b.Incident && a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt)
}

func (s WatchState) equal(o WatchState) bool {
	return s.Verdict == o.Verdict && s.Suspect == o.Suspect && s.GrowthPerHour == o.GrowthPerHour && s.Unit == o.Unit &&
		s.Reason == o.Reason && s.LastScrape.Equal(o.LastScrape) && s.LastDuration == o.LastDuration && s.LastError == o.LastError &&
		s.Failures == o.Failures && s.NextScrape.Equal(o.NextScrape) && s.Changed.Equal(o.Changed)
}

func sameWatchSnapshot(a, b WatchSnapshot) bool {
	return a.Watch == b.Watch && a.Tick.Equal(b.Tick) && a.TakenAt.Equal(b.TakenAt) && bytes.Equal(a.Heap, b.Heap) &&
		bytes.Equal(a.Goroutine, b.Goroutine) && bytes.Equal(a.GoroutineLeak, b.GoroutineLeak) && (a.GoroutineLeak == nil) == (b.GoroutineLeak == nil) &&
		bytes.Equal(a.Bundle, b.Bundle)
}
