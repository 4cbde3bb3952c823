package checkpoint

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Progress is the state of a run after one cycle.
type Progress struct {
	// Cycle is the number of cycles done; Cycles the number asked for.
	Cycle, Cycles int
	// ConsumerStarts and ConsumerStops count SystemConsumer starts and stops.
	ConsumerStarts, ConsumerStops int64
	// OpenConsumers counts consumers started and not stopped: the leak.
	OpenConsumers int64
	// OpenConnections counts the TCP connections the consumers hold.
	OpenConnections int64
	// CheckpointsRead counts ReadLastCheckpoint results, CheckpointsWritten the
	// checkpoints written by the manager (the seed excluded).
	CheckpointsRead, CheckpointsWritten int64
	// MessagesRead counts checkpoint messages consumed from the topic.
	MessagesRead int64
	// StaleReads counts reads that did not return the task's last written checkpoint.
	StaleReads int64
	// Elapsed is the time since the first cycle began.
	Elapsed time.Duration
}

// Result is what a whole run did.
type Result struct {
	Progress
	// Variant, Mode and Tasks echo the configuration.
	Variant Variant
	Mode    Mode
	Tasks   int
	// Topic is the checkpoint topic; Brokers the cluster; Embedded is true when the
	// run started its own broker.
	Topic    string
	Brokers  []string
	Embedded bool
	// CheckpointsSeeded counts the checkpoints written before the first cycle.
	CheckpointsSeeded int64
	// TopicReads counts reads of the topic to its end.
	TopicReads int64
	// MissingReads counts reads that found no checkpoint at all for a seeded task.
	MissingReads int64
	// PollLoopGoroutines and ReaderGoroutines count the goroutines whose stacks hold
	// PollLoopFrame and ReaderFrame after the last cycle: one each per open consumer.
	PollLoopGoroutines, ReaderGoroutines int
}

// Workload runs the reproduction once and owns what the run leaves behind: the
// consumers it leaked, the embedded broker and the topic. Close releases them.
type Workload struct {
	cfg       Config
	log       *Log
	consumers *ConsumerFactory

	mu      sync.Mutex
	ran     bool
	closed  bool
	broker  *Broker
	brokers []string
	topic   string
	created bool
}

// New checks cfg and returns a workload ready to Run. It does no I/O.
func New(cfg Config) (*Workload, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Workload{cfg: cfg, log: NewLog(cfg.Log), topic: TopicName(cfg.Job, cfg.JobID)}, nil
}

// Topic returns the checkpoint topic of the run.
func (w *Workload) Topic() string { return w.topic }

// Run starts the embedded broker when no brokers are configured, checks the brokers,
// creates the checkpoint topic, seeds one checkpoint per task, then runs the cycles on
// one CheckpointManager. Consumers the variant leaks stay alive after Run returns,
// as they would in the leaking process, until Close.
func (w *Workload) Run(ctx context.Context) (Result, error) {
	w.mu.Lock()
	if w.ran || w.closed {
		w.mu.Unlock()
		return Result{}, ErrAlreadyRun
	}
	w.ran = true
	w.mu.Unlock()

	res := Result{Variant: w.cfg.Variant, Mode: w.cfg.Mode, Tasks: w.cfg.Tasks, Topic: w.topic}
	res.Cycles = w.cfg.Cycles
	brokers, err := w.connect(ctx)
	if err != nil {
		return res, err
	}
	res.Brokers, res.Embedded = brokers, w.broker != nil
	w.consumers = NewConsumerFactory(ConsumerConfig{
		Brokers: brokers, FetchThreshold: w.cfg.FetchThreshold, DialTimeout: w.cfg.DialTimeout,
	}, w.log)
	if err := w.createTopic(ctx); err != nil {
		return res, err
	}
	tasks := make([]string, w.cfg.Tasks)
	last := make(map[string]Checkpoint, w.cfg.Tasks)
	for i := range tasks {
		tasks[i] = TaskName(i)
		last[tasks[i]] = w.checkpointFor(0, i)
	}
	if err := w.seed(ctx, tasks, last); err != nil {
		return res, err
	}
	res.CheckpointsSeeded = int64(len(tasks))

	m, err := NewCheckpointManager(ManagerConfig{
		Topic: w.topic, Brokers: brokers, Variant: w.cfg.Variant, Mode: w.cfg.Mode,
		Consumers: w.consumers, Log: w.log, DialTimeout: w.cfg.DialTimeout, ReadTimeout: w.cfg.ReadTimeout,
	})
	if err != nil {
		return res, err
	}
	for _, t := range tasks {
		m.Register(t)
	}
	began := time.Now()
	for k := 1; k <= w.cfg.Cycles; k++ {
		if err := ctx.Err(); err != nil {
			return w.finish(res, m, began), fmt.Errorf("interrupted after %d of %d cycles: %w", k-1, w.cfg.Cycles, err)
		}
		if err := w.cycle(ctx, m, k, tasks, last, &res); err != nil {
			m.Stop()
			if ctx.Err() != nil {
				err = ctx.Err() // the signal, not the call it interrupted
				return w.finish(res, m, began), fmt.Errorf("interrupted after %d of %d cycles: %w", k-1, w.cfg.Cycles, err)
			}
			return w.finish(res, m, began), fmt.Errorf("cycle %d: %w", k, err)
		}
		res.Cycle = k
		if w.cfg.Progress != nil {
			w.cfg.Progress(w.finish(res, m, began).Progress)
		}
	}
	res = w.finish(res, m, began)
	res.PollLoopGoroutines, res.ReaderGoroutines = w.settledGoroutines(res.OpenConsumers)
	res.OpenConnections = w.consumers.Stats().Connections // the last readers have dialled by now
	if err := w.log.Err(); err != nil {
		return res, fmt.Errorf("log: %w", err)
	}
	return res, nil
}

