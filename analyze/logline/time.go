package logline

import "encoding/binary"

// timeScan is how far into a line a timestamp is looked for (the OpenStack
// and Erigon layouts put a file name or a level before it).
const timeScan = 96

// TimeFormats lists, for documentation and pages, the timestamp layouts a log
// line may start with (after a short prefix such as a level or a file name). A
// line without one inherits the timestamp of the line before it.
var TimeFormats = []string{
	"2006-01-02 15:04:05.000 (also with a comma, T, Z, an offset, or slashes)",
	"[2006-01-02 15:04:05,000] (log4j)",
	"2006-01-02T15:04:05.999999999Z07:00 (RFC 3339)",
	"[01-02|15:04:05.000] (geth/erigon, no year)",
	"Jan _2 15:04:05 (syslog, no year)",
	"06/01/02 15:04:05 (yy/MM/dd)",
	"060102 150405 (yyMMdd HHmmss at the line start)",
	"epoch seconds (10 digits, optional fraction) or milliseconds (13 digits) at the line start",
}

// Yearless is the year given to timestamps whose layout has none (syslog,
// geth); pages show such times without the year.
const Yearless = 0

// Time returns the timestamp of a line in Unix milliseconds (UTC; a
// time without a zone is taken as UTC), and whether the line has one: a
// layout of TimeFormats at the line's start or at a word's start in its first
// timeScan bytes. A clock or a date alone is no timestamp.
func Time(line []byte) (int64, bool) {
	if ms, ok := timeAt(line, 0, true); ok {
		return ms, true
	}
	limit := min(len(line), timeScan)
	for i := 1; i < limit; i++ {
		c := line[i]
		if isAlnum(line[i-1]) || !(isDigit(c) || (c >= 'A' && c <= 'Z')) {
			continue
		}
		if ms, ok := timeAt(line, i, i == 1 && line[0] == '['); ok {
			return ms, true
		}
	}
	return 0, false
}

// timeAt tries every layout at line[i:]. Layouts that are plain digit runs
// (epoch, yyMMdd) are tried only at the line start.
func timeAt(line []byte, i int, atStart bool) (int64, bool) {
	s := line[i:]
	if len(s) < 8 {
		return 0, false
	}
	if isDigit(s[0]) {
		if ms, ok := isoTime(s); ok {
			return ms, true
		}
		if ms, ok := slashYYTime(s); ok {
			return ms, true
		}
		if ms, ok := gethTime(s); ok {
			return ms, true
		}
		if atStart {
			if ms, ok := epochTime(s); ok {
				return ms, true
			}
			if ms, ok := compactTime(s); ok {
				return ms, true
			}
		}
		return 0, false
	}
	return syslogTime(s)
}

