package goroutines

import (
	"context"
	"fmt"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
)

// Evidence judges a goroutine dump, or the first and last of several, for an
// incident (kind.Evidencer).
func (k *Kind) Evidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	if len(rep.Artifacts) == 0 {
		return kind.Evidence{}, fmt.Errorf("report %s has no dumps", rep.ID)
	}
	base, target := "", rep.Artifacts[len(rep.Artifacts)-1].SHA256
	if len(rep.Artifacts) > 1 {
		base = rep.Artifacts[0].SHA256
	}
	gr, err := k.dumps.Report(ctx, base, target, "")
	if err != nil {
		return kind.Evidence{}, err
	}
	return groups.Evidence(gr, title, link), nil
}
