package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/serrors"
)

// errBodyIdle and errBodySlow are the errors of a request body cut because its
// client sent nothing for IdleBodyTimeout, or less than MinBodyRate a second
// over it; the reads of such a body return an *serrors.Error (408) wrapping one.
var (
	errBodyIdle = errors.New("the client stopped sending the request body")
	errBodySlow = errors.New("the client sent the request body too slowly")
)

// bodyDrainWait is how long the server reads, after answering, the part of a
// request body its handler did not read, before it closes the connection.
// The handler's slot is free by then; only the connection waits.
const bodyDrainWait = time.Second

// bodyKey holds a request's pacedBody in its context.
type bodyKey struct{}

// progressDeadlines cuts clients that stop moving bytes, or move them too
// slowly, and never lets a handler wait for a body it does not read:
//
//   - A request body must arrive at MinBodyRate bytes a second averaged over
//     every IdleBodyTimeout the server spends waiting for it, and never stop for
//     that long, or its next read fails and the request is answered 408
//     (pacedBody). Only the time the server waits for the client counts, so a
//     handler that reads slowly never has its client cut.
//   - GET and HEAD are answered without their body: a handler reads nothing,
//     and the connection closes after the answer.
//   - A handler that answers before it has read its body to the end (a GET's,
//     a refused upload's, a 401's) closes the connection with its answer,
//     and the rest of the body is drained for at most bodyDrainWait after it;
//     the server never reads it before the answer (which net/http otherwise
//     does, waiting on a trickling client while the handler holds its slot).
//   - A chunked request body (Transfer-Encoding), whose Content-Length, if any,
//     net/http drops unseen, closes the connection after its answer, so that a
//     request whose two lengths disagree cannot smuggle another behind it.
//   - Writing the response waits at most IdleWriteTimeout for the client to
//     take the next bytes.
//
// The deadlines move on with every read and write, so a long upload or
// download that keeps moving is never cut.
func (s *Server) progressDeadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// A deadline left by the previous request on this connection must not cut
		// this one before it writes (a 100 Continue, for one).
		rc.SetWriteDeadline(time.Time{})
		var body *pacedBody
		if r.Body != nil && r.Body != http.NoBody {
			body = newPacedBody(r.Body, rc, s.cfg.IdleBodyTimeout, s.cfg.MinBodyRate)
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				// No handler may wait for it: the answer closes the
				// connection instead (pacedBody.answering).
				r.Body = http.NoBody
			} else {
				r.Body = body
			}
			if slices.ContainsFunc(r.TransferEncoding, func(te string) bool { return strings.EqualFold(te, "chunked") }) {
				w.Header().Set("Connection", "close")
			}
			r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, body))
		}
		aw := &answerWriter{ResponseWriter: w, rc: rc, idle: s.cfg.IdleWriteTimeout, body: body}
		defer func() {
			// A handler that wrote nothing is answered by net/http after it
			// returns: the body's fate is settled first.
			aw.answering()
			if s.cfg.IdleWriteTimeout > 0 {
				// The last bytes are written after the handler returns; they
				// get as long as any other write, counted from then (not from
				// the request's start: the answer of a request that took
				// longer than the timeout, a slow upload's 201 or a trickled
				// one's 408, would be lost).
				rc.SetWriteDeadline(time.Now().Add(s.cfg.IdleWriteTimeout))
			}
		}()
		next.ServeHTTP(aw, r)
	})
}

// pacedBody is a request body read within its deadlines: before every read
// the connection's read deadline is set to when the body would fall below
// need bytes in the last window of waiting (or send nothing for a window),
// counted on a clock that runs only while a read waits for the client.
type pacedBody struct {
	src    io.ReadCloser
	rc     *http.ResponseController
	window time.Duration // IdleBodyTimeout; 0 or less: no deadlines
	need   int64         // bytes a window must bring; 0: only the idle timeout
	rate   int64         // need a second, for the message

	mu     sync.Mutex
	waited time.Duration // time spent waiting in reads
	total  int64
	// marks are (waited, total) after reads, the oldest dropped once the
	// window no longer needs it; reads less than window/32 apart share one.
	marks    []bodyMark
	eof      bool  // read to its end
	answered bool  // the handler began its answer
	cut      error // why the body was cut, nil if it was not
}

type bodyMark struct {
	at    time.Duration
	total int64
}

