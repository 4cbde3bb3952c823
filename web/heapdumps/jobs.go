package heapdumps

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/page"
)

// Jobs are the uploaded heap dumps' analyses as the handlers see them: each
// report's analysis is one job of the job system (web/background), queued
// round robin by uploader, a client having at most MaxQueuedPerClient queued
// or running (429 beyond). The upload answers at once with the report's URL,
// and the report page follows the analysis (Events). The analysis itself is
// Kind.AnalyzeStored.
type Jobs struct {
	k  *Kind
	bg *background.HeapDumps
}

// NewJobs is the analyses of k's dumps, queued in bg.
func NewJobs(k *Kind, bg *background.HeapDumps) *Jobs { return &Jobs{k: k, bg: bg} }

// JobState is where one report's analysis stands, as its page and its events
// say it.
type JobState struct {
	// Status is "analyzing", "failed" or "done" (the report is complete).
	Status string `json:"status"`
	// Queue is how many analyses run or wait before this one (0: it runs).
	Queue int `json:"queue"`
	// Stage and Percent tell the running analysis's progress (of the whole
	// comparison, for a comparison of dumps).
	Stage   string  `json:"stage,omitempty"`
	Percent float64 `json:"percent"`
	// Dumps is how many dumps a comparison analyzes, Dump the one it
	// analyzes now (from 1; Dumps once they are all analyzed; 0 while it
	// waits), and DumpPercent how far that one's analysis is.
	Dumps       int     `json:"dumps,omitempty"`
	Dump        int     `json:"dump,omitempty"`
	DumpPercent float64 `json:"dump_percent,omitempty"`
	// Error is why a failed analysis failed, Code the HTTP status class of it.
	Error string `json:"error,omitempty"`
	Code  int    `json:"error_status,omitempty"`
	// Retry is why the last attempt failed when the analysis waits to be tried
	// again (the server's memory budget held by other analyses, a store error).
	Retry string `json:"retry,omitempty"`
	// Elsewhere tells an analysis this process does not run (another
	// replica's, or one without a job yet, which the next start queues).
	Elsewhere bool `json:"elsewhere,omitempty"`
}

// Retries are how the analyses failing for the server's reasons are tried
// again; tests shorten them.
var Retries = background.DefaultRetries

// jobReadTimeout bounds a read of the job system for a page.
const jobReadTimeout = 10 * time.Second

// Reserve makes room for one more analysis of uploader's, or says with a 429
// that it has its MaxQueuedPerClient queued or running. The room is held until
// done is called, after the report is queued (or not).
func (j *Jobs) Reserve(uploader string) (done func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	return j.bg.Reserve(ctx, uploader)
}

// Enqueue inserts the analysis of uploader's report. When the insert fails,
// the report waits analyzing until a server's next start queues it.
func (j *Jobs) Enqueue(id, uploader string) {
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	if err := j.bg.Enqueue(ctx, id, uploader); err != nil {
		j.k.d.Log.Error("queuing a heap dump analysis; the next start queues it", "report", id, "err", err)
	}
}

// state returns where report id's analysis stands (ok false when it has no
// job waiting or running) and a channel closed at the next change in this
// process.
func (j *Jobs) state(id string) (st JobState, ok bool, changed <-chan struct{}) {
	changed = j.bg.Changed()
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	bs, ok := j.bg.State(ctx, id)
	st = JobState{Status: store.ReportAnalyzing, Stage: bs.Stage, Percent: 100 * bs.Done, Queue: bs.Queue,
		Retry: bs.Retry, Elsewhere: bs.Elsewhere}
	return st, ok, changed
}

// StageHook, when set (by tests), is called with every progress report of a
// background analysis, with the analysis's context and report.
var StageHook func(ctx context.Context, id, stage string)

