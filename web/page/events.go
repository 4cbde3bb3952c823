package page

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// EventSender sends one server-sent event, its data the JSON of v, and flushes it.
type EventSender func(event string, v any) error

// StartEventStream answers a request with a stream of server-sent events (lab runs'
// and heap dump analyses' progress) and returns the function that sends each one.
// It fails before writing anything when the connection cannot stream.
func StartEventStream(w http.ResponseWriter) (EventSender, error) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return nil, fmt.Errorf("streaming is not supported by this connection")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	}, nil
}

// Pause keeps EventInterval between two events of a stream. It reports false
// when the stream must end instead: the client left or the server is closing
// (closing is closed).
func Pause(ctx context.Context, closing <-chan struct{}) bool {
	select {
	case <-ctx.Done():
		return false
	case <-closing:
		return false
	case <-time.After(EventInterval):
		return true
	}
}

// EventInterval is the least time between two events of one run: changes in
// between are coalesced into the next.
const EventInterval = 250 * time.Millisecond
