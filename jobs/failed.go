package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// MaxFailedShown bounds Failed's list.
const MaxFailedShown = 50

// Failed lists the jobs that failed for good (out of attempts, or failed at
// once by Fail or a panic), most recently ended first, at most limit (at most
// MaxFailedShown), each with its last error; River keeps them for
// Config.Retention's Discarded and Cancelled. Jobs cancelled by their
// runner's stop are not failures and are left out.
func (r *Runner) Failed(ctx context.Context, limit int) ([]JobInfo, error) {
	client, err := r.clientOrErr()
	if err != nil {
		return nil, err
	}
	limit = min(max(limit, 1), MaxFailedShown)
	// The ended jobs are read a page at a time, newest first, passing over
	// the cancelled ones that did not fail, up to maxCancelledRead rows.
	const page = 100
	params := river.NewJobListParams().States(rivertype.JobStateDiscarded, rivertype.JobStateCancelled).
		OrderBy(river.JobListOrderByFinalizedAt, river.SortOrderDesc).First(page)
	var out []JobInfo
	for read := 0; read < maxCancelledRead; {
		res, err := client.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("jobs: the failed jobs: %w", err)
		}
		for _, row := range res.Jobs {
			info := r.info(row)
			if info.State != Failed {
				continue
			}
			if row.FinalizedAt != nil {
				info.Ended = *row.FinalizedAt
			}
			if out = append(out, info); len(out) == limit {
				return out, nil
			}
		}
		if len(res.Jobs) < page || res.LastCursor == nil {
			break
		}
		read += len(res.Jobs)
		params = params.After(res.LastCursor)
	}
	return out, nil
}
