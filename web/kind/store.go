package kind

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/leakui/leakui/store"
)

// Store is what the handlers need from persistence.
type Store interface {
	CreateReport(ctx context.Context, r *store.Report, uploads []store.Upload) error
	Report(ctx context.Context, id string) (*store.Report, error)
	Artifact(ctx context.Context, sha string) (*store.Artifact, error)
	OpenArtifact(ctx context.Context, sha string) (io.ReadCloser, error)
	ReadArtifact(ctx context.Context, sha string) ([]byte, error)
	ArtifactsWithPrefix(ctx context.Context, prefix string, limit int) ([]string, error)
	ArtifactName(ctx context.Context, sha string) (string, error)
	StoredBytes(ctx context.Context, uploader string) (int64, error)
	SearchReports(ctx context.Context, q store.ReportSearch) ([]store.Report, error)
	SetHeadliner(h store.Headliner)
	BackfillHeadlines(ctx context.Context) (int, error)

	CreateRun(ctx context.Context, r *store.Run) error
	UpdateRunProgress(ctx context.Context, id string, progress json.RawMessage, leaseUntil time.Time) error
	FinishRun(ctx context.Context, r *store.Run) error
	AddRunArtifact(ctx context.Context, runID string, a *store.RunArtifact, u store.Upload) error
	Run(ctx context.Context, id string) (*store.Run, error)
	RecentRuns(ctx context.Context, limit int) ([]store.Run, error)
	RunArtifacts(ctx context.Context, runID string) ([]store.RunArtifact, error)
	InterruptExpiredRuns(ctx context.Context, now time.Time) (int, error)
	InterruptOwnedRuns(ctx context.Context, owner string) (int, error)

	SetPinned(ctx context.Context, id string, pinned bool) error
	SetReportState(ctx context.Context, id, status, reason string, summary json.RawMessage) error
	AnalyzingReports(ctx context.Context) ([]string, error)
	PutDerived(ctx context.Context, reportID, name string, r io.Reader) (int64, error)
	OpenDerived(ctx context.Context, reportID, name string) (store.Blob, error)
	DeleteArtifact(ctx context.Context, sha string) (int, error)
	ExpireReports(ctx context.Context, cutoff time.Time) (int, int, error)

	CreateSession(ctx context.Context, id string, expires time.Time) error
	SessionValid(ctx context.Context, id string, now time.Time) (bool, error)
	DeleteSession(ctx context.Context, id string) error
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error)
}
