package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
)

// CopyProgress tells how far Copy or Verify has come; it is reported after every
// item.
type CopyProgress struct {
	// Stage is "artifacts", "runs", "reports", "incidents", "watches" or
	// "alert_deliveries".
	Stage string
	// Done of Total items of the stage are handled.
	Done, Total int64
	// Bytes of TotalBytes artifact bytes are handled (over all stages).
	Bytes, TotalBytes int64
}

// CopyResult counts what Copy stored in the target; what the target already held
// is not counted, so a second Copy of the same source counts nothing.
type CopyResult struct {
	Artifacts, Runs, Reports int64
	// Incidents counts the incidents copied, each with its attachments and
	// annotations, or mended: an incident the target held already, given the
	// attachments and annotations it lacked.
	Incidents int64
	// Watches counts the watches copied with their state and snapshots, or
	// mended: a watch the target held already, given the snapshots it lacked.
	Watches int64
	// Deliveries counts the alert deliveries copied, each with its state.
	Deliveries int64
	// Bytes is the artifact bytes copied.
	Bytes int64
	// Derived and DerivedBytes count the reports' derived blobs copied (heap
	// dump indexes).
	Derived, DerivedBytes int64
}

// copyPage is how many keys Copy and Verify read from the source at once.
const copyPage = 500

// Copy copies into dst every artifact, run, report, incident, watch and alert
// delivery of src that dst does not hold yet, keeping ids, slugs, times and a report's state (status and
// error), then each report's derived
// blobs that dst lacks. An incident goes with its attachments and annotations;
// one that dst holds gets those it lacks. A watch goes with its state and
// snapshots; one that dst holds gets the snapshots it lacks.
// Each artifact, run (with its captures) and report (with its inputs) goes in its
// own transaction, a derived blob in short ones (PutDerived), its bytes streamed chunk
// by chunk and checked against their SHA-256, so an interrupted Copy is resumed by
// running it again. Stop the servers that write to src first. progress, when not
// nil, is called after every item.
func Copy(ctx context.Context, dst, src *DB, progress func(CopyProgress)) (CopyResult, error) {
	var res CopyResult
	err := walk(ctx, src, progress, visitors{
		"artifacts": func(sha string) (int64, error) {
			a, err := src.Artifact(ctx, sha)
			if err != nil {
				return 0, err
			}
			has, err := dst.has(ctx, "artifacts", "sha256", sha)
			if err != nil {
				return 0, err
			}
			if !has {
				err := dst.inTx(ctx, func(tx *sql.Tx) error { return dst.putArtifact(ctx, tx, src.uploadOf(ctx, a, ""), a.CreatedAt) })
				if err != nil {
					return 0, fmt.Errorf("copying artifact %s: %w", sha, err)
				}
				res.Artifacts++
				res.Bytes += a.Size
			}
			return a.Size, nil
		},
		"runs": func(id string) (int64, error) {
			has, err := dst.has(ctx, "runs", "id", id)
			if err != nil {
				return 0, err
			}
			if !has {
				if err := copyRun(ctx, dst, src, id); err != nil {
					return 0, fmt.Errorf("copying run %s: %w", id, err)
				}
				res.Runs++
			}
			return 0, nil
		},
		"reports": func(id string) (int64, error) {
			has, err := dst.has(ctx, "reports", "id", id)
			if err != nil {
				return 0, err
			}
			if !has {
				r, err := src.Report(ctx, id)
				if err != nil {
					return 0, err
				}
				if r.Uploader, err = src.uploaderOf(ctx, id); err != nil {
					return 0, err
				}
				uploads := make([]Upload, len(r.Artifacts))
				for i, a := range r.Artifacts {
					uploads[i] = src.uploadOf(ctx, &a.Artifact, a.Name)
					uploads[i].Label = a.Label
				}
				if err := dst.inTx(ctx, func(tx *sql.Tx) error {
					return dst.insertReport(ctx, tx, r.ID, r, uploads, r.CreatedAt, r.CreatedAt)
				}); err != nil {
					return 0, fmt.Errorf("copying report %s: %w", id, err)
				}
				res.Reports++
			}
			n, b, err := copyDerived(ctx, dst, src, id)
			res.Derived += n
			res.DerivedBytes += b
			return 0, err
		},
		"incidents": func(slug string) (int64, error) {
			has, err := dst.has(ctx, "incidents", "slug", slug)
			if err != nil {
				return 0, err
			}
			n, err := copyIncident(ctx, dst, src, slug, has)
			if err != nil {
				return 0, fmt.Errorf("copying incident %s: %w", slug, err)
			}
			if n > 0 {
				res.Incidents++
			}
			return 0, nil
		},
		"watches": func(name string) (int64, error) {
			n, err := copyWatch(ctx, dst, src, name)
			if err != nil {
				return 0, fmt.Errorf("copying watch %s: %w", name, err)
			}
			if n > 0 {
				res.Watches++
			}
			return 0, nil
		},
		"alert_deliveries": func(id string) (int64, error) {
			has, err := dst.has(ctx, "alert_deliveries", "id", id)
			if err != nil || has {
				return 0, err
			}
			d, err := src.Delivery(ctx, id)
			if err != nil {
				return 0, err
			}
			if err := dst.copyDelivery(ctx, d); err != nil {
				return 0, fmt.Errorf("copying alert delivery %s: %w", id, err)
			}
			res.Deliveries++
			return 0, nil
		},
	})
	return res, err
}

