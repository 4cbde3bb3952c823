package checkpoint

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// ManagerConfig configures a CheckpointManager.
type ManagerConfig struct {
	// Topic is the checkpoint topic (see TopicName).
	Topic string
	// Brokers are the bootstrap brokers, host:port.
	Brokers []string
	// Variant selects the lifecycle logic (default Leaky).
	Variant Variant
	// Mode sets stopConsumerAfterFirstRead (default Active).
	Mode Mode
	// Consumers makes the manager's one SystemConsumer.
	Consumers *ConsumerFactory
	// Log receives Samza's log lines; nil discards them.
	Log *Log
	// DialTimeout bounds each connect of the producer and admin.
	DialTimeout time.Duration
	// PollTimeout is the wait of one Poll while reading checkpoints (Samza: 1s).
	PollTimeout time.Duration
	// ReadTimeout bounds one read of the topic to its end.
	ReadTimeout time.Duration
}

// ManagerStats are the counters of one CheckpointManager.
type ManagerStats struct {
	// CheckpointsRead counts ReadLastCheckpoint calls that returned.
	CheckpointsRead int64
	// CheckpointsWritten counts WriteCheckpoint calls that were acknowledged.
	CheckpointsWritten int64
	// MessagesRead counts checkpoint messages consumed from the topic.
	MessagesRead int64
	// TopicReads counts reads of the topic to its end (readCheckpoints calls that
	// returned).
	TopicReads int64
	// ConsumerStops counts the manager's "Stopping system consumer" lines.
	ConsumerStops int64
}

// CheckpointManager is the model of Samza's KafkaCheckpointManager
// (samza-kafka/src/main/scala/org/apache/samza/checkpoint/kafka/KafkaCheckpointManager.scala).
// Like upstream's it makes its one consumer, its admin and its producer when it is
// made (lines 70-76), and every start() registers and starts that same consumer.
// Start, the reads and writes, and Stop are called from one goroutine, as Samza's
// container thread does.
type CheckpointManager struct {
	cfg            ManagerConfig
	log            *Log
	ssp            SSP
	stopAfterFirst bool

	taskNames []string
	known     map[string]bool

	taskNamesToCheckpoints map[string]Checkpoint // nil until the first read
	consumer               *SystemConsumer
	systemConsumerStarted  bool // PR1674 and GuardStart only
	producer               *systemProducer
	admin                  *systemAdmin

	read, written, messages, topicReads, consumerStops atomic.Int64

	// interrupted is the container thread's interrupt status (see Interrupt).
	interrupted atomic.Bool
}

