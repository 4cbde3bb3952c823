package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
)

// TableCheck is what Verify found for one table: how many of the source's rows
// the target holds with the same content.
type TableCheck struct {
	Table string
	// Source is the rows in the source; Matched is how many of them the target
	// holds with the same content (for artifacts: the same metadata, and bytes
	// that read back with the right size and SHA-256).
	Source, Matched int64
	// SourceBytes and MatchedBytes are the artifact bytes (artifacts only).
	SourceBytes, MatchedBytes int64
	// Missing lists the first keys that the target lacks or holds differently.
	Missing []string
}

// OK reports whether the target holds every source row of the table.
func (c TableCheck) OK() bool { return c.Source == c.Matched && c.SourceBytes == c.MatchedBytes }

// maxMissing is how many differing keys a TableCheck lists.
const maxMissing = 5

// Verify checks that dst holds everything src holds, row by row and table by
// table: artifacts (metadata, and their bytes read back from dst and hashed),
// artifact chunks (per artifact), runs with their captures, reports with their
// inputs and state, the reports' derived blobs (their bytes hashed on both
// sides), incidents with their attached reports and runs and their
// annotations, watches with their state and snapshots (their bytes compared),
// and alert deliveries with their state. It returns one TableCheck per table; an error only when a database
// cannot be read. progress, when not nil, is called after every item.
func Verify(ctx context.Context, dst, src *DB, progress func(CopyProgress)) ([]TableCheck, error) {
	checks := map[string]*TableCheck{}
	tables := []string{"artifacts", "artifact_chunks", "runs", "run_artifacts", "reports", "report_artifacts", "derived",
		"incidents", "incident_reports", "incident_runs", "incident_annotations", "watches", "watch_snapshots", "alert_deliveries"}
	for _, t := range tables {
		checks[t] = &TableCheck{Table: t}
	}
	miss := func(c *TableCheck, key string) {
		if len(c.Missing) < maxMissing {
			c.Missing = append(c.Missing, key)
		}
	}
	err := walk(ctx, src, progress, visitors{
		"artifacts": func(sha string) (int64, error) {
			a, err := src.Artifact(ctx, sha)
			if err != nil {
				return 0, err
			}
			c := checks["artifacts"]
			c.Source++
			c.SourceBytes += a.Size
			srcChunks, err := src.chunkCount(ctx, sha)
			if err != nil {
				return 0, err
			}
			dstChunks, err := dst.chunkCount(ctx, sha)
			if err != nil {
				return 0, err
			}
			cc := checks["artifact_chunks"]
			cc.Source += srcChunks
			if srcChunks == dstChunks {
				cc.Matched += srcChunks
			} else {
				miss(cc, sha)
			}
			same, err := sameArtifact(ctx, dst, a)
			if err != nil {
				return 0, err
			}
			if same {
				c.Matched++
				c.MatchedBytes += a.Size
			} else {
				miss(c, sha)
			}
			return a.Size, nil
		},
		"runs": func(id string) (int64, error) {
			load := func(db *DB) (*Run, []RunArtifact, error) {
				r, err := db.Run(ctx, id)
				if err != nil {
					return nil, nil, err
				}
				a, err := db.RunArtifacts(ctx, id)
				return r, a, err
			}
			return 0, verifyRow(id, checks["runs"], checks["run_artifacts"], miss, src, dst, load, sameRun, sameRunArtifact)
		},
		"reports": func(id string) (int64, error) {
			load := func(db *DB) (*Report, []ReportArtifact, error) {
				r, err := db.Report(ctx, id)
				if err != nil {
					return nil, nil, err
				}
				return r, r.Artifacts, nil
			}
			if err := verifyRow(id, checks["reports"], checks["report_artifacts"], miss, src, dst, load, sameReport, sameReportArtifact); err != nil {
				return 0, err
			}
			return 0, verifyDerived(ctx, dst, src, id, checks["derived"], miss)
		},
		"incidents": func(slug string) (int64, error) {
			return 0, verifyIncident(ctx, dst, src, slug, checks, miss)
		},
		"watches": func(name string) (int64, error) {
			load := func(db *DB) (*Watch, []WatchSnapshot, error) {
				w, err := db.Watch(ctx, name)
				if err != nil {
					return nil, nil, err
				}
				s, err := db.WatchSnapshots(ctx, name)
				return w, s, err
			}
			return 0, verifyRow(name, checks["watches"], checks["watch_snapshots"], miss, src, dst, load, sameWatch, sameWatchSnapshot)
		},
		"alert_deliveries": func(id string) (int64, error) {
			c := checks["alert_deliveries"]
			s, err := src.Delivery(ctx, id)
			if err != nil {
				return 0, err
			}
			c.Source++
			d, err := dst.Delivery(ctx, id)
			switch {
			case errors.Is(err, ErrNotFound):
				miss(c, id)
			case err != nil:
				return 0, err
			case sameDelivery(s, d):
				c.Matched++
			default:
				miss(c, id)
			}
			return 0, nil
		},
	})
	if err != nil {
		return nil, err
	}
	out := make([]TableCheck, len(tables))
	for i, t := range tables {
		out[i] = *checks[t]
	}
	return out, nil
}

