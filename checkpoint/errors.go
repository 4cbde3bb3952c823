package checkpoint

import "errors"

// Sentinel errors. Functions wrap them with the details, so test them with errors.Is.
var (
	// ErrInvalidConfig reports a configuration value outside its range.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrBrokerUnreachable reports that no broker of the list answered in time.
	ErrBrokerUnreachable = errors.New("broker unreachable")
	// ErrTopicExists reports that the checkpoint topic of a new run already exists.
	ErrTopicExists = errors.New("checkpoint topic already exists")
	// ErrTaskNotRegistered reports a read or write for a task the manager does not know.
	ErrTaskNotRegistered = errors.New("task is not registered with this CheckpointManager")
	// ErrNotStarted reports a call that needs a started manager or consumer.
	ErrNotStarted = errors.New("not started")
	// ErrConsumerStopped reports a poll on a consumer whose poll loop has ended.
	ErrConsumerStopped = errors.New("system consumer is stopped")
	// ErrBadCheckpoint reports a checkpoint message that cannot be decoded.
	ErrBadCheckpoint = errors.New("malformed checkpoint message")
	// ErrRegistrationRefused reports a registration with a consumer that had started.
	ErrRegistrationRefused = errors.New("registration refused")
	// ErrAlreadyRun reports a second Run of the same Workload.
	ErrAlreadyRun = errors.New("workload already ran")
	// ErrInterrupted is Java's InterruptedException: the container thread was
	// interrupted while readCheckpoints polled the consumer (see
	// CheckpointManager.Interrupt).
	ErrInterrupted = errors.New("java.lang.InterruptedException")
)

// errInterruptedRead is what SystemStreamPartitionIterator throws when its poll is
// interrupted, new SamzaException(e) (SystemStreamPartitionIterator.java:92-94),
// whose message is the cause's.
var errInterruptedRead = samzaException{ErrInterrupted}

// samzaException is Samza's SamzaException around a cause, printed as Java
// prints it: the class, then the message.
type samzaException struct{ cause error }

func (e samzaException) Error() string { return "org.apache.samza.SamzaException: " + e.cause.Error() }
func (e samzaException) Unwrap() error { return e.cause }
