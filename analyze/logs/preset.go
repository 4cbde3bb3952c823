package logs

import (
	"slices"
	"sync"
)

// Preset is a named set of patterns and pairs for a known leak, offered in
// the upload form and by `leakui count -preset NAME`.
type Preset struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Patterns    []Pattern `json:"patterns,omitempty"`
	Pairs       []Pair    `json:"pairs"`
}

// The log lines of the KAFKA-3933 recovery workload that its preset pairs. The
// recovery workload (package recovery) prints, in Kafka's log4j layout,
//
//	[…] DEBUG Opened deep iterator (gzip) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log (kafka.log.LogSegment)
//	[…] DEBUG Closed deep iterator (gzip) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log after 20 records (kafka.log.LogSegment)
//
// If its texts change, change these (or register a replacement preset with
// registerPreset from package main).
var (
	// recoveryIteratorOpened is logged when recovery opens a decompressing
	// deep iterator over a compressed batch.
	recoveryIteratorOpened = Literal("Opened deep iterator (")
	// recoveryIteratorClosed is logged when such an iterator is closed.
	recoveryIteratorClosed = Literal("Closed deep iterator (")
	// recoveryIteratorKey names the batch an iterator was opened over, so
	// the batches whose iterator was never closed can be listed.
	recoveryIteratorKey = `deep iterator \([^)]*\) for the batch at (byte offset \d+ in log segment \S+)`
)

var (
	logPresetsMu sync.RWMutex
	logPresets   = []Preset{
		{
			Name:  "samza-2785",
			Title: "SAMZA-2785 checkpoint consumers",
			Description: "Checkpoint SystemConsumers started against stopped (KafkaCheckpointManager), " +
				"and Samza Kafka consumers started against stopped, keyed by systemName:clientId.",
			Pairs: []Pair{
				{Name: "checkpoint consumers", Start: Literal("Starting the checkpoint SystemConsumer from oldest offset"), Close: Literal("Stopping system consumer")},
				{Name: "kafka consumers", Start: Literal(": Consumer started"), Close: Literal("Stopping Samza kafkaConsumer"),
					Key: `(\S+): (?:Consumer started|Stopping Samza kafkaConsumer)`},
			},
		},
		{
			Name:  "kafka-group-members",
			Title: "Kafka consumer group members (broker side)",
			Description: "Members the GroupCoordinator added against those it removed, on LeaveGroup or on " +
				"heartbeat expiration (Kafka 2.x and 3.x broker logs), keyed by member id.",
			Pairs: []Pair{
				{Name: "group members", Start: Literal("Adding new member "), Close: Regexp(`removing member \S+ on (?:LeaveGroup|heartbeat expiration)`),
					Key: `(?:Adding new|removing) member ([^\s);]+)`},
			},
		},
		{
			Name:  "kafka-3933",
			Title: "KAFKA-3933 log recovery",
			Description: "Deep iterators opened against closed while a broker recovers unflushed segments, " +
				"with the segments recovered, the invalid messages found and the logs loaded.",
			Patterns: []Pattern{
				Literal("Recovering unflushed segment"),
				Literal("Found invalid messages in log segment"),
				Literal("Corruption found in segment"),
				Literal("Completed load of log"),
			},
			Pairs: []Pair{
				{Name: "deep iterators", Start: recoveryIteratorOpened, Close: recoveryIteratorClosed, Key: recoveryIteratorKey},
			},
		},
	}
)

// Presets returns the presets, in the order a form offers them.
func Presets() []Preset {
	logPresetsMu.RLock()
	defer logPresetsMu.RUnlock()
	return slices.Clone(logPresets)
}

// PresetNames returns the names of the presets.
func PresetNames() []string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return names
}

// LookupPreset returns the preset with the given name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// registerPreset adds a preset, or replaces the one with the same name (so
// that package main can give the KAFKA-3933 preset the recovery workload's own
// log texts). It checks the preset like Count would.
func registerPreset(p Preset) error {
	if err := ValidateCountOptions(CountOptions{Patterns: p.Patterns, Pairs: p.Pairs}); err != nil {
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
