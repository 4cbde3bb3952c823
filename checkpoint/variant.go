package checkpoint

import (
	"fmt"
	"strings"
)

// Variant selects the lifecycle logic of the CheckpointManager.
type Variant string

// The variants: the upstream logic and the three fixes discussed on SAMZA-2785.
const (
	// Leaky is KafkaCheckpointManager as upstream: stop() stops the consumer only for
	// standby containers and the checkpoint map is never reset.
	Leaky Variant = "leaky"
	// FixClose makes stop() stop a started consumer that is still running (solution 1
	// of the pull request).
	FixClose Variant = "fix-close"
	// FixReset makes stop() set the checkpoint map back to nil, so every start reads
	// (and, for active containers, stops) again (solution 2).
	FixReset Variant = "fix-reset"
	// FixGuard adds a systemConsumerStarted flag: start() starts a consumer only when
	// none is started, stop() stops it when one is (what apache/samza#1674 does).
	FixGuard Variant = "fix-guard"
)

// Variants lists every variant, the leaky one first.
var Variants = []Variant{Leaky, FixClose, FixReset, FixGuard}

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
	// (stopConsumerAfterFirstRead = true, Samza's default).
	Active Mode = "active"
	// Standby containers keep the consumer until stop() and re-read on every
	// readLastCheckpoint (stopConsumerAfterFirstRead = false).
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
