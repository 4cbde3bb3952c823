package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"
)

// The leaky helper's counts: goroutines stranded on unreachable channels (proven
// leaked) and goroutines blocked on a reachable one (not leaked).
const (
	leakyStranded = 7
	leakyBlocked  = 4
)

// buildWithLeakProfile builds the package dir into bin with
// GOEXPERIMENT=goroutineleakprofile; a toolchain that does not know the experiment
// ends the test through testtool.Missing (a failure under CI=true).
func buildWithLeakProfile(t *testing.T, dir, bin string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", bin, dir)
	cmd.Env = append(os.Environ(), "GOEXPERIMENT=goroutineleakprofile")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	if strings.Contains(string(out), "GOEXPERIMENT") || strings.Contains(string(out), "goroutineleakprofile") {
		testtool.Missing(t, "GOEXPERIMENT=goroutineleakprofile", "use Go 1.26 or later", "the toolchain refused the experiment: "+strings.TrimSpace(string(out)))
	}
	t.Fatalf("go build %s: %v\n%s", dir, err, out)
}

// startLeaky builds and starts testdata/leaky and returns its pprof address; it
// stops when the test ends.
func startLeaky(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leaky")
	buildWithLeakProfile(t, "./testdata/leaky", bin)
	cmd := exec.Command(bin, "-leak", fmt.Sprint(leakyStranded), "-blocked", fmt.Sprint(leakyBlocked))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("leaky did not stop when its stdin closed")
		}
	})
	if err != nil {
		t.Fatalf("leaky printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// fetchTo GETs url into a file in dir and returns its path.
func fetchTo(t *testing.T, url, dir, name string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, data)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// leakReport is what the test reads of a goroutine report's JSON, from the CLI or
// from the web.
type leakReport struct {
	Total         int    `json:"total"`
	Format        string `json:"format"`
	ProvenLeaked  bool   `json:"proven_leaked"`
	Leaked        int    `json:"leaked"`
	LeakProofHint string `json:"leak_proof_hint"`
	Groups        []struct {
		Count int      `json:"count"`
		State string   `json:"state"`
		Stack []string `json:"stack"`
	} `json:"groups"`
}

// countIn sums the groups whose stack holds fn, and the goroutines of the others.
func (r leakReport) countIn(fn string) (in, other int) {
	for _, g := range r.Groups {
		if slices.Contains(g.Stack, fn) {
			in += g.Count
		} else {
			other += g.Count
		}
	}
	return in, other
}

// checkProven checks a report of the goroutineleak profile: exactly the stranded
// goroutines, proven leaked, in one group of main.strand.func1, none of main.park.
func checkProven(t *testing.T, what string, r leakReport) {
	t.Helper()
	in, other := r.countIn("main.strand.func1")
	parked, _ := r.countIn("main.park")
	if !r.ProvenLeaked || r.Total != leakyStranded || r.Leaked != leakyStranded || in != leakyStranded || other != 0 || parked != 0 || len(r.Groups) != 1 || r.LeakProofHint != "" {
		t.Errorf("%s: proven_leaked %v, total %d, leaked %d, %d in main.strand.func1 (want %d), %d elsewhere, %d in main.park, %d groups, hint %q",
			what, r.ProvenLeaked, r.Total, r.Leaked, in, leakyStranded, other, parked, len(r.Groups), r.LeakProofHint)
	}
}

// TestGoroutineLeakProof builds testdata/leaky with GOEXPERIMENT=goroutineleakprofile,
// captures its /debug/pprof/goroutineleak over HTTP (debug=0, 1 and 2) and its
// ordinary goroutine profile, and checks that `leakui goroutines` and a web upload
// show exactly the stranded goroutines as proven leaked, in their group, and none of
// the goroutines blocked on a reachable channel.
func TestGoroutineLeakProof(t *testing.T) {
	addr := startLeaky(t)
	dir := t.TempDir()
	base := "http://" + addr + "/debug/pprof/"
	proto := fetchTo(t, base+"goroutineleak", dir, "leak.pb.gz")
	text := fetchTo(t, base+"goroutineleak?debug=1", dir, "leak.txt")
	full := fetchTo(t, base+"goroutineleak?debug=2", dir, "leak-full.txt")
	plain := fetchTo(t, base+"goroutine?debug=1", dir, "goroutine.txt")

	cli := func(file string) leakReport {
		t.Helper()
		code, out, errOut := runGoroutinesCLI(t, "", "goroutines", "-json", file)
		if code != 0 {
			t.Fatalf("leakui goroutines -json %s: exit %d\n%s", file, code, errOut)
		}
		var r leakReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		return r
	}
	checkProven(t, "goroutines -json debug=0", cli(proto))
	checkProven(t, "goroutines -json debug=1", cli(text))

	// debug=2 is every goroutine, the leaked ones marked "(leaked)" in their state.
	r := cli(full)
	if r.ProvenLeaked || r.Leaked != leakyStranded {
		t.Errorf("debug=2: proven_leaked %v, leaked %d, want false and %d", r.ProvenLeaked, r.Leaked, leakyStranded)
	}
	for _, g := range r.Groups {
		leaked := strings.HasSuffix(g.State, " (leaked)")
		switch {
		case slices.Contains(g.Stack, "main.strand.func1"):
			if !leaked || g.Count != leakyStranded {
				t.Errorf("debug=2: the stranded group is %d × %q, want %d × leaked", g.Count, g.State, leakyStranded)
			}
		case slices.Contains(g.Stack, "main.park"):
			if leaked || g.Count != leakyBlocked {
				t.Errorf("debug=2: the parked group is %d × %q, want %d not leaked", g.Count, g.State, leakyBlocked)
			}
		case leaked:
			t.Errorf("debug=2: %d × %v leaked", g.Count, g.Stack)
		}
	}

	// The ordinary goroutine profile proves nothing and says how to get the proof.
	r = cli(plain)
	if in, _ := r.countIn("main.park"); r.ProvenLeaked || r.Leaked != 0 || !strings.Contains(r.LeakProofHint, "GOEXPERIMENT=goroutineleakprofile") || !strings.Contains(r.LeakProofHint, "/debug/pprof/goroutineleak") || in != leakyBlocked {
		t.Errorf("goroutine?debug=1: proven_leaked %v, leaked %d, hint %q, %d in main.park (want %d)", r.ProvenLeaked, r.Leaked, r.LeakProofHint, in, leakyBlocked)
	}
	for _, file := range []string{text, proto} {
		code, out, _ := runGoroutinesCLI(t, "", "goroutines", file)
		if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("Proven leaked: %d goroutines, by the Go runtime", leakyStranded)) ||
			!strings.Contains(out, fmt.Sprintf("the largest group is %d goroutines in main.strand.func1.", leakyStranded)) ||
			!strings.Contains(out, "proven leaked by the Go runtime (goroutineleak profile)") || !strings.Contains(out, fmt.Sprintf("%d goroutines in 1 group", leakyStranded)) {
			t.Errorf("leakui goroutines text of %s: exit %d\n%s", filepath.Base(file), code, out)
		}
	}
	code, out, _ := runGoroutinesCLI(t, "", "top", "-json", proto)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(`"proven_leaked": true,
  "leaked": %d`, leakyStranded)) {
		t.Errorf("leakui top -json of the proto: exit %d, no proven_leaked: %d\n%s", code, leakyStranded, out)
	}
	code, out, _ = runGoroutinesCLI(t, "", "goroutines", plain)
	if code != 0 || !strings.Contains(out, "GOEXPERIMENT=goroutineleakprofile") {
		t.Errorf("leakui goroutines on a goroutine profile says nothing of the proof: exit %d\n%s", code, out)
	}

	// leakui top prints pprof's text and says on stderr what the profile is; leakui
	// series names the proof in its "by" line.
	code, out, errOut := runGoroutinesCLI(t, "", "top", proto)
	if code != 0 || !strings.Contains(out, "Type: goroutineleak") || !strings.Contains(errOut, "proven leaked by the Go runtime") {
		t.Errorf("leakui top: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runGoroutinesCLI(t, "", "top", text)
	if code != 0 || !strings.Contains(errOut, "proven leaked by the Go runtime") {
		t.Errorf("leakui top debug=1: exit %d\n%s", code, errOut)
	}
	snaps := []string{proto}
	for i := range 2 {
		time.Sleep(1100 * time.Millisecond) // profiles are ordered by their time, in seconds
		snaps = append(snaps, fetchTo(t, base+"goroutineleak", dir, fmt.Sprintf("leak%d.pb.gz", i)))
	}
	// A series of them is a leak however flat: the runtime proved them leaked.
	code, out, errOut = runGoroutinesCLI(t, "", append([]string{"series"}, snaps...)...)
	if code != seriesLeakExit || !strings.HasPrefix(out, fmt.Sprintf("LEAK SUSPECTED: Proven leaked: %d goroutines in the last snapshot", leakyStranded)) ||
		!strings.Contains(out, "proven leaked by the Go runtime") || !strings.Contains(out, fmt.Sprintf("Total:     %d → %d", leakyStranded, leakyStranded)) {
		t.Errorf("leakui series: exit %d\n%s\n%s", code, out, errOut)
	}

	// The web: the proto is a profile report whose goroutine groups view is headed
	// by the proof; the debug=1 text a goroutines report.
	m := openMain(t, t.TempDir())
	web := "http://" + m.Addr
	// The protos uploaded together are a series that says what they prove.
	var series struct {
		Kind     string `json:"kind"`
		Analysis struct {
			Verdict      string `json:"verdict"`
			Reason       string `json:"reason"`
			ProvenLeaked bool   `json:"proven_leaked"`
			Leaked       int64  `json:"leaked"`
		} `json:"analysis"`
	}
	seriesLink := uploadFiles(t, web, snaps)
	getJSON(t, web+"/api/reports/"+path.Base(seriesLink), &series)
	proof := fmt.Sprintf("Proven leaked: %d goroutines in the last snapshot", leakyStranded)
	if a := series.Analysis; series.Kind != "series" || a.Verdict != "leak" || !a.ProvenLeaked || a.Leaked != leakyStranded || !strings.HasPrefix(a.Reason, proof) {
		t.Errorf("web series of the protos: %s %+v", series.Kind, a)
	}
	for _, u := range []string{web + seriesLink, web + seriesLink + ".md"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), proof) {
			t.Errorf("%s does not say %q", u, proof)
		}
	}
	for _, c := range []struct{ file, query string }{{proto, "?view=goroutines"}, {text, ""}} {
		status, link := uploadFile(t, web, c.file)
		if status != 201 || link == "" {
			t.Fatalf("upload %s: %d %q", c.file, status, link)
		}
		id := path.Base(link)
		var doc struct {
			Kind     string     `json:"kind"`
			Analysis leakReport `json:"analysis"`
		}
		resp, err := http.Get(web + "/api/reports/" + id + c.query)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s JSON: %d %v", c.file, resp.StatusCode, err)
		}
		checkProven(t, "web "+filepath.Base(c.file), doc.Analysis)
		resp, err = http.Get(web + link + c.query)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(page), "Proven leaked by the Go runtime") || !strings.Contains(string(page), "main.strand.func1") || strings.Contains(string(page), "main.park") {
			t.Errorf("web page of %s (%s): not headed as proven leaked, or wrong groups", filepath.Base(c.file), doc.Kind)
		}
		if c.query != "" {
			// The profile's top table carries the proof in its JSON.
			var top struct {
				Profile struct {
					Top struct {
						ProvenLeaked bool  `json:"proven_leaked"`
						Leaked       int64 `json:"leaked"`
					} `json:"top"`
				} `json:"profile"`
			}
			getJSON(t, web+"/api/reports/"+id, &top)
			if tp := top.Profile.Top; !tp.ProvenLeaked || tp.Leaked != leakyStranded {
				t.Errorf("web top JSON of the proto: proven_leaked %v, leaked %d; want true, %d", tp.ProvenLeaked, tp.Leaked, leakyStranded)
			}
			// The profile's default view (top) says what the profile is.
			resp, err = http.Get(web + link)
			if err != nil {
				t.Fatal(err)
			}
			page, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(page), "proven leaked by the Go runtime") {
				t.Errorf("the top view of %s does not say its goroutines are proven leaked", filepath.Base(c.file))
			}
		}
	}
}
