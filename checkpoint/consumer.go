package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"
)

// Envelope is one message taken from the checkpoint topic (IncomingMessageEnvelope).
type Envelope struct {
	// Offset is the message's offset in the partition.
	Offset int64
	// Key is the task name; Value the encoded checkpoint.
	Key, Value []byte
}

// SystemConsumer is the model of Samza's KafkaSystemConsumer over a kafka-go Reader
// on one partition. Register then Start launches a poll loop goroutine that prefetches
// into a queue of up to FetchThreshold envelopes (KafkaConsumerProxy feeding
// BlockingEnvelopeMap); when the queue is full the loop blocks, and kafka-go's own
// queue (ReaderQueueCapacity messages, the KafkaConsumer's fetch buffer) fills behind
// it, so a consumer nobody polls stops fetching. Poll takes from the queue. Stop ends
// the loop and closes the reader. A SystemConsumer is used by one goroutine (the
// manager's); Stop may also come from the factory's Reap.
type SystemConsumer struct {
	cfg      ConsumerConfig
	clientID string
	thread   string // "Thread-<n>"
	log      *Log
	stats    *consumerStats
	factory  *ConsumerFactory

	ssp        SSP
	offset     int64
	registered bool
	position   int64 // the offset after the last envelope Poll returned

	started atomic.Bool
	stopped atomic.Bool

	reader   *kafka.Reader
	conns    *connTracker
	buffer   *envelopeQueue
	cancel   context.CancelFunc
	loopDone chan struct{}
	running  chan struct{} // closed once the poll loop has logged its start
	failure  error         // why the poll loop ended on its own; read after loopDone
	halt     sync.Once
}

// String is the consumer's log id, "<system>:<clientId>" (KafkaSystemConsumer.java:292-293):
// the same for every consumer of a job.
func (c *SystemConsumer) String() string { return c.cfg.System + ":" + c.clientID }

// ClientID is the Kafka client id of this consumer: the job's (see ClientID).
func (c *SystemConsumer) ClientID() string { return c.clientID }

// proxy is the log id of the consumer's KafkaConsumerProxy,
// "consumerProxy-<system>-<clientId>" (KafkaConsumerProxy.java:450-451).
func (c *SystemConsumer) proxy() string { return "consumerProxy-" + c.cfg.System + "-" + c.clientID }

// Register records the partition to read and the offset to start from. Once the
// consumer has started it fails with ErrRegistrationRefused and upstream's message
// (KafkaSystemConsumer.java:258-261), stopped or not.
func (c *SystemConsumer) Register(ssp SSP, offset int64) error {
	if c.started.Load() {
		c.stats.refused.Add(1)
		//lint:ignore ST1005 upstream's message, word for word (KafkaSystemConsumer.java:259)
		return fmt.Errorf("%w: KafkaSystemConsumer: %s had started. Registration of ssp: %s, offset: %d failed.", ErrRegistrationRefused, c, ssp, offset)
	}
	if ssp.System != c.cfg.System {
		c.log.Warn(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: ignoring SSP %s, because this consumer's system doesn't match.", c, ssp))
		return nil
	}
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Registering ssp: %s with offset: %d", c, ssp, offset))
	c.ssp, c.offset, c.position, c.registered = ssp, offset, offset, true
	return nil
}

// Start launches the poll loop. A second start and a start after Stop only log, as
// in Samza; starting an unregistered consumer is an error.
func (c *SystemConsumer) Start() error {
	if !c.registered {
		c.log.Error(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Consumer is not subscribed to any SSPs", c))
		return fmt.Errorf("%s: %w: no SSP registered", c, ErrNotStarted)
	}
	if !c.started.CompareAndSwap(false, true) {
		c.stats.secondStarts.Add(1)
		c.log.Warn(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Attempting to start the consumer for the second (or more) time.", c))
		return nil
	}
	if c.stopped.Load() {
		c.log.Error(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Attempting to start a stopped consumer", c))
		return nil
	}
	conns := newConnTracker(c.cfg.DialTimeout, &c.stats.openConns)
	rc := kafka.ReaderConfig{
		Brokers:         c.cfg.Brokers,
		Topic:           c.ssp.Stream,
		Partition:       int(c.ssp.Partition),
		Dialer:          &kafka.Dialer{ClientID: c.clientID, Timeout: c.cfg.DialTimeout, DialFunc: conns.dial},
		QueueCapacity:   min(c.cfg.FetchThreshold, ReaderQueueCapacity),
		MinBytes:        1,
		MaxBytes:        c.cfg.FetchMaxBytes,
		MaxWait:         c.cfg.FetchMaxWait,
		ReadLagInterval: -1, // no lag goroutine: one reader goroutine per consumer
	}
	if err := rc.Validate(); err != nil { // kafka.NewReader panics on what Validate rejects
		c.started.Store(false)
		return fmt.Errorf("%s: %w: %v", c, ErrInvalidConfig, err)
	}
	c.conns, c.reader = conns, kafka.NewReader(rc)
	if err := c.reader.SetOffset(c.offset); err != nil {
		c.reader.Close()
		c.reader = nil
		c.started.Store(false)
		return fmt.Errorf("%s: %w", c, err)
	}
	c.buffer = newEnvelopeQueue(c.cfg.FetchThreshold)
	c.loopDone, c.running = make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.stats.starts.Add(1)
	c.stats.running.Add(1)
	// KafkaSystemConsumer.startConsumer starts the proxy (KafkaSystemConsumer.java:181-183),
	// whose start() waits until the poll thread runs (KafkaConsumerProxy.java:136-149).
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Starting proxy %s", c, c.proxy()))
	c.log.Info(ThreadContainer, LoggerConsumerProxy, "Starting KafkaConsumerProxy polling thread for "+c.proxy())
	go c.pollLoop(ctx)
	<-c.running
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Consumer started", c))
	return nil
}

// PollThreadName is the name Samza gives the poll thread of this consumer,
// "Samza KafkaConsumerProxy Poll Thread-<n> - <system>" (KafkaConsumerProxy.java:89-92).
// The poll loop goroutine carries it as the pprof label "thread".
func (c *SystemConsumer) PollThreadName() string {
	return fmt.Sprintf("Samza KafkaConsumerProxy Poll %s - %s", c.thread, c.cfg.System)
}

// pollLoop moves messages from the reader into the buffer until the consumer stops.
// Its name is PollLoopFrame; leak tests and the lab look for it in goroutine stacks.
func (c *SystemConsumer) pollLoop(ctx context.Context) {
	defer close(c.loopDone)
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("thread", c.PollThreadName())))
	// The poll thread's first line, under its own name (KafkaConsumerProxy.java:200-202).
	c.log.Info(c.PollThreadName(), LoggerConsumerProxy, fmt.Sprintf("Starting consumer poll thread %s for system %s", c.PollThreadName(), c.cfg.System))
	close(c.running)
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.failure = err
			}
			return
		}
		if c.buffer.put(ctx, c.envelope(m)) != nil {
			return
		}
	}
}

