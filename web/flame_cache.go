package web

import (
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze/pprof"
)

// flameOf builds (or takes from the cache) the flame graph of one file of a report
// for the query's sample type and filter: building one over hundreds of thousands
// of stacks takes a few hundred milliseconds, and a page is often viewed again.
func (s *Server) flameOf(ps *profileSet, file int, filtered *pprof.Profile) pprof.FlameGraph {
	key := strings.Join([]string{ps.rep.Artifacts[file].SHA256, strconv.Itoa(ps.si), strings.Join(ps.q.filterText[:], "\x00")}, "|")
	if fg, ok := s.flames.get(key); ok {
		return fg
	}
	fg := filtered.Flame(ps.si, pprof.DefaultFlameFraction)
	s.flames.add(key, fg)
	return fg
}
