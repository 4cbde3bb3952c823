package recovery

import (
	"errors"
	"fmt"
)

// Sentinel errors of the recovery package. Test with errors.Is.
var (
	// ErrUnknownCodec is returned by ParseCodec for a name it does not know.
	ErrUnknownCodec = errors.New("recovery: unknown codec")
	// ErrUnknownVariant is returned by ParseVariant for a name it does not know.
	ErrUnknownVariant = errors.New("recovery: unknown variant")
	// ErrInvalidConfig is returned when a LogConfig or RecoverConfig is out of range.
	ErrInvalidConfig = errors.New("recovery: invalid configuration")
	// ErrNoLog is returned by Recover when a directory holds no partition folder.
	ErrNoLog = errors.New("recovery: no log in directory")
	// ErrBadCheckpoint is returned when the recovery-point-offset-checkpoint file
	// cannot be parsed.
	ErrBadCheckpoint = errors.New("recovery: malformed recovery-point-offset-checkpoint")
	// ErrCorruptRecord is wrapped by every CorruptBatchError and by deep iterator
	// errors about the records inside a batch.
	ErrCorruptRecord = errors.New("corrupt record")
	// ErrIteratorClosed is returned by a deep iterator used after Close.
	ErrIteratorClosed = errors.New("recovery: deep iterator closed")
)

// CorruptBatchError says why the batch at a byte position of a segment is invalid
// or incomplete. Recovery truncates the segment at Position.
type CorruptBatchError struct {
	// Position is the byte offset of the batch in its segment file.
	Position int64
	// Incomplete is true when the file ends inside the batch (a torn write),
	// false when the batch is complete but invalid (size, magic, CRC, records).
	Incomplete bool
	// Reason is the message, in Kafka's words where Kafka has them.
	Reason string
}

// Error returns the reason with the position.
func (e *CorruptBatchError) Error() string {
	return fmt.Sprintf("batch at byte offset %d: %s", e.Position, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorruptRecord) true.
func (e *CorruptBatchError) Unwrap() error { return ErrCorruptRecord }
