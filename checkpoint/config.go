package checkpoint

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// Limits of a Config.
const (
	MaxCycles  = 1_000_000
	MaxTasks   = 10_000
	MaxHistory = 10_000
)

// The default job name and id.
const (
	DefaultJob   = "leakui-checkpoint"
	DefaultJobID = "1"
)

// DefaultHistory is the number of checkpoints of every task on the topic before the
// first rebalance.
const DefaultHistory = 25

// Config describes one run of the reproduction.
type Config struct {
	// Variant selects the manager's lifecycle logic (default Leaky).
	Variant Variant
	// Mode selects active or standby containers (default Active).
	Mode Mode
	// Scenario selects how containers meet rebalances (default Storm).
	Scenario Scenario
	// ReadFraction is the share of storm containers that read their checkpoints (an
	// input: the others are interrupted in that read),
	// in (0, 1] (default DefaultReadFraction).
	ReadFraction float64
	// Cycles is the number of standalone rebalances (default 100).
	Cycles int
	// Tasks is the number of tasks, "Partition 0" … "Partition N-1" (default 8).
	Tasks int
	// History is the number of checkpoints of every task on the topic before the
	// first rebalance, as earlier commits leave them until compaction (default
	// DefaultHistory). Each consumer reads them all into its envelope queue.
	History int
	// Brokers lists host:port of a Kafka cluster; empty starts a broker, in the
	// process BrokerCommand starts when it is set and in this process otherwise.
	Brokers []string
	// BrokerCommand is the command line of a broker process (see ServeBroker), such
	// as {"leakui", "work", "broker"}; BrokerEnv is added to its environment.
	BrokerCommand, BrokerEnv []string
	// Job and JobID name the checkpoint topic (defaults "leakui-checkpoint", "1").
	Job, JobID string
	// FetchThreshold is the per-consumer buffer in messages (default
	// DefaultFetchThreshold).
	FetchThreshold int
	// DialTimeout bounds each connect and the broker check (default 5s).
	DialTimeout time.Duration
	// ReadTimeout bounds one read of the checkpoint topic to its end (default 30s).
	ReadTimeout time.Duration
	// Log receives the run's log in Samza's layout; nil discards it.
	Log io.Writer
	// Progress, when set, is called after every cycle from the goroutine of Run.
	Progress func(Progress)
}

var topicPart = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// withDefaults fills in defaults and checks every field.
func (c Config) withDefaults() (Config, error) {
	if c.Variant == "" {
		c.Variant = Leaky
	}
	if c.Mode == "" {
		c.Mode = Active
	}
	if c.Scenario == "" {
		c.Scenario = Storm
	}
	if c.ReadFraction == 0 {
		c.ReadFraction = DefaultReadFraction
	}
	if c.Cycles == 0 {
		c.Cycles = 100
	}
	if c.Tasks == 0 {
		c.Tasks = 8
	}
	if c.History == 0 {
		c.History = DefaultHistory
	}
	if c.Job == "" {
		c.Job = DefaultJob
	}
	if c.JobID == "" {
		c.JobID = DefaultJobID
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if _, err := ParseVariant(string(c.Variant)); err != nil {
		return c, err
	}
	if _, err := ParseMode(string(c.Mode)); err != nil {
		return c, err
	}
	if _, err := ParseScenario(string(c.Scenario)); err != nil {
		return c, err
	}
	if !(c.ReadFraction > 0 && c.ReadFraction <= 1) {
		return c, fmt.Errorf("%w: read fraction must be in (0, 1], got %v", ErrInvalidConfig, c.ReadFraction)
	}
	if c.Cycles < 1 || c.Cycles > MaxCycles {
		return c, fmt.Errorf("%w: cycles must be 1-%d, got %d", ErrInvalidConfig, MaxCycles, c.Cycles)
	}
	if c.Tasks < 1 || c.Tasks > MaxTasks {
		return c, fmt.Errorf("%w: tasks must be 1-%d, got %d", ErrInvalidConfig, MaxTasks, c.Tasks)
	}
	if c.History < 1 || c.History > MaxHistory || c.History*c.Tasks > 1_000_000 {
		return c, fmt.Errorf("%w: history must be 1-%d with history × tasks at most 1000000, got %d × %d", ErrInvalidConfig, MaxHistory, c.History, c.Tasks)
	}
	if c.FetchThreshold < 0 || c.FetchThreshold > MaxFetchThreshold {
		return c, fmt.Errorf("%w: fetch threshold must be 1-%d, got %d", ErrInvalidConfig, MaxFetchThreshold, c.FetchThreshold)
	}
	for name, v := range map[string]string{"job": c.Job, "job id": c.JobID} {
		if !topicPart.MatchString(v) || len(v) > 100 {
			return c, fmt.Errorf("%w: %s %q: use at most 100 of A-Z a-z 0-9 . _ -", ErrInvalidConfig, name, v)
		}
	}
	for _, b := range c.Brokers {
		if _, err := ParseBrokers(b); err != nil {
			return c, err
		}
	}
	return c, nil
}

// TopicName returns Samza's checkpoint topic name for a job,
// "__samza_checkpoint_ver_1_for_<job>_<id>", with underscores in the job name and id
// replaced by dashes as Samza does.
func TopicName(job, jobID string) string {
	return fmt.Sprintf("__samza_checkpoint_ver_1_for_%s_%s",
		strings.ReplaceAll(job, "_", "-"), strings.ReplaceAll(jobID, "_", "-"))
}

// TaskName returns the name of task i, "Partition <i>" (GroupByPartition's names).
func TaskName(i int) string { return fmt.Sprintf("Partition %d", i) }

// Check reports the first invalid field of c, with defaults applied; New does the
// same check.
func (c Config) Check() error {
	_, err := c.withDefaults()
	return err
}
