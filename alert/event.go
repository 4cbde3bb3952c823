package alert

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leakui/leakui/watch"
)

// The verdicts of a watch, as Event.From and Event.To name them.
const (
	NoLeak       = "no leak"
	Inconclusive = "inconclusive"
	Leak         = "leak"
)

// AlertName is the Alertmanager alert's alertname label.
const AlertName = "LeakSuspected"

// maxField bounds an event's watch and suspect, in bytes.
const maxField = 512

// Event is a change of a watch's verdict.
type Event struct {
	// Watch names the watch.
	Watch string `json:"watch"`
	// From and To are the verdicts before and after: NoLeak, Inconclusive or
	// Leak.
	From string `json:"from"`
	To   string `json:"to"`
	// Suspect is what grows (a function, a type, a goroutine's stack), or "".
	Suspect string `json:"suspect"`
	// GrowthPerHour is how fast the suspect grows, in its own unit (bytes or
	// objects or goroutines) per hour.
	GrowthPerHour float64 `json:"growth_per_hour"`
	// WindowSeconds is the time from the first to the last snapshot the
	// verdict was decided over, 0 when unknown; over a window shorter than
	// watch.MinRateWindow the growth is told as the change over the window.
	WindowSeconds float64 `json:"window_seconds,omitempty"`
	// ReportURL is the report's permanent link, or "".
	ReportURL string `json:"report_url"`
	// At is when the verdict changed.
	At time.Time `json:"at"`
}

// Firing tells an event that starts a leak alert (the verdict became Leak).
func (e Event) Firing() bool { return e.To == Leak && e.From != Leak }

// Resolving tells an event that ends one (the verdict left Leak).
func (e Event) Resolving() bool { return e.From == Leak && e.To != Leak }

// ErrInvalidEvent is an event that cannot be delivered.
var ErrInvalidEvent = errors.New("invalid alert event")

func validVerdict(v string) bool { return v == NoLeak || v == Inconclusive || v == Leak }

// check validates the event.
func (e Event) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidEvent, fmt.Sprintf(format, args...))
	}
	switch {
	case e.Watch == "" || len(e.Watch) > maxField || !utf8.ValidString(e.Watch):
		return bad("a watch's name of 1 to %d bytes of UTF-8", maxField)
	case !validVerdict(e.From) || !validVerdict(e.To):
		return bad("verdicts %q → %q: want %q, %q or %q", e.From, e.To, NoLeak, Inconclusive, Leak)
	case e.From == e.To:
		return bad("the verdict did not change (%q)", e.To)
	case len(e.Suspect) > maxField || !utf8.ValidString(e.Suspect):
		return bad("a suspect of at most %d bytes of UTF-8", maxField)
	case math.IsNaN(e.GrowthPerHour) || math.IsInf(e.GrowthPerHour, 0):
		return bad("growth per hour %v", e.GrowthPerHour)
	case math.IsNaN(e.WindowSeconds) || math.IsInf(e.WindowSeconds, 0) || e.WindowSeconds < 0:
		return bad("window of %v seconds", e.WindowSeconds)
	case e.At.IsZero():
		return bad("no time")
	}
	if e.ReportURL != "" {
		u, err := url.Parse(e.ReportURL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || len(e.ReportURL) > 2048 {
			return bad("the report URL is not an http(s) URL of at most 2048 bytes")
		}
	}
	return nil
}

// summary is one line saying what happened, in plain text.
func (e Event) summary() string {
	var b strings.Builder
	switch {
	case e.Firing():
		fmt.Fprintf(&b, "Leak suspected on watch %s", e.Watch)
		if e.Suspect != "" {
			fmt.Fprintf(&b, ": %s %s", e.Suspect, e.growthText(formatGrowth))
		}
	case e.Resolving():
		fmt.Fprintf(&b, "Leak cleared on watch %s: the verdict is now %s", e.Watch, e.To)
	default:
		fmt.Fprintf(&b, "Watch %s is now %s (was %s)", e.Watch, e.To, e.From)
	}
	return b.String()
}

// formatGrowth prints a growth with a sign and three significant digits.
func formatGrowth(g int64) string {
	return fmt.Sprintf("%+.3g", float64(g))
}

// window is WindowSeconds as a duration.
func (e Event) window() time.Duration {
	return time.Duration(math.Round(e.WindowSeconds*1e3)) * time.Millisecond
}

// growthText is how the suspect grows, its numbers printed by format:
// "grows +1.18e+09 per hour", or over a window shorter than
// watch.MinRateWindow "grew +7.86e+06 in 6 s".
func (e Event) growthText(format func(int64) string) string {
	t := watch.GrowthText(e.GrowthPerHour, e.window(), format)
	if strings.HasSuffix(t, " per hour") {
		return "grows " + t
	}
	return "grew " + t
}
