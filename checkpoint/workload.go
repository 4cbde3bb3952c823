package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Progress is the state of a run after one rebalance.
type Progress struct {
	// Cycle is the number of rebalances done; Cycles the number asked for.
	Cycle, Cycles int
	// Containers counts the containers built, each with its own CheckpointManager
	// and consumer (one in the reuse scenario).
	Containers int64
	// FirstReads counts the containers whose first readLastCheckpoint returned: they
	// read their checkpoints.
	FirstReads int64
	// Interrupts counts the containers a rebalance interrupted in their first read
	// (the storm's: see CheckpointManager.Interrupt).
	Interrupts int64
	// FailedContainers counts containers whose initialization failed: interrupted in
	// readCheckpoints, or failed in Samza's own logic (a refused registration, a read
	// from a stopped consumer). Each logs "Caught exception/error while initializing
	// container." and stops its StreamProcessor.
	FailedContainers int64
	// ProcessorRestarts counts the StreamProcessors the application started again
	// after a failed container had stopped them.
	ProcessorRestarts int64
	// ConsumerStarts and ConsumerStops count SystemConsumer starts and stops.
	ConsumerStarts, ConsumerStops int64
	// OpenConsumers counts consumers started and not stopped: the leak.
	OpenConsumers int64
	// OpenConnections counts the TCP connections the consumers hold.
	OpenConnections int64
	// RefusedRegistrations counts registrations the consumer refused because it had
	// started; SecondStarts the starts it ignored for the same reason.
	RefusedRegistrations, SecondStarts int64
	// ManagerConsumerStops counts the managers' "Stopping system consumer" lines.
	ManagerConsumerStops int64
	// CheckpointsRead counts ReadLastCheckpoint results, CheckpointsWritten the
	// checkpoints written by the managers (the seed excluded).
	CheckpointsRead, CheckpointsWritten int64
	// MessagesRead counts checkpoint messages consumed from the topic.
	MessagesRead int64
	// Elapsed is the time since the first rebalance began.
	Elapsed time.Duration
}

// Result is what a whole run did.
type Result struct {
	Progress
	// Variant, Mode, Scenario, ReadFraction and Tasks echo the configuration.
	Variant      Variant
	Mode         Mode
	Scenario     Scenario
	ReadFraction float64
	Tasks        int
	// Topic is the checkpoint topic; Brokers the cluster; Embedded is true when the
	// run started its own broker, BrokerPID its process when it runs in another one.
	Topic     string
	Brokers   []string
	Embedded  bool
	BrokerPID int
	// CheckpointsSeeded counts the checkpoints written before the first rebalance.
	CheckpointsSeeded int64
	// TopicReads counts reads of the topic to its end.
	TopicReads int64
	// MissingReads counts reads that found no checkpoint at all for a seeded task.
	MissingReads int64
	// PollLoopGoroutines and ReaderGoroutines count the goroutines whose stacks hold
	// PollLoopFrame and ReaderFrame after the last rebalance: one each per open
	// consumer.
	PollLoopGoroutines, ReaderGoroutines int
}