// verifyRow checks one row of a table and its links (a run's captures, a report's
// inputs) between the stores: load reads both from a store, same and sameLink
// compare them. A row the target lacks misses in both checks.
func verifyRow[R any, L any](id string, rows, links *TableCheck, miss func(*TableCheck, string), src, dst *DB,
	load func(*DB) (R, []L, error), same func(a, b R) bool, sameLink func(a, b L) bool) error {
	sr, sl, err := load(src)
	if err != nil {
		return err
	}
	rows.Source++
	links.Source += int64(len(sl))
	dr, dl, err := load(dst)
	if errors.Is(err, ErrNotFound) {
		miss(rows, id)
		miss(links, id)
		return nil
	}
	if err != nil {
		return err
	}
	if same(sr, dr) {
		rows.Matched++
	} else {
		miss(rows, id)
	}
	if slices.EqualFunc(sl, dl, sameLink) {
		links.Matched += int64(len(sl))
	} else {
		miss(links, id)
	}
	return nil
}

// sameArtifact reports whether dst holds a with the same metadata and bytes that
// hash to its SHA-256.
func sameArtifact(ctx context.Context, dst *DB, a *Artifact) (bool, error) {
	d, err := dst.Artifact(ctx, a.SHA256)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if d.Kind != a.Kind || d.Format != a.Format || d.Size != a.Size || !d.CreatedAt.Equal(a.CreatedAt) {
		return false, nil
	}
	r, err := dst.OpenArtifact(ctx, a.SHA256)
	if err != nil {
		return false, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrIntegrity) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return n == a.Size && hex.EncodeToString(h.Sum(nil)) == a.SHA256, nil
}

// chunkCount is how many chunks an artifact is stored in.
func (db *DB) chunkCount(ctx context.Context, sha string) (int64, error) {
	var n int64
	if err := db.read.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM artifact_chunks WHERE sha256 = ?`), sha).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return n, nil
}

func sameRun(a, b *Run) bool {
	return a.ID == b.ID && a.Workload == b.Workload && bytes.Equal(a.Spec, b.Spec) && a.Status == b.Status &&
		a.Verdict == b.Verdict && a.Reason == b.Reason && a.Error == b.Error && bytes.Equal(a.Progress, b.Progress) &&
		a.ReportID == b.ReportID && a.Owner == b.Owner && a.LeaseUntil.Equal(b.LeaseUntil) && a.CreatedAt.Equal(b.CreatedAt) &&
		a.UpdatedAt.Equal(b.UpdatedAt) && a.FinishedAt.Equal(b.FinishedAt)
}

func sameReport(a, b *Report) bool {
	return a.ID == b.ID && a.Kind == b.Kind && bytes.Equal(a.Params, b.Params) && bytes.Equal(a.Summary, b.Summary) &&
		a.CreatedAt.Equal(b.CreatedAt) && a.Pinned == b.Pinned && a.RunID == b.RunID && a.Status == b.Status && a.Error == b.Error &&
		a.Headline == b.Headline
}

func sameReportArtifact(a, b ReportArtifact) bool {
	return a.SHA256 == b.SHA256 && a.Name == b.Name && a.Label == b.Label
}

func sameRunArtifact(a, b RunArtifact) bool {
	return a.Seq == b.Seq && a.Role == b.Role && a.Step == b.Step && a.SHA256 == b.SHA256 && a.Name == b.Name &&
		a.Size == b.Size && a.TakenAt.Equal(b.TakenAt)
}
