//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	rpprof "runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/internal/testtool"
)

// TestAttacksOnALimitedServer runs the attacks on a server's limits (all but
// the diff flame views, which are TestMemoryAttacksAnswerWithinBudget's)
// against real `leakui serve` processes under GOMEMLIMIT and prlimit's address
// space and data limits (underMemoryLimits): an open server (no token, the
// default), a private one with a token, and one whose data directory is a
// 3 MiB tmpfs; and `leakui top` under the same limits. Each attack must get
// the answer its fix defines (a 4xx or 5xx, or a run that ends failed naming
// its limit), the server must stay alive, and the dashboard and /healthz must
// answer 200 within probeLimit while it runs. Each row's time, the server's
// resident size before it and its peak during it (VmHWM, counted afresh for
// each row) and the pages' times are logged as a table (-v), not asserted.
func TestAttacksOnALimitedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts five servers and attacks them")
	}
	table := &attackTable{}
	t.Run("rows", func(t *testing.T) {
		t.Run("open server", func(t *testing.T) { t.Parallel(); attackOpenServer(t, table) })
		t.Run("private server", func(t *testing.T) { t.Parallel(); attackPrivateServer(t, table) })
		t.Run("small disk", func(t *testing.T) { t.Parallel(); attackSmallDisk(t, table) })
		t.Run("leakui top", func(t *testing.T) { t.Parallel(); attackTopCommand(t, table) })
	})
	t.Logf("attacks on a limited server (GOMEMLIMIT=%s, prlimit --as=%d GiB --data=%d GiB):\n%s",
		limitGOMEMLIMIT, limitAddressSpace>>30, limitData>>30, table)
}

// openServerArgs are the open server's flags: the idle timeouts at 1 s so
// that the stalled transfers take seconds, not minutes; a run directory's
// quota of 10 MiB (the lab run limits); a short lease (the silent run, the
// killed server); the capture targets; no upload or run rate, since the
// test's own uploads and runs come from one address; 8 uploads and 8
// downloads, all of them for one address, so that 8 stalled ones fill their
// class while the probe asks for pages.
func openServerArgs(targets *captureTargets) []string {
	args := []string{"-upload-rate", "-1", "-run-rate", "-1", "-max-runs", "4", "-run-lease", "500ms",
		"-run-disk", strconv.Itoa(10 << 20), "-idle-body-timeout", "1s", "-idle-write-timeout", "1s",
		"-max-uploads", "8", "-max-downloads", "8", "-max-per-client", "8"}
	for _, name := range slices.Sorted(maps.Keys(targets.urls)) {
		args = append(args, "-target", name+"="+targets.urls[name])
	}
	return args
}

