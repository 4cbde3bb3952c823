package logs

import (
	"fmt"
	"time"
)

// SpanReport is the time one span measured: from the first line matching
// From to the first line matching To after it or, when none follows, to the
// last line matching Else.
type SpanReport struct {
	Name string  `json:"name"`
	From Pattern `json:"from"`
	To   Pattern `json:"to"`
	Else Pattern `json:"else,omitzero"`
	// Measurable is false when there is no From line, no end line after it,
	// or the two have no timestamps; NotMeasurable then says which.
	Measurable    bool   `json:"measurable"`
	NotMeasurable string `json:"not_measurable,omitempty"`
	// Start is the first From line; End the line that ended the span, and
	// EndedBy its pattern (To's or Else's text).
	Start   *Place `json:"start,omitempty"`
	End     *Place `json:"end,omitempty"`
	EndedBy string `json:"ended_by,omitempty"`
	// Millis is the time between the two lines' timestamps, in milliseconds
	// (0 unless Measurable), and Duration the same as text ("1m30.5s").
	Millis   int64  `json:"ms"`
	Duration string `json:"duration,omitempty"`
}

// spanReport reads a span's merged marks.
func spanReport(sp Span, g spanPart, files []FileReport) SpanReport {
	r := SpanReport{Name: sp.Name, From: sp.From, To: sp.To, Else: sp.Else}
	ends := "“" + sp.To.String() + "”"
	if sp.Else.Text != "" {
		ends += " or “" + sp.Else.String() + "”"
	}
	if !g.from.ok {
		r.NotMeasurable = fmt.Sprintf("Not measurable: no line matches “%s”.", sp.From)
		if sp.Absent != "" {
			r.NotMeasurable += " " + sp.Absent
		}
		return r
	}
	start := placeOf(g.from.keyMark, files)
	r.Start = &start
	end, by := g.toAfter, sp.To
	if !end.ok && g.elseLast.ok && !markBefore(g.elseLast.keyMark, g.from.keyMark) {
		end, by = g.elseLast, sp.Else
	}
	if !end.ok {
		r.NotMeasurable = fmt.Sprintf("Not measurable: no line matching %s follows the first “%s”.", ends, sp.From)
		return r
	}
	stop := placeOf(end.keyMark, files)
	r.End, r.EndedBy = &stop, by.Text
	if start.Time == nil || stop.Time == nil {
		r.NotMeasurable = "Not measurable: the lines have no timestamp."
		return r
	}
	r.Measurable = true
	d := stop.Time.Sub(*start.Time)
	r.Millis, r.Duration = d.Milliseconds(), d.Round(time.Millisecond).String()
	return r
}

// markBefore reports whether resolved mark a is on an earlier line than b.
func markBefore(a, b keyMark) bool {
	if a.file != b.file {
		return a.file < b.file
	}
	return a.line < b.line
}
