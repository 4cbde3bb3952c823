package logline

import (
	"testing"
	"time"
)

// TestLogParseTime checks every timestamp layout of TimeFormats against Go's
// own time.Parse of the same text (the anchor), on lines as the real logs
// write them.
func TestLogParseTime(t *testing.T) {
	for _, tc := range []struct {
		line, text, layout string
	}{
		{"2023-06-21 12:00:01.234 [main] KafkaCheckpointManager [INFO] x", "2023-06-21 12:00:01.234", "2006-01-02 15:04:05.000"},
		{"[2020-02-14 01:34:02,114] INFO [GroupCoordinator 0]: x", "2020-02-14 01:34:02.114", "2006-01-02 15:04:05.000"},
		{"2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]", "2015-07-29 17:41:44.747", "2006-01-02 15:04:05.000"},
		{"2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop", "2015-10-18 18:01:47.978", "2006-01-02 15:04:05.000"},
		{"2024-07-21T17:21:18Z level=info msg=x", "2024-07-21T17:21:18Z", time.RFC3339},
		{"2024-07-21T17:21:18.123456789+02:00 x", "2024-07-21T17:21:18.123+02:00", "2006-01-02T15:04:05.000Z07:00"},
		{"2024-07-21T17:21:18.5-07:00 x", "2024-07-21T17:21:18.5-07:00", time.RFC3339Nano},
		{"2024-07-21T17:21:18-0330 x", "2024-07-21T17:21:18-0330", "2006-01-02T15:04:05-0700"},
		{"2024-07-21 17:21:18 x", "2024-07-21 17:21:18", "2006-01-02 15:04:05"},
		{"2023/06/21 12:00:01 main.go:12: x", "2023/06/21 12:00:01", "2006/01/02 15:04:05"},
		{"[INFO] [02-21|11:55:36.680] logging to file system", "0000-02-21 11:55:36.680", "2006-01-02 15:04:05.000"},
		{"WARN [12-31|23:59:59.999] x", "0000-12-31 23:59:59.999", "2006-01-02 15:04:05.000"},
		{"Jun 21 12:00:01 host sshd[1]: x", "0000-06-21 12:00:01", "2006-01-02 15:04:05"},
		{"Jun  1 02:03:04 host kernel: x", "0000-06-01 02:03:04", "2006-01-02 15:04:05"},
		{"<13>Feb 29 23:00:00 host x", "0000-02-29 23:00:00", "2006-01-02 15:04:05"},
		{"17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend", "17/06/09 20:10:40", "06/01/02 15:04:05"},
		{"081109 203615 148 INFO dfs.DataNode$PacketResponder: x", "081109 203615", "060102 150405"},
		{"1687305601 GET /x", "2023-06-21T00:00:01Z", time.RFC3339},
		{"1687305601.25 GET /x", "2023-06-21T00:00:01.25Z", time.RFC3339Nano},
		{"[1687305601123] x", "2023-06-21T00:00:01.123Z", time.RFC3339Nano},
		{"nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova", "2017-05-16 00:00:00.008", "2006-01-02 15:04:05.000"},
		{"level=info ts=2021-01-02T03:04:05.678Z msg=x", "2021-01-02T03:04:05.678Z", time.RFC3339Nano},
	} {
		want, err := time.Parse(tc.layout, tc.text)
		if err != nil {
			t.Fatalf("anchor %q: %v", tc.text, err)
		}
		ms, ok := Time([]byte(tc.line))
		if !ok {
			t.Errorf("%q: no timestamp found, want %v", tc.line, want)
			continue
		}
		if got := time.UnixMilli(ms).UTC(); !got.Equal(want.Truncate(time.Millisecond)) {
			t.Errorf("%q: %v, want %v", tc.line, got, want)
		}
	}
	for _, line := range []string{
		"", "\tat org.apache.samza.Foo(Foo.java:123)", "12345 bytes", "2023-13-01 00:00:00 bad month",
		"version 2.1.1 started", "10:20:30 a clock alone", "Junk 21 12:00:01", "blk_38865049064139660 x",
		"2023-06-21_12:00:01 underscore", "id 1687305601 not at the start", "12345678901 eleven digits",
		"2023-06-21 25:00:00 bad hour", "Jun 21 12:61:00 bad minute",
	} {
		if ms, ok := Time([]byte(line)); ok {
			t.Errorf("%q: found %v, want no timestamp", line, time.UnixMilli(ms).UTC())
		}
	}
}

// TestLogCivil checks the calendar arithmetic against time.Date for every
// day of several centuries, leap years and year 0 (yearless layouts)
// included.
func TestLogCivil(t *testing.T) {
	for d := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2400; d = d.AddDate(0, 0, 7) {
		ms, ok := civil(d.Year(), int(d.Month()), d.Day(), 3723004)
		if !ok || ms != d.UnixMilli()+3723004 {
			t.Fatalf("%v: %d, want %d", d, ms, d.UnixMilli()+3723004)
		}
	}
}
