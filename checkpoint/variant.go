package checkpoint

import (
	"fmt"
	"strings"
)

// Variant selects the lifecycle logic of the CheckpointManager.
type Variant string

// The variants: upstream's logic today and the three changes discussed on
// SAMZA-2785 (apache/samza#1674), each named by what it is.
const (
	// Leaky is KafkaCheckpointManager as upstream has it (apache/samza
	// KafkaCheckpointManager.scala: start() at lines 113-124, readLastCheckpoint at
	// 138-160, stop() at 220-233): the consumer is stopped after the first read in
	// active containers and by stop() only in standby ones.
	Leaky Variant = "leaky"
	// PR1674 is the diff of apache/samza#1674 (commit c808091): a
	// systemConsumerStarted flag set after start(), cleared after the first-read stop,
	// and stop() stops the consumer while the flag is set.
	PR1674 Variant = "pr1674"
	// Reset is the second solution of #1674's description: stop() sets
	// taskNamesToCheckpoints back to null, so a restarted manager reads (and stops)
	// again.
	Reset Variant = "reset"
	// GuardStart is the third solution of #1674's discussion (ryucc): start()
	// registers and starts the consumer only while systemConsumerStarted is false;
	// stop() is upstream's.
	GuardStart Variant = "guard-start"
)

// Variants lists every variant, the leaky one first.
var Variants = []Variant{Leaky, PR1674, Reset, GuardStart}

// Description says in one line what the variant is and where it comes from.
func (v Variant) Description() string {
	switch v {
	case Leaky:
		return "upstream today: apache/samza KafkaCheckpointManager.scala, stop() stops the consumer only when stopConsumerAfterFirstRead is false (lines 227-230)"
	case PR1674:
		return "apache/samza#1674 as proposed (c808091): systemConsumerStarted set in start(), cleared after the first-read stop, stop() stops a consumer still started"
	case Reset:
		return "solution 2 of apache/samza#1674's description: stop() sets taskNamesToCheckpoints back to null"
	case GuardStart:
		return "solution 3 of apache/samza#1674's discussion: start() registers and starts the consumer only if systemConsumerStarted is false"
	}
	return ""
}

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("%w: unknown variant %q (want %s)", ErrInvalidConfig, s, joinNames(Variants))
}

// Mode is the kind of container the manager serves.
type Mode string

// The modes.
const (
	// Active containers read checkpoints once and stop the consumer right after
	// (samza.internal.task.checkpoint.consumer.stop.after.first.read = true, the
	// default of TaskConfig.java).
	Active Mode = "active"
	// Standby containers keep the consumer until stop() and re-read on every
	// readLastCheckpoint (SamzaContainer.scala sets the flag to false for them).
	Standby Mode = "standby"
)

// Modes lists both modes.
var Modes = []Mode{Active, Standby}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: unknown mode %q (want %s)", ErrInvalidConfig, s, joinNames(Modes))
}

// StopConsumerAfterFirstRead is Samza's flag of the same name for this mode.
func (m Mode) StopConsumerAfterFirstRead() bool { return m != Standby }

func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, "|")
}
