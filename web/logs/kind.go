package logs

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
)

// kindLog is the report over one or more log files: grep-style counts, pairs,
// keys never closed and counts over time.
const kindLog = "log"

// planLogs makes one log report over every uploaded log. The count
// parameters come from the upload's form fields (the same names as the
// report's query string) and become the report's default. Every file is
// counted here, to its end: a broken gzip or zstd stream fails the upload
// before anything is stored, and the report's first view comes from the cache.
func (k *Kind) planLogs(form *kind.Upload) (*kind.Plan, error) {
	v := url.Values{}
	for k, val := range form.Fields {
		v.Set(k, val)
	}
	p, err := readLogRaw(v).params()
	if err != nil {
		return nil, err
	}
	ctx := form.Ctx
	rep, err := k.logCountReceived(ctx, form.Files, p)
	if err != nil {
		return nil, err
	}
	return &kind.Plan{Kind: kindLog, Params: p.asMap(), Summary: logSummaryOf(rep)}, nil
}

// logSummary is stored with a log report: the default count's headline
// numbers, for the dashboard's list and the run page.
type logSummary struct {
	Lines    int64                `json:"lines"`
	Bytes    int64                `json:"bytes"`
	Files    int                  `json:"files"`
	Preset   string               `json:"preset,omitempty"`
	Patterns []logSummaryPattern  `json:"patterns,omitempty"`
	Pairs    []logSummaryPairLine `json:"pairs,omitempty"`
}

type logSummaryPattern struct {
	Pattern string `json:"pattern"`
	Regexp  bool   `json:"regexp,omitempty"`
	Count   int64  `json:"count"`
}

type logSummaryPairLine struct {
	Name   string `json:"name"`
	Starts int64  `json:"starts"`
	Closes int64  `json:"closes"`
	Open   int64  `json:"open"`
}

// logSummaryMaxPatterns is how many patterns a stored summary keeps.
const logSummaryMaxPatterns = 8

func logSummaryOf(rep *logs.Report) logSummary {
	sum := logSummary{Lines: rep.Lines, Bytes: rep.Bytes, Files: len(rep.Files), Preset: rep.Preset}
	for i, p := range rep.Patterns {
		if i == logSummaryMaxPatterns {
			break
		}
		sum.Patterns = append(sum.Patterns, logSummaryPattern{Pattern: page.CleanText(p.Pattern, 200), Regexp: p.Regexp, Count: p.Count})
	}
	for _, p := range rep.Pairs {
		sum.Pairs = append(sum.Pairs, logSummaryPairLine{Name: p.Name, Starts: p.Starts, Closes: p.Closes, Open: p.Open})
	}
	return sum
}

// logSummaryLine is the dashboard's line: "12,345 lines; checkpoint
// consumers: 1,741 started, 14 closed, 1,727 still open", or the first
// patterns' counts when there is no pair.
func logSummaryLine(raw json.RawMessage) string {
	var s logSummary
	if json.Unmarshal(raw, &s) != nil || s.Files == 0 {
		return ""
	}
	parts := []string{analyze.FormatCount(s.Lines) + " lines"}
	if len(s.Pairs) > 0 {
		for _, p := range s.Pairs {
			if p.Starts+p.Closes == 0 { // not measurable: no line of it (summaries stored before the field have none)
				parts = append(parts, p.Name+": not measurable")
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %s started, %s closed, %s still open", p.Name,
				analyze.FormatCount(p.Starts), analyze.FormatCount(p.Closes), analyze.FormatCount(p.Open)))
		}
	} else {
		for i, p := range s.Patterns {
			if i == 3 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s: %s", logs.Pattern{Text: p.Pattern, Regexp: p.Regexp}, analyze.FormatCount(p.Count)))
		}
	}
	return page.CleanText(strings.Join(parts, "; "), 300)
}

// logDefaultParams reads a log report's stored parameters.
func logDefaultParams(rep *store.Report) (Params, error) {
	var p Params
	if len(rep.Params) > 0 {
		if err := json.Unmarshal(rep.Params, &p); err != nil {
			return p, fmt.Errorf("report %s: params: %w", rep.ID, err)
		}
	}
	return p, nil
}
