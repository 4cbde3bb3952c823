package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// eventSender sends one server-sent event, its data the JSON of v, and flushes it.
type eventSender func(event string, v any) error

// startEventStream answers a request with a stream of server-sent events (lab runs'
// and heap dump analyses' progress) and returns the function that sends each one.
// It fails before writing anything when the connection cannot stream.
func startEventStream(w http.ResponseWriter) (eventSender, error) {
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

// pauseBetweenEvents keeps eventInterval between two events of a stream. It
// reports false when the stream must end instead: the client left or the server
// is closing.
func (s *Server) pauseBetweenEvents(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	case <-time.After(eventInterval):
		return true
	}
}
