package checkpoint

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Defaults of ConsumerConfig.
const (
	// DefaultFetchThreshold is the number of envelopes one consumer buffers before its
	// poll loop blocks: Samza's systems.<s>.samza.fetch.threshold, whose default is
	// FETCH_THRESHOLD = 10000 (KafkaSystemConsumer.java:48), divided among the
	// consumer's partitions (one here).
	DefaultFetchThreshold = 10000
	// MaxFetchThreshold bounds the fetch threshold.
	MaxFetchThreshold = 1_000_000
	// ReaderQueueCapacity is kafka-go's own queue of fetched messages: one, so the
	// messages wait in the consumer's envelope queue (BlockingEnvelopeMap), where
	// KafkaConsumerProxy moves every polled record (KafkaConsumerProxy.java:236-241),
	// and not in a channel kafka-go reserves up front.
	ReaderQueueCapacity = 1
	// DefaultFetchMaxBytes bounds one fetch response (max.partition.fetch.bytes).
	DefaultFetchMaxBytes = 64 << 10
	// DefaultFetchMaxWait is the client's deadline for a fetch with no new data;
	// kafka-go asks the broker to hold it one second less. Kafka's fetch.max.wait.ms
	// is 500 ms, but kafka-go would then leave only 125 ms between the broker's
	// answer and its own deadline, and reconnect whenever a loaded machine misses it.
	DefaultFetchMaxWait = 2 * time.Second
	// DefaultDialTimeout bounds every TCP connect to a broker.
	DefaultDialTimeout = 5 * time.Second
)

// ConsumerConfig configures the SystemConsumers of a factory.
type ConsumerConfig struct {
	// System is the Samza system name of the checkpoint topic ("kafka").
	System string
	// Job and JobID name the job (defaults "leakui-checkpoint" and "1"): every
	// consumer's client id is made of them (see ClientID).
	Job, JobID string
	// Brokers are the bootstrap brokers, host:port.
	Brokers []string
	// FetchThreshold is the buffer of the poll loop and of kafka-go's queue, in
	// messages (default DefaultFetchThreshold).
	FetchThreshold int
	// FetchMaxBytes bounds one fetch response (default DefaultFetchMaxBytes).
	FetchMaxBytes int
	// FetchMaxWait is the long-poll wait of one fetch (default DefaultFetchMaxWait).
	FetchMaxWait time.Duration
	// DialTimeout bounds each connect (default DefaultDialTimeout).
	DialTimeout time.Duration
}

func (c ConsumerConfig) withDefaults() ConsumerConfig {
	if c.System == "" {
		c.System = "kafka"
	}
	if c.Job == "" {
		c.Job = DefaultJob
	}
	if c.JobID == "" {
		c.JobID = DefaultJobID
	}
	if c.FetchThreshold <= 0 {
		c.FetchThreshold = DefaultFetchThreshold
	}
	if c.FetchMaxBytes <= 0 {
		c.FetchMaxBytes = DefaultFetchMaxBytes
	}
	if c.FetchMaxWait <= 0 {
		c.FetchMaxWait = DefaultFetchMaxWait
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	return c
}

// ConsumerStats are the counters of every consumer a factory made.
type ConsumerStats struct {
	// Starts counts successful Start calls (": Consumer started" lines).
	Starts int64
	// Stops counts Stop calls that stopped a consumer ("Stopping Samza
	// kafkaConsumer " lines).
	Stops int64
	// Open counts consumers started and not yet stopped or reaped.
	Open int64
	// Connections counts the TCP connections the consumers hold open.
	Connections int64
	// Reaped counts consumers stopped by Reap, the model of the process exiting.
	Reaped int64
	// Made counts consumers made (one per CheckpointManager).
	Made int64
	// Refused counts registrations refused because the consumer had started.
	Refused int64
	// SecondStarts counts starts of a consumer already started ("Attempting to start
	// the consumer for the second (or more) time.").
	SecondStarts int64
}

type consumerStats struct {
	starts, stops, running, openConns, reaped, refused, secondStarts atomic.Int64
}

// The prefixes of upstream's client ids (KafkaSystemFactory.scala:35-37).
const (
	ClientIDConsumer = "kafka-consumer"
	ClientIDProducer = "kafka-producer"
	ClientIDAdmin    = "kafka-admin-consumer"
)

// ClientID is upstream's client id of a job's Kafka clients: prefix, job name
// and job id joined by "-", each with every character outside [A-Za-z0-9_]
// replaced by "_" (KafkaConsumerConfig.createClientId,
// samza-kafka/src/main/java/org/apache/samza/config/KafkaConsumerConfig.java:147-154),
// as KafkaSystemFactory.getConsumer makes it (KafkaSystemFactory.scala:45). It
// names the job, not the consumer: every consumer of the job has the same one,
// "kafka_consumer-leakui_checkpoint-1" by default.
func ClientID(prefix, job, jobID string) string {
	return javaWord(prefix) + "-" + javaWord(job) + "-" + javaWord(jobID)
}

// javaWord is Java's s.replaceAll("\\W", "_").
func javaWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, s)
}

