package jobs

import (
	"context"
	"fmt"
	"regexp"
)

// argField is an argument's name as Find accepts it (it is written into the
// query).
var argField = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Find returns where the newest job of kind whose argument field (a
// top-level key of its arguments' JSON) equals value stands, as Job does:
// the job of an object the work is about (a report's analysis), found by the
// object. ErrNotFound when there is none (or no longer: River deletes ended
// jobs after its retention).
func (r *Runner) Find(ctx context.Context, kind, field, value string) (JobInfo, error) {
	if !argField.MatchString(field) {
		return JobInfo{}, fmt.Errorf("jobs: %q is not an argument's name", field)
	}
	client, err := r.clientOrErr()
	if err != nil {
		return JobInfo{}, err
	}
	d := r.backend.dialect
	var id int64
	if err := client.exec().QueryRow(ctx, d.Rebind(`SELECT coalesce(max(id), 0) FROM river_job
		WHERE kind = ? AND args ->> '`+field+`' = ?`), kind, value).Scan(&id); err != nil {
		return JobInfo{}, fmt.Errorf("jobs: finding a %s job: %w", kind, err)
	}
	if id == 0 {
		return JobInfo{}, fmt.Errorf("jobs: no %s job with %s %q: %w", kind, field, value, ErrNotFound)
	}
	return r.Job(ctx, id)
}

// ClientJobs counts the jobs of kind that client (InsertOptions.Client) has
// queued or running across the replicas: what Kind.MaxPerClient bounds, for
// an owner that checks the bound before the insert (before it stores what
// the job will work on).
func (r *Runner) ClientJobs(ctx context.Context, kind, client string) (int, error) {
	c, err := r.clientOrErr()
	if err != nil {
		return 0, err
	}
	var n int
	if err := c.exec().QueryRow(ctx, r.backend.dialect.Rebind(`SELECT count(*) FROM river_job
		WHERE kind = ? AND state IN (`+liveStates+`) AND metadata ->> 'client' = ?`), kind, client).Scan(&n); err != nil {
		return 0, fmt.Errorf("jobs: counting the client's %s jobs: %w", kind, err)
	}
	return n, nil
}
