package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/golden"
	"github.com/leakui/leakui/internal/testtool"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
)

// updateGolden rewrites the golden files instead of comparing with them:
// go test ./web -run TestGoldenAnswers -update.
var updateGolden = flag.Bool("update", false, "rewrite web/testdata/golden from the server's answers instead of comparing them")

// goldenDir holds one file per answer TestGoldenAnswers records.
const goldenDir = "testdata/golden"

// goldenBaseURL is the server's -base-url, so absolute links do not carry the
// test server's port.
const goldenBaseURL = "http://leakui.test"

// TestGoldenAnswers uploads a fixed set of real inputs of every kind, records
// lab runs through the server's recorder, and compares every answer the server
// gives about them (pages, JSON, Markdown, images, downloads, events, errors)
// byte for byte with its golden file under testdata/golden; -update rewrites
// them. Reports get ids and times that depend only on the order they were made
// in (golden.Store), so nothing is scrubbed. Every route of the router must be
// reached, and every golden file recorded, so that moving the handlers between
// packages can neither drop a route nor change an answer unseen.
func TestGoldenAnswers(t *testing.T) {
	// The dashboard offers the lab's jvm run only where a JDK is.
	for _, tool := range []string{"javac", "java", "jcmd"} {
		testtool.Require(t, "jdk", tool)
	}
	g := newGoldenSession(t)
	g.uploads()
	g.runs()
	g.waitForAnalyses()
	g.reads()
	g.writes()
	g.incidents()
	g.watches()
	g.ops()
	g.finish()
}

// goldenSession is one server over a golden.Store and the answers recorded
// from it.
type goldenSession struct {
	t       *testing.T
	srv     *Server
	store   *golden.Store
	tracker *golden.Tracker
	url     string
	client  *http.Client
	// refs are what {name} in a path stands for: report ids by the name of
	// their upload ("heap"), run ids ("run:checkpoint"), artifact hashes
	// ("sha:heap").
	refs    map[string]string
	written map[string]bool
	// byRoute lists the golden answers each route gave.
	byRoute map[golden.Route][]string
}

func newGoldenSession(t *testing.T) *goldenSession {
	db, err := sqlite.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gs := golden.NewStore(db)
	// Every limit that otherwise depends on the machine (its CPUs, its memory
	// limit) is set, so the answers are the same on every machine.
	srv, err := NewServer(Config{
		Store: gs, TempDir: t.TempDir(), BaseURL: goldenBaseURL, Jobs: testJobs(t, db),
		Lab:         &lab.Config{TempDir: t.TempDir()},
		Targets:     lab.Targets{"api": "http://127.0.0.1:9"},
		MaxAnalyses: 8, MaxAPIReads: 8, MaxUploads: 8, MaxDownloads: 8, MaxPerClient: 4,
		MemoryBudget: 2 << 30, MaxDecompressed: 512 << 20,
		UploadsPerMinute: -1, RunsPerMinute: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	g := &goldenSession{t: t, srv: srv, store: gs, tracker: golden.NewTracker(srv, srv.router),
		refs: map[string]string{}, written: map[string]bool{}, byRoute: map[golden.Route][]string{},
		client: &http.Client{Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	ts := httptest.NewServer(g.tracker)
	g.url = ts.URL
	t.Cleanup(func() {
		srv.BeginShutdown()
		ts.Close()
		srv.Close()
		db.Close()
	})
	return g
}

// answer is one response.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// goldenRef matches {name} in a path.
var goldenRef = regexp.MustCompile(`\{[a-z0-9:-]+\}`)

// expand replaces each {name} in s by what it stands for.
func (g *goldenSession) expand(s string) string {
	g.t.Helper()
	return goldenRef.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := g.refs[m[1:len(m)-1]]
		if !ok {
			g.t.Fatalf("%s names nothing recorded", m)
		}
		return v
	})
}

// do sends a request (header as name, value pairs), records or compares its
// answer as the golden file name, and returns it.
func (g *goldenSession) do(name, method, target string, body []byte, header ...string) answer {
	g.t.Helper()
	target = g.expand(target)
	req, err := http.NewRequest(method, g.url+target, bytes.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	shown := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
		shown.Set(header[i], header[i+1])
	}
	resp, err := g.client.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, target, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, target, err)
	}
	a := answer{resp.StatusCode, resp.Header, b}
	if name == "" {
		return a
	}
	file := name + golden.Ext
	if g.written[file] {
		g.t.Fatalf("two answers are recorded as %s", file)
	}
	g.written[file] = true
	g.byRoute[g.tracker.Last()] = append(g.byRoute[g.tracker.Last()], name)
	for _, id := range g.store.RealIDs() {
		if bytes.Contains(b, []byte(id)) {
			g.t.Errorf("%s %s: the answer carries the database's report id %s: wrap the Store method that returned it in golden.Store", method, target, id)
		}
	}
	got := golden.Format(golden.Request{Method: method, Target: target, Header: shown}, a.status, a.header, b)
	if err := golden.Compare(path.Join(goldenDir, file), got, *updateGolden); err != nil {
		g.t.Errorf("%s %s (route %s): %v", method, target, g.tracker.Last(), err)
	}
	return a
}

// get records a GET.
func (g *goldenSession) get(name, target string, header ...string) answer {
	g.t.Helper()
	return g.do(name, http.MethodGet, target, nil, header...)
}

// goldenFile is one file of an upload: a fixture (dir/name under testdata) or
// bytes made here.
type goldenFile struct {
	name string
	data []byte
}

