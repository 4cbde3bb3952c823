package watcher

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
)

// A JVM watch is fed by its JVM's host: `leakui capture jvm PID -every 1m
// -push URL -watch NAME` pushes a capture bundle per tick, with the watch's
// push token, and each push is one snapshot. The verdict over the window is
// the native memory verdict of the bundles (capture.Analyze, jvm.AnalyzeNative:
// the resident set's growth beyond what NMT tracks and the Java heap holds,
// and the zlib streams alive that explain it).

// Errors of a push.
var (
	// ErrNotPushed is a push to a watch that is not declared as a JVM's.
	ErrNotPushed = errors.New("no JVM watch of this name")
	// ErrToken is a push whose token is not the watch's.
	ErrToken = errors.New("not this watch's push token")
	// ErrNotJVM is a bundle that is not a JVM's capture.
	ErrNotJVM = errors.New("not a JVM capture bundle")
)

// DefaultMaxBundleBytes bounds a pushed bundle as sent (Config.MaxBundleBytes).
const DefaultMaxBundleBytes = 16 << 20

// maxBundleDecompressed bounds a bundle decompressed.
const maxBundleDecompressed = capture.DefaultMaxTotalBytes

// minBundles is the fewest bundles of one process a verdict compares.
const minBundles = 2

// Authorize tells whether token is the push token of the watch name (read
// from its secret now, so that a rotated token file takes effect), comparing
// in constant time: ErrNotPushed when name is no JVM watch, ErrToken when the
// token is not its own.
func (w *Watcher) Authorize(name, token string) error {
	d, ok := w.declared[name]
	if !ok || !d.Pushed() {
		return fmt.Errorf("watch %q: %w", name, ErrNotPushed)
	}
	want, err := d.Token.Read()
	if err != nil {
		return fmt.Errorf("watch %s: its push token: %w", name, err)
	}
	a, b := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(want))
	if token == "" || subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return fmt.Errorf("watch %s: %w", name, ErrToken)
	}
	return nil
}

// MaxBundleBytes is the largest bundle a push may send.
func (w *Watcher) MaxBundleBytes() int64 { return w.cfg.MaxBundleBytes }

// Push stores a bundle the watch name's JVM pushed at at, as one snapshot
// (the newest Keep are kept), decides the native memory verdict over the
// bundles of the JVM's current process, records the watch's state and tells a
// change to the Notifier, like a tick. Call Authorize first. A bundle that does
// not read as a JVM's capture is refused before anything is stored (ErrNotJVM,
// or analyze's ErrMalformed, ErrTooLarge, ErrBusy); it returns the watch's
// state after the push.
func (w *Watcher) Push(ctx context.Context, name string, bundle []byte, at time.Time) (watch.Status, error) {
	d, ok := w.declared[name]
	if !ok || !d.Pushed() {
		return watch.Status{}, fmt.Errorf("watch %q: %w", name, ErrNotPushed)
	}
	if int64(len(bundle)) > w.cfg.MaxBundleBytes {
		return watch.Status{}, fmt.Errorf("%w: a bundle of %s; a push sends at most %s", analyze.ErrTooLarge,
			analyze.FormatBytes(int64(len(bundle))), analyze.FormatBytes(w.cfg.MaxBundleBytes))
	}
	budget := w.cfg.Budget.Child(0)
	defer budget.Release()
	// The pushed bytes are held while the push is decided.
	err := budget.Charge(int64(len(bundle)))
	var c *capture.Capture
	if err == nil {
		c, err = readBundle(bundle, budget)
	}
	w.refused("watch_push", err)
	if err != nil {
		return watch.Status{}, err
	}
	budget.Release()
	if err := budget.Charge(int64(len(bundle))); err != nil {
		w.refused("watch_push", err)
		return watch.Status{}, err
	}
	cur, err := w.cfg.Store.Watch(ctx, name)
	if err != nil {
		return watch.Status{}, err
	}
	tick := at.UTC().Truncate(time.Millisecond)
	st := cur.WatchState
	st.LastScrape, st.LastDuration, st.LastError, st.Failures, st.NextScrape = tick, c.Manifest.Finished.Sub(c.Manifest.Started), "", 0, time.Time{}
	if _, err := w.cfg.Store.AddWatchSnapshot(ctx, store.WatchSnapshot{Watch: name, Tick: tick, TakenAt: c.Manifest.Started, Bundle: bundle}); err != nil {
		return watch.Status{}, err
	}
	snaps, err := w.cfg.Store.WatchSnapshots(ctx, name)
	if err != nil {
		return watch.Status{}, err
	}
	var held int64
	for _, s := range snaps {
		held += int64(len(s.Bundle))
	}
	from := watch.Verdict(cur.Verdict)
	// The window's bundles as read from the store, then each one parsed.
	err = budget.Charge(held)
	var dec decision
	if err == nil {
		dec, err = decideBundles(snaps, budget)
	}
	w.refused("watch_push", err)
	if err != nil {
		st.LastError = "deciding the verdict: " + err.Error()
		w.log.Error("a watch's verdict was not decided", "watch", name, "err", err)
		if _, serr := w.cfg.Store.SetWatchState(ctx, name, cur.Verdict, st); serr != nil {
			return watch.Status{}, serr
		}
		return w.status(ctx, name)
	}
	st.Verdict, st.Suspect, st.GrowthPerHour, st.Unit, st.Reason = string(dec.verdict), dec.suspect, dec.growthPerHour, dec.unit, dec.reason
	if dec.verdict != from {
		st.Changed = tick
	}
	applied, err := w.cfg.Store.SetWatchState(ctx, name, cur.Verdict, st)
	if err != nil {
		return watch.Status{}, err
	}
	if applied && dec.verdict != from {
		w.notify(ctx, watch.Change{Watch: name, From: from, To: dec.verdict, Suspect: dec.suspect, GrowthPerHour: dec.growthPerHour, Unit: dec.unit, Window: dec.window, At: tick})
	}
	return w.status(ctx, name)
}

