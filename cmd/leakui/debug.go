package main

import (
	"errors"
	"expvar"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"

	"github.com/leakui/leakui/lab/child"
)

// errDebugNotLoopback refuses a -debug-pprof address another machine could reach:
// profiles show function names, file paths and heap contents.
var errDebugNotLoopback = errors.New("-debug-pprof must listen on a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT)")

// checkLoopback accepts host:port addresses whose host is a loopback IP or
// "localhost", and refuses everything else, an empty host (every interface)
// included.
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-debug-pprof %q: %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("-debug-pprof %q: no port", addr)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return fmt.Errorf("%w, not %q", errDebugNotLoopback, addr)
	}
	return nil
}

// listenDebug serves leakui's own /debug/pprof/ and /debug/vars (-debug-pprof) on
// a loopback listener of its own. It leaves out the command line (/debug/pprof/
// cmdline and expvar's "cmdline"), which may hold -token. It binds addr, checks
// that what it bound is a loopback address ("localhost" is resolved by the
// system) and starts serving.
func listenDebug(addr string) (*child.DebugServer, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-debug-pprof: %w", err)
	}
	if err := checkLoopback(ln.Addr().String()); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/cmdline", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "leakui does not serve its command line (it may hold -token)", http.StatusNotFound)
	})
	mux.HandleFunc("/debug/vars", serveVars)
	return child.ServeDebug(ln, mux), nil
}

// serveVars is expvar's handler without the "cmdline" variable.
func serveVars(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	io.WriteString(w, "{\n")
	first := true
	expvar.Do(func(kv expvar.KeyValue) {
		if kv.Key == "cmdline" {
			return
		}
		if !first {
			io.WriteString(w, ",\n")
		}
		first = false
		fmt.Fprintf(w, "%q: %s", kv.Key, kv.Value)
	})
	io.WriteString(w, "\n}\n")
}