// ConsumerFactory makes SystemConsumers, each with the job's client id and a poll
// thread named as the JVM would name it, counts what they do, and owns every
// consumer that is still running, so Reap can stop them.
type ConsumerFactory struct {
	cfg   ConsumerConfig
	log   *Log
	stats consumerStats
	seq   atomic.Int64

	mu   sync.Mutex
	live map[*SystemConsumer]struct{}
}

// NewConsumerFactory returns a factory for consumers configured by cfg that log to log.
func NewConsumerFactory(cfg ConsumerConfig, log *Log) *ConsumerFactory {
	return &ConsumerFactory{cfg: cfg.withDefaults(), log: log, live: make(map[*SystemConsumer]struct{})}
}

// New returns a new, unregistered consumer with the job's client id (see
// ClientID). Its poll thread is "Thread-<n>", n counting the consumers made from
// 0, as the JVM names an unnamed thread when KafkaConsumerProxy's constructor
// makes it (KafkaConsumerProxy.java:89-92): the name, unlike the client id, tells
// the consumers of a process apart.
func (f *ConsumerFactory) New() *SystemConsumer {
	n := f.seq.Add(1)
	c := &SystemConsumer{
		cfg:      f.cfg,
		clientID: ClientID(ClientIDConsumer, f.cfg.Job, f.cfg.JobID),
		thread:   fmt.Sprintf("Thread-%d", n-1),
		log:      f.log,
		stats:    &f.stats,
		factory:  f,
	}
	f.mu.Lock()
	f.live[c] = struct{}{}
	f.mu.Unlock()
	return c
}

// forget drops a consumer that has shut down.
func (f *ConsumerFactory) forget(c *SystemConsumer) {
	f.mu.Lock()
	delete(f.live, c)
	f.mu.Unlock()
}

// Stats returns the current counters.
func (f *ConsumerFactory) Stats() ConsumerStats {
	return ConsumerStats{
		Starts:       f.stats.starts.Load(),
		Stops:        f.stats.stops.Load(),
		Open:         f.stats.running.Load(),
		Connections:  f.stats.openConns.Load(),
		Reaped:       f.stats.reaped.Load(),
		Made:         f.seq.Load(),
		Refused:      f.stats.refused.Load(),
		SecondStarts: f.stats.secondStarts.Load(),
	}
}

// Reap stops every consumer that is still running, several at a time, without
// counting them as stops, and returns how many it stopped. Use it when the process
// that leaked them would exit.
func (f *ConsumerFactory) Reap() int {
	f.mu.Lock()
	all := make([]*SystemConsumer, 0, len(f.live))
	for c := range f.live {
		all = append(all, c)
	}
	f.mu.Unlock()
	const workers = 64
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		n    atomic.Int64
	)
	for range min(workers, len(all)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(all)); i = next.Add(1) - 1 {
				if all[i].reap() {
					n.Add(1)
				}
			}
		})
	}
	wg.Wait()
	f.stats.reaped.Add(n.Load())
	return int(n.Load())
}
