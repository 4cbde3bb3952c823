package logs

import (
	"time"

	"github.com/leakui/leakui/analyze/logline"
)

// TimeFormats lists, for documentation and pages, the timestamp layouts a log
// line may start with (logline.Time reads them). A line without one inherits
// the timestamp of the line before it.
var TimeFormats = logline.TimeFormats

// Yearless is the year given to timestamps whose layout has none (syslog,
// geth); pages show such times without the year.
const Yearless = logline.Yearless

// utcTime converts Unix milliseconds to a UTC time.
func utcTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
