package checkpoint

import (
	"fmt"
	"math"
)

// Scenario is the way the containers of a run meet rebalances.
type Scenario string

// The scenarios.
const (
	// Storm is the production case of SAMZA-2785: rebalances arrive faster than
	// containers finish starting. Every rebalance builds a new container with a new
	// CheckpointManager (StreamProcessor.onNewJobModel), which starts it; only the
	// containers the read fraction picks read their checkpoints, the others are
	// interrupted in that first read by the next rebalance and fail.
	Storm Scenario = "storm"
	// Steady is a new container per rebalance that always reaches its first read.
	Steady Scenario = "steady"
	// Reuse is ryucc's first hypothesis on #1674: one CheckpointManager started and
	// stopped again on every rebalance. Upstream's consumer refuses the second
	// registration, so the manager's second start() fails.
	Reuse Scenario = "reuse"
)

// Scenarios lists every scenario, the production one first.
var Scenarios = []Scenario{Storm, Steady, Reuse}

// DefaultReadFraction is the share of storm containers that read their checkpoints
// before the next rebalance interrupts them: 14 of 1741, the seed's production
// log, rounded. It is an input of the replay, not a result: with -cycles 1741 it
// makes the log say 1741 starts and 14 stops by construction.
const DefaultReadFraction = 0.008

// ParseScenario returns the scenario named s.
func ParseScenario(s string) (Scenario, error) {
	for _, sc := range Scenarios {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", fmt.Errorf("%w: unknown scenario %q (want %s)", ErrInvalidConfig, s, joinNames(Scenarios))
}

// Description says in one line what the scenario is.
func (s Scenario) Description() string {
	switch s {
	case Storm:
		return "a new container per rebalance; most are interrupted by the next rebalance in their first read, fail, and have their processor restarted"
	case Steady:
		return "a new container per rebalance; every one reads its checkpoints before it stops"
	case Reuse:
		return "one manager started and stopped on every rebalance (the hypothesis of apache/samza#1674)"
	}
	return ""
}

// reachesRead reports whether the container of rebalance k (1-based) reads its
// checkpoints before the next rebalance interrupts it. In a storm the reads are spread evenly: rebalance k reads when
// round(k·fraction) grows, so n rebalances hold exactly round(n·fraction) reads, the
// same on every run.
func reachesRead(s Scenario, fraction float64, k int) bool {
	if s != Storm {
		return true
	}
	return math.Floor(float64(k)*fraction+0.5) > math.Floor(float64(k-1)*fraction+0.5)
}
