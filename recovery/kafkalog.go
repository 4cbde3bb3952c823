package recovery

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// Logger names of the lines recovery writes. The lines Kafka 0.10.0.0 writes
// go under the logger of the class that writes them (its Logging trait names
// the logger after the class), word for word:
//
//	kafka.log.LogManager  LogManager.scala:110  "Loading logs."
//	kafka.log.Log         Log.scala:265         "Recovering unflushed segment %d in log %s."
//	kafka.log.LogSegment  LogSegment.scala:198  "Found invalid messages in log segment %s at byte offset %d: %s."
//	kafka.log.Log         Log.scala:278         "Corruption found in segment %d of log %s, truncating to offset %d."
//	kafka.log.Log         Log.scala:820         "Scheduling log segment %d for log %s for deletion."
//	kafka.log.Log         Log.scala:834         "Deleting segment %d from log %s."
//	kafka.log.Log         Log.scala:108         "Completed load of log %s with log end offset %d"
//	kafka.log.LogManager  LogManager.scala:181  "Logs loading complete."
//
// (apache/kafka at tag 0.10.0.0, core/src/main/scala/kafka/log/). What only
// the model knows, the deep iterators it opens and closes, goes under
// loggerModel: Kafka logs no such line, and a line under Kafka's logger names
// would pass for evidence a broker never gives.
const (
	loggerLog        = "kafka.log.Log"
	loggerLogSegment = "kafka.log.LogSegment"
	loggerLogManager = "kafka.log.LogManager"
	loggerModel      = "leakui.recovery.model"
)

// kafkaLog writes lines in the log4j layout of Kafka's server.log,
// "[2006-01-02 15:04:05,000] LEVEL message (logger)". It formats without
// allocating, so logging a line per deep iterator adds no garbage that would make
// the garbage collector run (and the gzip model's cleanups with it) more often.
type kafkaLog struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	now func() time.Time
	err error // first write error; logging stops after it
}

func newKafkaLog(w io.Writer) *kafkaLog {
	return &kafkaLog{w: w, buf: make([]byte, 0, 512), now: time.Now}
}

// line is one log line under construction.
type line struct {
	l *kafkaLog
	b []byte
}

// begin starts a line at the given level; it holds the lock until end.
func (l *kafkaLog) begin(level string) line {
	l.mu.Lock()
	b := append(l.buf[:0], '[')
	b = l.now().AppendFormat(b, "2006-01-02 15:04:05,000")
	b = append(b, "] "...)
	b = append(b, level...)
	b = append(b, ' ')
	return line{l, b}
}

func (ln line) s(s string) line { ln.b = append(ln.b, s...); return ln }
func (ln line) d(n int64) line  { ln.b = strconv.AppendInt(ln.b, n, 10); return ln }
func (ln line) end(logger string) {
	ln.b = append(ln.b, " ("...)
	ln.b = append(ln.b, logger...)
	ln.b = append(ln.b, ")\n"...)
	l := ln.l
	if l.w != nil && l.err == nil {
		_, l.err = l.w.Write(ln.b)
	}
	l.buf = ln.b
	l.mu.Unlock()
}