// Workload runs the reproduction once and owns what the run leaves behind: the
// consumers it leaked, the broker it started and the topic. Close releases them.
type Workload struct {
	cfg       Config
	log       *Log
	consumers *ConsumerFactory

	mu      sync.Mutex
	ran     bool
	closed  bool
	broker  *Broker
	process *BrokerProcess
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

// Run starts a broker when none is configured, checks the brokers, creates the
// checkpoint topic, seeds one checkpoint per task, then runs the rebalances of the
// scenario. Consumers the variant leaks stay alive after Run returns, as they would
// in the leaking process, until Close.
func (w *Workload) Run(ctx context.Context) (Result, error) {
	w.mu.Lock()
	if w.ran || w.closed {
		w.mu.Unlock()
		return Result{}, ErrAlreadyRun
	}
	w.ran = true
	w.mu.Unlock()

	res := Result{Variant: w.cfg.Variant, Mode: w.cfg.Mode, Scenario: w.cfg.Scenario, ReadFraction: w.cfg.ReadFraction,
		Tasks: w.cfg.Tasks, Topic: w.topic}
	res.Cycles = w.cfg.Cycles
	brokers, err := w.connect(ctx)
	if err != nil {
		return res, err
	}
	res.Brokers, res.Embedded = brokers, w.broker != nil || w.process != nil
	if w.process != nil {
		res.BrokerPID = w.process.PID()
	}
	w.consumers = NewConsumerFactory(ConsumerConfig{
		Job: w.cfg.Job, JobID: w.cfg.JobID, Brokers: brokers, FetchThreshold: w.cfg.FetchThreshold, DialTimeout: w.cfg.DialTimeout,
	}, w.log)
	if err := w.createTopic(ctx); err != nil {
		return res, err
	}
	tasks := make([]string, w.cfg.Tasks)
	for i := range tasks {
		tasks[i] = TaskName(i)
	}
	if err := w.seed(ctx, tasks); err != nil {
		return res, err
	}
	res.CheckpointsSeeded = int64(len(tasks) * w.cfg.History)

	r := &rebalances{w: w, tasks: tasks, res: &res, processor: processorID(0)}
	began := time.Now()
	for k := 1; k <= w.cfg.Cycles; k++ {
		if err := ctx.Err(); err != nil {
			return w.finish(res, r, began), fmt.Errorf("interrupted after %d of %d rebalances: %w", k-1, w.cfg.Cycles, err)
		}
		if err := r.rebalance(ctx, k); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err() // the signal, not the call it interrupted
				return w.finish(res, r, began), fmt.Errorf("interrupted after %d of %d rebalances: %w", k-1, w.cfg.Cycles, err)
			}
			return w.finish(res, r, began), fmt.Errorf("rebalance %d: %w", k, err)
		}
		res.Cycle = k
		if w.cfg.Progress != nil {
			w.cfg.Progress(w.finish(res, r, began).Progress)
		}
	}
	res = w.finish(res, r, began)
	res.PollLoopGoroutines, res.ReaderGoroutines = w.settledGoroutines(res.OpenConsumers)
	res.OpenConnections = w.consumers.Stats().Connections // the last readers have dialled by now
	if err := w.log.Err(); err != nil {
		return res, fmt.Errorf("log: %w", err)
	}
	return res, nil
}

// rebalances is the state of the run's rebalances: the managers' counters so far
// and, in the reuse scenario, the one manager.
type rebalances struct {
	w      *Workload
	tasks  []string
	res    *Result
	reused *CheckpointManager
	done   ManagerStats // the counters of the managers already stopped for good
	// processor is the id of the StreamProcessor running the containers.
	processor string
}

