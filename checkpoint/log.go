package checkpoint

import (
	"io"
	"sync"
	"time"
)

// Log levels, as log4j prints them.
const (
	LevelInfo  = "INFO"
	LevelWarn  = "WARN"
	LevelError = "ERROR"
)

// Logger names of the lines this package writes (log4j's %c{1}): upstream's
// classes for the lines upstream writes, and the model's own logger for what
// only the model does (the application restarting a stopped processor).
const (
	LoggerCheckpointManager = "KafkaCheckpointManager"
	LoggerSystemConsumer    = "KafkaSystemConsumer"
	LoggerConsumerProxy     = "KafkaConsumerProxy"
	LoggerSamzaContainer    = "SamzaContainer"
	LoggerStreamProcessor   = "StreamProcessor"
	LoggerModel             = "leakui.checkpoint.model"
)

// ThreadContainer is the thread name of the container's lines: StreamProcessor runs
// each container on a thread of a fresh executor whose thread factory names its
// first thread "Samza StreamProcessor Container Thread-0" (StreamProcessor.java:116,
// :298).
const ThreadContainer = "Samza StreamProcessor Container Thread-0"

// TimeLayout is the timestamp layout of Samza's log4j pattern.
const TimeLayout = "2006-01-02 15:04:05.000"

// Log writes lines in Samza's layout,
// "2006-01-02 15:04:05.000 [<thread>] <Logger> [INFO] <msg>". It is safe for
// concurrent use; a nil *Log discards everything.
type Log struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	buf []byte
	err error
}

// NewLog returns a log writing to w; a nil w discards the lines.
func NewLog(w io.Writer) *Log {
	if w == nil {
		w = io.Discard
	}
	return &Log{w: w, now: time.Now}
}

// Info writes one INFO line.
func (l *Log) Info(thread, logger, msg string) { l.Line(thread, logger, LevelInfo, msg) }

// Warn writes one WARN line.
func (l *Log) Warn(thread, logger, msg string) { l.Line(thread, logger, LevelWarn, msg) }

// Error writes one ERROR line.
func (l *Log) Error(thread, logger, msg string) { l.Line(thread, logger, LevelError, msg) }

// Line writes one line at the given level. A write error is kept for Err and stops
// further writes.
func (l *Log) Line(thread, logger, level, msg string) { l.Throwable(thread, logger, level, msg, "") }

// Throwable writes a line with a throwable, as log4j does: the line, then the
// throwable's class and message on a line of their own (its stack trace is left
// out). An empty throwable writes the line alone.
func (l *Log) Throwable(thread, logger, level, msg, throwable string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	b := l.now().AppendFormat(l.buf[:0], TimeLayout)
	b = append(b, " ["...)
	b = append(b, thread...)
	b = append(b, "] "...)
	b = append(b, logger...)
	b = append(b, " ["...)
	b = append(b, level...)
	b = append(b, "] "...)
	b = appendOneLine(b, msg)
	b = append(b, '\n')
	if throwable != "" {
		b = appendOneLine(b, throwable)
		b = append(b, '\n')
	}
	_, l.err = l.w.Write(b)
	l.buf = b
}

// appendOneLine appends msg with CR and LF escaped, so a value read from a topic can
// never forge a log line.
func appendOneLine(b []byte, msg string) []byte {
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; c {
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}

// Err returns the first write error, if any.
func (l *Log) Err() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