// walkTables are the tables that Copy and Verify walk, in order, each with its
// key column and its count in a census. Artifacts come first, so that the runs
// and reports Copy stores after them find theirs, and incidents after them, so
// that their reports and runs are there before them; alert deliveries, which
// point at nothing, last.
var walkTables = []struct {
	name, key string
	total     func(census) int64
}{
	{"artifacts", "sha256", func(c census) int64 { return c.artifacts }},
	{"runs", "id", func(c census) int64 { return c.runs }},
	{"reports", "id", func(c census) int64 { return c.reports }},
	{"incidents", "slug", func(c census) int64 { return c.incidents }},
	{"watches", "name", func(c census) int64 { return c.watches }},
	{"alert_deliveries", "id", func(c census) int64 { return c.deliveries }},
}

// visitors handle the rows of the walkTables, by table name: each is called
// with a row's key and returns the artifact bytes it handled.
type visitors map[string]func(key string) (bytes int64, err error)

// walk calls visit with the key of every row of src's walkTables, table by
// table in order, and progress after every row (when progress is not nil). The
// stage of a CopyProgress is the table's name. It stops at the first error.
func walk(ctx context.Context, src *DB, progress func(CopyProgress), visit visitors) error {
	totals, err := src.census(ctx)
	if err != nil {
		return err
	}
	p := CopyProgress{TotalBytes: totals.bytes}
	for _, t := range walkTables {
		p.Stage, p.Done, p.Total = t.name, 0, t.total(totals)
		err := src.eachKey(ctx, t.name, t.key, func(key string) error {
			n, err := visit[t.name](key)
			if err != nil {
				return err
			}
			p.Done++
			p.Bytes += n
			if progress != nil {
				progress(p)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copyRun copies one run and its captures in one transaction.
func copyRun(ctx context.Context, dst, src *DB, id string) error {
	r, err := src.Run(ctx, id)
	if err != nil {
		return err
	}
	arts, err := src.RunArtifacts(ctx, id)
	if err != nil {
		return err
	}
	return dst.inTx(ctx, func(tx *sql.Tx) error {
		var finished int64
		if !r.FinishedAt.IsZero() {
			finished = millis(r.FinishedAt)
		}
		if _, err := tx.ExecContext(ctx, dst.q(`INSERT INTO runs (id, workload, spec, status, verdict, reason, error, progress, report_id,
			owner, lease_until, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			r.ID, r.Workload, jsonOrEmpty(r.Spec), r.Status, r.Verdict, r.Reason, r.Error, jsonOrEmpty(r.Progress), r.ReportID,
			r.Owner, millis(r.LeaseUntil), millis(r.CreatedAt), millis(r.UpdatedAt), finished); err != nil {
			return fmt.Errorf("store: run: %w", err)
		}
		for _, a := range arts {
			meta, err := src.Artifact(ctx, a.SHA256)
			if err != nil {
				return err
			}
			if err := dst.putArtifact(ctx, tx, src.uploadOf(ctx, meta, a.Name), meta.CreatedAt); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, dst.q(`INSERT INTO run_artifacts (run_id, seq, role, step, sha256, name, taken_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
				r.ID, a.Seq, a.Role, a.Step, a.SHA256, a.Name, millis(a.TakenAt)); err != nil {
				return fmt.Errorf("store: run artifact: %w", err)
			}
		}
		return nil
	})
}

// uploadOf is an Upload that streams a stored artifact out of db.
func (db *DB) uploadOf(ctx context.Context, a *Artifact, name string) Upload {
	if name == "" {
		name = a.SHA256
	}
	return Upload{
		Name: name, SHA256: a.SHA256, Size: a.Size, Kind: a.Kind, Format: a.Format,
		Open: func() (io.ReadCloser, error) { return db.OpenArtifact(ctx, a.SHA256) },
	}
}

// census is how many artifacts, runs, reports, incidents and alert deliveries
// a store holds, and the bytes of its artifacts.
type census struct {
	artifacts, runs, reports, incidents, watches, deliveries, bytes int64
}

func (db *DB) census(ctx context.Context) (census, error) {
	var c census
	err := db.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM artifacts), (SELECT COALESCE(SUM(size), 0) FROM artifacts),
		(SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM reports), (SELECT COUNT(*) FROM incidents), (SELECT COUNT(*) FROM watches),
		(SELECT COUNT(*) FROM alert_deliveries)`).Scan(&c.artifacts, &c.bytes, &c.runs, &c.reports, &c.incidents, &c.watches, &c.deliveries)
	if err != nil {
		return c, fmt.Errorf("store: %w", err)
	}
	return c, nil
}

// has reports whether table holds a row whose column is key. table and column
// are constants of this package, never user input.
func (db *DB) has(ctx context.Context, table, column, key string) (bool, error) {
	var n int
	err := db.read.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM `+table+` WHERE `+column+` = ?`), key).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return n > 0, nil
}

// eachKey calls fn with every key of table in order, reading them a page at a
// time so that no list of the whole table is held.
func (db *DB) eachKey(ctx context.Context, table, column string, fn func(key string) error) error {
	after := ""
	for {
		rows, err := db.read.QueryContext(ctx, db.q(`SELECT `+column+` FROM `+table+` WHERE `+column+` > ? ORDER BY `+column+` LIMIT ?`), after, copyPage)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		keys := make([]string, 0, copyPage)
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return fmt.Errorf("store: %w", err)
			}
			keys = append(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		for _, k := range keys {
			if err := fn(k); err != nil {
				return err
			}
		}
		if len(keys) < copyPage {
			return nil
		}
		after = keys[len(keys)-1]
	}
}
