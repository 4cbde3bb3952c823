package logs

import (
	"cmp"
	"fmt"

	"github.com/leakui/leakui/analyze"

	"slices"
	"time"
)

// Report is the result of Count: counts per pattern (summed and per
// file), start/close pairs with their keys never closed, and counts over time.
// Its JSON form is the `leakui count -json` contract: fields may be added, never
// renamed.
type Report struct {
	// Lines is the number of lines read, as grep counts them (a last line
	// without a newline counts).
	Lines int64 `json:"lines"`
	// Bytes is the number of bytes read, after decompression.
	Bytes int64 `json:"bytes"`
	// Patterns holds every distinct pattern counted: the requested ones first,
	// then those pairs and the preset added, in order.
	Patterns []PatternCount `json:"patterns"`
	// Pairs holds one entry per start/close pair.
	Pairs []PairReport `json:"pairs"`
	// Spans holds one entry per span (see Span), when there are any.
	Spans []SpanReport `json:"spans,omitempty"`
	// Buckets holds the counts over time, oldest first, every bucket of the
	// range present (empty ones included); empty when no line had a timestamp
	// or buckets were turned off.
	Buckets []Bucket `json:"buckets"`
	// BucketWidth is the width of each bucket, such as "1m0s".
	BucketWidth string `json:"bucket_width,omitempty"`
	// BucketMillis is the width in milliseconds, for charts.
	BucketMillis int64 `json:"bucket_ms,omitempty"`
	// BucketWidened is set when the requested width would have needed more than
	// MaxBuckets buckets and was doubled until it fit.
	BucketWidened bool `json:"bucket_widened,omitempty"`
	// Untimed counts, per pattern, the matching lines that came before any
	// timestamp in their file (they are in no bucket).
	Untimed []int64 `json:"untimed,omitempty"`
	// Yearless is set when timestamps had no year (syslog, geth): their times
	// carry year 0 and pages should show them without it.
	Yearless bool `json:"yearless,omitempty"`
	// YearlessUntimed is set when some inputs had dated timestamps and others
	// timestamps without a year: the yearless lines cannot share the time axis,
	// so they are counted in Untimed.
	YearlessUntimed bool `json:"yearless_untimed,omitempty"`
	// Files holds the per-file figures, in the order given.
	Files []FileReport `json:"files"`
	// Preset names the preset used, if any.
	Preset string `json:"preset,omitempty"`
	// LongLines counts lines longer than MaxLineBytes: they are counted
	// exactly, but keys and timestamps came from their first MaxLineBytes.
	LongLines int64 `json:"long_lines,omitempty"`
	// Overview holds the levels and templates of every line, when
	// CountOptions.Overview asked for them.
	Overview *Overview `json:"overview,omitempty"`
}

// PatternCount is the number of lines matching one pattern.
type PatternCount struct {
	Pattern string `json:"pattern"`
	Regexp  bool   `json:"regexp,omitempty"`
	// Count is the number of matching lines over all files: what grep -c
	// (grep -cE for a regexp) prints, summed.
	Count int64 `json:"count"`
	// Files holds the count per file, in the order of Report.Files.
	Files []int64 `json:"files"`
}

// PairReport is the balance of one start/close pair.
type PairReport struct {
	Name  string  `json:"name"`
	Start Pattern `json:"start"`
	Close Pattern `json:"close"`
	// Starts and Closes are the line counts of the two patterns; Open is
	// Starts − Closes, what is still open at the end of the log.
	Starts int64 `json:"starts"`
	Closes int64 `json:"closes"`
	Open   int64 `json:"open"`
	// Measurable is false when neither pattern matched a line: the log says
	// nothing about the pair, and its Open of 0 does not mean balanced.
	Measurable bool `json:"measurable"`
	// NotMeasurable says why, when Measurable is false.
	NotMeasurable string `json:"not_measurable,omitempty"`
	// Basis says what the balance rests on: BasisKeys when the key table
	// names each thing started, BasisCounts when only the counts do (the pair
	// has no key, or its keys are shared), BasisNone when it is not
	// measurable.
	Basis string `json:"basis"`
	// Fallback says why a keyed pair's balance rests on the counts.
	Fallback string `json:"fallback,omitempty"`
	// Key is the regexp whose first capture group names what was started.
	Key string `json:"key,omitempty"`
	// KeysStarted and KeysClosed count the distinct keys with at least one
	// start and one close.
	KeysStarted int64 `json:"keys_started,omitempty"`
	KeysClosed  int64 `json:"keys_closed,omitempty"`
	// UnkeyedStarts and UnkeyedCloses count pair lines the key regexp did not
	// match.
	UnkeyedStarts int64 `json:"unkeyed_starts,omitempty"`
	UnkeyedCloses int64 `json:"unkeyed_closes,omitempty"`
	// UnclosedKeys lists the keys started more often than closed, most open
	// first (then most started, then first seen).
	UnclosedKeys []OpenKey `json:"unclosed_keys"`
	// KeysTruncated is set when more distinct keys appeared than the table
	// keeps (its share of CountOptions.MaxKeys): the counts above stay
	// exact, the key figures cover the keys seen first.
	KeysTruncated bool `json:"keys_truncated,omitempty"`
	// KeysShared counts the keys started again while still open: each names
	// several things at once (as a client id shared by every consumer of a
	// job does), so the keys cannot tell which of them was never closed.
	KeysShared int64 `json:"keys_shared,omitempty"`
	// SharedKey is the key most often open at once, SharedKeyPeak how many
	// of it were.
	SharedKey     string `json:"shared_key,omitempty"`
	SharedKeyPeak int64  `json:"shared_key_peak,omitempty"`
}

