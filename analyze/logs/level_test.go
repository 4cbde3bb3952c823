package logs

import (
	"testing"

	"github.com/leakui/leakui/analyze/logline"
)

// TestLevelOfCommonLayouts reads the level of a line as the common layouts
// write it, and leaves lines without one (or with a level word only as a
// mixed-case sentence word, or far into the message) at none, in the
// overview's masker and in logline.Level, which the sniffer reads.
func TestLevelOfCommonLayouts(t *testing.T) {
	for _, c := range []struct {
		line  string
		level int
	}{
		{"2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - Notification time out: 3200", LevelInfo}, // loghub Zookeeper
		{"[2020-02-14 00:00:00,029] WARN [GroupCoordinator 0]: Member consumer-1 failed", LevelWarn},                                                  // Kafka log4j
		{"081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block blk_38865049064139660 terminating", LevelInfo},             // loghub HDFS
		{"17/06/09 20:10:40 ERROR executor.Executor: Exception in task 0.0", LevelError},                                                              // loghub Spark
		{"12:00:01.123 [main] DEBUG com.example.App - starting", LevelDebug},                                                                          // logback
		{`time=2024-01-02T03:04:05.000Z level=WARN msg="disk almost full" free=3%`, LevelWarn},                                                        // slog text
		{`{"time":"2024-01-02T03:04:05Z","level":"ERROR","msg":"boom"}`, LevelError},                                                                  // slog JSON
		{`{"level":"debug","ts":1704164645.1,"caller":"x/y.go:12","msg":"tick"}`, LevelDebug},                                                         // zap JSON
		{"2024-01-02T03:04:05.000Z\tfatal\tx/y.go:12\tgone", LevelFatal},                                                                              // zap console
		{"ts=2024-01-02T03:04:05Z level=trace caller=a.go:1 msg=x", LevelTrace},                                                                       // logfmt
		{"[EROR] [02-21|11:55:36.680] Failed to decode block", LevelError},                                                                            // Erigon
		{"CRIT [02-21|11:55:36.680] database corrupt", LevelFatal},                                                                                    // geth
		{"E0102 15:04:05.000000    1 main.go:42] cannot connect", LevelError},                                                                         // klog
		{"Jan 02, 2024 3:04:05 PM com.example.App main", LevelNone},                                                                                   // JUL header line
		{"SEVERE: boom", LevelError},                                     // JUL message line
		{"\tat org.apache.kafka.Foo.bar(Foo.java:42)", LevelNone},        // stack frame
		{"2024-01-02 03:04:05 Error while fetching metadata", LevelNone}, // a sentence's word
		{"2024-01-02 03:04:05 some long message that goes on and on past the first hundred bytes of the line before it says ERROR", LevelNone},
	} {
		var m lineMasker
		if got, _ := m.mask([]byte(c.line)); got != c.level {
			t.Errorf("%q: level %s, want %s", c.line, LevelNames[got], LevelNames[c.level])
		}
		if got := logline.Level([]byte(c.line)); got != c.level {
			t.Errorf("%q: logline.Level %s, want %s", c.line, LevelNames[got], LevelNames[c.level])
		}
	}
}
