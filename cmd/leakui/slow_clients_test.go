//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
)

// TestSlowClientsLeaveAThirdClientServed attacks a real `leakui serve` with
// -token (and no -private, so a report's link is public) from two loopback
// addresses, 127.0.0.2 and 127.0.0.3: 80 GETs of a public report link, each
// declaring a body of 1,000 bytes and trickling it one byte every 2 s, and 8
// uploads (with the token) trickling their bodies the same way. Page views and
// uploads have 8 slots each, as 2 CPUs give them by default; everything else
// is the default. Meanwhile a third client, 127.0.0.4, asks for the report
// page, the dashboard and /readyz every 200 ms, and uploads a profile every
// 2 s. Its pages must answer 200 and its uploads 201, each within the
// liveness bound; the times are logged (the goal is under a second), not
// asserted. The trickled GETs must be answered without their bodies (or 429
// beyond their address's share) and their connections closed; the trickled
// uploads, far below the minimum body rate, are cut with 408 (or 429 when
// their address's share kept them waiting too long).
func TestSlowClientsLeaveAThirdClientServed(t *testing.T) {
	if testing.Short() {
		t.Skip("holds trickled requests against a real server for 40 s")
	}
	const token = "a-token-of-the-slow-clients-test"
	const attackFor = 40 * time.Second
	// uploadsAnswered is the liveness bound of the trickled uploads: those
	// waiting for a slot wait up to 30 s, and are paced from when they get it.
	const uploadsAnswered = 90 * time.Second
	s := startServer(t, t.TempDir(), "-token", token, "-max-analyses", "8", "-max-uploads", "8")
	host := strings.TrimPrefix(s.base, "http://")

	third := clientFrom(t, "127.0.0.4")
	third.Timeout = probeLimit
	upload := func() (int, time.Duration, string) {
		body, ct := multipartUpload(t, part{name: "heap.pb", data: hostile.SmallProfile()})
		req, _ := http.NewRequest("POST", s.base+"/api/artifacts", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		resp, err := third.Do(req)
		took := time.Since(start)
		if err != nil {
			return 0, took, err.Error()
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, took, string(raw)
	}
	code, _, raw := upload()
	if code != http.StatusCreated {
		t.Fatalf("the first upload: %d %s", code, raw)
	}
	id := raw[strings.Index(raw, `"report_id"`):]
	id = strings.SplitN(id, `"`, 5)[3]
	report := "/r/" + id

	attackStart := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var gets, uploads []trickleResult
	trickle := func(from, request string, deadline time.Duration, into *[]trickleResult) {
		defer wg.Done()
		dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
		conn, err := dialer.Dial("tcp", host)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		start := time.Now()
		if _, err := io.WriteString(conn, request); err != nil {
			t.Error(err)
			return
		}
		wg.Go(func() {
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := conn.Write([]byte("x")); err != nil {
						return // the server closed the connection
					}
				}
			}
		})
		conn.SetReadDeadline(start.Add(deadline))
		r := trickleResult{from: from}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			r.err = err.Error()
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			r.status, r.body = resp.StatusCode, string(b)
			r.took = time.Since(start)
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err := conn.Read(make([]byte, 1))
			r.closed = errors.Is(err, io.EOF)
		}
		mu.Lock()
		*into = append(*into, r)
		mu.Unlock()
	}
	for _, from := range []string{"127.0.0.2", "127.0.0.3"} {
		for range 40 {
			wg.Add(1)
			go trickle(from, fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\n", report, host), attackFor, &gets)
		}
		for range 4 {
			wg.Add(1)
			go trickle(from, fmt.Sprintf("POST /api/artifacts HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n", host, token), uploadsAnswered, &uploads)
		}
	}

	// The third client, while the attack holds: pages and /readyz every
	// 200 ms, an upload every 2 s beside them.
	time.Sleep(2 * time.Second)
	var pages, ups []time.Duration
	var failures []string
	readyz := map[int]int{}
	end := time.Now().Add(attackFor - 5*time.Second)
	var probes sync.WaitGroup
	probes.Go(func() {
		for ; time.Now().Before(end); time.Sleep(2 * time.Second) {
			code, took, raw := upload()
			mu.Lock()
			ups = append(ups, took)
			if code != http.StatusCreated {
				failures = append(failures, fmt.Sprintf("upload: %d after %v: %.200s", code, took.Round(time.Millisecond), raw))
			}
			mu.Unlock()
		}
	})
	for ; time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		for _, path := range []string{report, "/"} {
			start := time.Now()
			resp, err := third.Get(s.base + path)
			took := time.Since(start)
			mu.Lock()
			pages = append(pages, took)
			switch {
			case err != nil:
				failures = append(failures, fmt.Sprintf("GET %s: %v", path, err))
			case resp.StatusCode != http.StatusOK:
				failures = append(failures, fmt.Sprintf("GET %s: %d after %v", path, resp.StatusCode, took.Round(time.Millisecond)))
			}
			mu.Unlock()
			if resp != nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		if resp, err := third.Get(s.base + "/readyz"); err == nil {
			readyz[resp.StatusCode]++
			resp.Body.Close()
		}
	}
	probes.Wait()
	// The trickled uploads in the slots are cut by the minimum body rate (30 s
	// without 30 KB), those that waited for a slot 30 s after they got one, or
	// they got 429 from the backlog; then the attack ends.
	for time.Now().Before(attackStart.Add(uploadsAnswered)) {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		n := len(uploads)
		mu.Unlock()
		if n == 8 {
			break
		}
	}
	close(stop)
	wg.Wait()

	summary := func(d []time.Duration) string {
		if len(d) == 0 {
			return "none"
		}
		d = slices.Clone(d)
		slices.Sort(d)
		over := 0
		for _, x := range d {
			if x > time.Second {
				over++
			}
		}
		return fmt.Sprintf("%d, median %v, slowest %v, %d over 1 s", len(d), d[len(d)/2].Round(time.Millisecond), d[len(d)-1].Round(time.Millisecond), over)
	}
	t.Logf("the third client's pages during the attack: %s", summary(pages))
	t.Logf("the third client's uploads during the attack: %s", summary(ups))
	t.Logf("the third client's /readyz: %v", readyz)
	t.Logf("the 80 trickled GETs: %s", describeTrickles(gets))
	t.Logf("the 8 trickled uploads: %s", describeTrickles(uploads))
	if len(failures) > 0 {
		t.Errorf("the third client was not served during the attack (%d failures): %s", len(failures), strings.Join(failures[:min(len(failures), 10)], "; "))
	}
	// Each trickled GET is answered without its body (the page, or 429 beyond
	// its address's share of the page views), and its connection closed.
	for _, g := range gets {
		if g.status != http.StatusOK && g.status != http.StatusTooManyRequests || g.took > probeLimit || !g.closed {
			t.Errorf("a trickled GET from %s: %d %q after %v, connection closed %v; want the page (or 429) at once, then the connection closed",
				g.from, g.status, g.err, g.took.Round(time.Millisecond), g.closed)
			break
		}
	}
	for _, u := range uploads {
		if u.status != http.StatusRequestTimeout && u.status != http.StatusTooManyRequests || u.status == http.StatusRequestTimeout && !strings.Contains(u.body, "-min-body-rate") {
			t.Errorf("a trickled upload from %s: %d %q %.200s, want 408 naming -min-body-rate (or 429 beyond the address's share)", u.from, u.status, u.err, u.body)
			break
		}
	}
	if len(uploads) != 8 {
		t.Errorf("%d of the 8 trickled uploads were answered; the others were still held after %v", len(uploads), uploadsAnswered)
	}
	checkNoCrash(t, s)
}

// trickleResult is the answer to one trickled request: its status (0 with err
// when none came), its body and how long after the request it came.
type trickleResult struct {
	from, err, body string
	status          int
	took            time.Duration
	closed          bool // the server closed the connection after the answer
}

// describeTrickles counts the answers by status with their slowest time.
func describeTrickles(rs []trickleResult) string {
	type agg struct {
		n       int
		slowest time.Duration
	}
	by := map[string]*agg{}
	for _, r := range rs {
		key := fmt.Sprint(r.status)
		if r.status == 0 {
			key = "no answer"
		}
		a := by[key]
		if a == nil {
			a = &agg{}
			by[key] = a
		}
		a.n++
		a.slowest = max(a.slowest, r.took)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%d × %s (slowest %v)", by[k].n, k, by[k].slowest.Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}