func newPacedBody(src io.ReadCloser, rc *http.ResponseController, window time.Duration, rate int64) *pacedBody {
	b := &pacedBody{src: src, rc: rc, window: window, marks: []bodyMark{{}}}
	if window > 0 && rate > 0 {
		b.rate, b.need = rate, int64(float64(rate)*window.Seconds())
	}
	return b
}

// allowanceLocked is how long the next read may wait for the client: until
// the window that began when the body had need bytes fewer than now ends.
func (b *pacedBody) allowanceLocked() time.Duration {
	if b.need <= 0 {
		return b.window
	}
	target := b.total - b.need
	for len(b.marks) > 1 && b.marks[0].total <= target {
		b.marks = b.marks[1:]
	}
	// The newest mark holds the total, more than target: one is always left.
	return min(b.marks[0].at+b.window-b.waited, b.window)
}

func (b *pacedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.cut != nil {
		b.mu.Unlock()
		return 0, b.cut
	}
	allowance := b.allowanceLocked()
	b.mu.Unlock()
	if b.window > 0 {
		b.rc.SetReadDeadline(time.Now().Add(allowance))
	}
	start := time.Now()
	n, err := b.src.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waited += time.Since(start)
	if n > 0 {
		b.total += int64(n)
		if last := &b.marks[len(b.marks)-1]; b.waited-last.at < b.window/32 {
			last.total = b.total
		} else {
			b.marks = append(b.marks, bodyMark{b.waited, b.total})
		}
	}
	if errors.Is(err, io.EOF) {
		b.eof = true
		// The server now reads the connection in the background, watching for
		// the client to go: no deadline may cut that read.
		if b.window > 0 {
			b.rc.SetReadDeadline(time.Time{})
		}
	}
	var ne net.Error
	if b.window > 0 && errors.As(err, &ne) && ne.Timeout() {
		b.cut = b.cutError(n == 0 && allowance >= b.window)
		err = b.cut
	}
	return n, err
}

// cutError is the 408 of a body cut for sending nothing (idle) or too little.
func (b *pacedBody) cutError(idle bool) error {
	if idle || b.need <= 0 {
		return &serrors.Error{Status: http.StatusRequestTimeout, Err: errBodyIdle,
			Message: fmt.Sprintf("the request body stopped: no byte arrived for %v (-idle-body-timeout)", b.window)}
	}
	return &serrors.Error{Status: http.StatusRequestTimeout, Err: errBodySlow,
		Message: fmt.Sprintf("the request body came too slowly: less than %s a second over %v (-min-body-rate, -idle-body-timeout)",
			analyze.FormatBytes(b.rate), b.window)}
}

// Close closes the body.
func (b *pacedBody) Close() error { return b.src.Close() }

// answering is called as the handler begins its answer: a body not read to
// its end closes the connection after the answer, and its rest is drained
// for at most bodyDrainWait (net/http does it after the handler returns).
func (b *pacedBody) answering(h http.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eof || b.answered {
		return
	}
	b.answered = true
	h.Set("Connection", "close")
	b.rc.SetReadDeadline(time.Now().Add(bodyDrainWait))
}

// cutBody is the 408 of a request whose body was cut, nil for any other.
func cutBody(r *http.Request) error {
	b, _ := r.Context().Value(bodyKey{}).(*pacedBody)
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cut
}

// answerWriter is the response writer of progressDeadlines: it extends the
// connection's write deadline before every write and flush, and settles the
// request body's fate (pacedBody.answering) before the first.
type answerWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration // IdleWriteTimeout; 0 or less: no deadline
	body *pacedBody    // nil without a body
	once sync.Once
}

func (w *answerWriter) answering() {
	w.once.Do(func() {
		if w.body != nil {
			w.body.answering(w.ResponseWriter.Header())
		}
	})
}

func (w *answerWriter) extend() {
	if w.idle > 0 {
		w.rc.SetWriteDeadline(time.Now().Add(w.idle))
	}
}

// WriteHeader begins the answer.
func (w *answerWriter) WriteHeader(status int) {
	w.answering()
	w.ResponseWriter.WriteHeader(status)
}

func (w *answerWriter) Write(p []byte) (int, error) {
	w.answering()
	w.extend()
	return w.ResponseWriter.Write(p)
}

// Flush flushes the response, within the write deadline.
func (w *answerWriter) Flush() {
	w.answering()
	w.extend()
	w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
