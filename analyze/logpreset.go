package analyze

import (
	"slices"
	"sync"
)

// LogPreset is a named set of patterns and pairs for a known leak, offered in
// the upload form and by `leakui count -preset NAME`.
type LogPreset struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Patterns    []LogPattern `json:"patterns,omitempty"`
	Pairs       []LogPair    `json:"pairs"`
}

// The log lines of the KAFKA-3933 recovery workload that its preset pairs. The
// recovery workload (package recovery) prints, in Kafka's log4j layout,
//
//	[…] DEBUG Opened deep iterator (gzip) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log (kafka.log.LogSegment)
//	[…] DEBUG Closed deep iterator (gzip) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log after 20 records (kafka.log.LogSegment)
//
// If its texts change, change these (or register a replacement preset with
// RegisterLogPreset from package main).
var (
	// LogRecoveryIteratorOpened is logged when recovery opens a decompressing
	// deep iterator over a compressed batch.
	LogRecoveryIteratorOpened = LogLiteral("Opened deep iterator (")
	// LogRecoveryIteratorClosed is logged when such an iterator is closed.
	LogRecoveryIteratorClosed = LogLiteral("Closed deep iterator (")
	// LogRecoveryIteratorKey names the batch an iterator was opened over, so
	// the batches whose iterator was never closed can be listed.
	LogRecoveryIteratorKey = `deep iterator \([^)]*\) for the batch at (byte offset \d+ in log segment \S+)`
)

var (
	logPresetsMu sync.RWMutex
	logPresets   = []LogPreset{
		{
			Name:  "samza-2785",
			Title: "SAMZA-2785 checkpoint consumers",
			Description: "Checkpoint SystemConsumers started against stopped (KafkaCheckpointManager), " +
				"and Samza Kafka consumers started against stopped, keyed by systemName:clientId.",
			Pairs: []LogPair{
				{Name: "checkpoint consumers", Start: LogLiteral("Starting the checkpoint SystemConsumer from oldest offset"), Close: LogLiteral("Stopping system consumer")},
				{Name: "kafka consumers", Start: LogLiteral(": Consumer started"), Close: LogLiteral("Stopping Samza kafkaConsumer"),
					Key: `(\S+): (?:Consumer started|Stopping Samza kafkaConsumer)`},
			},
		},
		{
			Name:  "kafka-group-members",
			Title: "Kafka consumer group members (broker side)",
			Description: "Members the GroupCoordinator added against those it removed, on LeaveGroup or on " +
				"heartbeat expiration (Kafka 2.x and 3.x broker logs), keyed by member id.",
			Pairs: []LogPair{
				{Name: "group members", Start: LogLiteral("Adding new member "), Close: LogRegexp(`removing member \S+ on (?:LeaveGroup|heartbeat expiration)`),
					Key: `(?:Adding new|removing) member ([^\s);]+)`},
			},
		},
		{
			Name:  "kafka-3933",
			Title: "KAFKA-3933 log recovery",
			Description: "Deep iterators opened against closed while a broker recovers unflushed segments, " +
				"with the segments recovered, the invalid messages found and the logs loaded.",
			Patterns: []LogPattern{
				LogLiteral("Recovering unflushed segment"),
				LogLiteral("Found invalid messages in log segment"),
				LogLiteral("Corruption found in segment"),
				LogLiteral("Completed load of log"),
			},
			Pairs: []LogPair{
				{Name: "deep iterators", Start: LogRecoveryIteratorOpened, Close: LogRecoveryIteratorClosed, Key: LogRecoveryIteratorKey},
			},
		},
	}
)

// LogPresets returns the presets, in the order a form offers them.
func LogPresets() []LogPreset {
	logPresetsMu.RLock()
	defer logPresetsMu.RUnlock()
	return slices.Clone(logPresets)
}

// LogPresetNames returns the names of the presets.
func LogPresetNames() []string {
	var names []string
	for _, p := range LogPresets() {
		names = append(names, p.Name)
	}
	return names
}

// LookupLogPreset returns the preset with the given name.
func LookupLogPreset(name string) (LogPreset, bool) {
	for _, p := range LogPresets() {
		if p.Name == name {
			return p, true
		}
	}
	return LogPreset{}, false
}

// RegisterLogPreset adds a preset, or replaces the one with the same name (so
// that package main can give the KAFKA-3933 preset the recovery workload's own
// log texts). It checks the preset like CountLogs would.
func RegisterLogPreset(p LogPreset) error {
	if err := ValidateLogCountOptions(LogCountOptions{Patterns: p.Patterns, Pairs: p.Pairs}); err != nil {
		return err
	}
	logPresetsMu.Lock()
	defer logPresetsMu.Unlock()
	for i := range logPresets {
		if logPresets[i].Name == p.Name {
			logPresets[i] = p
			return nil
		}
	}
	logPresets = append(logPresets, p)
	return nil
}
