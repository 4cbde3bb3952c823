package golden

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/store"
)

// Epoch is the time the first report or run of a Store is created at; each
// next one is created a minute later.
var Epoch = time.Date(2025, time.January, 2, 3, 4, 0, 0, time.UTC)

// Store is a real store whose reports have ids and creation times that depend
// only on the order they were made in: the n-th report is "report" followed by
// n in letters, created at Epoch plus n minutes. Runs keep the ids their
// creator gives them and are created at the next minute too. It translates both
// ways, so the server sees only the stable ids and times and the database only
// its own, and it makes the database's clock tick between two creations, so
// its order (newest first, then by id) is the order of creation too.
//
// Every method that takes or returns a report id, a run's report id or a
// creation time is wrapped; the others are the embedded database's. A method
// added to the store later that carries report ids must be wrapped here too:
// RealIDs lets a test check that none reached an answer.
type Store struct {
	*store.DB

	mu sync.Mutex
	// n counts the reports and runs created.
	n int
	// real and stable map report ids each way; created is each stable id's
	// time (reports and runs); realMillis the database's creation time of
	// each stable report id, for page cursors.
	real, stable map[string]string
	created      map[string]time.Time
	realMillis   map[string]int64
	// last is the database's last creation time, in milliseconds.
	last int64
}

// NewStore wraps db.
func NewStore(db *store.DB) *Store {
	return &Store{DB: db, real: map[string]string{}, stable: map[string]string{}, created: map[string]time.Time{},
		realMillis: map[string]int64{}}
}

// StableID is the n-th stable id (from 1) with a prefix of lowercase letters:
// the prefix, n in base-26 letters, padded with "a" to the 26 characters of a
// store id ("report" + "aaaaaaaaaaaaaaaaab" + … for n = 1).
func StableID(prefix string, n int) string {
	var digits []byte
	for k := n; k > 0; k /= 26 {
		digits = append([]byte{byte('a' + k%26)}, digits...)
	}
	return prefix + strings.Repeat("a", 26-len(prefix)-len(digits)) + string(digits)
}

// RealIDs lists the database's own report ids, which no answer may carry.
func (s *Store) RealIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.stable))
	for id := range s.stable {
		out = append(out, id)
	}
	return out
}

// nextMillisLocked waits until the database's clock has moved past the last
// creation, so that no two creations share a millisecond; s.mu is held.
func (s *Store) nextMillisLocked() {
	for time.Now().UnixMilli() <= s.last {
		time.Sleep(time.Millisecond)
	}
}

// toReal is the database's id of a report id the server knows; an id the Store
// did not make (a wrong one in a URL) is passed on as it is.
func (s *Store) toReal(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.real[id]; ok {
		return r
	}
	return id
}

// toStable is the server's id of a database report id.
func (s *Store) toStable(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stable[id]; ok {
		return st
	}
	return id
}

// stableError is an error of the database whose message names reports by
// their stable ids; errors.Is and errors.As see the database's error.
type stableError struct {
	err error
	msg string
}

func (e *stableError) Error() string { return e.msg }
func (e *stableError) Unwrap() error { return e.err }

// fixError names reports by their stable ids in an error of the database (a
// report deleted since: "report ID: not found").
func (s *Store) fixError(err error) error {
	if err == nil {
		return nil
	}
	s.mu.Lock()
	pairs := make([]string, 0, 2*len(s.stable))
	for real, stable := range s.stable {
		pairs = append(pairs, real, stable)
	}
	s.mu.Unlock()
	if msg := strings.NewReplacer(pairs...).Replace(err.Error()); msg != err.Error() {
		return &stableError{err, msg}
	}
	return err
}

// fixReport puts the stable id and times in a report the database returned.
func (s *Store) fixReport(r *store.Report) {
	r.ID = s.toStable(r.ID)
	s.mu.Lock()
	if t, ok := s.created[r.ID]; ok {
		r.CreatedAt = t
	}
	s.mu.Unlock()
	for i := range r.Artifacts {
		if !r.Artifacts[i].CreatedAt.IsZero() {
			r.Artifacts[i].CreatedAt = Epoch
		}
	}
}

// fixRun puts the stable times and report id in a run the database returned.
func (s *Store) fixRun(r *store.Run) {
	s.mu.Lock()
	t, ok := s.created[r.ID]
	s.mu.Unlock()
	if ok {
		r.CreatedAt = t
		if !r.UpdatedAt.IsZero() {
			r.UpdatedAt = t.Add(30 * time.Second)
		}
		if !r.FinishedAt.IsZero() {
			r.FinishedAt = t.Add(30 * time.Second)
		}
	}
	if r.ReportID != "" {
		r.ReportID = s.toStable(r.ReportID)
	}
}