// NewCheckpointManager returns a manager for the checkpoint topic cfg.Topic with its
// own consumer, taken from cfg.Consumers.
func NewCheckpointManager(cfg ManagerConfig) (*CheckpointManager, error) {
	if cfg.Variant == "" {
		cfg.Variant = Leaky
	}
	if cfg.Mode == "" {
		cfg.Mode = Active
	}
	if _, err := ParseVariant(string(cfg.Variant)); err != nil {
		return nil, err
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if cfg.Consumers == nil || cfg.Topic == "" || len(cfg.Brokers) == 0 {
		return nil, fmt.Errorf("%w: a manager needs a topic, brokers and a consumer factory", ErrInvalidConfig)
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	m := &CheckpointManager{
		cfg:            cfg,
		log:            cfg.Log,
		ssp:            SSP{System: cfg.Consumers.cfg.System, Stream: cfg.Topic, Partition: 0},
		stopAfterFirst: cfg.Mode.StopConsumerAfterFirstRead(),
		known:          make(map[string]bool),
	}
	m.info(fmt.Sprintf("Creating KafkaCheckpointManager for checkpointTopic:%s, systemName:%s validateCheckpoints:true", cfg.Topic, m.ssp.System))
	m.consumer = cfg.Consumers.New()
	// The admin's and the producer's client ids are the job's too
	// (KafkaSystemFactory.scala:62, :85).
	job, jobID := cfg.Consumers.cfg.Job, cfg.Consumers.cfg.JobID
	m.admin = newSystemAdmin(cfg.Brokers, cfg.Topic, ClientID(ClientIDAdmin, job, jobID), cfg.DialTimeout)
	m.producer = newSystemProducer(cfg.Brokers, cfg.Topic, ClientID(ClientIDProducer, job, jobID), cfg.DialTimeout)
	return m, nil
}

// Register adds a task whose checkpoints this manager reads and writes.
func (m *CheckpointManager) Register(taskName string) {
	if !m.known[taskName] {
		m.known[taskName] = true
		m.taskNames = append(m.taskNames, taskName)
	}
}

// Consumer returns the manager's one SystemConsumer.
func (m *CheckpointManager) Consumer() *SystemConsumer { return m.consumer }

// Stats returns the manager's counters.
func (m *CheckpointManager) Stats() ManagerStats {
	return ManagerStats{
		CheckpointsRead:    m.read.Load(),
		CheckpointsWritten: m.written.Load(),
		MessagesRead:       m.messages.Load(),
		TopicReads:         m.topicReads.Load(),
		ConsumerStops:      m.consumerStops.Load(),
	}
}

func (m *CheckpointManager) info(msg string) {
	m.log.Info(ThreadContainer, LoggerCheckpointManager, msg)
}

// Start starts the producer and the admin, then registers the consumer at the oldest
// offset of the topic and starts it (KafkaCheckpointManager.scala:113-124). On a
// manager started before, the registration is refused (ErrRegistrationRefused), as
// upstream's consumer refuses it; GuardStart skips the consumer once it started it.
func (m *CheckpointManager) Start(ctx context.Context) error {
	m.info("Starting the checkpoint SystemProducer")
	m.producer.start()
	m.info("Starting the checkpoint SystemAdmin")
	m.admin.start()
	oldest, _, err := m.admin.offsets(ctx)
	if err != nil {
		return err
	}
	m.info(fmt.Sprintf("Starting the checkpoint SystemConsumer from oldest offset %d", oldest))
	if m.cfg.Variant == GuardStart && m.systemConsumerStarted {
		return nil
	}
	if err := m.consumer.Register(m.ssp, oldest); err != nil {
		return err
	}
	if err := m.consumer.Start(); err != nil {
		return err
	}
	if m.cfg.Variant == PR1674 || m.cfg.Variant == GuardStart {
		m.systemConsumerStarted = true
	}
	return nil
}

// ReadLastCheckpoint returns the last checkpoint of taskName, reading the topic the
// first time (and stopping the consumer after it in active mode) and merging a new
// read every time in standby mode (KafkaCheckpointManager.scala:138-160). ok is
// false when the task has no checkpoint.
func (m *CheckpointManager) ReadLastCheckpoint(ctx context.Context, taskName string) (cp Checkpoint, ok bool, err error) {
	if !m.known[taskName] {
		return Checkpoint{}, false, fmt.Errorf("task %q: %w", taskName, ErrTaskNotRegistered)
	}
	m.info("Reading checkpoint for taskName " + taskName)
	if m.taskNamesToCheckpoints == nil {
		m.info("Reading checkpoints for the first time")
		cps, err := m.readCheckpoints(ctx)
		if err != nil {
			return Checkpoint{}, false, err
		}
		m.taskNamesToCheckpoints = cps
		if m.stopAfterFirst {
			m.stopConsumer()
			if m.cfg.Variant == PR1674 {
				m.systemConsumerStarted = false
			}
		}
	} else if !m.stopAfterFirst {
		cps, err := m.readCheckpoints(ctx)
		if err != nil {
			return Checkpoint{}, false, err
		}
		for task, c := range cps {
			m.taskNamesToCheckpoints[task] = c
		}
	}
	cp, ok = m.taskNamesToCheckpoints[taskName]
	state := "null"
	if ok {
		state = cp.String()
	}
	m.info(fmt.Sprintf("Got checkpoint state for taskName - %s: %s", taskName, state))
	m.read.Add(1)
	return cp, ok, nil
}

// readCheckpoints polls the consumer until it reaches the offset that was upcoming
// when the read began, keeping the last checkpoint of every task
// (KafkaCheckpointManager.scala:246-323).
func (m *CheckpointManager) readCheckpoints(ctx context.Context) (map[string]Checkpoint, error) {
	if !m.consumer.Running() {
		return nil, fmt.Errorf("read checkpoints: %w", ErrNotStarted)
	}
	_, upcoming, err := m.admin.offsets(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.ReadTimeout)
	defer cancel()
	checkpoints := make(map[string]Checkpoint)
	n := 0
	for m.consumer.Position() < upcoming {
		// SystemStreamPartitionIterator.refresh polls the consumer and turns the
		// InterruptedException of an interrupted container thread into a
		// SamzaException (SystemStreamPartitionIterator.java:84-96).
		if m.interrupted.Load() {
			return nil, fmt.Errorf("read checkpoints from %s at offset %d of %d: %w", m.cfg.Topic, m.consumer.Position(), upcoming, errInterruptedRead)
		}
		envelopes, err := m.consumer.Poll(ctx, m.cfg.PollTimeout)
		if err != nil {
			return nil, fmt.Errorf("read checkpoints from %s at offset %d of %d: %w", m.cfg.Topic, m.consumer.Position(), upcoming, err)
		}
		for _, e := range envelopes {
			n++
			m.messages.Add(1)
			if n%1000 == 0 {
				m.info(fmt.Sprintf("Read %d from topic: %s. Current offset: %d", n, m.cfg.Topic, e.Offset))
			}
			key, err := DecodeKey(e.Key)
			if err != nil {
				return nil, fmt.Errorf("%s offset %d: %w", m.cfg.Topic, e.Offset, err)
			}
			if key.Type != KeyTypeCheckpointV1 {
				m.log.Warn(ThreadContainer, LoggerCheckpointManager, fmt.Sprintf("Ignoring unknown checkpoint key type for checkpoint key: %s", key))
				continue
			}
			cp, err := DecodeCheckpoint(e.Value)
			if err != nil {
				return nil, fmt.Errorf("%s offset %d: %w", m.cfg.Topic, e.Offset, err)
			}
			checkpoints[key.TaskName] = cp
		}
	}
	m.topicReads.Add(1)
	m.info(fmt.Sprintf("Read %d messages from system:%s topic:%s", n, m.ssp.System, m.cfg.Topic))
	return checkpoints, nil
}

// Interrupt interrupts the container thread that uses the manager, as
// StreamProcessor does to a container that has not reported its start when a new
// job model arrives (StreamProcessor.java:494, interruptContainerAndShutdownExecutorService).
// The only call of the manager that blocks on it is the first read's poll:
// KafkaCheckpointManager.start() cannot be interrupted (KafkaConsumerProxy.start
// ignores the interrupt while it waits for its poll thread, KafkaConsumerProxy.java:143-147),
// while readCheckpoints' poll fails with the InterruptedException wrapped in a
// SamzaException. The model takes the interrupt at the first poll, before any
// envelope the consumer buffered meanwhile: upstream's BlockingEnvelopeMap.poll
// drains a non-empty queue without looking at the interrupt
// (BlockingEnvelopeMap.java:136-137), so a consumer that had fetched the whole
// topic before the interrupt would let its container finish the read. Leaving that
// race out makes the storm's read fraction, an input, decide alone which
// containers read.
func (m *CheckpointManager) Interrupt() { m.interrupted.Store(true) }

// WriteCheckpoint writes one checkpoint message, keyed as KafkaCheckpointLogKeySerde
// keys it, and waits for the broker to acknowledge it.
func (m *CheckpointManager) WriteCheckpoint(ctx context.Context, taskName string, cp Checkpoint) error {
	if !m.known[taskName] {
		return fmt.Errorf("task %q: %w", taskName, ErrTaskNotRegistered)
	}
	if err := m.producer.send(ctx, CheckpointKey(taskName).Encode(), cp.Encode()); err != nil {
		return err
	}
	m.written.Add(1)
	return nil
}

// Stop stops the admin and the producer and, depending on the variant and the mode,
// the consumer (KafkaCheckpointManager.scala:220-233); Reset also forgets the
// checkpoints read.
func (m *CheckpointManager) Stop() error {
	m.info("Stopping system admin.")
	m.admin.close()
	m.info("Stopping system producer.")
	err := m.producer.close()
	switch m.cfg.Variant {
	case PR1674:
		if m.systemConsumerStarted {
			m.stopConsumer()
			m.systemConsumerStarted = false
		}
	default:
		if !m.stopAfterFirst {
			m.stopConsumer()
		}
	}
	if m.cfg.Variant == Reset {
		m.taskNamesToCheckpoints = nil
	}
	m.info("CheckpointManager stopped.")
	return err
}

func (m *CheckpointManager) stopConsumer() {
	m.info("Stopping system consumer")
	m.consumerStops.Add(1)
	m.consumer.Stop()
}
