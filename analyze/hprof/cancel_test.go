package hprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// TestCancelInEveryStage cancels a whole analysis (Open, NewReport with the
// native memory section, WriteIndex) in the middle of each stage it reports,
// with every array kept in temporary files, as a server closing or a user's
// ^C does. Each stops at the next check, so nothing reports progress after
// the cancel; the error wraps context.Canceled; and after Close nothing is
// charged, the temporary directory is empty and the process holds no
// temporary file open (the arrays' files are unlinked when made, so an open
// descriptor would hold their disk).
func TestCancelInEveryStage(t *testing.T) {
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	defer func(was bool) { spillAlways = was }(spillAlways)
	spillAlways = true

	// run analyzes the dump, calling at on each progress report; it returns
	// the error and what the budget, the directory and the descriptors hold
	// after Close.
	run := func(ctx context.Context, at func(Progress)) error {
		budget := analyze.NewBudget(0).Child(0)
		tmp := t.TempDir()
		err := func() error {
			h, err := Open(jh.Dump, OpenOptions{TempDir: tmp, Options: Options{Budget: budget, OnProgress: at, Context: ctx}})
			if err != nil {
				return err
			}
			defer h.Close()
			if _, err := h.NewReport(ReportOptions{Native: true}, nil); err != nil {
				return err
			}
			_, err = h.WriteIndex(io.Discard)
			return err
		}()
		if budget.Used() != 0 {
			t.Errorf("%d bytes charged after Close", budget.Used())
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%d files left in the temporary directory", len(left))
		}
		if open := openTempFiles(t); len(open) != 0 {
			t.Errorf("temporary files still open after Close: %v", open)
		}
		return err
	}

	// The stages, and how many reports each makes.
	var stages []string
	reports := map[string]int{}
	if err := run(t.Context(), func(p Progress) {
		if reports[p.Stage] == 0 {
			stages = append(stages, p.Stage)
		}
		reports[p.Stage]++
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("stages and their reports: %v %v", stages, reports)
	for _, want := range []string{"read", "index", "references", "dominators", "retained", "paths", "histogram", "names", "native", "write-index"} {
		if reports[want] == 0 {
			t.Errorf("no report of stage %q: %v", want, reports)
		}
	}

	for _, stage := range stages {
		ctx, cancel := context.WithCancel(t.Context())
		seen, after, mid := 0, 0, max(reports[stage]/2, 1)
		var cancelledAt string
		err := run(ctx, func(p Progress) {
			if ctx.Err() != nil {
				after++
				cancelledAt += fmt.Sprintf(" then %s %.3f", p.Stage, p.Done)
				return
			}
			if p.Stage == stage {
				if seen++; seen == mid {
					cancelledAt = fmt.Sprintf("%s %.3f", p.Stage, p.Done)
					cancel()
				}
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled in %q (report %d of %d): %v", stage, mid, reports[stage], err)
		}
		if after != 0 {
			t.Errorf("cancelled in %q: %d more reports: %s", stage, after, cancelledAt)
		}
	}
}

// openTempFiles lists the analysis's temporary files the process holds open.
func openTempFiles(t *testing.T) []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.Contains(target, "leakui-hprof-") {
			open = append(open, target)
		}
	}
	return open
}