func attackOpenServer(t *testing.T, table *attackTable) {
	targets := startCaptureTargets(t)
	dir := t.TempDir()
	args := openServerArgs(targets)
	s := startLimitedServer(t, table, "open", nil, dir, args...)

	s.attack(t, "HTTP details", "HEAD / and HEAD /healthz", func(t *testing.T) string {
		var answers []string
		for _, path := range []string{"/", "/healthz"} {
			resp, err := http.Head(s.base + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Errorf("HEAD %s: %d with %d bytes of body, want 200 without", path, resp.StatusCode, len(body))
			}
			answers = append(answers, fmt.Sprintf("HEAD %s %d", path, resp.StatusCode))
		}
		return strings.Join(answers, ", ") + ", no body"
	})

	s.attack(t, "DNS rebinding", "DNS rebinding: `Host: evil.example` with a matching Origin, an upload and the dashboard", func(t *testing.T) string {
		before := countStore(t, dir).artifacts
		rebound := func(method, path string, body []byte, ct string) (int, string) {
			req, _ := http.NewRequest(method, s.base+path, bytes.NewReader(body))
			req.Host = "evil.example"
			req.Header.Set("Origin", "http://evil.example")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(raw)
		}
		body, ct := multipartUpload(t, part{name: "heap.pb", data: hostile.SmallProfile()})
		upload, raw := rebound("POST", "/api/artifacts", body, ct)
		if upload != http.StatusMisdirectedRequest || !strings.Contains(raw, "allowed-hosts") {
			t.Errorf("the rebound upload: %d %.300s, want 421 naming -allowed-hosts", upload, raw)
		}
		dashboard, raw := rebound("GET", "/", nil, "")
		if dashboard != http.StatusMisdirectedRequest || !strings.Contains(raw, "evil.example") {
			t.Errorf("the rebound dashboard: %d %.300s, want 421", dashboard, raw)
		}
		after := countStore(t, dir).artifacts
		if after != before {
			t.Errorf("the rebound upload was stored: %d artifacts, were %d", after, before)
		}
		return fmt.Sprintf("upload %d, dashboard %d; %d artifacts stored", upload, dashboard, after-before)
	})

	s.attack(t, "repeated form fields", "3,900 repeated form fields of 64 KB (250 MB)", func(t *testing.T) string {
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			value := bytes.Repeat([]byte("x"), 64<<10)
			for range 3900 {
				w, err := mw.CreateFormField("e")
				if err == nil {
					_, err = w.Write(value)
				}
				if err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			w, _ := mw.CreateFormFile("file", "heap.pb")
			w.Write(hostile.SmallProfile())
			pw.CloseWithError(mw.Close())
		}()
		defer pr.CloseWithError(io.ErrClosedPipe) // ends the writer when the answer comes first
		a, _ := s.send(t, pr, mw.FormDataContentType(), -1, time.Minute)
		if a.Status != http.StatusRequestEntityTooLarge || !strings.Contains(a.Error, "form fields") {
			t.Errorf("3,900 form fields: %d %.300s, want 413 naming the form fields", a.Status, a.Raw)
		}
		return fmt.Sprintf("%d %q", a.Status, a.Error)
	})

	for _, bomb := range []struct {
		what string
		data []byte
	}{
		{"valid profile.proto, one Location of 200 M empty Lines (400 KB gzipped)", hostile.LineBomb()},
		{"valid profile.proto, 100 MiB of empty strings", hostile.EmptyStringsBomb()},
	} {
		s.attack(t, "amplifying profile", bomb.what, func(t *testing.T) string {
			body, ct := multipartUpload(t, part{name: "attack.pb.gz", data: bomb.data})
			a, _ := s.send(t, bytes.NewReader(body), ct, int64(len(body)), time.Minute)
			if a.Status != http.StatusRequestEntityTooLarge || !strings.Contains(a.Error, "memory budget") {
				t.Errorf("%s: %d %.300s, want 413 naming the memory budget", bomb.what, a.Status, a.Raw)
			}
			return fmt.Sprintf("%d %q", a.Status, a.Error)
		})
	}

	s.attack(t, "hostile names", "a profile whose sample type is `<img src=x onerror=alert(1)>`, its Markdown summary", func(t *testing.T) string {
		markup := hostile.Profile{SampleTypes: [][2]string{{"<img src=x onerror=alert(1)>|*x*|", "[u](javascript:alert(1))"}},
			Samples: []hostile.Sample{{Stack: []string{"main.grow", "main.main"}, Values: []int64{4096}}}}.Encode()
		a := s.postFile(t, "markup.pb", markup)
		if a.Status != http.StatusCreated {
			t.Fatalf("the upload: %d %.300s", a.Status, a.Raw)
		}
		code, md := s.get(t, a.ReportURL+".md")
		escaped := bytes.Count(md, []byte(`\<img src=x onerror=alert(1)\>`))
		if code != http.StatusOK || escaped == 0 || bytes.Count(md, []byte("<img")) != escaped {
			t.Errorf("the Markdown summary: %d, the sample type not escaped:\n%s", code, md)
		}
		return fmt.Sprintf("upload %d; summary %d with the name escaped", a.Status, code)
	})

	s.attack(t, "stalled transfers", "8 uploads that send one byte of their body and go silent (`-idle-body-timeout 1s`)", func(t *testing.T) string {
		statuses := make([]int, 8)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() { statuses[i] = trickledUpload(t, s.base) })
		}
		wg.Wait()
		for _, st := range statuses {
			if st != http.StatusRequestTimeout {
				t.Errorf("trickled uploads answered %v, want 408 each", statuses)
				break
			}
		}
		return fmt.Sprintf("%v, each connection closed", statuses)
	})

	download := s.postFile(t, "big.log", randomLog(t, 12<<20))
	if download.Status != http.StatusCreated {
		t.Fatalf("the upload of the 12 MB log: %d %.300s", download.Status, download.Raw)
	}
	s.attack(t, "stalled transfers", "8 downloads of a 12 MB artifact that read nothing for 3 s (`-idle-write-timeout 1s`)", func(t *testing.T) string {
		return stalledDownloads(t, s.base, "/a/"+download.Artifacts[0].SHA256, download.Artifacts[0].Size)
	})

	s.attack(t, "lab run limits", "lab specs within the old limits: a batch of 10,000 values of 1 MiB; 100,000 uncompressed batches", func(t *testing.T) string {
		var answers []string
		for _, c := range []struct{ spec, want string }{
			{`{"workload":"recovery","codec":"none","partitions":1,"segments":1,"batches":1,"records":10000,"value_bytes":1048576}`,
				"one batch is 10000 records × 1.0 MiB value size = 9.8 GiB"},
			{`{"workload":"recovery","codec":"none","partitions":2,"segments":10,"batches":100000,"records":10,"value_bytes":1024}`,
				"= 19.1 GiB written, above the run directory's quota of 10.0 MiB (-run-disk)"},
		} {
			code, out := s.post(t, "/api/runs", c.spec)
			if code != http.StatusRequestEntityTooLarge || !strings.Contains(out["error"], c.want) {
				t.Errorf("%s: %d %q, want 413 with %q", c.spec, code, out["error"], c.want)
			}
			answers = append(answers, strconv.Itoa(code))
		}
		return strings.Join(answers, ", ") + " with the arithmetic"
	})

	s.attack(t, "lab run limits", "a lab run the check lets through that writes past `-run-disk` 10 MiB (100,000 batches of 1-byte values)", func(t *testing.T) string {
		r := s.startRun(t, `{"workload":"recovery","codec":"none","partitions":1,"segments":1,"batches":100000,"records":20,"value_bytes":1}`)
		if r.Status != "failed" || !strings.Contains(r.Error, "quota of 10.0 MiB") {
			t.Errorf("the run ended %s with %q, want failed naming the quota\n%s", r.Status, r.Error, s.log.String())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "uploads", "*", "runs", "leakui-run-*")); len(left) != 0 {
			t.Errorf("the run's directory is left behind: %v", left)
		}
		return fmt.Sprintf("run %s: %q", r.Status, r.Error)
	})

	s.attack(t, "HTTP details", "a run posted without its defaults; the \"run started\" log line", func(t *testing.T) string {
		r := s.startRun(t, `{"workload":"recovery","partitions":1,"segments":2,"batches":5,"records":10,"value_bytes":64}`)
		if r.Status != "done" {
			t.Errorf("a small recovery run ended %s: %s", r.Status, r.Error)
		}
		line := logLine(s.log.String(), "run started", r.ID)
		if !strings.Contains(line, "recovery leaky/gzip v0, 1 partition × 2 segments × 5 batches") {
			t.Errorf("the log line shows the spec without its defaults: %s", line)
		}
		_, spec, _ := strings.Cut(line, "spec=")
		return fmt.Sprintf("202, run %s; logged spec=%s", r.Status, spec)
	})

	s.attack(t, "silent run", "a capture silent for 2 leases at a time (snapshots 1 s apart, `-run-lease 500ms`)", func(t *testing.T) string {
		r := s.capture(t, "pprof")
		if r.Status != "done" || r.Snapshots != 3 || r.ReportURL == "" {
			t.Errorf("the silent capture ended %s with %d snapshots (%q); want done with 3 and a report", r.Status, r.Snapshots, r.Error)
		}
		return fmt.Sprintf("run %s, %d snapshots", r.Status, r.Snapshots)
	})

	s.attack(t, "capture redirect", "a capture target that redirects to another host", func(t *testing.T) string {
		r := s.capture(t, "redirect")
		if r.Status != "failed" || !strings.Contains(r.Error, "another origin") || targets.elsewhereHits.Load() != 0 {
			t.Errorf("the redirected capture ended %s (%q) after %d requests elsewhere", r.Status, r.Error, targets.elsewhereHits.Load())
		}
		return fmt.Sprintf("run %s: %q; %d requests elsewhere", r.Status, r.Error, targets.elsewhereHits.Load())
	})

	s.attack(t, "capture of another kind", "a capture target that answers an HTML page", func(t *testing.T) string {
		r := s.capture(t, "html")
		if r.Status != "failed" || !strings.Contains(r.Error, "not a pprof profile") || r.ReportURL != "" {
			t.Errorf("the capture of an HTML page ended %s (%q), report %q", r.Status, r.Error, r.ReportURL)
		}
		return fmt.Sprintf("run %s: %q", r.Status, r.Error)
	})

	s.attack(t, "capture of another kind", "a capture target whose second profile is of another type", func(t *testing.T) string {
		r := s.capture(t, "flip")
		if r.Status != "failed" || !strings.Contains(r.Error, "inuse_space") || r.Snapshots != 1 {
			t.Errorf("the capture whose type changed ended %s after %d snapshots (%q)", r.Status, r.Snapshots, r.Error)
		}
		return fmt.Sprintf("run %s after %d snapshot: %.120q", r.Status, r.Snapshots, r.Error)
	})
	checkNoCrash(t, s.server)

	// The server is killed in the middle of a run; the next one on the
	// same data removes the run's directory.
	code, out := s.post(t, "/api/runs", `{"workload":"checkpoint","variant":"leaky","cycles":5000,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	child := s.waitStep(t, out["id"])
	runDirs := filepath.Join(dir, "uploads", "*", "runs", "leakui-run-*")
	waitFor(t, time.Minute, "the run's directory", func() bool { left, _ := filepath.Glob(runDirs); return len(left) == 1 })
	s.kill()
	waitGone(t, child, 10*time.Second)
	killed, _ := filepath.Glob(runDirs)
	restarted := startLimitedServer(t, table, "open, restarted", nil, dir, args...)
	restarted.attack(t, "killed server", "SIGKILL mid-run, then a new server on the same data", func(t *testing.T) string {
		left, _ := filepath.Glob(runDirs)
		if len(killed) != 1 || len(left) != 0 {
			t.Errorf("the killed server left %v; after the restart %v remain, want none", killed, left)
		}
		var r runState
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			restarted.getJSON(t, "/api/runs/"+out["id"], &r)
			if r.Status != "running" || time.Now().After(deadline) {
				break
			}
		}
		if r.Status != "interrupted" {
			t.Errorf("the killed run is %s, want interrupted", r.Status)
		}
		return fmt.Sprintf("%d run directory left by the killed server, %d after the restart; the run %s", len(killed), len(left), r.Status)
	})
	checkNoCrash(t, restarted.server)
}

func attackPrivateServer(t *testing.T, table *attackTable) {
	const token = "token-of-the-attack-test"
	const lifetime = 4 * time.Second
	dir := t.TempDir()
	args := []string{"-token", token, "-private", "-session-lifetime", lifetime.String(), "-trusted-proxy", "127.0.0.1", "-upload-rate", "-1"}
	s := startLimitedServer(t, table, "private", nil, dir, args...)
	s.header.Set("Authorization", "Bearer "+token)

	s.attack(t, "guessed tokens", "3,000 wrong tokens at /login from 127.0.0.2", func(t *testing.T) string {
		attacker := clientFrom(t, "127.0.0.2")
		counts := map[int]int{}
		for i := range 3000 {
			resp, err := attacker.PostForm(s.base+"/login", url.Values{"token": {"guess-" + strconv.Itoa(i)}})
			if err != nil {
				t.Fatalf("attempt %d: %v", i, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			counts[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests {
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
					t.Fatalf("attempt %d: 429 with Retry-After %q", i, resp.Header.Get("Retry-After"))
				}
			}
		}
		// Five free failures, then one more each time a lockout (1 s, 2 s,
		// 4 s…) runs out while the attack goes on.
		if counts[http.StatusUnauthorized] < 5 || counts[http.StatusUnauthorized] > 20 || counts[http.StatusTooManyRequests] < 2980 {
			t.Errorf("3,000 wrong tokens: %v, want 5 and a few more 401, the rest 429", counts)
		}
		right := url.Values{"token": {token}}
		locked, err := attacker.PostForm(s.base+"/login", right)
		if err != nil {
			t.Fatal(err)
		}
		locked.Body.Close()
		other, err := clientFrom(t, "127.0.0.1").PostForm(s.base+"/login", right)
		if err != nil {
			t.Fatal(err)
		}
		other.Body.Close()
		if locked.StatusCode != http.StatusTooManyRequests || other.StatusCode != http.StatusSeeOther {
			t.Errorf("the right token: %d from the locked-out address, %d from another; want 429 and 303", locked.StatusCode, other.StatusCode)
		}
		return fmt.Sprintf("%d × 401, %d × 429 with Retry-After; then the right token: %d from 127.0.0.2, %d from 127.0.0.1",
			counts[http.StatusUnauthorized], counts[http.StatusTooManyRequests], locked.StatusCode, other.StatusCode)
	})

	s.attack(t, "HTTP details", "uploads with `Authorization: bearer` and `BEARER`", func(t *testing.T) string {
		var answers []string
		for _, scheme := range []string{"bearer", "BEARER"} {
			body, ct := multipartUpload(t, part{name: "heap.pb", data: hostile.SmallProfile()})
			req, _ := http.NewRequest("POST", s.base+"/api/artifacts", bytes.NewReader(body))
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", scheme+" "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("an upload with %q: %d, want 201", scheme, resp.StatusCode)
			}
			answers = append(answers, fmt.Sprintf("%s %d", scheme, resp.StatusCode))
		}
		return strings.Join(answers, ", ")
	})

	replica := startLimitedServer(t, table, "private replica", nil, dir, args...)
	s.attack(t, "sessions", "sessions: two sign-ins, a replica, /logout, a proxy that says https, the lifetime (4 s)", func(t *testing.T) string {
		start := time.Now() // no session expires before start + lifetime
		one, raw, _ := signIn(t, s.base, token)
		two, _, signedIn := signIn(t, s.base, token)
		_, secure, _ := signIn(t, s.base, token, "X-Forwarded-Proto", "https")
		if one == two || len(one) < 40 || strings.Contains(one, token) {
			t.Errorf("two sign-ins gave the sessions %q and %q", one, two)
		}
		if strings.Contains(raw, "; Secure") || !strings.Contains(raw, "HttpOnly") || !strings.Contains(secure, "; Secure") {
			t.Errorf("Set-Cookie on plain HTTP %q; behind the trusted proxy that says https %q", raw, secure)
		}
		fresh := map[string]int{}
		for _, base := range []string{s.base, replica.base} {
			fresh[base] = withSessionCookie(t, "GET", base+"/", one)
		}
		logout := withSessionCookie(t, "POST", replica.base+"/logout", one)
		revoked := withSessionCookie(t, "GET", s.base+"/", one)
		kept := withSessionCookie(t, "GET", s.base+"/", two)
		// A session is checked as valid only while well within its lifetime, so
		// that a stalled machine cannot fail the test.
		if time.Since(start) < lifetime/2 && (fresh[s.base] != 200 || fresh[replica.base] != 200 || kept != 200) {
			t.Errorf("fresh sessions: %v on the server and its replica, %d for the other after /logout; want 200", fresh, kept)
		}
		if logout != http.StatusSeeOther || revoked != http.StatusUnauthorized {
			t.Errorf("/logout on the replica: %d, then the session on the server: %d; want 303 and 401", logout, revoked)
		}
		time.Sleep(time.Until(signedIn.Add(lifetime + 500*time.Millisecond)))
		expired := withSessionCookie(t, "GET", s.base+"/", two)
		if expired != http.StatusUnauthorized {
			t.Errorf("a session past its lifetime: %d, want 401", expired)
		}
		return fmt.Sprintf("two ids, Secure behind the proxy; fresh %d on both; /logout %d, then %d on the other replica; expired %d",
			fresh[replica.base], logout, revoked, expired)
	})
	checkNoCrash(t, s.server)
	checkNoCrash(t, replica.server)
}

func attackSmallDisk(t *testing.T, table *attackTable) {
	dir := t.TempDir()
	s := startLimitedServer(t, table, "3 MiB tmpfs", onSmallDisk(t, dir, 3<<20), dir)
	for _, c := range []struct {
		what string
		size int
	}{
		{"disk full: an upload larger than the disk (the spool fills it)", 5 << 20},
		{"disk full: an upload that fits the spool, not the database", 1600 << 10},
	} {
		s.attack(t, "full disk", c.what, func(t *testing.T) string {
			a := s.postFile(t, "big.log", randomLog(t, c.size))
			if a.Status != http.StatusInsufficientStorage || strings.Contains(a.Error, "/") || !strings.Contains(a.Error, "disk is full") {
				t.Errorf("%s: %d %.300s, want 507 naming the full disk and no path", c.what, a.Status, a.Raw)
			}
			return fmt.Sprintf("%d %q", a.Status, a.Error)
		})
	}
	if a := s.postFile(t, "small.log", randomLog(t, 64<<10)); a.Status != http.StatusCreated {
		t.Errorf("a small upload after the full disk: %d %.300s", a.Status, a.Raw)
	}
	checkNoCrash(t, s.server)
}

// attackTopCommand runs `leakui top` under the memory limits on a profile
// whose function names hold NUL, ESC, a carriage return and a bidi override
// (hostile names): they come out escaped as %q writes them. GNU time measures its peak
// RSS: the rusage of a child started from this test counts this process's
// resident memory too, which the child shares until it execs.
func attackTopCommand(t *testing.T, table *attackTable) {
	names := []string{"main.a\x00b", "main.\x1b[31mred", "main.c\rd", "main.e\u202ef"}
	p := hostile.Profile{SampleTypes: hostile.Inuse}
	for i, n := range names {
		p.Samples = append(p.Samples, hostile.Sample{Stack: []string{n, "main.main"}, Values: []int64{int64(1000 * (i + 1))}})
	}
	dir := t.TempDir()
	path, peakFile := filepath.Join(dir, "names.pb"), filepath.Join(dir, "maxrss")
	if err := os.WriteFile(path, p.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	timeBin := testtool.Require(t, "time", "/usr/bin/time")
	argv := append(underMemoryLimits(t), timeBin, "-o", peakFile, "-f", "%M", leakuiBinary(t), "top", path)
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	out := stdout.String()
	if err != nil {
		t.Fatalf("leakui top: %v\n%s", err, stderr.String())
	}
	if strings.ContainsAny(out, "\x00\x1b\r\u202e") || !strings.Contains(out, `main.\x1b[31mred`) || !strings.Contains(out, `main.a\x00b`) {
		t.Errorf("leakui top wrote control characters raw, or not as %%q does: %q", out)
	}
	var peak int64 = -1
	if b, err := os.ReadFile(peakFile); err == nil {
		if kb, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			peak = kb << 10
		}
	}
	table.add(attackRow{row: "hostile names", server: "`leakui top`", what: "function names with NUL, ESC, CR and U+202E, printed by `leakui top`",
		answer: "exit 0, each written as %q writes it", took: took, rssBefore: -1, rssPeak: peak, peakIsOwn: true})
}

// captureTargets are the pprof endpoints the open server may capture from:
// "pprof" serves this test process's real heap profile, "redirect" redirects
// to another server (which counts the requests that reach it), "html" answers
// a sign-in page, "flip" a heap profile and then goroutine profiles.
type captureTargets struct {
	urls          map[string]string
	elsewhereHits atomic.Int64
}

func startCaptureTargets(t *testing.T) *captureTargets {
	c := &captureTargets{urls: map[string]string{}}
	heap := func(w http.ResponseWriter, _ *http.Request) { rpprof.Lookup("heap").WriteTo(w, 0) }
	serve := func(name string, h http.HandlerFunc) *httptest.Server {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		if name != "" {
			c.urls[name] = srv.URL
		}
		return srv
	}
	elsewhere := serve("", func(w http.ResponseWriter, r *http.Request) { c.elsewhereHits.Add(1); heap(w, r) })
	serve("pprof", heap)
	serve("redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	})
	serve("html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><html><body><h1>Sign in</h1></body></html>\n"))
	})
	var flips atomic.Int64
	serve("flip", func(w http.ResponseWriter, r *http.Request) {
		if flips.Add(1) == 1 {
			heap(w, r)
			return
		}
		rpprof.Lookup("goroutine").WriteTo(w, 0)
	})
	return c
}

// startRun posts a spec to /api/runs and waits for the run to end.
func (l *limitedServer) startRun(t *testing.T, spec string) runState {
	t.Helper()
	code, out := l.post(t, "/api/runs", spec)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs %s: %d %v", spec, code, out)
	}
	return l.waitRun(t, out["id"], 2*time.Minute)
}

// capture captures three heap snapshots, a second apart, from a target and
// waits for the run to end.
func (l *limitedServer) capture(t *testing.T, target string) runState {
	t.Helper()
	code, out := l.post(t, "/api/captures", `{"target":"`+target+`","what":"heap","interval":"1s","count":3}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/captures from %s: %d %v", target, code, out)
	}
	return l.waitRun(t, out["id"], 2*time.Minute)
}

