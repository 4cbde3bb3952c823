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
	// Consumers makes the SystemConsumer of every Start.
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
	// TopicReads counts reads of the topic to its end (readCheckpoints calls).
	TopicReads int64
}

// CheckpointManager is the model of Samza's KafkaCheckpointManager. Start, the reads
// and writes, and Stop are called from one goroutine, as Samza's main thread does.
type CheckpointManager struct {
	cfg            ManagerConfig
	log            *Log
	ssp            SSP
	stopAfterFirst bool

	taskNames []string
	known     map[string]bool

	taskNamesToCheckpoints map[string]Checkpoint // nil until the first read
	consumer               *SystemConsumer
	systemConsumerStarted  bool // FixGuard only
	producer               *systemProducer
	admin                  *systemAdmin
	starts                 int

	read, written, messages, topicReads atomic.Int64
}

// NewCheckpointManager returns a manager for the checkpoint topic cfg.Topic.
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
	return &CheckpointManager{
		cfg:            cfg,
		log:            cfg.Log,
		ssp:            SSP{System: cfg.Consumers.cfg.System, Stream: cfg.Topic, Partition: 0},
		stopAfterFirst: cfg.Mode.StopConsumerAfterFirstRead(),
		known:          make(map[string]bool),
	}, nil
}

// Register adds a task whose checkpoints this manager reads and writes.
func (m *CheckpointManager) Register(taskName string) {
	if !m.known[taskName] {
		m.known[taskName] = true
		m.taskNames = append(m.taskNames, taskName)
	}
}

// Stats returns the manager's counters.
func (m *CheckpointManager) Stats() ManagerStats {
	return ManagerStats{
		CheckpointsRead:    m.read.Load(),
		CheckpointsWritten: m.written.Load(),
		MessagesRead:       m.messages.Load(),
		TopicReads:         m.topicReads.Load(),
	}
}

func (m *CheckpointManager) info(msg string) { m.log.Info(ThreadMain, LoggerCheckpointManager, msg) }

// Start starts the producer and the admin, then takes a fresh consumer from the
// factory, registers it at the oldest offset of the topic and starts it. FixGuard
// skips the consumer while one is started.
func (m *CheckpointManager) Start(ctx context.Context) error {
	m.starts++
	m.info("Starting the checkpoint SystemProducer")
	m.producer = newSystemProducer(m.cfg.Brokers, m.cfg.Topic, fmt.Sprintf("samza-producer-checkpoint-%d", m.starts), m.cfg.DialTimeout)
	m.info("Starting the checkpoint SystemAdmin")
	m.admin = newSystemAdmin(m.cfg.Brokers, m.cfg.Topic, fmt.Sprintf("samza-admin-checkpoint-%d", m.starts), m.cfg.DialTimeout)
	if m.cfg.Variant == FixGuard && m.systemConsumerStarted {
		return nil
	}
	oldest, _, err := m.admin.offsets(ctx)
	if err != nil {
		return err
	}
	m.info(fmt.Sprintf("Starting the checkpoint SystemConsumer from oldest offset %d", oldest))
	c := m.cfg.Consumers.New()
	m.consumer = c // the previous consumer, if still running, is now unreachable from here
	if err := c.Register(m.ssp, oldest); err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	m.systemConsumerStarted = true
	return nil
}

// ReadLastCheckpoint returns the last checkpoint of taskName, reading the topic the
// first time (and stopping the consumer after it in active mode) and merging a new
// read every time in standby mode. ok is false when the task has no checkpoint.
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
			m.info("Stopping system consumer")
			m.consumer.Stop()
			m.systemConsumerStarted = false
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

// readCheckpoints polls the current consumer until it reaches the offset that was
// upcoming when the read began, keeping the last checkpoint of every task.
func (m *CheckpointManager) readCheckpoints(ctx context.Context) (map[string]Checkpoint, error) {
	if m.consumer == nil || m.admin == nil {
		return nil, fmt.Errorf("read checkpoints: %w", ErrNotStarted)
	}
	_, upcoming, err := m.admin.offsets(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.ReadTimeout)
	defer cancel()
	m.topicReads.Add(1)
	checkpoints := make(map[string]Checkpoint)
	n := 0
	for m.consumer.Position() < upcoming {
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
			task, err := decodeTaskName(e.Key)
			if err != nil {
				return nil, fmt.Errorf("%s offset %d: %w", m.cfg.Topic, e.Offset, err)
			}
			cp, err := DecodeCheckpoint(e.Value)
			if err != nil {
				return nil, fmt.Errorf("%s offset %d: %w", m.cfg.Topic, e.Offset, err)
			}
			checkpoints[task] = cp
		}
	}
	m.info(fmt.Sprintf("Read %d messages from system:%s topic:%s", n, m.ssp.System, m.cfg.Topic))
	return checkpoints, nil
}

// WriteCheckpoint writes one checkpoint message, keyed by the task name, and waits
// for the broker to acknowledge it.
func (m *CheckpointManager) WriteCheckpoint(ctx context.Context, taskName string, cp Checkpoint) error {
	if !m.known[taskName] {
		return fmt.Errorf("task %q: %w", taskName, ErrTaskNotRegistered)
	}
	if m.producer == nil {
		return fmt.Errorf("write checkpoint: %w", ErrNotStarted)
	}
	if err := m.producer.send(ctx, []byte(taskName), cp.Encode()); err != nil {
		return err
	}
	m.written.Add(1)
	return nil
}

// Stop stops the admin and the producer and, depending on the variant and the mode,
// the consumer; FixReset also forgets the checkpoints read.
func (m *CheckpointManager) Stop() error {
	var err error
	m.info("Stopping system admin.")
	if m.admin != nil {
		m.admin.close()
		m.admin = nil
	}
	m.info("Stopping system producer.")
	if m.producer != nil {
		err = m.producer.close()
		m.producer = nil
	}
	switch m.cfg.Variant {
	case Leaky, FixReset:
		if !m.stopAfterFirst {
			m.stopConsumer()
		}
	case FixClose:
		if !m.stopAfterFirst || (m.consumer != nil && m.consumer.Running()) {
			m.stopConsumer()
		}
	case FixGuard:
		if m.systemConsumerStarted {
			m.stopConsumer()
			m.systemConsumerStarted = false
		}
	}
	if m.cfg.Variant == FixReset {
		m.taskNamesToCheckpoints = nil
	}
	m.info("CheckpointManager stopped.")
	return err
}

func (m *CheckpointManager) stopConsumer() {
	m.info("Stopping system consumer")
	if m.consumer != nil {
		m.consumer.Stop()
	}
}