// CreateReport stores a report under the next stable id and time.
func (s *Store) CreateReport(ctx context.Context, r *store.Report, uploads []store.Upload) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMillisLocked()
	if err := s.DB.CreateReport(ctx, r, uploads); err != nil {
		return err
	}
	s.n++
	id, t := StableID("report", s.n), Epoch.Add(time.Duration(s.n)*time.Minute)
	s.real[id], s.stable[r.ID], s.created[id] = r.ID, id, t
	s.realMillis[id], s.last = r.CreatedAt.UnixMilli(), r.CreatedAt.UnixMilli()
	r.ID, r.CreatedAt = id, t
	return nil
}

// Report returns a report by its stable id.
func (s *Store) Report(ctx context.Context, id string) (*store.Report, error) {
	r, err := s.DB.Report(ctx, s.toReal(id))
	if err != nil {
		return nil, s.fixError(err)
	}
	s.fixReport(r)
	return r, nil
}

// RecentReports lists the newest reports with their stable ids and times.
func (s *Store) RecentReports(ctx context.Context, limit int) ([]store.Report, error) {
	reps, err := s.DB.RecentReports(ctx, limit)
	for i := range reps {
		s.fixReport(&reps[i])
	}
	return reps, err
}

// SearchReports translates the page cursor (a stable time and id) for the
// database and its answer back.
func (s *Store) SearchReports(ctx context.Context, q store.ReportSearch) ([]store.Report, error) {
	if ms, id, ok := strings.Cut(q.After, "-"); ok {
		s.mu.Lock()
		real, known := s.real[id]
		realMs := s.realMillis[id]
		s.mu.Unlock()
		if _, err := strconv.ParseInt(ms, 10, 64); err == nil && known {
			q.After = fmt.Sprintf("%d-%s", realMs, real)
		}
	}
	reps, err := s.DB.SearchReports(ctx, q)
	for i := range reps {
		s.fixReport(&reps[i])
	}
	return reps, err
}

// SetPinned pins a report by its stable id.
func (s *Store) SetPinned(ctx context.Context, id string, pinned bool) error {
	return s.fixError(s.DB.SetPinned(ctx, s.toReal(id), pinned))
}

// SetReportState records a background analysis's outcome by the stable id.
func (s *Store) SetReportState(ctx context.Context, id, status, reason string, summary json.RawMessage) error {
	return s.fixError(s.DB.SetReportState(ctx, s.toReal(id), status, reason, summary))
}

// AnalyzingReports lists the stable ids of the reports analyzing.
func (s *Store) AnalyzingReports(ctx context.Context) ([]string, error) {
	ids, err := s.DB.AnalyzingReports(ctx)
	for i := range ids {
		ids[i] = s.toStable(ids[i])
	}
	return ids, err
}

// PutDerived stores a blob derived from a report, by its stable id.
func (s *Store) PutDerived(ctx context.Context, reportID, name string, r io.Reader) (int64, error) {
	n, err := s.DB.PutDerived(ctx, s.toReal(reportID), name, r)
	return n, s.fixError(err)
}

// OpenDerived opens a blob derived from a report, by its stable id.
func (s *Store) OpenDerived(ctx context.Context, reportID, name string) (store.Blob, error) {
	b, err := s.DB.OpenDerived(ctx, s.toReal(reportID), name)
	return b, s.fixError(err)
}

// Artifact returns an artifact created at Epoch.
func (s *Store) Artifact(ctx context.Context, sha string) (*store.Artifact, error) {
	a, err := s.DB.Artifact(ctx, sha)
	if a != nil {
		a.CreatedAt = Epoch
	}
	return a, err
}

// CreateRun stores a run under the id it has, created at the next stable time.
func (s *Store) CreateRun(ctx context.Context, r *store.Run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMillisLocked()
	if err := s.DB.CreateRun(ctx, r); err != nil {
		return err
	}
	s.n++
	t := Epoch.Add(time.Duration(s.n) * time.Minute)
	s.created[r.ID], s.last = t, r.CreatedAt.UnixMilli()
	r.CreatedAt, r.UpdatedAt = t, t
	return nil
}

// FinishRun records a run's end, its report named by the stable id.
func (s *Store) FinishRun(ctx context.Context, r *store.Run) error {
	cp := *r
	cp.ReportID = s.toReal(r.ReportID)
	return s.fixError(s.DB.FinishRun(ctx, &cp))
}

// Run returns a run with its stable times and report id.
func (s *Store) Run(ctx context.Context, id string) (*store.Run, error) {
	r, err := s.DB.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	s.fixRun(r)
	return r, nil
}

// RecentRuns lists the newest runs with their stable times and report ids.
func (s *Store) RecentRuns(ctx context.Context, limit int) ([]store.Run, error) {
	runs, err := s.DB.RecentRuns(ctx, limit)
	for i := range runs {
		s.fixRun(&runs[i])
	}
	return runs, err
}