// AnalyzeStored completes report id in the background and returns its
// summary. It runs as a job (web/background), which records the outcome. A
// heap dump is read from the store into a directory of its own (which also
// receives the inflated copy of a compressed dump, and goes whatever
// happens), analyzed, and its index stored. A comparison's dumps are
// analyzed so one after the other (analyzeComparison).
func (s *Kind) AnalyzeStored(ctx context.Context, id string, report jobs.Progress) (json.RawMessage, error) {
	progress := func(stage string, done float64) {
		report(stage, done)
		if hook := StageHook; hook != nil {
			hook(ctx, id, stage)
		}
	}
	rep, err := s.d.Store.Report(ctx, id)
	if err != nil {
		return nil, err
	}
	if rep.Status == store.ReportAnalyzing && rep.Kind == ReportDiff && len(rep.Artifacts) >= 2 {
		return s.analyzeComparison(ctx, rep, progress)
	}
	if rep.Status != store.ReportAnalyzing || len(rep.Artifacts) != 1 {
		return nil, fmt.Errorf("%w: report %s is %q with %d files, not a heap dump to analyze", store.ErrInvalid, id, rep.Status, len(rep.Artifacts))
	}
	dir, err := os.MkdirTemp(s.d.Limits.TempDir, "leakui-heapdump-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var sum *Summary
	err = s.analyzeArtifact(ctx, rep.Artifacts[0], dir, ReportOptions, progress, func(h *hprof.Heap, hr *hprof.Report) error {
		indexed, err := s.StoreIndex(ctx, id, h, progress)
		if err != nil {
			return err
		}
		sum = SummaryOf(hr)
		sum.Indexed = indexed
		return nil
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(sum)
}

// analyzeArtifact copies artifact a from the store into dir, analyzes it
// with opt, one analysis at a time in the process (Analyses), and gives use
// the heap and its report before the heap is closed and the copy removed.
func (s *Kind) analyzeArtifact(ctx context.Context, a store.ReportArtifact, dir string, opt hprof.ReportOptions, progress jobs.Progress,
	use func(*hprof.Heap, *hprof.Report) error) error {
	select {
	case Analyses <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-Analyses }()
	path := filepath.Join(dir, "dump")
	defer os.Remove(path)
	if err := s.spool(ctx, a, path, progress); err != nil {
		return err
	}
	open := hprof.OpenOptions{TempDir: dir, MaxInflated: max(s.d.Limits.MaxDecompressed, s.d.Limits.MaxHeapDump)}
	open.Progress, open.Context = progress, ctx
	finish, err := s.Budget(&open.Options)
	if err != nil {
		return err
	}
	defer finish()
	h, err := hprof.Open(path, open)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	defer h.Close()
	hr, err := h.NewReport(opt, progress)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	return use(h, hr)
}

// compareOptions are the options of each compared dump's report, of which a
// comparison keeps the first suspect's sentence.
var compareOptions = hprof.ReportOptions{Top: 1, Depth: -1}

// analyzeComparison builds comparison rep in the background: each dump is
// analyzed in turn, as one uploaded alone is (the stages told as DumpStage),
// into its index in a temporary file; once every dump is analyzed, the
// indexes are stored with the report (DumpIndexName), and the comparison is
// built from the stored indexes (compareStored), never from the dumps. A dump
// that fails fails the comparison, naming it, before anything is stored.
func (s *Kind) analyzeComparison(ctx context.Context, rep *store.Report, progress jobs.Progress) (json.RawMessage, error) {
	dir, err := os.MkdirTemp(s.d.Limits.TempDir, "leakui-heapdumps-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	n := len(rep.Artifacts)
	headlines := make([]string, n)
	indexes := make([]string, n)
	for i, a := range rep.Artifacts {
		dumpProgress := func(stage string, done float64) { progress(DumpStage(i, n, stage), done) }
		indexes[i] = filepath.Join(dir, "index-"+strconv.Itoa(i))
		err := s.analyzeArtifact(ctx, a, dir, compareOptions, dumpProgress, func(h *hprof.Heap, hr *hprof.Report) error {
			if len(hr.Suspects) > 0 {
				headlines[i] = hr.Suspects[0].Sentence
			}
			dumpProgress("store-index", 0)
			f, err := os.Create(indexes[i])
			if err != nil {
				return err
			}
			if _, err := h.WriteIndex(f); err != nil {
				f.Close()
				return fmt.Errorf("writing the index of %s: %w", a.Name, err)
			}
			dumpProgress("store-index", 1)
			return f.Close()
		})
		if err != nil {
			return nil, fmt.Errorf("dump %d of %d, %w", i+1, n, err)
		}
	}
	for i := range n {
		progress(StageStoreIndexes, float64(i)/float64(n))
		if err := s.putDerivedFile(ctx, rep.ID, DumpIndexName(i), indexes[i]); err != nil {
			return nil, fmt.Errorf("storing the index of %s: %w", rep.Artifacts[i].Name, err)
		}
		os.Remove(indexes[i])
	}
	progress(StageCompare, 0)
	sum, err := s.compareStored(ctx, rep, headlines)
	if err != nil {
		return nil, err
	}
	progress(StageCompare, 1)
	return json.Marshal(sum)
}

// putDerivedFile stores the file at path as report id's derived blob name.
func (s *Kind) putDerivedFile(ctx context.Context, id, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = s.d.Store.PutDerived(ctx, id, name, f)
	return err
}

// The stages of a comparison after its dumps' analyses: storing their
// indexes, then comparing them.
const (
	StageStoreIndexes = "store-indexes"
	StageCompare      = "compare"
)

// DumpStage is the stage of a comparison's background work while it
// analyzes its i-th dump (from 0) of n: "dump 2/3 read".
func DumpStage(i, n int, stage string) string {
	return "dump " + strconv.Itoa(i+1) + "/" + strconv.Itoa(n) + " " + stage
}

// parseDumpStage splits a DumpStage into the dump's number (from 1), the
// number of dumps and the dump's own stage.
func parseDumpStage(s string) (dump, dumps int, stage string, ok bool) {
	rest, ok := strings.CutPrefix(s, "dump ")
	if !ok {
		return 0, 0, "", false
	}
	frac, stage, ok := strings.Cut(rest, " ")
	a, b, ok2 := strings.Cut(frac, "/")
	if !ok || !ok2 {
		return 0, 0, "", false
	}
	dump, err1 := strconv.Atoi(a)
	dumps, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || dump < 1 || dump > dumps {
		return 0, 0, "", false
	}
	return dump, dumps, stage, true
}

// comparisonShare is the share of a comparison's bar its dumps' analyses
// take; storing their indexes and comparing them take the rest.
const comparisonShare = 0.95

// describeProgress turns the raw stage and fraction of st (as the job
// reports them) into the label and the whole's percentage the page, the
// JSON and the events show; a comparison's state also tells which dump is
// analyzed (Dump of Dumps) and how far that one is (DumpPercent).
func describeProgress(st *JobState, rep *store.Report) {
	done := st.Percent / 100
	if rep.Kind == ReportDiff {
		st.Dumps = len(rep.Artifacts)
	}
	if dump, dumps, stage, ok := parseDumpStage(st.Stage); ok {
		label, pct := JobProgress(stage, done)
		name := ""
		if dump <= len(rep.Artifacts) {
			name = rep.Artifacts[dump-1].Name
		}
		st.Dump, st.Dumps, st.DumpPercent = dump, dumps, pct
		st.Stage = fmt.Sprintf("Dump %d of %d (%s): %s", dump, dumps, name, label)
		st.Percent = comparisonShare * (100*float64(dump-1) + pct) / float64(dumps)
		return
	}
	switch st.Stage {
	case StageStoreIndexes:
		st.Dump, st.Stage = st.Dumps, "Storing the dumps' indexes"
		st.Percent = 100 * (comparisonShare + (1-comparisonShare)*0.8*min(max(done, 0), 1))
		return
	case StageCompare:
		st.Dump, st.Stage = st.Dumps, "Comparing the dumps' histograms"
		st.Percent = 100 * (comparisonShare + (1-comparisonShare)*(0.8+0.2*min(max(done, 0), 1)))
		return
	}
	st.Stage, st.Percent = JobProgress(st.Stage, done)
}

// spool copies an artifact from the store to path, telling the progress.
func (s *Kind) spool(ctx context.Context, a store.ReportArtifact, path string, progress jobs.Progress) error {
	rc, err := s.d.Store.OpenArtifact(ctx, a.SHA256)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, rerr := rc.Read(buf)
		if k > 0 {
			if _, err := f.Write(buf[:k]); err != nil {
				f.Close()
				return err
			}
			n += int64(k)
			if a.Size > 0 {
				progress("load", float64(n)/float64(a.Size))
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.Close()
			return rerr
		}
	}
	return f.Close()
}

// FailedSummary is the summary stored with a report whose analysis failed for
// reason.
func FailedSummary(reason string) json.RawMessage {
	return page.MustJSON(Pending{Failed: reason})
}

// comparisonHeadline is the title and headline of comparison rep's page
// while it is built or once it failed (the reason below names the dump).
func comparisonHeadline(rep *store.Report, st JobState) (title, headline string) {
	if st.Status == store.ReportFailed {
		return "JVM heap dumps", "The heap dumps could not be compared."
	}
	return "JVM heap dumps", fmt.Sprintf("Analyzing %d heap dumps, then comparing them…", len(rep.Artifacts))
}