// rebalance is one new job model: the container it builds (or, in the reuse
// scenario, the one manager) starts the checkpoint manager, reads and writes the
// tasks' checkpoints, and stops it, as SamzaContainer.run does
// (SamzaContainer.scala:750-870). In a storm the next job model arrives before
// most containers have started: StreamProcessor interrupts them, and the interrupt
// lands in the one call that blocks, readCheckpoints' poll. The container then
// fails (SamzaContainer.scala:814-822), its StreamProcessor stops
// (StreamProcessor.java:606-614), and the application starts it again.
func (r *rebalances) rebalance(ctx context.Context, k int) error {
	w := r.w
	m := r.reused
	if m == nil {
		var err error
		m, err = NewCheckpointManager(ManagerConfig{
			Topic: w.topic, Brokers: w.brokers, Variant: w.cfg.Variant, Mode: w.cfg.Mode,
			Consumers: w.consumers, Log: w.log, DialTimeout: w.cfg.DialTimeout, ReadTimeout: w.cfg.ReadTimeout,
		})
		if err != nil {
			return err
		}
		for _, t := range r.tasks {
			m.Register(t)
		}
		r.res.Containers++
		if w.cfg.Scenario == Reuse {
			r.reused = m
		}
	}
	defer func() {
		if r.reused == nil {
			r.done = addStats(r.done, m.Stats())
		}
	}()
	container := w.containerName(r.res.Containers)
	w.processorLog(LevelInfo, fmt.Sprintf("Starting the container: %s for the stream processor: %s.", container, r.processor))
	w.containerLog(LevelInfo, "Starting container.")
	err := m.Start(ctx)
	if err == nil {
		if !reachesRead(w.cfg.Scenario, w.cfg.ReadFraction, k) {
			m.Interrupt()
			r.res.Interrupts++
		}
		err = r.readAndWrite(ctx, m, k)
	}
	if err != nil && !containerFailure(err) {
		m.Stop()
		return err
	}
	if err == nil {
		w.containerLog(LevelInfo, "Shutting down SamzaContainer.")
		stopErr := m.Stop()
		w.containerLog(LevelInfo, "Shutdown complete.")
		w.processorLog(LevelInfo, fmt.Sprintf("Container: %s of the stream processor: %s was stopped by the JobCoordinator.", container, r.processor))
		return stopErr
	}
	r.res.FailedContainers++
	w.log.Throwable(ThreadContainer, LoggerSamzaContainer, LevelError, "Caught exception/error while initializing container.", javaThrowable(err))
	w.containerLog(LevelInfo, "Shutting down SamzaContainer.")
	stopErr := m.Stop()
	w.containerLog(LevelInfo, "Shutdown complete.")
	w.log.Throwable(ThreadContainer, LoggerStreamProcessor, LevelError,
		fmt.Sprintf("Container: %s failed with an exception. Stopping the stream processor: %s. Original exception:", container, r.processor), javaThrowable(err))
	r.restart()
	return stopErr
}

// restart is the application starting its stopped StreamProcessor again, with a
// new processor id. (LocalApplicationRunner does not; a supervisor or the
// application's own retry does. The line is the model's.)
func (r *rebalances) restart() {
	old := r.processor
	r.res.ProcessorRestarts++
	r.processor = processorID(r.res.ProcessorRestarts)
	r.w.log.Info(ThreadContainer, LoggerModel, fmt.Sprintf("The stream processor %s stopped after its container failed; the application starts it again as %s (restart %d).",
		old, r.processor, r.res.ProcessorRestarts))
}

// processorID is the id of the n-th StreamProcessor started (n from 0), shaped
// like the UUIDs of Samza's default ProcessorIdGenerator.
func processorID(n int64) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

// containerName is the n-th container as Java prints an object without toString.
func (w *Workload) containerName(n int64) string {
	return fmt.Sprintf("org.apache.samza.container.SamzaContainer@%x", 0x1f000000+n)
}

// containerFailure reports an error that fails the container
// (SamzaContainer.scala:814-822) but not the run: an interrupted read, a refused
// registration, or a read from a consumer that is not running.
func containerFailure(err error) bool {
	return errors.Is(err, ErrInterrupted) || errors.Is(err, ErrRegistrationRefused) || errors.Is(err, ErrNotStarted) || errors.Is(err, ErrConsumerStopped)
}

// javaThrowable is the first line log4j prints under a message with a throwable:
// the exception's class and message.
func javaThrowable(err error) string {
	var se samzaException
	if errors.As(err, &se) {
		return se.Error()
	}
	msg := err.Error()
	if errors.Is(err, ErrRegistrationRefused) {
		// KafkaSystemConsumer.register throws a SamzaException with upstream's
		// message (KafkaSystemConsumer.java:258-261), which follows the sentinel.
		_, msg, _ = strings.Cut(msg, ErrRegistrationRefused.Error()+": ")
	}
	return "org.apache.samza.SamzaException: " + msg
}

// readAndWrite reads the last checkpoint of every task, then writes the next one.
func (r *rebalances) readAndWrite(ctx context.Context, m *CheckpointManager, k int) error {
	for i, t := range r.tasks {
		_, ok, err := m.ReadLastCheckpoint(ctx, t)
		if err != nil {
			return err
		}
		if i == 0 {
			r.res.FirstReads++
		}
		if !ok {
			r.res.MissingReads++
		}
	}
	for i, t := range r.tasks {
		if err := m.WriteCheckpoint(ctx, t, r.w.checkpointFor(k, i)); err != nil {
			return err
		}
	}
	return nil
}

