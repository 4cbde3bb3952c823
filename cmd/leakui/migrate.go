package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

// runMigrate implements `leakui migrate -from DIR -to postgres://…`: Copy, then
// Verify, then a table of both on stdout. It exits 1 when the check finds a row of
// the source that the target lacks or holds differently.
func runMigrate(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("migrate", "", std.err)
	from := fs.String("from", "./leakui-data", "the store to copy: a SQLite data directory or a postgres:// URL")
	to := fs.String("to", "", "the store to copy into: a postgres:// URL (env LEAKUI_DB) or a SQLite data directory")
	progress := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), always or never")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(std.err, "leakui migrate: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *to == "" {
		*to = os.Getenv("LEAKUI_DB")
	}
	if *to == "" {
		fmt.Fprintln(std.err, "leakui migrate: -to is required (a postgres:// URL)")
		return errUsage
	}
	if *from == *to {
		fmt.Fprintln(std.err, "leakui migrate: -from and -to name the same store")
		return errUsage
	}
	var bar *progressBar
	switch *progress {
	case "always":
		bar = &progressBar{w: rawWriter(std.err)}
	case "auto":
		if term := rawWriter(std.err); isTerminal(term) {
			bar = &progressBar{w: term}
		}
	case "never":
	default:
		fmt.Fprintf(std.err, "leakui migrate: -progress must be auto, always or never, not %q\n", *progress)
		return errUsage
	}
	if !postgres.IsDSN(*from) {
		if _, err := os.Stat(filepath.Join(*from, sqlite.File)); err != nil {
			return fmt.Errorf("no leakui store in %s: %w", *from, err)
		}
	}
	src, err := openStore(ctx, *from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openStore(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()

	start := time.Now()
	res, err := store.Copy(ctx, dst, src, bar.update("copy"))
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(std.out, "copied %d artifacts (%s), %d runs, %d reports, %d derived indexes (%s), %d incidents, %d watches, %d alert deliveries from %s to %s in %s\n",
		res.Artifacts, analyze.FormatBytes(res.Bytes), res.Runs, res.Reports, res.Derived, analyze.FormatBytes(res.DerivedBytes), res.Incidents, res.Watches, res.Deliveries,
		visible(src.Location), visible(dst.Location),
		time.Since(start).Round(time.Millisecond))
	checks, err := store.Verify(ctx, dst, src, bar.update("check"))
	bar.done()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tsource\tin target\t")
	failed := 0
	for _, c := range checks {
		note := ""
		if c.Table == "artifacts" {
			note = fmt.Sprintf("%s of %s, sha256 checked", analyze.FormatBytes(c.MatchedBytes), analyze.FormatBytes(c.SourceBytes))
		}
		if !c.OK() {
			failed++
			note = strings.TrimPrefix(note+"; ", "; ") + "differ: " + visible(strings.Join(c.Missing, ", "))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.Table, c.Source, c.Matched, note)
	}
	tw.Flush()
	if failed > 0 {
		fmt.Fprintf(std.out, "count check FAILED: %d of %d tables differ\n", failed, len(checks))
		return exitError{1}
	}
	fmt.Fprintln(std.out, "count check ok: the target holds every row and byte of the source")
	return nil
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws one line on a terminal, redrawn in place at most ten times a
// second. A nil bar draws nothing.
type progressBar struct {
	w     io.Writer
	last  time.Time
	drawn bool
}

// update returns the callback for one pass ("copy" or "check").
func (b *progressBar) update(pass string) func(store.CopyProgress) {
	if b == nil {
		return nil
	}
	return func(p store.CopyProgress) {
		final := p.Done == p.Total
		if !final && time.Since(b.last) < 100*time.Millisecond {
			return
		}
		b.last = time.Now()
		b.drawn = true
		fmt.Fprintf(b.w, "\r%s\x1b[K", visible(progressLine(pass, p, 30)))
	}
}

// done ends the bar's line.
func (b *progressBar) done() {
	if b != nil && b.drawn {
		fmt.Fprintln(b.w)
		b.drawn, b.last = false, time.Time{}
	}
}

// progressLine renders one state, such as
// "copy artifacts [#######.......]  12/30  4.0 MB of 9.5 MB".
func progressLine(pass string, p store.CopyProgress, width int) string {
	filled := width
	if p.Total > 0 {
		filled = int(int64(width) * p.Done / p.Total)
	}
	return fmt.Sprintf("%s %-9s [%s%s] %d/%d  %s of %s", pass, p.Stage, strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		p.Done, p.Total, analyze.FormatBytes(p.Bytes), analyze.FormatBytes(p.TotalBytes))
}
