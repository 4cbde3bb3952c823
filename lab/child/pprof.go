package child

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// DebugServer serves net/http/pprof and expvar for one workload process.
type DebugServer struct {
	ln   net.Listener
	srv  *http.Server
	done chan error
}

// ListenDebug binds addr (use "127.0.0.1:0" for any free port) and starts serving
// /debug/pprof/ and /debug/vars on it. Addr reports the address actually bound.
func ListenDebug(addr string) (*DebugServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pprof endpoint: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/vars", expvar.Handler())
	return ServeDebug(ln, mux), nil
}

// ServeDebug serves h on a listener in the background until Close, for debug
// endpoints that choose their own handlers.
func ServeDebug(ln net.Listener, h http.Handler) *DebugServer {
	d := &DebugServer{
		ln:   ln,
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second},
		done: make(chan error, 1),
	}
	go func() { d.done <- d.srv.Serve(ln) }()
	return d
}

// Addr is the address the server listens on, such as "127.0.0.1:41234".
func (d *DebugServer) Addr() string { return d.ln.Addr().String() }

// Close stops the server, waiting up to a second for requests in flight.
func (d *DebugServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := d.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = d.srv.Close()
	}
	if serveErr := <-d.done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

// Hold keeps the process alive for d after the work is done, so a profiler can take
// a final snapshot; it returns early when ctx is cancelled.
func Hold(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
