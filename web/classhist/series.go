package classhist

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// The two measures a series of histograms is analyzed in: the instances of the
// application's classes first, since a leaked application object is named by its
// class's count (its own bytes are small), then the bytes of every class, where the
// JDK's arrays the leaked objects hold show.
var SeriesOrders = []jvm.Order{jvm.ByInstances, jvm.ByBytes}

// SeriesOf analyzes three or more histograms as a series with the shared
// Series analysis, in the report's order, and returns nil for fewer than three.
// By instances, there is one series per application class (see
// jvm.IsPlatformClass) and the total is theirs: the JDK's millions of arrays and
// strings would make 1,727 new consumers too small a share of the heap's
// instances to be tested at all. By bytes, every class is a series and the total
// is the heap's. A class absent from a histogram counts 0 there.
func SeriesOf(hs []*jvm.Histogram, names []string, order jvm.Order) (*series.Report, error) {
	n := len(hs)
	if n < 3 {
		return nil, nil
	}
	in := series.Input{Labels: names, Totals: make([]int64, n), Series: map[string][]int64{}, By: "class",
		SampleType: "bytes", Unit: "bytes"}
	apps := order == jvm.ByInstances
	if apps {
		in.SampleType, in.Unit, in.By = "instances", "count", "application class"
	}
	timed := true
	times := make([]time.Time, n)
	for i, h := range hs {
		times[i] = h.Time
		timed = timed && !h.Time.IsZero()
		if !apps {
			in.Totals[i] = h.TotalBytes
		}
		for _, c := range h.Classes {
			if apps && jvm.IsPlatformClass(c.Name) {
				continue
			}
			if apps {
				in.Totals[i] += c.Instances
			}
			v := in.Series[c.Name]
			if v == nil {
				v = make([]int64, n)
				in.Series[c.Name] = v
			}
			v[i] += Measure(c.Bytes, c.Instances, order)
		}
	}
	if timed {
		in.Times = times
	}
	// The report's order is already oldest first (or the upload order); keep it so
	// that the series and the diff read the histograms alike.
	return series.Analyze(in, series.Options{KeepOrder: true})
}

// Series analyzes the report's histograms as a series in order's measure, cached.
func (hs *Histograms) Series(order jvm.Order) (*series.Report, error) {
	var key strings.Builder
	fmt.Fprintf(&key, "%s-series:%s", Prefix, OrderName(order))
	for _, ref := range hs.Refs {
		fmt.Fprintf(&key, ":%s#%d", hs.Rep.Artifacts[ref.File].SHA256, ref.Index)
	}
	if e, ok := hs.Cache.Get(key.String()); ok {
		if s, ok := e.Value.(*series.Report); ok {
			return s, nil
		}
	}
	s, err := SeriesOf(hs.Items, hs.Names(), order)
	if err != nil || s == nil {
		return s, err
	}
	hs.Cache.Add(key.String(), snapshot.Entry{Value: s, Cost: kind.JSONCost(s)})
	return s, nil
}

// SeriesViews formats the report's series, one per measure; an analysis that fails
// becomes a notice rather than a failed page.
func (hs *Histograms) SeriesViews(notices *[]string) ([]view.SeriesView, bool) {
	var out []view.SeriesView
	leak := false
	for _, o := range SeriesOrders {
		s, err := hs.Series(o)
		if err != nil {
			*notices = append(*notices, fmt.Sprintf("The series by %s could not be analyzed: %v", OrderName(o), err))
			continue
		}
		if s == nil {
			continue
		}
		leak = leak || s.Verdict == series.Leak
		if s.RateNote != "" && o == SeriesOrders[0] {
			*notices = append(*notices, "Rates: "+s.RateNote+".")
		}
		// The series by bytes is compact: its snapshot list would repeat the one
		// above it, and byte[]'s growth is already in the diff's tables.
		out = append(out, chart.Series(OrderName(o), s, o == jvm.ByBytes, nil))
	}
	return out, leak
}

// SeriesJSON returns the series analyses by measure, nil for fewer than three
// histograms.
func (hs *Histograms) SeriesJSON() (map[string]*series.Report, error) {
	if len(hs.Items) < 3 {
		return nil, nil
	}
	out := map[string]*series.Report{}
	for _, o := range SeriesOrders {
		s, err := hs.Series(o)
		if err != nil {
			return nil, err
		}
		out[OrderName(o)] = s
	}
	return out, nil
}

// SeriesMarkdown writes the series verdicts and their first suspects.
func (hs *Histograms) SeriesMarkdown(w io.Writer, rows int) error {
	if len(hs.Items) < 3 {
		return nil
	}
	fmt.Fprintf(w, "\n#### Series of %d histograms\n\n", len(hs.Items))
	for _, o := range SeriesOrders {
		s, err := hs.Series(o)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "- By %s: **%s**. %s\n", OrderName(o), s.VerdictText, markdown.Escape(s.Reason))
		for _, sus := range snapshot.First(s.Suspects, rows) {
			fmt.Fprintf(w, "  - %s %s → %s (%s)\n", markdown.Code(sus.Name), analyze.FormatValue(sus.First, s.Unit),
				analyze.FormatValue(sus.Last, s.Unit), analyze.FormatSignedValue(sus.Growth, s.Unit))
		}
	}
	return nil
}