// notify tells c to the Notifier, with the watch's link.
func (w *Watcher) notify(ctx context.Context, c watch.Change) {
	if w.cfg.Notifier == nil {
		return
	}
	if w.cfg.ReportURL != nil {
		c.ReportURL = w.cfg.ReportURL(c.Watch)
	}
	if err := w.cfg.Notifier.Notify(ctx, c); err != nil {
		w.log.Error("a watch's change was not told", "watch", c.Watch, "from", c.From, "to", c.To, "err", err)
	}
}

// status is one watch's Status.
func (w *Watcher) status(ctx context.Context, name string) (watch.Status, error) {
	s, err := w.cfg.Store.Watch(ctx, name)
	if err != nil {
		return watch.Status{}, err
	}
	return w.statusOf(*s, w.cfg.Now()), nil
}

// readBundle reads and parses a pushed bundle within budget: a JVM's capture
// or an error.
func readBundle(b []byte, budget *analyze.Budget) (*capture.Capture, error) {
	c, err := capture.ReadCapture(bytes.NewReader(b), maxBundleDecompressed, capture.Limits{}, budget)
	if err != nil {
		return nil, err
	}
	if c.Manifest.Kind != capture.KindJVM || c.JVM == nil {
		return nil, fmt.Errorf("%w: a %s capture; a JVM watch takes `leakui capture jvm` bundles", ErrNotJVM, c.Manifest.Kind)
	}
	return c, nil
}

// decideBundles is the native memory verdict over the bundles of the JVM's
// current process: the newest bundle's, and those before it of the same
// process (a restarted JVM starts its window again). With fewer than two the
// verdict is inconclusive; with two or more, leak when the native memory
// verdict says so, inconclusive when the first or last bundle lacks what the
// verdict needs (the resident set, NMT, the heap), no leak else.
func decideBundles(snaps []store.WatchSnapshot, budget *analyze.Budget) (decision, error) {
	var caps []*capture.Capture
	for i := len(snaps) - 1; i >= 0; i-- {
		c, err := readBundle(snaps[i].Bundle, budget)
		if err != nil {
			return decision{}, fmt.Errorf("the bundle of %s: %w", snaps[i].Tick.Format(time.RFC3339), err)
		}
		if len(caps) > 0 && !c.Manifest.Target.Same(caps[0].Manifest.Target) {
			break
		}
		caps = append(caps, c)
	}
	restarted := ""
	if len(caps) < len(snaps) {
		restarted = fmt.Sprintf(" The JVM restarted (now %s), so the window starts at its first bundle.", caps[0].Manifest.Target)
	}
	if len(caps) < minBundles {
		return decision{verdict: watch.Inconclusive, reason: fmt.Sprintf("%d of the %d bundles of one process a native memory verdict compares are pushed.%s",
			len(caps), minBundles, restarted)}, nil
	}
	rep, err := capture.Analyze(caps)
	if err != nil {
		return decision{}, err
	}
	j := rep.JVM
	d := decision{verdict: watch.NoLeak, unit: "bytes", reason: rep.Verdict.Sentence + restarted}
	switch {
	case rep.Verdict.Leak:
		d.verdict = watch.Leak
		d.suspect = suspectOf(rep.Verdict.Cause)
	case !j.Complete:
		d.verdict = watch.Inconclusive
	}
	first, last := rep.Bundles[0].Started, rep.Bundles[len(rep.Bundles)-1].Started
	d.window = last.Sub(first)
	if span := d.window; span > 0 && d.verdict == watch.Leak {
		grew := j.RSSDelta
		if j.Complete && j.UntrackedNativeDeltaBytes > 0 && strings.HasPrefix(rep.Verdict.Cause, "untracked") {
			grew = j.UntrackedNativeDeltaBytes
		}
		d.growthPerHour = float64(grew) * float64(time.Hour) / float64(span)
	}
	return d, nil
}

// suspectOf names what a native memory verdict's cause says grows.
func suspectOf(cause string) string {
	switch cause {
	case "untracked-inflaters":
		return "java.util.zip.Inflater (unclosed GZIPInputStream)"
	case "untracked-deflaters":
		return "java.util.zip.Deflater (unclosed GZIPOutputStream)"
	case "untracked":
		return "native memory NMT does not track"
	}
	return cause
}
