package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/serrors"
)

// checkQuota refuses, with 507 naming the quota, an upload whose new files
// would take the store past Config.DiskQuota, or its uploader's reports past
// Config.ClientDiskQuota. New files are those the store does not hold yet
// (the same bytes are stored once); the caller holds quotaMu from the check
// until the report is stored, so uploads in this process cannot pass a quota
// together (replicas on one database can, by the uploads they have in
// flight).
func (s uploads) checkQuota(ctx context.Context, form *kind.Upload) error {
	var adds int64
	seen := map[string]bool{}
	for _, f := range form.Files {
		if seen[f.SHA256] {
			continue
		}
		seen[f.SHA256] = true
		_, err := s.store.Artifact(ctx, f.SHA256)
		switch {
		case errors.Is(err, store.ErrNotFound):
			adds += f.Size
		case err != nil:
			return err
		}
	}
	for _, q := range []struct {
		limit    int64
		uploader string
		what     string
	}{
		{s.cfg.DiskQuota, "", "the server's disk quota of %s (-disk-quota) is used: %s stored, this upload adds %s"},
		{s.cfg.ClientDiskQuota, form.Client, "your address's disk quota of %s (-client-disk-quota) is used: %s stored from it, this upload adds %s"},
	} {
		if q.limit <= 0 || adds == 0 {
			continue
		}
		used, err := s.store.StoredBytes(ctx, q.uploader)
		if err != nil {
			return err
		}
		if used+adds > q.limit {
			return serrors.Errorf(http.StatusInsufficientStorage, q.what+"; nothing was stored", analyze.FormatBytes(q.limit), analyze.FormatBytes(used), analyze.FormatBytes(adds))
		}
	}
	return nil
}

// quotaCheck is what ingest calls before it stores a report: with a quota
// set, it takes quotaMu and checks the quotas, and the returned function
// (always to be called) lets the next upload check.
func (s uploads) quotaCheck(ctx context.Context, form *kind.Upload) (func(), error) {
	if s.cfg.DiskQuota <= 0 && s.cfg.ClientDiskQuota <= 0 {
		return func() {}, nil
	}
	s.quotaMu.Lock()
	if err := s.checkQuota(ctx, form); err != nil {
		s.quotaMu.Unlock()
		return nil, fmt.Errorf("disk quota: %w", err)
	}
	return s.quotaMu.Unlock, nil
}
