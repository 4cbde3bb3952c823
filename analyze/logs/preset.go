package logs

import (
	"slices"
	"sync"
)

// Preset is a named set of patterns, pairs and spans for a known leak,
// offered in the upload form and by `leakui count -preset NAME`.
type Preset struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Patterns    []Pattern `json:"patterns,omitempty"`
	Pairs       []Pair    `json:"pairs"`
	Spans       []Span    `json:"spans,omitempty"`
}

// What a Kafka 0.10.0.0 broker writes while it recovers its logs after an
// unclean shutdown, word for word (apache/kafka at tag 0.10.0.0, in
// core/src/main/scala/kafka/log/; the log4j layout "[%d] %p %m (%c)%n" of
// config/log4j.properties:26 puts the class after the message):
//
//	Log.scala:265         INFO Recovering unflushed segment %d in log %s. (kafka.log.Log)
//	LogSegment.scala:198  WARN Found invalid messages in log segment %s at byte offset %d: %s. (kafka.log.LogSegment)
//	Log.scala:272-273     WARN Found invalid offset during recovery for log %s. Deleting the corrupt segment and creating an empty one with starting offset %d (kafka.log.Log)
//	Log.scala:278         WARN Corruption found in segment %d of log %s, truncating to offset %d. (kafka.log.Log)
//	Log.scala:108         INFO Completed load of log %s with log end offset %d (kafka.log.Log)
//
// Later versions keep the first words of each (0.10.1.0 onwards: "Completed
// load of log %s with %d log segments and log end offset %d in %d ms"), so the
// literals below match their logs too. An OutOfMemoryError ends recovery with
// "There was an error in one of the threads during logs loading:
// java.lang.OutOfMemoryError…" (LogManager.scala:174) and KafkaServer's fatal
// line with the error's stack trace (KafkaServer.scala:261).
var (
	recoveringSegment  = Literal("Recovering unflushed segment")
	invalidMessages    = Literal("Found invalid messages in log segment")
	invalidOffset      = Literal("Found invalid offset during recovery for log")
	corruptionFound    = Literal("Corruption found in segment")
	outOfMemory        = Literal("java.lang.OutOfMemoryError")
	completedLogLoad   = Literal("Completed load of log")
	recoveryUntilEnded = Span{Name: "recovery time", From: recoveringSegment, To: outOfMemory, Else: completedLogLoad,
		Absent: "The broker recovered no segment: it recovers only after an unclean shutdown, when a log directory has no .kafka_cleanshutdown file (Log.scala:255-259)."}
)

// The deep-iterator lines of leakui's recovery model (package recovery), which
// it writes under its own logger:
//
//	[…] DEBUG Opened deep iterator (gzip, magic 0) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log (leakui.recovery.model)
//	[…] DEBUG Closed deep iterator (gzip, magic 0) for the batch at byte offset 61 in log segment /d/t-0/00000000000000000000.log after 1 messages (leakui.recovery.model)
//
// Kafka writes no such line, so on a broker's own log the pair is not
// measurable. If the model's texts change, change these.
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

// What Samza writes about the consumers of SAMZA-2785 (apache/samza at
// 23f52e98): KafkaCheckpointManager.scala:121 "Starting the checkpoint
// SystemConsumer from oldest offset %s", :149 and :228 "Stopping system
// consumer"; KafkaSystemConsumer.java:132 "{}: Consumer started", :233 "{}:
// Stopping Samza kafkaConsumer ", where {} is "systemName:clientId" (:292-293);
// KafkaConsumerProxy.java:202 "Starting consumer poll thread {} for system
// {}" and :119 "Shutting down KafkaConsumerProxy poll thread {} for {}", where
// the thread is "Samza KafkaConsumerProxy Poll Thread-N - systemName"
// (:89-92: the JVM's own "Thread-N", unique in a process).
const (
	// samzaClientIDShared says why the consumers' keys repeat.
	samzaClientIDShared = "Samza names a KafkaSystemConsumer systemName:clientId (KafkaSystemConsumer.java:292-293), and the client id, " +
		"kafka_consumer-<job name>-<job id>, is the same for every consumer of a job (KafkaSystemFactory.scala:45, KafkaConsumerConfig.java:147-154): " +
		"the pair “consumer poll threads” names each consumer by its poll thread instead."
	// samzaPollThreadKey is the poll thread's name in its start and stop lines.
	samzaPollThreadKey = `poll thread (.+?) for `
)

var (
	presetsMu sync.RWMutex
	presets   = []Preset{
		{
			Name:  "samza-2785",
			Title: "SAMZA-2785 checkpoint consumers",
			Description: "Checkpoint SystemConsumers started against stopped (KafkaCheckpointManager); Samza Kafka consumers " +
				"started against stopped, keyed by systemName:clientId, which every consumer of a job shares, so they fall back to counts; " +
				"and the consumers' poll threads started against shut down, keyed by thread name, one per consumer.",
			Pairs: []Pair{
				{Name: "checkpoint consumers", Start: Literal("Starting the checkpoint SystemConsumer from oldest offset"), Close: Literal("Stopping system consumer")},
				{Name: "kafka consumers", Start: Literal(": Consumer started"), Close: Literal("Stopping Samza kafkaConsumer"),
					Key: `(\S+): (?:Consumer started|Stopping Samza kafkaConsumer)`, Shared: samzaClientIDShared},
				{Name: "consumer poll threads", Start: Literal("Starting consumer poll thread"), Close: Literal("Shutting down KafkaConsumerProxy poll thread"),
					Key: samzaPollThreadKey},
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
			Description: "What a Kafka broker writes while it recovers unflushed segments after an unclean shutdown: the segments recovered, " +
				"the invalid messages and corruption found, java.lang.OutOfMemoryError, and the time from the first recovery to the " +
				"OutOfMemoryError or to the last log loaded. The deep iterators are counted only in leakui's recovery model's log: " +
				"a broker does not log them.",
			Patterns: []Pattern{recoveringSegment, invalidMessages, invalidOffset, corruptionFound, outOfMemory, completedLogLoad},
			Spans:    []Span{recoveryUntilEnded},
			Pairs: []Pair{
				{Name: "deep iterators", Start: recoveryIteratorOpened, Close: recoveryIteratorClosed, Key: recoveryIteratorKey,
					Absent: "Kafka logs no line when it opens or drops a deep iterator: these lines come only from leakui's recovery model " +
						"(logger leakui.recovery.model). On a broker's log, read the recovery lines, the OutOfMemoryError and the time to it, " +
						"and the process's memory beyond what Native Memory Tracking sees."},
			},
		},
	}
)

// Presets returns the presets, in the order a form offers them.
func Presets() []Preset {
	presetsMu.RLock()
	defer presetsMu.RUnlock()
	return slices.Clone(presets)
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
	if err := ValidateCountOptions(CountOptions{Patterns: p.Patterns, Pairs: p.Pairs, Spans: p.Spans}); err != nil {
		return err
	}
	presetsMu.Lock()
	defer presetsMu.Unlock()
	for i := range presets {
		if presets[i].Name == p.Name {
			presets[i] = p
			return nil
		}
	}
	presets = append(presets, p)
	return nil
}
