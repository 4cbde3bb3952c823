package goroutines

import (
	"sort"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/web/kind"
)

// planGoroutines makes a goroutines report of one dump and a comparison of two or
// more (the first against the last). Every file is parsed, so nothing is stored
// for a bad one. Dumps go by the time they were taken when all of them say it (a
// goroutine profile.proto does, text dumps do not), else by upload order.
func (k *Kind) planGoroutines(form *kind.Upload) (*kind.Plan, error) {
	dumps := make([]*goroutines.Dump, len(form.Files))
	for i, f := range form.Files {
		d, err := k.dumps.Received(f)
		if err != nil {
			return nil, err
		}
		dumps[i] = d
	}
	timed := true
	for _, d := range dumps {
		timed = timed && !d.Time.IsZero()
	}
	if timed && len(dumps) > 1 {
		order := make([]int, len(dumps))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return dumps[order[a]].Time.Before(dumps[order[b]].Time) })
		files := make([]*kind.Received, len(order))
		sorted := make([]*goroutines.Dump, len(order))
		for i, k := range order {
			files[i], sorted[i] = form.Files[k], dumps[k]
		}
		form.Files, dumps = files, sorted
	}
	rk := kindGoroutines
	var base *goroutines.Dump
	if len(dumps) > 1 {
		rk, base = kindGoroutinesDiff, dumps[0]
	}
	return &kind.Plan{
		Kind:    rk,
		Params:  map[string]any{"ordered_by": goroutineOrder(timed, len(dumps))},
		Summary: goroutineSummaryOf(dumps[len(dumps)-1], base, len(dumps)),
	}, nil
}

func goroutineOrder(timed bool, n int) string {
	switch {
	case n == 1:
		return ""
	case timed:
		return "dump time"
	}
	return "upload order"
}