func (g *goldenSession) fixture(dir, name string) goldenFile {
	g.t.Helper()
	b, err := os.ReadFile(fixtures.Path(g.t, dir, name))
	if err != nil {
		g.t.Fatal(err)
	}
	return goldenFile{name, b}
}

// multipart builds an upload body with a fixed boundary (fields in the order
// given, as name, value pairs) and returns it with its content type.
func goldenMultipart(t *testing.T, files []goldenFile, fields ...string) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.SetBoundary("leakui-golden-boundary"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// upload posts files to /api/artifacts, records the answer as upload/NAME, and
// notes the report as {NAME} and the first file's hash as {sha:NAME}.
func (g *goldenSession) upload(name string, files []goldenFile, fields ...string) answer {
	g.t.Helper()
	body, ct := goldenMultipart(g.t, files, fields...)
	a := g.do("upload/"+name, http.MethodPost, "/api/artifacts", body, "Content-Type", ct)
	var up struct {
		ReportID  string `json:"report_id"`
		Artifacts []struct {
			SHA256 string `json:"sha256"`
		} `json:"artifacts"`
	}
	if json.Unmarshal(a.body, &up) == nil && up.ReportID != "" {
		g.refs[name] = up.ReportID
		g.refs["sha:"+name] = up.Artifacts[0].SHA256
	} else if a.status < 400 {
		g.t.Fatalf("upload %s: %d %s", name, a.status, a.body)
	}
	return a
}

// gzipped compresses b.
func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// uploads makes the reports of every kind the reads look at, recording each
// upload's answer, and the upload errors.
func (g *goldenSession) uploads() {
	t := g.t
	pp := func(name string) goldenFile { return g.fixture("pprof", name) }
	gr := func(name string) goldenFile { return g.fixture("goroutines", name) }
	jv := func(name string) goldenFile { return g.fixture("jvm", name) }
	ls := func(name string) goldenFile { return g.fixture("leakshape", name) }
	lg := func(name string) goldenFile { return g.fixture("logs", name) }

	// Profiles: one of each type, a diff, a series (uploaded out of time
	// order), goroutine profiles alone and compared, a legacy text profile.
	g.upload("heap", []goldenFile{pp("parca-self-heap-t9-1644509299.pb.gz")}, "label", "INC-1234 checkout OOM")
	g.upload("heap-base", []goldenFile{pp("parca-self-heap-t0-1644509272.pb.gz")})
	g.upload("cpu", []goldenFile{pp("flameshow-cpu-10s.pb.gz")})
	g.upload("goroutine-profile", []goldenFile{pp("goprofnotes-goroutine-snap2-debug0.pb.gz")})
	g.upload("goroutine-profile-diff", []goldenFile{pp("goprofnotes-goroutine-snap1-debug0.pb.gz"), pp("goprofnotes-goroutine-snap2-debug0.pb.gz")})
	g.upload("heap-diff", []goldenFile{pp("parca-self-heap-t0-1644509272.pb.gz"), pp("parca-self-heap-t6-1644509290.pb.gz")})
	g.upload("heap-series", []goldenFile{pp("parca-self-heap-t9-1644509299.pb.gz"), pp("parca-self-heap-t0-1644509272.pb.gz"), pp("parca-self-heap-t6-1644509290.pb.gz")})
	g.upload("legacy-heap", []goldenFile{pp("google-pprof-gobench-legacy-text.heap")})
	g.upload("threadcreate", []goldenFile{pp("google-pprof-godoc-legacy-text.threadcreate")})

	// Goroutine dumps: one, two compared, a crash, Go 1.21's creators, the
	// real leak of 20,161 goroutines.
	g.upload("dump", []goldenFile{gr("goprofnotes-snap2-debug2.txt")})
	g.upload("dump-diff", []goldenFile{gr("goprofnotes-snap1-debug2.txt"), gr("goprofnotes-snap2-debug2.txt")})
	g.upload("dump-crash", []goldenFile{gr("gin-fatal-error-unexpected-signal-darwin.txt")})
	g.upload("dump-creators", []goldenFile{gr("goleak-http-debug2-go121.txt")})
	g.upload("dump-erigon", []goldenFile{gr("erigon-debug1-20161-goroutines.txt")})

	// The JVM: class histograms alone and as a series, thread dumps alone, with
	// a deadlock and compared, native memory alone and compared.
	g.upload("histogram", []goldenFile{ls("leakshape-6-class-histogram.txt")})
	g.upload("histograms", []goldenFile{ls("leakshape-2-class-histogram.txt"), ls("leakshape-4-class-histogram.txt"), ls("leakshape-6-class-histogram.txt")})
	g.upload("threads", []goldenFile{jv("tda-jstack-jdk8-openjdk.log")})
	g.upload("threads-deadlock", []goldenFile{jv("jthreaddump-jstack-deadlock.txt")})
	g.upload("threads-diff", []goldenFile{ls("leakshape-2-thread-dump.txt"), ls("leakshape-4-thread-dump.txt"), ls("leakshape-6-thread-dump.txt")})
	g.upload("nmt", []goldenFile{jv("nmt-summary-jdk17-bytes.txt")})
	g.upload("nmt-diff", []goldenFile{ls("leakshape-2-nmt-summary.txt"), ls("leakshape-4-nmt-summary.txt"), ls("leakshape-6-nmt-summary.txt")})

	// Heap dumps: one analyzed in the background, three compared in the background, and
	// one cut short whose background analysis fails.
	g.upload("heapdump", []goldenFile{ls("leakshape-6.hprof.gz")})
	g.upload("heapdumps", []goldenFile{ls("leakshape-2.hprof.gz"), ls("leakshape-4.hprof.gz"), ls("leakshape-6.hprof.gz")})
	raw, err := io.ReadAll(mustGunzip(t, ls("leakshape-2.hprof.gz").data))
	if err != nil {
		t.Fatal(err)
	}
	g.upload("heapdump-cut", []goldenFile{{"leakshape-2-cut.hprof.gz", gzipped(t, raw[:len(raw)/2])}})

	// Logs: a preset's pairs with keys never closed, and patterns of one's own.
	g.upload("log-kafka", []goldenFile{lg("kafka-2.1.1-broker-server.log.2020-02-14-00")}, "preset", "kafka-group-members", "label", "INC-77 rebalance storm")
	g.upload("log-zookeeper", []goldenFile{lg("loghub-Zookeeper_2k.log")},
		"p1", "WARN", "p2", "ERROR|FATAL", "re2", "1", "pair1", "sessions=Established session,Closed socket connection", "bucket", "6h")

	// What an upload refuses.
	g.upload("error-empty", []goldenFile{{"empty.pb.gz", nil}})
	g.upload("error-unsupported", []goldenFile{g.fixture("hostile", "random.bin")})
	g.upload("error-mixed-kinds", []goldenFile{pp("flameshow-heap.pb.gz"), gr("goprofnotes-snap1-debug2.txt")})
	g.upload("error-mixed-types", []goldenFile{pp("parca-self-heap-t0-1644509272.pb.gz"), pp("flameshow-cpu-10s.pb.gz")})
	g.upload("error-truncated", []goldenFile{g.fixture("hostile", "truncated.pb.gz")})
	body, ct := goldenMultipart(t, nil, "label", "no file")
	g.do("upload/error-no-file", http.MethodPost, "/api/artifacts", body, "Content-Type", ct)
	g.do("upload/error-not-multipart", http.MethodPost, "/api/artifacts", []byte("{}"), "Content-Type", "application/json")

	// The dashboard's form answers with a redirect to the report.
	body, ct = goldenMultipart(t, []goldenFile{pp("goprofnotes-block-net.pb.gz")})
	a := g.do("upload/form", http.MethodPost, "/upload", body, "Content-Type", ct)
	g.refs["block"] = strings.TrimPrefix(a.header.Get("Location"), "/r/")

	// An upload only the deletion at the end uses.
	block, err := io.ReadAll(mustGunzip(t, pp("goprofnotes-block-net.pb.gz").data))
	if err != nil {
		t.Fatal(err)
	}
	g.upload("delete-me", []goldenFile{{"block-again.pb.gz", gzipped(t, block)}})

	// Capture bundles of a real JVM: one alone, and the pair before and after
	// 20,000 GZIPInputStreams were dropped unclosed.
	cb := func(name string) goldenFile { return g.fixture("capture", name) }
	g.upload("capture", []goldenFile{cb("jvm-unclosed-gzip-after.tar.gz")})
	g.upload("capture-pair", []goldenFile{cb("jvm-unclosed-gzip-before.tar.gz"), cb("jvm-unclosed-gzip-after.tar.gz")})
}

func mustGunzip(t *testing.T, b []byte) io.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// goldenLeakProfile is a goroutineleak profile of n goroutines in one function,
// as a target built with GOEXPERIMENT=goroutineleakprofile serves it.
func goldenLeakProfile(t *testing.T, n int64) []byte {
	fn := &profile.Function{ID: 1, Name: "main.strand.func1", Filename: "/src/main.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 55}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "goroutineleak", Unit: "count"}},
		PeriodType: &profile.ValueType{Type: "goroutineleak", Unit: "count"}, Period: 1,
		Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{n}}},
		Location: []*profile.Location{loc}, Function: []*profile.Function{fn},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// goldenProgress is a run's progress after steps steps of unit, its memory
// growing step by step; counters are the workload's own.
func goldenProgress(steps int64, unit string, counters map[string]int64, offheap int64) lab.Progress {
	p := lab.Progress{Status: lab.StatusRunning, Step: steps, Steps: steps, StepName: unit, Counters: counters, Snapshots: 3,
		StartedAt: golden.Epoch, UpdatedAt: golden.Epoch.Add(time.Duration(steps) * 500 * time.Millisecond),
		ElapsedMs: steps * 500}
	for i := int64(1); i <= steps; i++ {
		p.Points = append(p.Points, lab.Point{Step: i, Goroutines: 12 + 2*i, HeapInuse: 4<<20 + i*(256<<10), RSS: 24<<20 + i*(1<<20),
			Open: i, OffHeap: i * offheap, At: golden.Epoch.Add(time.Duration(i) * 500 * time.Millisecond).UnixMilli()})
	}
	last := p.Points[len(p.Points)-1]
	p.Memory = lab.Memory{Goroutines: last.Goroutines, HeapInuse: last.HeapInuse, RSS: last.RSS}
	return p
}

// record plays a run into the server's recorder, as the lab does: it stores
// the run, its progress, its captures, and its end.
func (g *goldenSession) record(ref string, n int, spec lab.Spec, p lab.Progress, end lab.Progress, captures []lab.Capture) {
	t := g.t
	t.Helper()
	ctx := t.Context()
	id := golden.StableID("run", n)
	g.refs["run:"+ref] = id
	specJSON, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.store.CreateRun(ctx, &store.Run{ID: id, Workload: spec.Workload, Spec: specJSON, Owner: "golden",
		LeaseUntil: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// The lab's recorder: the server's own. (The one line of this test, with
	// srv.router, that names the server's insides.)
	var rec lab.Recorder = g.srv.runs.Recorder()
	if err := rec.Progress(ctx, id, p, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, c := range captures {
		if err := rec.Capture(ctx, id, c); err != nil {
			t.Fatalf("run %s: capture %s: %v", ref, c.Name, err)
		}
	}
	if err := rec.Finish(ctx, id, spec, end); err != nil {
		t.Fatalf("run %s: %v", ref, err)
	}
	run, err := g.store.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.ReportID != "" {
		g.refs["run-report-"+ref] = run.ReportID
	}
}

// runs records four lab runs: a checkpoint run that leaked (profiles, proven
// leaked goroutines, its log), a jvm run (jcmd outputs, which make JVM reports
// of their own), a capture from a target (a series report), and a cancelled
// run with nothing to report.
func (g *goldenSession) runs() {
	t := g.t
	read := func(dir, name string) []byte { return g.fixture(dir, name).data }
	at := func(i int) time.Time { return golden.Epoch.Add(time.Duration(i) * 2 * time.Second) }

	spec := lab.Spec{Workload: lab.WorkloadCheckpoint, Variant: "leaky", Mode: "active", Scenario: "storm", Cycles: 12, Tasks: 1}
	counters := map[string]int64{"consumer_starts": 12, "consumer_stops": 0, "open_consumers": 12}
	p := goldenProgress(12, "cycle", counters, 0)
	end := p
	end.Status, end.Verdict, end.Reason = lab.StatusDone, lab.VerdictLeak, "12 consumers were started and 12 were never closed"
	var caps []lab.Capture
	for i, f := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		caps = append(caps, lab.Capture{Role: "heap", Step: int64(4 * i), Name: fmt.Sprintf("heap-%05d.pb.gz", 4*i), Data: read("pprof", f), TakenAt: at(3 * i)})
	}
	for i, f := range []string{"goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz", "flameshow-goroutine.pb.gz"} {
		caps = append(caps, lab.Capture{Role: "goroutine", Step: int64(4 * i), Name: fmt.Sprintf("goroutine-%05d.pb.gz", 4*i), Data: read("pprof", f), TakenAt: at(3*i + 1)})
	}
	for i, n := range []int64{2, 12} {
		caps = append(caps, lab.Capture{Role: lab.RoleGoroutineLeak, Step: int64(11 * i), Name: fmt.Sprintf("goroutineleak-%05d.pb.gz", 11*i),
			Data: goldenLeakProfile(t, n), TakenAt: at(3*i + 2)})
	}
	caps = append(caps, lab.Capture{Role: "log", Step: 12, Name: "checkpoint.log", Data: read("logs", "kafka-2.1.1-broker-server.log.2020-02-13-23"), TakenAt: at(20)})
	g.record("checkpoint", 1, spec, p, end, caps)

	spec = lab.Spec{Workload: lab.WorkloadRecovery, Variant: lab.VariantJVM, Codec: "gzip", Format: "v0", Partitions: 1, Segments: 4, Batches: 50, Records: 20, ValueBytes: 512}
	counters = map[string]int64{"iterators_opened": 200, "iterators_closed": 150, "batches": 200, "jvm_streams": 50,
		"jvm_rss_before": 40 << 20, "jvm_rss_after": 52 << 20, "jvm_bytes_per_open_stream": 251658, "jvm_nmt_committed_before": 48 << 20, "jvm_nmt_committed_after": 49 << 20}
	p = goldenProgress(4, "segment", counters, 1<<20)
	end = p
	end.Status, end.Verdict, end.Reason = lab.StatusDone, lab.VerdictLeak, "50 deep iterators were opened and never closed"
	caps = []lab.Capture{
		{Role: lab.RoleJVM, Step: 0, Name: "jvm-nmt-before.txt", Data: read("leakshape", "leakshape-2-nmt-summary.txt"), TakenAt: at(1)},
		{Role: lab.RoleJVM, Step: 4, Name: "jvm-nmt-after.txt", Data: read("leakshape", "leakshape-6-nmt-summary.txt"), TakenAt: at(5)},
		{Role: lab.RoleJVM, Step: 4, Name: "jvm-class-histogram.txt", Data: read("leakshape", "leakshape-6-class-histogram.txt"), TakenAt: at(6)},
		{Role: "log", Step: 4, Name: "recovery.log", Data: read("logs", "kafka-3.6.2-broker-server.log"), TakenAt: at(7)},
	}
	g.record("jvm", 2, spec, p, end, caps)

	spec = lab.Spec{Workload: lab.WorkloadCapture, Variant: "api", Mode: "goroutine", Cycles: 3}
	p = lab.Progress{Status: lab.StatusRunning, Step: 3, Steps: 3, Snapshots: 3, Counters: map[string]int64{}, StartedAt: golden.Epoch, ElapsedMs: 2000}
	end = p
	end.Status = lab.StatusDone
	caps = nil
	for i, f := range []string{"goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz", "flameshow-goroutine.pb.gz"} {
		caps = append(caps, lab.Capture{Role: "goroutine", Step: int64(i + 1), Name: fmt.Sprintf("api-goroutine-%03d.pb.gz", i+1), Data: read("pprof", f), TakenAt: at(i)},
			lab.Capture{Role: lab.RoleGoroutineLeak, Step: int64(i + 1), Name: fmt.Sprintf("api-goroutineleak-%03d.pb.gz", i+1), Data: goldenLeakProfile(t, int64(2*i+1)), TakenAt: at(i)})
	}
	g.record("capture", 3, spec, p, end, caps)

	spec = lab.Spec{Workload: lab.WorkloadCheckpoint, Variant: "reset", Mode: "active", Scenario: "storm", Cycles: 12, Tasks: 1}
	p = goldenProgress(3, "cycle", map[string]int64{"consumer_starts": 3, "consumer_stops": 3, "open_consumers": 0}, 0)
	end = p
	end.Status, end.Reason = lab.StatusCancelled, "cancelled"
	g.record("cancelled", 4, spec, p, end, nil)
}

// waitForAnalyses waits until the heap dumps analyzed in the background are
// done or failed.
func (g *goldenSession) waitForAnalyses() {
	for _, name := range []string{"heapdump", "heapdumps", "heapdump-cut"} {
		deadline := time.Now().Add(time.Minute)
		for {
			a := g.get("", "/api/reports/{"+name+"}")
			var doc struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal(a.body, &doc); err != nil {
				g.t.Fatalf("%s: %d %s", name, a.status, a.body)
			}
			if doc.Status != store.ReportAnalyzing {
				break
			}
			if time.Now().After(deadline) {
				g.t.Fatalf("the analysis of %s did not end", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// report records a report's page, JSON and Markdown with each query.
func (g *goldenSession) report(name string, queries ...string) {
	g.t.Helper()
	for _, q := range append([]string{""}, queries...) {
		suffix, query := "", ""
		if q != "" {
			suffix, query = "."+goldenSlug(q), "?"+q
		}
		if a := g.get("reports/"+name+"/page"+suffix, "/r/{"+name+"}"+query); a.status == http.StatusSeeOther {
			// A log report's parameters have one canonical address.
			g.get("reports/"+name+"/page"+suffix+".canonical", a.header.Get("Location"))
		}
		g.get("reports/"+name+"/json"+suffix, "/api/reports/{"+name+"}"+query)
		g.get("reports/"+name+"/markdown"+suffix, "/r/{"+name+"}.md"+query)
	}
}

// goldenSlug makes a query a file name: "view=flame&si=alloc_space" →
// "view-flame_si-alloc-space".
func goldenSlug(q string) string {
	var b strings.Builder
	for _, r := range q {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '&':
			b.WriteByte('_')
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// topFunction is the first function of a profile report's top table.
func (g *goldenSession) topFunction(ref string) string {
	a := g.get("", "/api/reports/{"+ref+"}")
	var doc struct {
		Profile *struct {
			Top struct {
				Rows []struct {
					Name string `json:"name"`
				} `json:"rows"`
			} `json:"top"`
		} `json:"profile"`
	}
	if err := json.Unmarshal(a.body, &doc); err != nil || doc.Profile == nil || len(doc.Profile.Top.Rows) == 0 {
		g.t.Fatalf("%s has no top table: %d %s", ref, a.status, a.body)
	}
	return doc.Profile.Top.Rows[0].Name
}

// reads records every read: the dashboard and its pages, each report in each
// of its views, the dominator tree, downloads, images, events, runs, health,
// static files and the errors of each.
func (g *goldenSession) reads() {
	t := g.t
	home := g.get("dashboard/home", "/")
	g.get("dashboard/search-heap", "/?q=heap")
	g.get("dashboard/search-runs", "/?source=run")
	g.get("dashboard/search-nothing", "/?q=no-such-report")
	g.get("dashboard/search-bad-source", "/?source=elsewhere")
	// Every page of the list, so every report's summary line is recorded.
	nextPage := regexp.MustCompile(`href="(/\?after=[^"#]+)#reports"`)
	next := nextPage.FindSubmatch(home.body)
	if next == nil {
		t.Fatal("the dashboard has no next page: upload more reports than a page lists")
	}
	for pg := 2; next != nil; pg++ {
		a := g.get(fmt.Sprintf("dashboard/page-%d", pg), strings.ReplaceAll(string(next[1]), "&amp;", "&"))
		next = nextPage.FindSubmatch(a.body)
	}
	g.get("dashboard/bad-cursor", "/?after=nonsense")
	g.get("kinds/page", "/kinds")
	g.get("kinds/json", "/kinds", "Accept", "application/json")
	g.get("auth/login-page", "/login")
	g.get("health/healthz", "/healthz")
	g.get("health/healthz-json", "/healthz", "Accept", "application/json")
	g.get("health/readyz", "/readyz")
	g.get("static/favicon", "/favicon.ico")
	css := regexp.MustCompile(`/static/[0-9a-f]+/app\.css`).Find(home.body)
	if css == nil {
		t.Fatal("the dashboard links no app.css")
	}
	g.get("static/app-css", string(css))
	g.get("static/stale-hash", "/static/000000000000/app.css")
	g.get("static/missing", "/static/000000000000/no-such.css")

	g.get("errors/not-found", "/no-such-page")
	g.get("errors/not-found-json", "/no-such-page", "Accept", "application/json")
	g.get("errors/api-not-found", "/api/no-such-thing")
	g.get("errors/report-not-found", "/r/aaaaaaaaaaaaaaaaaaaaaaaaaa")
	g.get("errors/report-bad-id", "/r/not-an-id")
	g.get("errors/report-json-not-found", "/api/reports/aaaaaaaaaaaaaaaaaaaaaaaaaa")
	g.do("errors/method-not-allowed", http.MethodPut, "/", nil)
	g.do("errors/head", http.MethodHead, "/r/{heap}", nil)

	// Downloads, by hash and by a unique prefix of it.
	g.get("artifacts/by-hash", "/a/{sha:heap}")
	g.get("artifacts/by-prefix", "/a/"+g.refs["sha:heap"][:12])
	g.get("artifacts/short-prefix", "/a/"+g.refs["sha:heap"][:4])
	g.get("artifacts/not-found", "/a/"+strings.Repeat("0", 64))

	// Profiles.
	fn := url.QueryEscape(g.topFunction("heap"))
	g.report("heap", "view=flame", "si=alloc_space", "n=5", "sort=cum&n=10", "sort=name&n=10", "trim=pprof", "f=badger&n=10", "i=runtime&h=sync&n=10",
		"f=no-such-function", "view=sandwich&fn="+fn)
	g.get("reports/heap/page.error-mode", "/r/{heap}?mode=diff")
	g.get("reports/heap/page.error-view", "/r/{heap}?view=nonsense")
	g.get("reports/heap/page.error-sample-type", "/r/{heap}?si=nonsense")
	g.get("reports/heap/page.error-filter", "/r/{heap}?f=(")
	g.get("reports/heap/page.error-sort", "/r/{heap}?sort=nonsense")
	g.get("reports/heap/page.error-sandwich", "/r/{heap}?view=sandwich")
	g.get("reports/heap/flame-svg", "/r/{heap}/flame.svg")
	g.get("reports/heap/flame-svg.si-alloc-space", "/r/{heap}/flame.svg?si=alloc_space")
	g.get("reports/heap/chart-not-a-series", "/r/{heap}/charts/totals.svg")
	g.get("reports/heap/dominators-not-a-heap-dump", "/r/{heap}/dominators")
	g.get("reports/heap/keys-not-a-log", "/r/{heap}/keys.csv")
	g.get("reports/heap/events", "/r/{heap}/events")
	g.report("heap-base")
	g.report("cpu", "view=flame")
	g.report("goroutine-profile", "view=goroutines", "view=flame")
	g.report("goroutine-profile-diff", "view=goroutines", "view=goroutines&f=http")
	g.report("heap-diff", "view=flame", "n=5", "mode=profile&file=1", "si=alloc_space")
	g.get("reports/heap-diff/flame-svg", "/r/{heap-diff}/flame.svg")
	g.report("heap-series", "order=2,0,1", "mode=diff", "mode=profile&file=1", "si=inuse_objects")
	g.get("reports/heap-series/chart-totals", "/r/{heap-series}/charts/totals.svg")
	g.get("reports/heap-series/chart-totals.si-inuse-objects", "/r/{heap-series}/charts/totals.svg?si=inuse_objects")
	g.get("reports/heap-series/chart-unknown", "/r/{heap-series}/charts/nonsense.svg")
	g.get("reports/heap-series/flame-svg-series", "/r/{heap-series}/flame.svg")
	g.get("reports/heap-series/flame-svg-diff", "/r/{heap-series}/flame.svg?mode=diff")
	g.get("reports/heap-series/page.error-order", "/r/{heap-series}?order=0,0,1")
	g.report("legacy-heap")
	g.report("threadcreate")
	g.report("block")

	// Goroutine dumps.
	g.report("dump", "split=creator", "n=3")
	g.get("reports/dump/page.error-mode", "/r/{dump}?mode=diff")
	g.get("reports/dump/page.error-split", "/r/{dump}?split=nonsense")
	g.report("dump-diff", "mode=dump&file=0", "n=2")
	g.get("reports/dump-diff/page.error-split", "/r/{dump-diff}?split=creator")
	g.report("dump-crash")
	g.report("dump-creators", "split=creator")
	g.get("reports/dump-erigon/page.n-5", "/r/{dump-erigon}?n=5")
	g.get("reports/dump-erigon/json.n-3", "/api/reports/{dump-erigon}?n=3")
	g.get("reports/dump-erigon/markdown", "/r/{dump-erigon}.md")

	// The JVM.
	g.report("histogram", "sort=instances&n=10", "n=all")
	g.report("histograms", "snapshot=0", "base=1", "n=5&sort=instances")
	g.get("reports/histograms/page.error-snapshot", "/r/{histograms}?snapshot=9")
	g.get("reports/histograms/page.error-same", "/r/{histograms}?base=2")
	g.report("threads")
	g.report("threads-deadlock")
	g.report("threads-diff", "snapshot=1", "n=3")
	g.report("nmt")
	g.report("nmt-diff", "snapshot=0")
	g.report("capture")
	g.report("capture-pair")

	// Heap dumps and the dominator tree of the one analyzed in the background.
	g.report("heapdump")
	dom := g.get("reports/heapdump/dominators-json", "/r/{heapdump}/dominators.json")
	var tree struct {
		Children []struct {
			Ordinal uint32 `json:"ordinal"`
		} `json:"children"`
	}
	if err := json.Unmarshal(dom.body, &tree); err != nil || len(tree.Children) == 0 {
		t.Fatalf("dominators: %d %s", dom.status, dom.body)
	}
	node := fmt.Sprint(tree.Children[0].Ordinal)
	g.get("reports/heapdump/dominators", "/r/{heapdump}/dominators")
	g.get("reports/heapdump/dominators.node", "/r/{heapdump}/dominators?node="+node)
	g.get("reports/heapdump/dominators.node-json", "/r/{heapdump}/dominators?node="+node, "Accept", "application/json")
	g.get("reports/heapdump/dominators.fragment", "/r/{heapdump}/dominators?fragment=1&level=1&node="+node)
	g.get("reports/heapdump/dominators.chain", "/r/{heapdump}/dominators?chain=1&node="+node)
	g.get("reports/heapdump/dominators.offset", "/r/{heapdump}/dominators.json?offset=3")
	g.get("reports/heapdump/dominators.error-node", "/r/{heapdump}/dominators?node=nonsense")
	g.get("reports/heapdump/paths", "/r/{heapdump}/paths/0")
	g.get("reports/heapdump/paths.json", "/r/{heapdump}/paths/0.json")
	g.get("reports/heapdump/paths.offset", "/r/{heapdump}/paths/0?offset=2")
	g.get("reports/heapdump/paths.error-suspect", "/r/{heapdump}/paths/99")
	g.get("reports/heap/paths-not-a-heap-dump", "/r/{heap}/paths/0")
	g.get("reports/heapdump/dominators.no-such-node", "/r/{heapdump}/dominators?node=4000000000")
	g.get("reports/heapdump/events", "/r/{heapdump}/events")
	g.get("reports/heapdump/dominators.group-class", "/r/{heapdump}/dominators.json?group=class")
	g.get("reports/heapdump/dominators.group-auto", "/r/{heapdump}/dominators?group=auto")
	g.get("reports/heapdump/dominators.error-group", "/r/{heapdump}/dominators?group=tree")
	for _, v := range []string{"native", "by-loader", "unreachable", "duplicate-classes"} {
		g.get("reports/heapdump/"+v, "/r/{heapdump}/"+v)
		g.get("reports/heapdump/"+v+"-json", "/r/{heapdump}/"+v+".json")
	}
	g.get("reports/heapdump/by-loader.bootstrap", "/r/{heapdump}/by-loader?loader=bootstrap")
	g.get("reports/heapdump/by-loader.error-loader", "/r/{heapdump}/by-loader?loader=nonsense")
	g.get("reports/heap/unreachable-not-a-heap-dump", "/r/{heap}/unreachable")
	g.get("reports/heapdump/object-path", "/r/{heapdump}/objects/"+node+"/path")
	g.get("reports/heapdump/object-path-json", "/r/{heapdump}/objects/"+node+"/path.json")
	g.get("reports/heapdump/object-path.error-object", "/r/{heapdump}/objects/nonsense/path")
	g.report("heapdumps", "snapshot=1", "n=5", "base=1&target=2")
	g.get("reports/heapdumps/dominators-not-one-dump", "/r/{heapdumps}/dominators")
	g.report("heapdump-cut")
	g.get("reports/heapdump-cut/events", "/r/{heapdump-cut}/events")
	g.get("reports/heapdump-cut/dominators", "/r/{heapdump-cut}/dominators")

	// Logs.
	g.report("log-kafka", "bucket=none", "preset=kafka-3933")
	g.get("reports/log-kafka/keys-csv", "/r/{log-kafka}/keys.csv")
	g.get("reports/log-kafka/chart-open-1", "/r/{log-kafka}/charts/open-1.svg")
	g.get("reports/log-kafka/chart-open-9", "/r/{log-kafka}/charts/open-9.svg")
	g.report("log-zookeeper", "p1=INFO&bucket=1d", "p1=%28&re1=1")
	g.get("reports/log-zookeeper/keys-csv", "/r/{log-zookeeper}/keys.csv")

	// Runs and their reports.
	for _, ref := range []string{"checkpoint", "jvm", "capture", "cancelled"} {
		g.get("runs/"+ref+"/page", "/runs/{run:"+ref+"}")
		g.get("runs/"+ref+"/markdown", "/runs/{run:"+ref+"}.md")
		g.get("runs/"+ref+"/json", "/api/runs/{run:"+ref+"}")
		g.get("runs/"+ref+"/events", "/runs/{run:"+ref+"}/events")
		g.get("runs/"+ref+"/chart-goroutines", "/runs/{run:"+ref+"}/charts/goroutines.svg")
	}
	g.get("runs/checkpoint/chart-memory", "/runs/{run:checkpoint}/charts/memory.svg")
	g.get("runs/checkpoint/chart-open", "/runs/{run:checkpoint}/charts/open.svg")
	g.get("runs/checkpoint/chart-unknown", "/runs/{run:checkpoint}/charts/nonsense.svg")
	g.get("runs/checkpoint/chart-no-extension", "/runs/{run:checkpoint}/charts/memory")
	g.get("runs/jvm/chart-memory", "/runs/{run:jvm}/charts/memory.svg")
	for _, ref := range []string{"checkpoint", "jvm", "capture"} {
		g.report("run-report-" + ref)
	}
	g.get("reports/run-report-checkpoint/chart-open", "/r/{run-report-checkpoint}/charts/open.svg")
	var jvmRun struct {
		JVM []struct {
			Kind     string `json:"kind"`
			ReportID string `json:"report_id"`
		} `json:"jvm"`
	}
	a := g.get("", "/api/reports/{run-report-jvm}")
	var doc struct {
		Summary json.RawMessage `json:"summary"`
	}
	if json.Unmarshal(a.body, &doc) != nil || json.Unmarshal(doc.Summary, &jvmRun) != nil || len(jvmRun.JVM) != 2 {
		t.Fatalf("the jvm run's report names %d JVM reports: %s", len(jvmRun.JVM), a.body)
	}
	for _, ref := range jvmRun.JVM {
		g.refs["run-"+ref.Kind] = ref.ReportID
		g.report("run-" + ref.Kind)
	}
	g.get("runs/compare/a-b", "/runs/compare?a={run:checkpoint}&b={run:cancelled}")
	g.get("runs/compare/picked", "/runs/compare?run={run:cancelled}&run={run:checkpoint}")
	g.get("runs/compare/error-one", "/runs/compare?a={run:checkpoint}")
	g.get("runs/compare/json", "/api/runs/compare?a={run:checkpoint}&b={run:cancelled}")
	g.get("runs/compare/markdown", "/runs/compare.md?a={run:checkpoint}&b={run:cancelled}")
	g.get("runs/errors/not-found", "/runs/aaaaaaaaaaaaaaaaaaaaaaaaaa")
	g.get("runs/errors/json-not-found", "/api/runs/aaaaaaaaaaaaaaaaaaaaaaaaaa")
}

// writes records what changes state, after the reads: a comparison made from
// two reports, pins, a run's log counted as a report, refused runs, captures
// and sign-ins, and a deletion.
func (g *goldenSession) writes() {
	form := func(kv ...string) []byte {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return []byte(v.Encode())
	}
	const formType = "application/x-www-form-urlencoded"
	a := g.do("writes/compare", http.MethodPost, "/r/{heap}/compare", form("base", g.refs["heap-base"]), "Content-Type", formType)
	g.refs["compared"] = strings.TrimPrefix(a.header.Get("Location"), "/r/")
	g.report("compared")
	g.do("writes/compare-json", http.MethodPost, "/r/{heap}/compare", form("base", g.refs["heap-base"]), "Content-Type", formType, "Accept", "application/json")
	g.do("writes/compare-not-profiles", http.MethodPost, "/r/{heap}/compare", form("base", g.refs["dump"]), "Content-Type", formType)
	g.do("writes/pin", http.MethodPost, "/api/reports/{heap}/pin", nil)
	g.do("writes/unpin", http.MethodDelete, "/api/reports/{heap}/pin", nil)
	g.do("writes/pin-not-found", http.MethodPost, "/api/reports/aaaaaaaaaaaaaaaaaaaaaaaaaa/pin", nil)

	a = g.do("writes/run-log", http.MethodPost, "/runs/{run:checkpoint}/log", nil)
	g.refs["run-log"] = strings.TrimPrefix(a.header.Get("Location"), "/r/")
	g.report("run-log")
	g.do("writes/run-log-none", http.MethodPost, "/runs/{run:cancelled}/log", nil)
	g.do("writes/run-cancel-ended", http.MethodPost, "/runs/{run:checkpoint}/cancel", nil)
	g.do("writes/run-cancel-ended-api", http.MethodPost, "/api/runs/{run:checkpoint}/cancel", nil)
	g.do("writes/run-start-bad-json", http.MethodPost, "/api/runs", []byte(`{"workload":`), "Content-Type", "application/json")
	g.do("writes/run-start-bad-spec", http.MethodPost, "/api/runs", []byte(`{"workload":"nonsense"}`), "Content-Type", "application/json")
	g.do("writes/run-start-bad-preset", http.MethodPost, "/api/runs", []byte(`{"preset":"nonsense"}`), "Content-Type", "application/json")
	g.do("writes/run-start-form-bad", http.MethodPost, "/runs", form("workload", "checkpoint", "variant", "leaky", "cycles", "many"), "Content-Type", formType)
	g.do("writes/capture-unknown-target", http.MethodPost, "/api/captures", []byte(`{"target":"db","what":"heap","count":3}`), "Content-Type", "application/json")
	g.do("writes/capture-bad-interval", http.MethodPost, "/api/captures", []byte(`{"target":"api","what":"heap","interval":"often","count":3}`), "Content-Type", "application/json")
	g.do("writes/capture-form-unknown-target", http.MethodPost, "/captures", form("target", "db", "what", "heap", "count", "3"), "Content-Type", formType)
	g.do("writes/login-wrong", http.MethodPost, "/login", form("token", "nonsense"), "Content-Type", formType)
	g.do("writes/logout", http.MethodPost, "/logout", nil)

	g.do("writes/delete-artifact", http.MethodDelete, "/api/artifacts/{sha:delete-me}", nil)
	g.get("writes/deleted-report", "/r/{delete-me}")
	g.do("writes/delete-artifact-again", http.MethodDelete, "/api/artifacts/{sha:delete-me}", nil)
}

// finish fails the test for every route no request reached and every golden
// file no answer was recorded as (-update deletes those).
func (g *goldenSession) finish() {
	t := g.t
	routes, err := golden.Routes(g.srv.router)
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) < 30 {
		t.Fatalf("the router lists %d routes: %v", len(routes), routes)
	}
	if missed := g.tracker.Uncovered(routes); len(missed) > 0 {
		t.Errorf("%d of %d routes have no golden answer: %v\nreached:\n%s", len(missed), len(routes), missed, g.tracker.Reached())
	}
	// The routes themselves, each with the answers recorded from it: a route
	// that goes, or whose pattern changes, shows here.
	var b strings.Builder
	listed := map[golden.Route]bool{}
	for _, r := range routes {
		listed[r] = true
		fmt.Fprintf(&b, "%s\n", r)
		for _, name := range g.byRoute[r] {
			fmt.Fprintf(&b, "\t%s\n", name)
		}
	}
	var others []golden.Route
	for r := range g.byRoute {
		if !listed[r] {
			others = append(others, r)
		}
	}
	slices.SortFunc(others, func(a, b golden.Route) int { return strings.Compare(a.String(), b.String()) })
	for _, r := range others {
		fmt.Fprintf(&b, "%s (no route: not found or not allowed)\n", r)
		for _, name := range g.byRoute[r] {
			fmt.Fprintf(&b, "\t%s\n", name)
		}
	}
	g.written["routes"+golden.Ext] = true
	if err := golden.Compare(path.Join(goldenDir, "routes"+golden.Ext), []byte(b.String()), *updateGolden); err != nil {
		t.Errorf("the router's routes: %v", err)
	}
	unused, err := golden.Unused(goldenDir, g.written, *updateGolden)
	if err != nil {
		t.Fatal(err)
	}
	if len(unused) > 0 && !*updateGolden {
		t.Errorf("%d golden files are no longer recorded (-update deletes them): %v", len(unused), unused)
	}
	t.Logf("%d routes, %d golden answers", len(routes), len(g.written))
}