// isoTime parses 2006-01-02[ T]15:04:05[.,frac][Z|±hh:mm|±hhmm], with '-' or
// '/' between the date fields.
func isoTime(s []byte) (int64, bool) {
	if len(s) < 19 {
		return 0, false
	}
	sep := s[4]
	if sep != '-' && sep != '/' || s[7] != sep || (s[10] != ' ' && s[10] != 'T') {
		return 0, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	ms, ok := isoClock(s[11:])
	if !ok {
		return 0, false
	}
	return civil(year, month, day, ms)
}

// isoClock parses the time of day of an ISO timestamp (what follows the
// date and its ' ' or 'T') and its zone: milliseconds of the day in UTC (they
// may fall outside 0…86,399,999).
func isoClock(s []byte) (int64, bool) {
	ms, n, ok := parseClock(s)
	if !ok {
		return 0, false
	}
	return isoZone(s[n:], ms), true
}

// isoZone applies the zone that rest (what follows the clock of an ISO
// timestamp) starts with, if any, to ms.
func isoZone(rest []byte, ms int64) int64 {
	var offset int64
	// "Z" (UTC) leaves the offset at zero.
	if len(rest) >= 5 && (rest[0] == '+' || rest[0] == '-') && isDigit(rest[1]) && isDigit(rest[2]) {
		hh, _ := digits(rest[1:3])
		mmDigits := rest[3:5]
		if rest[3] == ':' && len(rest) >= 6 {
			mmDigits = rest[4:6]
		}
		if mm, ok := digits(mmDigits); ok && hh < 24 && mm < 60 {
			offset = int64(hh*60+mm) * 60000
			if rest[0] == '-' {
				offset = -offset
			}
		}
	}
	return ms - offset
}

// DayMemo remembers the date of the last line that started with an ISO
// timestamp, so that lines of the same day, read in order through one memo,
// parse only their time of day. Its zero value is ready to use.
type DayMemo struct {
	// The date "2006-01-02 " (or with 'T', or slashes) as its bytes 0–7
	// and 3–10, little endian: two loads compare a line's with it.
	dateHead, dateTail uint64
	ms                 int64 // the day's midnight, Unix milliseconds
	ok                 bool
	// The clock (15:04:05, 8 bytes little endian) of the last line of that
	// day, and its milliseconds into the day, when hmsOK.
	hms   uint64
	hmsMs int64
	hmsOK bool
}

// Parse is Time, with the date of a line starting with an ISO
// timestamp taken from the memo when it is the date before: isoTime's
// result is civil of the date plus isoClock of the rest, and civil
// adds the time of day to the day's midnight.
func (d *DayMemo) Parse(line []byte) (int64, bool) {
	if len(line) >= 19 && isDigit(line[0]) {
		head, tail := binary.LittleEndian.Uint64(line), binary.LittleEndian.Uint64(line[3:])
		if d.ok && head == d.dateHead && tail == d.dateTail {
			// The same clock as the line before: parseClock would read
			// the same seconds from it, then the fraction and zone.
			hms := binary.LittleEndian.Uint64(line[11:])
			if d.hmsOK && hms == d.hms {
				ms, n := clockFraction(line[11:], d.hmsMs)
				return d.ms + isoZone(line[11+n:], ms), true
			}
			if sec, ok := clockSeconds(line[11:]); ok {
				d.hms, d.hmsMs, d.hmsOK = hms, sec, true
				ms, n := clockFraction(line[11:], sec)
				return d.ms + isoZone(line[11+n:], ms), true
			}
		} else if _, ok := isoTime(line); ok {
			year, _ := digits(line[0:4])
			month, _ := digits(line[5:7])
			day, _ := digits(line[8:10])
			d.ms, _ = civil(year, month, day, 0)
			d.dateHead, d.dateTail = head, tail
			d.ok, d.hmsOK = true, false
			ms, _ := isoClock(line[11:])
			return d.ms + ms, true
		}
	}
	return Time(line)
}

// slashYYTime parses 06/01/02 15:04:05 (Spark, Hadoop's older layout).
func slashYYTime(s []byte) (int64, bool) {
	if len(s) < 17 || s[2] != '/' || s[5] != '/' || s[8] != ' ' {
		return 0, false
	}
	yy, ok1 := digits(s[0:2])
	month, ok2 := digits(s[3:5])
	day, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	ms, _, ok := parseClock(s[9:])
	if !ok {
		return 0, false
	}
	return civil(2000+yy, month, day, ms)
}

// gethTime parses 01-02|15:04:05.000 (geth and erigon, no year).
func gethTime(s []byte) (int64, bool) {
	if len(s) < 14 || s[2] != '-' || s[5] != '|' {
		return 0, false
	}
	month, ok1 := digits(s[0:2])
	day, ok2 := digits(s[3:5])
	if !ok1 || !ok2 {
		return 0, false
	}
	ms, _, ok := parseClock(s[6:])
	if !ok {
		return 0, false
	}
	return civil(Yearless, month, day, ms)
}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// syslogTime parses Jan _2 15:04:05 (no year).
func syslogTime(s []byte) (int64, bool) {
	if len(s) < 15 || s[3] != ' ' {
		return 0, false
	}
	month := 0
	for i, m := range months {
		if string(s[:3]) == m {
			month = i + 1
			break
		}
	}
	if month == 0 {
		return 0, false
	}
	var day int
	switch {
	case s[4] == ' ' && isDigit(s[5]):
		day = int(s[5] - '0')
	case isDigit(s[4]) && isDigit(s[5]):
		day = int(s[4]-'0')*10 + int(s[5]-'0')
	default:
		return 0, false
	}
	if s[6] != ' ' {
		return 0, false
	}
	ms, _, ok := parseClock(s[7:])
	if !ok {
		return 0, false
	}
	return civil(Yearless, month, day, ms)
}

// epochTime parses Unix seconds (10 digits, optional .fraction) or
// milliseconds (13 digits) that are not part of a longer number.
func epochTime(s []byte) (int64, bool) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n != 10 && n != 13 {
		return 0, false
	}
	v, _ := digits(s[:n])
	if n == 13 {
		return int64(v), true
	}
	ms := int64(v) * 1000
	if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
		frac, _, _ := fraction(s[n+1:])
		ms += frac
	}
	return ms, true
}

// compactTime parses 060102 150405 (HDFS) followed by a space or the end.
func compactTime(s []byte) (int64, bool) {
	if len(s) < 13 || s[6] != ' ' || (len(s) > 13 && s[13] != ' ') {
		return 0, false
	}
	date, ok1 := digits(s[0:6])
	clock, ok2 := digits(s[7:13])
	if !ok1 || !ok2 {
		return 0, false
	}
	h, m, sec := clock/10000, clock/100%100, clock%100
	if h > 23 || m > 59 || sec > 60 {
		return 0, false
	}
	return civil(2000+date/10000, date/100%100, date%100, int64((h*60+m)*60+sec)*1000)
}

// parseClock parses 15:04:05 with an optional .fraction or ,fraction and returns
// the milliseconds into the day and how many bytes it used.
func parseClock(s []byte) (int64, int, bool) {
	sec, ok := clockSeconds(s)
	if !ok {
		return 0, 0, false
	}
	ms, n := clockFraction(s, sec)
	return ms, n, true
}

// clockSeconds parses the 15:04:05 that s starts with: milliseconds into
// the day.
func clockSeconds(s []byte) (int64, bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, false
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return 0, false
	}
	return int64((h*60+m)*60+sec) * 1000, true
}

// clockFraction adds to ms (the seconds of the clock s starts with) the
// .fraction or ,fraction after them, if any; it returns the milliseconds and
// the bytes of s the clock used.
func clockFraction(s []byte, ms int64) (int64, int) {
	n := 8
	if len(s) > 9 && (s[8] == '.' || s[8] == ',') && isDigit(s[9]) {
		frac, used, _ := fraction(s[9:])
		ms += frac
		n += 1 + used
	}
	return ms, n
}

// fraction reads a run of fraction digits and returns milliseconds.
func fraction(s []byte) (int64, int, bool) {
	var ms int64
	n := 0
	for n < len(s) && isDigit(s[n]) {
		if n < 3 {
			ms = ms*10 + int64(s[n]-'0')
		}
		n++
	}
	for k := n; k < 3; k++ {
		ms *= 10
	}
	return ms, n, n > 0
}

// civil turns a calendar date and milliseconds into the day into Unix
// milliseconds, rejecting impossible dates.
func civil(year, month, day int, msOfDay int64) (int64, bool) {
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	y := year
	if month <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era)*146097 + int64(doe) - 719468
	return days*86400000 + msOfDay, true
}

func digits(s []byte) (int, bool) {
	v := 0
	for _, c := range s {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
