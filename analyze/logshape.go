package analyze

import (
	"bytes"
	"fmt"

	"github.com/leakui/leakui/analyze/logline"
)

// What looks like a log. Text of no other kind is a log when at least one in
// LogShareDenominator of the non-blank lines of its first SniffSize bytes
// carries a timestamp or a level near its start, as log lines do and prose,
// tables and source code do not (stack frames and a configuration dump
// between them are fine: a Kafka broker's 200-line KafkaConfig block leaves
// 43% of its first 64 KiB marked). A line carries one when the log analyzer
// finds one in it: package logline judges a line for both. Other text is
// refused as "text, not a log", naming the share.
//
// LogShareDenominator: at least 1 in 5 of them must carry a mark.
const LogShareDenominator = 5

// LogShape counts, over the non-blank lines of head (its first SniffSize
// bytes), the lines looked at and those that carry a timestamp or a level
// (logline.Marked). A last line cut by the end of head counts only when head
// holds nothing else.
func LogShape(head []byte) (lines, marked int) {
	if len(head) > SniffSize {
		head = head[:SniffSize]
	}
	rest := head
	for len(rest) > 0 {
		line := rest
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
			if len(head) == SniffSize && lines > 0 {
				break // cut by the sniff limit
			}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines++
		if logline.Marked(line) { // with its '\r', as the analyzer reads it
			marked++
		}
	}
	return lines, marked
}

// looksLikeLog applies the rule to head: nil when it reads as a log, else the
// detection that refuses it.
func looksLikeLog(head []byte) *Detection {
	lines, marked := LogShape(head)
	if lines > 0 && marked*LogShareDenominator >= lines {
		return nil
	}
	return &Detection{Kind: KindUnknown, Format: fmt.Sprintf("text, not a log (%d of its first %d lines carry a timestamp or a level; a log has at least 1 in %d)",
		marked, lines, LogShareDenominator)}
}