// trickledUpload starts an upload of 100,000 bytes, sends one and goes
// silent; it returns the status of the answer, which must close the
// connection.
func trickledUpload(t *testing.T, base string) int {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/artifacts HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n-",
		strings.TrimPrefix(base, "http://"))
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Errorf("a trickled upload got no answer: %v", err)
		return 0
	}
	body, _ := io.ReadAll(resp.Body) // ends when the server closes the connection
	resp.Body.Close()
	if !strings.Contains(string(body), "idle-body-timeout") {
		t.Errorf("a trickled upload: %d %s", resp.StatusCode, body)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the trickled upload's connection is still open (%v)", err)
	}
	return resp.StatusCode
}

// stalledDownloads opens 8 downloads of path (size bytes) with receive
// buffers of 4 KiB, reads nothing for 3 s, then reads what the server sent
// before it cut them: each must end, short of the whole.
func stalledDownloads(t *testing.T, base, path string, size int64) string {
	dialer := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	host := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	for range 8 {
		conn, err := dialer.DialContext(context.Background(), "tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host)
		conns = append(conns, conn)
	}
	time.Sleep(3 * time.Second)
	var most int64
	for _, conn := range conns {
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := io.Copy(io.Discard, conn)
		if err != nil {
			t.Errorf("a stalled download after %d bytes: %v (the server kept it open)", n, err)
		}
		if n >= size {
			t.Errorf("a stalled download got all %d bytes: it was not cut", n)
		}
		most = max(most, n)
	}
	return fmt.Sprintf("8 cut, each at most %d KiB of %d MiB", most>>10, size>>20)
}

// signIn posts the token to /login with the given headers and returns the
// session cookie's value, the Set-Cookie header and the time of the answer
// (the session expires at most its lifetime after it).
func signIn(t *testing.T, base, token string, header ...string) (value, raw string, at time.Time) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := clientFrom(t, "127.0.0.1").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	at = time.Now()
	for _, c := range resp.Cookies() {
		if c.Name == "leakui_session" {
			return c.Value, resp.Header.Get("Set-Cookie"), at
		}
	}
	t.Fatalf("POST /login: %d without a session cookie", resp.StatusCode)
	return "", "", at
}

// withSessionCookie sends a request with a session cookie and returns the
// status.
func withSessionCookie(t *testing.T, method, url, session string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.AddCookie(&http.Cookie{Name: "leakui_session", Value: session})
	resp, err := clientFrom(t, "127.0.0.1").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// logLine is the server's log line with both words in it.
func logLine(log, msg, id string) string {
	for line := range strings.Lines(log) {
		if strings.Contains(line, msg) && strings.Contains(line, id) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// checkNoCrash fails the test if the server's log shows a panic or a fatal
// error of the Go runtime.
func checkNoCrash(t *testing.T, s *server) {
	t.Helper()
	if log := s.log.String(); strings.Contains(log, "panic:") || strings.Contains(log, "fatal error:") {
		t.Errorf("the server's log shows a crash:\n%s", log)
	}
}