// cycle is one standalone rebalance: Start, read every task, write every task, Stop.
func (w *Workload) cycle(ctx context.Context, m *CheckpointManager, k int, tasks []string, last map[string]Checkpoint, res *Result) error {
	if err := m.Start(ctx); err != nil {
		return err
	}
	for _, t := range tasks {
		cp, ok, err := m.ReadLastCheckpoint(ctx, t)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			res.MissingReads++
			res.StaleReads++
		case !cp.Equal(last[t]):
			res.StaleReads++
		}
	}
	for i, t := range tasks {
		cp := w.checkpointFor(k, i)
		if err := m.WriteCheckpoint(ctx, t, cp); err != nil {
			return err
		}
		last[t] = cp
	}
	return m.Stop()
}

// finish copies the counters of the factory and the manager into res.
func (w *Workload) finish(res Result, m *CheckpointManager, began time.Time) Result {
	cs, ms := w.consumers.Stats(), m.Stats()
	res.ConsumerStarts, res.ConsumerStops, res.OpenConsumers, res.OpenConnections = cs.Starts, cs.Stops, cs.Open, cs.Connections
	res.CheckpointsRead, res.CheckpointsWritten, res.MessagesRead = ms.CheckpointsRead, ms.CheckpointsWritten, ms.MessagesRead
	res.TopicReads = ms.TopicReads
	res.Elapsed = time.Since(began)
	return res
}

// settledGoroutines counts poll loops and kafka-go reader loops, waiting up to a
// second for the counts to equal the open consumers: the readers of the last
// consumers to start and dial, and the goroutines of stopped ones to return (a poll
// loop closes loopDone in a deferred call, so Stop can return a moment before its
// goroutine is gone).
func (w *Workload) settledGoroutines(open int64) (polls, readers int) {
	deadline := time.Now().Add(time.Second)
	for {
		counts := countFrames(PollLoopFrame, ReaderFrame)
		polls, readers = counts[0], counts[1]
		settled := int64(polls) == open && int64(readers) == open && w.consumers.Stats().Connections == open
		if settled || time.Now().After(deadline) {
			return polls, readers
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkpointFor is the checkpoint task i writes in cycle k (k = 0 is the seed):
// its own input partition at offset 1000k + i.
func (w *Workload) checkpointFor(k, i int) Checkpoint {
	return Checkpoint{Offsets: map[SSP]string{
		{System: "kafka", Stream: w.cfg.Job + "-input", Partition: int32(i)}: strconv.Itoa(1000*k + i),
	}}
}

// connect returns the brokers to use, starting the embedded one when none is
// configured, and checks that one answers.
func (w *Workload) connect(ctx context.Context) ([]string, error) {
	brokers := w.cfg.Brokers
	if len(brokers) == 0 {
		b, err := StartBroker()
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.broker = b
		w.mu.Unlock()
		brokers = b.Addrs()
	}
	if err := CheckBrokers(ctx, brokers, w.cfg.DialTimeout); err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.brokers = brokers
	w.mu.Unlock()
	return brokers, nil
}

// createTopic creates the checkpoint topic with up to three replicas.
func (w *Workload) createTopic(ctx context.Context) error {
	a := newSystemAdmin(w.brokers, w.topic, "samza-admin-checkpoint-create", w.cfg.DialTimeout)
	defer a.close()
	n, err := a.brokerCount(ctx)
	if err != nil {
		return err
	}
	if err := a.createTopic(ctx, max(1, min(3, n))); err != nil {
		return err
	}
	w.mu.Lock()
	w.created = true
	w.mu.Unlock()
	return nil
}

// seed writes the first checkpoint of every task, as an earlier deployment would have.
func (w *Workload) seed(ctx context.Context, tasks []string, last map[string]Checkpoint) error {
	p := newSystemProducer(w.brokers, w.topic, "samza-producer-checkpoint-seed", w.cfg.DialTimeout)
	var err error
	for _, t := range tasks {
		if err = p.send(ctx, []byte(t), last[t].Encode()); err != nil {
			break
		}
	}
	if cerr := p.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seed checkpoints: %w", err)
	}
	return nil
}

// Close stops the consumers the run left running (without counting them as stops),
// deletes the checkpoint topic it created and stops the embedded broker. It returns
// the number of consumers it stopped.
func (w *Workload) Close() (reaped int, err error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return 0, nil
	}
	w.closed = true
	broker, created, brokers := w.broker, w.created, w.brokers
	w.mu.Unlock()
	if w.consumers != nil {
		reaped = w.consumers.Reap()
	}
	if created && broker == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*w.cfg.DialTimeout)
		a := newSystemAdmin(brokers, w.topic, "samza-admin-checkpoint-delete", w.cfg.DialTimeout)
		err = a.deleteTopic(ctx)
		a.close()
		cancel()
	}
	if broker != nil {
		broker.Close()
	}
	return reaped, err
}