// stats returns the counters of every manager of the run.
func (r *rebalances) stats() ManagerStats {
	if r.reused != nil {
		return addStats(r.done, r.reused.Stats())
	}
	return r.done
}

func addStats(a, b ManagerStats) ManagerStats {
	return ManagerStats{
		CheckpointsRead:    a.CheckpointsRead + b.CheckpointsRead,
		CheckpointsWritten: a.CheckpointsWritten + b.CheckpointsWritten,
		MessagesRead:       a.MessagesRead + b.MessagesRead,
		TopicReads:         a.TopicReads + b.TopicReads,
		ConsumerStops:      a.ConsumerStops + b.ConsumerStops,
	}
}

// containerLog writes a line of the container (SamzaContainer's logger).
func (w *Workload) containerLog(level, msg string) {
	w.log.Line(ThreadContainer, LoggerSamzaContainer, level, msg)
}

// processorLog writes a line of the StreamProcessor.
func (w *Workload) processorLog(level, msg string) {
	w.log.Line(ThreadContainer, LoggerStreamProcessor, level, msg)
}

// finish copies the counters of the factory and the managers into res.
func (w *Workload) finish(res Result, r *rebalances, began time.Time) Result {
	cs, ms := w.consumers.Stats(), r.stats()
	res.ConsumerStarts, res.ConsumerStops, res.OpenConsumers, res.OpenConnections = cs.Starts, cs.Stops, cs.Open, cs.Connections
	res.RefusedRegistrations, res.SecondStarts = cs.Refused, cs.SecondStarts
	res.CheckpointsRead, res.CheckpointsWritten, res.MessagesRead = ms.CheckpointsRead, ms.CheckpointsWritten, ms.MessagesRead
	res.TopicReads, res.ManagerConsumerStops = ms.TopicReads, ms.ConsumerStops
	res.Elapsed = time.Since(began)
	return res
}

// settledGoroutines counts poll loops and kafka-go reader loops, waiting up to a
// second for the counts to equal the open consumers: the readers of the last
// consumers to start and dial, and the goroutines of stopped ones to return (a poll
// loop closes loopDone in a deferred call, so Stop can return a moment before its
// goroutine is gone).
func (w *Workload) settledGoroutines(open int64) (polls, readers int) {
	deadline := time.Now().Add(5 * time.Second)
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
	switch {
	case len(brokers) > 0:
	case len(w.cfg.BrokerCommand) > 0:
		p, err := StartBrokerProcess(ctx, w.cfg.BrokerCommand, w.cfg.BrokerEnv)
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.process = p
		w.mu.Unlock()
		brokers = p.Addrs()
	default:
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

// seed writes the checkpoints an earlier deployment left on the topic: History
// commits of every task, each of the same offsets (a job that committed every
// interval without moving on).
func (w *Workload) seed(ctx context.Context, tasks []string) error {
	p := newSystemProducer(w.brokers, w.topic, "samza-producer-checkpoint-seed", w.cfg.DialTimeout)
	p.start()
	var err error
	for range w.cfg.History {
		for i, t := range tasks {
			if err = p.send(ctx, CheckpointKey(t).Encode(), w.checkpointFor(0, i).Encode()); err != nil {
				break
			}
		}
		if err != nil {
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
	broker, process, created, brokers := w.broker, w.process, w.created, w.brokers
	w.mu.Unlock()
	if w.consumers != nil {
		reaped = w.consumers.Reap()
	}
	if created && broker == nil && process == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*w.cfg.DialTimeout)
		a := newSystemAdmin(brokers, w.topic, "samza-admin-checkpoint-delete", w.cfg.DialTimeout)
		err = a.deleteTopic(ctx)
		a.close()
		cancel()
	}
	if broker != nil {
		broker.Close()
	}
	if process != nil {
		if perr := process.Close(); err == nil {
			err = perr
		}
	}
	return reaped, err
}