// envelope turns a fetched record into the consumer's own envelope, as
// KafkaConsumerProxy.processResults builds an IncomingMessageEnvelope per record: key
// and value are copied into one allocation of the consumer's, so what a leaked
// consumer holds is charged to it in a heap profile, as the seed's heap dump charged
// 8 GB to KafkaSystemConsumer.
func (c *SystemConsumer) envelope(m kafka.Message) Envelope {
	b := make([]byte, len(m.Key)+len(m.Value))
	n := copy(b, m.Key)
	copy(b[n:], m.Value)
	return Envelope{Offset: m.Offset, Key: b[:n:n], Value: b[n:]}
}

// Poll returns the envelopes buffered so far, waiting up to timeout for the first
// one. It returns no envelopes and no error when the timeout passes. Like Samza's, it
// fails with an error wrapping ErrConsumerStopped once the poll loop is not running,
// even if envelopes are still buffered.
func (c *SystemConsumer) Poll(ctx context.Context, timeout time.Duration) ([]Envelope, error) {
	if !c.started.Load() || c.buffer == nil {
		return nil, fmt.Errorf("%s: poll: %w", c, ErrNotStarted)
	}
	if err := c.loopEnded(); err != nil {
		return nil, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		if out := c.buffer.takeAll(); len(out) > 0 {
			c.position = out[len(out)-1].Offset + 1
			return out, nil
		}
		select {
		case <-c.buffer.ready:
		case <-c.loopDone:
			return nil, c.loopEnded()
		case <-t.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// loopEnded returns why the poll loop is not running, or nil while it runs.
func (c *SystemConsumer) loopEnded() error {
	if c.stopped.Load() {
		return fmt.Errorf("%s: %w", c, ErrConsumerStopped)
	}
	select {
	case <-c.loopDone:
		return fmt.Errorf("%s: KafkaConsumerProxy has stopped: %w: %v", c, ErrConsumerStopped, c.failure)
	default:
		return nil
	}
}

// Buffered returns the number of envelopes the consumer holds for Poll.
func (c *SystemConsumer) Buffered() int {
	if c.buffer == nil {
		return 0
	}
	return c.buffer.len()
}

// Position is the offset of the next envelope Poll will return: the registered
// offset until the first Poll.
func (c *SystemConsumer) Position() int64 { return c.position }

// Running reports whether the consumer was started and not stopped.
func (c *SystemConsumer) Running() bool { return c.started.Load() && !c.stopped.Load() }

// Stop ends the poll loop and closes the reader. Stopping twice only logs a warning.
func (c *SystemConsumer) Stop() {
	if !c.stopped.CompareAndSwap(false, true) {
		c.log.Warn(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Attempting to stop stopped consumer.", c))
		return
	}
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Stopping Samza kafkaConsumer ", c))
	c.stats.stops.Add(1)
	// The proxy is made with the consumer, so it is stopped whether or not it
	// ever started (KafkaSystemConsumer.java:235-238, KafkaConsumerProxy.java:118-119).
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Stopping proxy %s", c, c.proxy()))
	c.log.Info(ThreadContainer, LoggerConsumerProxy, fmt.Sprintf("Shutting down KafkaConsumerProxy poll thread %s for %s", c.PollThreadName(), c.proxy()))
	c.log.Info(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Closing kafkaSystemConsumer kafka-go Reader{topic=%s, partition=%d}", c, c.ssp.Stream, c.ssp.Partition))
	c.shutdown()
}

// reap stops a consumer that was never stopped, without the Samza log lines or the
// stop counter: it models the process exiting, not the manager stopping.
func (c *SystemConsumer) reap() bool {
	if !c.stopped.CompareAndSwap(false, true) {
		return false
	}
	c.shutdown()
	return c.started.Load()
}

// shutdown releases the goroutines and connections of the consumer, once.
func (c *SystemConsumer) shutdown() {
	c.halt.Do(func() {
		defer c.factory.forget(c)
		if c.reader == nil {
			return
		}
		c.cancel()
		c.conns.closeAll() // wakes up a fetch waiting on the broker
		<-c.loopDone
		if err := c.reader.Close(); err != nil && !errors.Is(err, context.Canceled) {
			c.log.Warn(ThreadContainer, LoggerSystemConsumer, fmt.Sprintf("%s: Failed to stop KafkaSystemConsumer. %v", c, err))
		}
		c.stats.running.Add(-1)
	})
}
