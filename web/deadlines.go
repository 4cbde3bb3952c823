package web

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// errBodyIdle is the error of a request body whose client sent nothing for
// longer than Config.IdleBodyTimeout.
var errBodyIdle = errors.New("the client stopped sending the request body")

// progressDeadlines cuts clients that stop moving bytes: reading the request body
// waits at most IdleBodyTimeout for the next bytes, and writing the response at
// most IdleWriteTimeout for the client to take them. Both deadlines move on with
// every read and write, so a long upload or download that keeps moving is never
// cut, while one that trickles a byte and goes silent, or stops reading, frees
// its connection and handler.
func (s *Server) progressDeadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// A deadline left by the previous request on this connection must not cut
		// this one before it writes (a 100 Continue, for one).
		rc.SetWriteDeadline(time.Time{})
		if r.Body != nil && r.Body != http.NoBody && s.cfg.IdleBodyTimeout > 0 {
			r.Body = &idleBody{ReadCloser: r.Body, rc: rc, idle: s.cfg.IdleBodyTimeout}
		}
		if s.cfg.IdleWriteTimeout > 0 {
			// The last bytes are written after the handler returns; they get
			// as long as any other write, counted from then (not from the
			// request's start: the answer of a request that took longer than
			// the timeout, a slow upload's 201 or a trickled one's 408, would
			// be lost).
			defer func() { rc.SetWriteDeadline(time.Now().Add(s.cfg.IdleWriteTimeout)) }()
			w = &idleWriter{ResponseWriter: w, rc: rc, idle: s.cfg.IdleWriteTimeout}
		}
		next.ServeHTTP(w, r)
	})
}

// idleBody extends the connection's read deadline before every read of the body
// and lifts it at the end of the body, when the server starts its own background
// read of the connection.
type idleBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.rc.SetReadDeadline(time.Time{})
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = errBodyIdle
	}
	return n, err
}

// idleWriter extends the connection's write deadline before every write and
// flush of the response.
type idleWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration
}

func (w *idleWriter) Write(p []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.idle))
	return w.ResponseWriter.Write(p)
}

// Flush flushes the response, within the write deadline.
func (w *idleWriter) Flush() {
	w.rc.SetWriteDeadline(time.Now().Add(w.idle))
	w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *idleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
