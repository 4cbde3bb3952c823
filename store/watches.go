package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Watch is one declared watch (name, target, period, window) with its state
// after its last tick. The declaration comes from the operator
// (DeclareWatches); the state from the watch's ticks (SetWatchState).
type Watch struct {
	Name  string
	URL   string
	Every time.Duration
	Keep  int
	WatchState
	// Snapshots is how many snapshots the watch holds (read, never written).
	Snapshots int
	// Incident is the slug of the incident the watch's alerts opened or
	// joined, "" for none (SetWatchIncident).
	Incident  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// WatchState is what a watch's last tick decided and how its scrape went.
type WatchState struct {
	// Verdict is "" (none yet), "no leak", "inconclusive" or "leak".
	Verdict       string
	Suspect       string
	GrowthPerHour float64
	Unit          string
	Reason        string
	LastScrape    time.Time
	LastDuration  time.Duration
	LastError     string
	// Failures counts the scrapes that failed in a row; NextScrape is the
	// first time the target is scraped again after them.
	Failures   int
	NextScrape time.Time
	// Changed is when Verdict last changed.
	Changed time.Time
}

// WatchSnapshot is one tick's evidence of a watch's target: for a Go target
// it scrapes, heap and goroutine profiles, and the goroutineleak profile when
// the target serves it (nil when not); for a JVM that pushes, the capture
// bundle it pushed (Bundle, the profiles empty).
type WatchSnapshot struct {
	Watch         string
	Tick          time.Time
	TakenAt       time.Time
	Heap          []byte
	Goroutine     []byte
	GoroutineLeak []byte
	Bundle        []byte
}

// Size is the snapshot's bytes.
func (s WatchSnapshot) Size() int64 {
	return int64(len(s.Heap) + len(s.Goroutine) + len(s.GoroutineLeak) + len(s.Bundle))
}

// valid tells a snapshot that holds either a bundle or both a heap and a
// goroutine profile.
func (s WatchSnapshot) valid() bool {
	if s.Watch == "" || s.Tick.IsZero() {
		return false
	}
	if len(s.Bundle) > 0 {
		return len(s.Heap) == 0 && len(s.Goroutine) == 0 && len(s.GoroutineLeak) == 0
	}
	return len(s.Heap) > 0 && len(s.Goroutine) > 0
}

// snapshotValues are a snapshot's heap, goroutine, goroutineleak and bundle
// as inserted: an absent profile of a bundle's snapshot is an empty value
// (its column is NOT NULL), an absent goroutineleak profile or bundle NULL.
func (s WatchSnapshot) snapshotValues() (heap, goroutine, leak, bundle any) {
	heap, goroutine = s.Heap, s.Goroutine
	if s.Heap == nil {
		heap = []byte{}
	}
	if s.Goroutine == nil {
		goroutine = []byte{}
	}
	if s.GoroutineLeak != nil {
		leak = s.GoroutineLeak
	}
	if s.Bundle != nil {
		bundle = s.Bundle
	}
	return heap, goroutine, leak, bundle
}

const watchColumns = `name, url, every_ms, keep, verdict, suspect, growth_per_hour, unit, reason, last_scrape_at, last_scrape_ms,
	last_error, failures, next_scrape_at, changed_at, created_at, updated_at, incident`

// DeclareWatches makes the store's watches the declared ones: a new name is
// added, a watch declared again keeps its state and snapshots (trimmed to its
// new Keep) unless its URL changed (another program: its snapshots and state
// are dropped), and a watch no longer declared is deleted with its snapshots.
// Only the declarations' Name, URL, Every and Keep are read.
func (db *DB) DeclareWatches(ctx context.Context, declared []Watch) error {
	now := millis(time.Now())
	names := map[string]bool{}
	for _, w := range declared {
		if w.Name == "" || w.URL == "" || w.Every <= 0 || w.Keep <= 0 {
			return fmt.Errorf("%w: watch %q needs a name, a URL, a period and a window", ErrInvalid, w.Name)
		}
		if names[w.Name] {
			return fmt.Errorf("%w: watch %q declared twice", ErrInvalid, w.Name)
		}
		names[w.Name] = true
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		held, err := watchURLs(ctx, tx, db)
		if err != nil {
			return err
		}
		for name := range held {
			if !names[name] {
				if err := deleteWatchTx(ctx, tx, db, name); err != nil {
					return err
				}
			}
		}
		for _, w := range declared {
			url, ok := held[w.Name]
			switch {
			case !ok:
				_, err = tx.ExecContext(ctx, db.q(`INSERT INTO watches (name, url, every_ms, keep, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
					w.Name, w.URL, w.Every.Milliseconds(), w.Keep, now, now)
			case url != w.URL:
				if _, err = tx.ExecContext(ctx, db.q(`DELETE FROM watch_snapshots WHERE watch = ?`), w.Name); err != nil {
					break
				}
				_, err = tx.ExecContext(ctx, db.q(`UPDATE watches SET url = ?, every_ms = ?, keep = ?, verdict = '', suspect = '', growth_per_hour = 0,
					unit = '', reason = '', last_scrape_at = 0, last_scrape_ms = 0, last_error = '', failures = 0, next_scrape_at = 0,
					changed_at = 0, updated_at = ? WHERE name = ?`), w.URL, w.Every.Milliseconds(), w.Keep, now, w.Name)
			default:
				if _, err = tx.ExecContext(ctx, db.q(`UPDATE watches SET every_ms = ?, keep = ?, updated_at = ? WHERE name = ?`),
					w.Every.Milliseconds(), w.Keep, now, w.Name); err != nil {
					break
				}
				err = trimWatchTx(ctx, tx, db, w.Name, w.Keep)
			}
			if err != nil {
				return fmt.Errorf("store: watch %s: %w", w.Name, err)
			}
		}
		return nil
	})
}

func watchURLs(ctx context.Context, tx *sql.Tx, db *DB) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, db.q(`SELECT name, url FROM watches`))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, url string
		if err := rows.Scan(&name, &url); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out[name] = url
	}
	return out, rows.Err()
}

func deleteWatchTx(ctx context.Context, tx *sql.Tx, db *DB, name string) error {
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM watch_snapshots WHERE watch = ?`), name); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM watches WHERE name = ?`), name); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// trimWatchTx deletes a watch's snapshots but the newest keep.
func trimWatchTx(ctx context.Context, tx *sql.Tx, db *DB, name string, keep int) error {
	_, err := tx.ExecContext(ctx, db.q(`DELETE FROM watch_snapshots WHERE watch = ? AND tick NOT IN
		(SELECT tick FROM watch_snapshots WHERE watch = ? ORDER BY tick DESC LIMIT ?)`), name, name, keep)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Watches lists the watches by name, each with the number of snapshots it
// holds.
func (db *DB) Watches(ctx context.Context) ([]Watch, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+watchColumns+`, (SELECT COUNT(*) FROM watch_snapshots s WHERE s.watch = w.name)
		FROM watches w ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Watch
	for rows.Next() {
		w, err := scanWatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	return out, rows.Err()
}

// Watch reads one watch (ErrNotFound when it is not declared).
func (db *DB) Watch(ctx context.Context, name string) (*Watch, error) {
	row := db.read.QueryRowContext(ctx, db.q(`SELECT `+watchColumns+`, (SELECT COUNT(*) FROM watch_snapshots s WHERE s.watch = w.name)
		FROM watches w WHERE name = ?`), name)
	w, err := scanWatch(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("watch %q: %w", name, ErrNotFound)
	}
	return w, err
}

func scanWatch(row interface{ Scan(...any) error }) (*Watch, error) {
	var w Watch
	var every, last, lastMs, next, changed, created, updated int64
	err := row.Scan(&w.Name, &w.URL, &every, &w.Keep, &w.Verdict, &w.Suspect, &w.GrowthPerHour, &w.Unit, &w.Reason,
		&last, &lastMs, &w.LastError, &w.Failures, &next, &changed, &created, &updated, &w.Incident, &w.Snapshots)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	w.Every, w.LastDuration = time.Duration(every)*time.Millisecond, time.Duration(lastMs)*time.Millisecond
	w.LastScrape, w.NextScrape, w.Changed = fromMillisOrZero(last), fromMillisOrZero(next), fromMillisOrZero(changed)
	w.CreatedAt, w.UpdatedAt = fromMillis(created), fromMillis(updated)
	return &w, nil
}

func fromMillisOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return fromMillis(ms)
}

func millisOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return millis(t)
}

// SetWatchState records a watch's state after a tick, if its verdict is still
// from (the verdict the tick read before deciding): it reports false, and
// writes nothing, when another tick changed the verdict in between, so that a
// change is decided, and told, once. ErrNotFound when the watch is gone.
func (db *DB) SetWatchState(ctx context.Context, name, from string, st WatchState) (bool, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE watches SET verdict = ?, suspect = ?, growth_per_hour = ?, unit = ?, reason = ?,
			last_scrape_at = ?, last_scrape_ms = ?, last_error = ?, failures = ?, next_scrape_at = ?, changed_at = ?, updated_at = ?
			WHERE name = ? AND verdict = ?`),
			st.Verdict, st.Suspect, st.GrowthPerHour, st.Unit, st.Reason, millisOrZero(st.LastScrape), st.LastDuration.Milliseconds(),
			st.LastError, st.Failures, millisOrZero(st.NextScrape), millisOrZero(st.Changed), millis(time.Now()), name, from)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, err
	}
	if n == 0 {
		if _, err := db.Watch(ctx, name); err != nil {
			return false, err
		}
	}
	return n > 0, nil
}

// AddWatchSnapshot stores a tick's snapshot and deletes the watch's oldest
// beyond its Keep, in one transaction. A snapshot of a tick the watch holds
// already (the tick run again after a crash) is not stored again: it reports
// false. ErrNotFound when the watch is not declared.
func (db *DB) AddWatchSnapshot(ctx context.Context, s WatchSnapshot) (bool, error) {
	if !s.valid() {
		return false, fmt.Errorf("%w: a watch snapshot needs a watch, a tick, and a heap and a goroutine profile or a bundle", ErrInvalid)
	}
	added := false
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var keep, n int
		err := tx.QueryRowContext(ctx, db.q(`SELECT keep, (SELECT COUNT(*) FROM watch_snapshots WHERE watch = ? AND tick = ?) FROM watches WHERE name = ?`),
			s.Watch, millis(s.Tick), s.Watch).Scan(&keep, &n)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("watch %q: %w", s.Watch, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n > 0 {
			return nil
		}
		heap, goroutine, leak, bundle := s.snapshotValues()
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO watch_snapshots (watch, tick, taken_at, heap, goroutine, goroutineleak, bundle) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			s.Watch, millis(s.Tick), millis(s.TakenAt), heap, goroutine, leak, bundle); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		added = true
		return trimWatchTx(ctx, tx, db, s.Watch, keep)
	})
	return added && err == nil, err
}

// WatchSnapshots reads the snapshots a watch holds (at most its Keep), oldest
// first.
func (db *DB) WatchSnapshots(ctx context.Context, name string) ([]WatchSnapshot, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT tick, taken_at, heap, goroutine, goroutineleak, bundle FROM watch_snapshots
		WHERE watch = ? ORDER BY tick`), name)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []WatchSnapshot
	for rows.Next() {
		s := WatchSnapshot{Watch: name}
		var tick, taken int64
		if err := rows.Scan(&tick, &taken, &s.Heap, &s.Goroutine, &s.GoroutineLeak, &s.Bundle); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s.Tick, s.TakenAt = fromMillis(tick), fromMillis(taken)
		if len(s.Heap) == 0 {
			s.Heap = nil
		}
		if len(s.Goroutine) == 0 {
			s.Goroutine = nil
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SetWatchIncident records the incident a watch's alerts go to ("" for none).
// ErrNotFound when the watch is gone.
func (db *DB) SetWatchIncident(ctx context.Context, name, slug string) error {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE watches SET incident = ? WHERE name = ?`), slug, name)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("watch %q: %w", name, ErrNotFound)
	}
	return err
}
