package checkpoint

import (
	"context"
	"sync"
)

// envelopeQueue is the model of Samza's BlockingEnvelopeMap for one partition: the
// poll loop puts envelopes in, Poll takes them out, and the poll loop waits while
// the queue holds the fetch threshold. Like the LinkedBlockingQueue it stands for,
// it grows with what it holds instead of reserving the threshold up front.
type envelopeQueue struct {
	limit int
	ready chan struct{} // has a token while items is not empty
	room  chan struct{} // gets a token whenever items are taken

	mu    sync.Mutex
	items []Envelope
}

func newEnvelopeQueue(limit int) *envelopeQueue {
	return &envelopeQueue{limit: limit, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// put appends e, waiting while the queue is full; it fails only when ctx ends.
func (q *envelopeQueue) put(ctx context.Context, e Envelope) error {
	for {
		q.mu.Lock()
		if len(q.items) < q.limit {
			q.items = append(q.items, e)
			q.mu.Unlock()
			select {
			case q.ready <- struct{}{}:
			default:
			}
			return nil
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// takeAll removes and returns every queued envelope.
func (q *envelopeQueue) takeAll() []Envelope {
	q.mu.Lock()
	out := q.items
	q.items = nil
	q.mu.Unlock()
	if len(out) > 0 {
		select {
		case q.room <- struct{}{}:
		default:
		}
	}
	return out
}

// len returns the number of queued envelopes.
func (q *envelopeQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