// What a pair's balance rests on (PairReport.Basis).
const (
	BasisKeys   = "keys"
	BasisCounts = "counts"
	BasisNone   = "none"
)

// judge says whether the pair can be read at all and what its balance rests
// on, with the preset's notes: no line of either pattern makes it not
// measurable (never balanced), a key started again while open makes it fall
// back to the counts.
func (p *PairReport) judge(pr Pair) {
	p.Measurable = p.Starts+p.Closes > 0
	if !p.Measurable {
		p.NotMeasurable = fmt.Sprintf("Not measurable: no line matches “%s” or “%s”, so nothing says whether they balance.", p.Start, p.Close)
		if pr.Absent != "" {
			p.NotMeasurable += " " + pr.Absent
		}
		p.Basis = BasisNone
		return
	}
	if p.Key == "" {
		return
	}
	if p.KeysShared == 0 {
		p.Basis = BasisKeys
		return
	}
	others := ""
	if p.KeysShared > 1 {
		others = fmt.Sprintf(" (and %s other keys)", analyze.FormatCount(p.KeysShared-1))
	}
	p.Fallback = fmt.Sprintf("The balance rests on the counts: key “%s” was started again while still open (%s open at once)%s, so a key names several things, not one.",
		p.SharedKey, analyze.FormatCount(p.SharedKeyPeak), others)
	if pr.Shared != "" {
		p.Fallback += " " + pr.Shared
	}
}

// OpenKey is one key started and never (or not as often) closed.
type OpenKey struct {
	Key    string `json:"key"`
	Starts int64  `json:"starts"`
	Closes int64  `json:"closes"`
	Open   int64  `json:"open"`
	First  Place  `json:"first"`
	Last   Place  `json:"last"`
}

// Place is a line in one of the inputs.
type Place struct {
	File string `json:"file"`
	Line int64  `json:"line"`
	// Time is the line's timestamp (its own or inherited), if known.
	Time *time.Time `json:"time,omitempty"`
}

// Bucket is one bar of the counts over time.
type Bucket struct {
	Start time.Time `json:"start"`
	// Counts holds the matching lines per pattern, in the order of
	// Report.Patterns.
	Counts []int64 `json:"counts"`
	// Open holds, per pair, how many were still open at the end of the bucket
	// (starts − closes so far, untimed lines included).
	Open []int64 `json:"open,omitempty"`
	// Levels holds, with the overview, the lines of each level in the bucket
	// (in the order of LevelNames).
	Levels []int64 `json:"levels,omitempty"`
}

// FileReport is the figures of one input.
type FileReport struct {
	Name  string `json:"name"`
	Lines int64  `json:"lines"`
	Bytes int64  `json:"bytes"`
	// Compression is "gzip" or "zstd" when the input was compressed.
	Compression analyze.Compression `json:"compression,omitempty"`
	// Encoding is "UTF-16LE" or "UTF-16BE" when the input was UTF-16 text, counted
	// as the UTF-8 it transcodes to (Lines and Bytes included).
	Encoding string `json:"encoding,omitempty"`
	// Kind is what the content looks like (a log, or a profile given by
	// mistake): see DetectKind.
	Kind string `json:"kind"`
	// LongLines counts lines longer than MaxLineBytes.
	LongLines int64 `json:"long_lines,omitempty"`
}

// Pattern returns the count of the pattern with the given text (literal or
// regexp) and whether there is one.
func (r *Report) Pattern(text string) (PatternCount, bool) {
	for _, p := range r.Patterns {
		if p.Pattern == text {
			return p, true
		}
	}
	return PatternCount{}, false
}

// Pair returns the pair with the given name and whether there is one.
func (r *Report) Pair(name string) (PairReport, bool) {
	for _, p := range r.Pairs {
		if p.Name == name {
			return p, true
		}
	}
	return PairReport{}, false
}

// sortLogOpenKeys orders keys most open first, then most started; keys arrive
// in first-seen order and the sort is stable, so ties keep it.
func sortLogOpenKeys(keys []OpenKey) {
	slices.SortStableFunc(keys, func(a, b OpenKey) int {
		if c := cmp.Compare(b.Open, a.Open); c != 0 {
			return c
		}
		return cmp.Compare(b.Starts, a.Starts)
	})
}
