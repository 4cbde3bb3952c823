package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
)

// countProgressMin is the input size from which a progress bar is drawn.
const countProgressMin = 64 << 20

// countMemoryLimit is the soft memory limit while counting (the issue's
// budget is 64 MiB peak whatever the input).
const countMemoryLimit = 40 << 20

// exitOpen is the exit status of `count -fail-open` when a pair is still open.
const exitOpen = 3

// bucketFlag parses -bucket: auto, none (or 0), or a duration.
type bucketFlag struct{ d time.Duration }

func (b *bucketFlag) String() string {
	switch b.d {
	case logs.BucketAuto:
		return "auto"
	case logs.BucketNone:
		return "none"
	}
	return logs.FormatDuration(b.d)
}

func (b *bucketFlag) Set(s string) error {
	switch s {
	case "auto", "":
		b.d = logs.BucketAuto
		return nil
	case "none", "0", "off":
		b.d = logs.BucketNone
		return nil
	}
	d, err := logs.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want auto, none or a positive duration such as 1m or 7d")
	}
	b.d = d
	return nil
}

// countFlags are the flags of `leakui count`, in the order patterns were given.
type countFlags struct {
	opts     logs.CountOptions
	jsonOut  bool
	csvFile  string
	failOpen bool
	progress string
	maxKeys  int
}

func runCount(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("count", "LOG... (- reads standard input; gzip and zstd are detected)", std.err)
	var cf countFlags
	var key string
	bucket := bucketFlag{}
	// -e and -E keep their relative order: a flag.Func per kind appends to one list.
	fs.Func("e", "count lines containing this literal (repeatable; like grep -F)", func(s string) error {
		cf.opts.Patterns = append(cf.opts.Patterns, logs.Literal(s))
		return nil
	})
	fs.Func("E", "count lines matching this RE2 regexp (repeatable; like grep -E)", func(s string) error {
		cf.opts.Patterns = append(cf.opts.Patterns, logs.Regexp(s))
		return nil
	})
	pairFunc := func(regexp bool) func(string) error {
		return func(s string) error {
			p, err := logs.ParsePair(s, regexp)
			if err != nil {
				return errors.Unwrap(err)
			}
			cf.opts.Pairs = append(cf.opts.Pairs, p)
			return nil
		}
	}
	fs.Func("pair", "`NAME=START,CLOSE` literals whose counts should balance (repeatable; write a comma in a pattern as \\,)", pairFunc(false))
	fs.Func("pairE", "`NAME=START,CLOSE` as -pair, with RE2 regexps", pairFunc(true))
	fs.StringVar(&key, "key", "", "RE2 `REGEX` with a capture group naming what a pair line starts or closes; lists the keys never closed")
	fs.StringVar(&cf.opts.Preset, "preset", "", "add a preset's patterns and pairs: "+strings.Join(logs.PresetNames(), ", "))
	fs.Var(&bucket, "bucket", "width of the counts over time: `auto` (50-300 bars), none, or a duration such as 1m or 7d")
	fs.BoolVar(&cf.opts.Overview, "overview", false, "add lines by level, over time and the most frequent message templates (each with its grep -E regexp)")
	fs.BoolVar(&cf.jsonOut, "json", false, "print one JSON document")
	fs.StringVar(&cf.csvFile, "csv", "", "write the keys never closed as CSV to `FILE` (- for standard output)")
	fs.BoolVar(&cf.failOpen, "fail-open", false, "exit with status 3 when a pair has more starts than closes (a CI leak gate)")
	fs.IntVar(&cf.maxKeys, "max-keys", logs.DefaultMaxKeys, "distinct keys kept (all pairs together); beyond, counting goes on and the table is marked truncated")
	fs.StringVar(&cf.progress, "progress", "auto", "progress bar on standard error: auto (a terminal and more than 64 MiB), always, never")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(std.err, "leakui count: no LOG given (use - for standard input)")
		fs.Usage()
		return errUsage
	}
	if cf.csvFile == "-" && cf.jsonOut {
		fmt.Fprintln(std.err, "leakui count: -csv - and -json would both write to standard output; give -csv a file")
		return errUsage
	}
	cf.opts.Key = key
	cf.opts.Bucket = bucket.d
	cf.opts.MaxKeys = cf.maxKeys
	if err := logs.ValidateCountOptions(cf.opts); err != nil {
		return err
	}

	// Counting needs little memory; a soft limit makes the garbage collector
	// keep it so even when key tables churn (restored for in-process callers).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(countMemoryLimit))
	inputs, closeAll, err := openCountInputs(fs.Args(), std)
	if err != nil {
		return err
	}
	defer closeAll()
	bar := newCountProgress(std.err, cf.progress, inputs)
	if bar != nil {
		cf.opts.Progress = bar.update
	}
	rep, err := logs.Count(ctx, cf.opts, inputs...)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return err
	}
	if cf.csvFile != "" {
		if err := writeCountCSV(cf.csvFile, rep, std.out); err != nil {
			return err
		}
	}
	if cf.jsonOut {
		enc := json.NewEncoder(std.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if cf.csvFile != "-" {
		if err := rep.WriteText(std.out); err != nil {
			return err
		}
	}
	if cf.failOpen {
		for _, p := range rep.Pairs {
			if p.Open > 0 {
				return exitError{exitOpen}
			}
		}
	}
	return nil
}

// openCountInputs opens the named logs; "-" is standard input.
func openCountInputs(names []string, std stdio) ([]logs.Input, func(), error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var inputs []logs.Input
	stdin := false
	for _, name := range names {
		if name == "-" {
			if stdin {
				closeAll()
				return nil, nil, fmt.Errorf("standard input (-) given twice")
			}
			stdin = true
			inputs = append(inputs, logs.Input{Name: "(stdin)", Reader: std.in})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		files = append(files, f)
		inputs = append(inputs, logs.Input{Name: name, Reader: f})
	}
	return inputs, closeAll, nil
}

// writeCountCSV writes the keys never closed of every keyed pair.
func writeCountCSV(name string, rep *logs.Report, stdout io.Writer) error {
	if name == "-" {
		return rep.WriteUnclosedCSV(stdout)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := rep.WriteUnclosedCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// countProgress draws a progress bar on a terminal.
type countProgress struct {
	w     io.Writer
	last  time.Time
	drawn bool
}

// newCountProgress returns a bar when mode asks for one: "always", or "auto"
// when w is a terminal and the inputs add up to more than 64 MiB.
func newCountProgress(w io.Writer, mode string, inputs []logs.Input) *countProgress {
	switch mode {
	case "never":
		return nil
	case "always":
		return &countProgress{w: w}
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var total int64
	for _, in := range inputs {
		if f, ok := in.Reader.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				total += fi.Size()
			}
		}
	}
	if total <= countProgressMin {
		return nil
	}
	return &countProgress{w: w}
}

func (p *countProgress) update(pr logs.Progress) {
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond || pr.Total <= 0 {
		return
	}
	p.last = now
	const width = 30
	frac := min(float64(pr.Done)/float64(pr.Total), 1)
	filled := int(frac * width)
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%% %s / %s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled),
		frac*100, analyze.FormatBytes(pr.Done), analyze.FormatBytes(pr.Total))
	p.drawn = true
}

func (p *countProgress) clear() {
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 60))
	}
}

var _ flag.Value = (*bucketFlag)(nil)
