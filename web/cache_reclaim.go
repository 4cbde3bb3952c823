package web

// cacheReclaimer drops cached results when the server's memory budget has no
// room for an analysis: an entry of each cache in turn, least recently used
// first, until the bytes asked for are given back or the caches are empty. A
// server under memory pressure forgets what it can parse again rather than
// refusing new work.
type cacheReclaimer []interface{ DropOldest() int64 }

// reclaim gives back at least need bytes if the caches hold them and reports
// whether it gave back anything.
func (caches cacheReclaimer) reclaim(need int64) bool {
	var freed int64
	dropped := false
	for {
		round := false
		for _, c := range caches {
			if n := c.DropOldest(); n > 0 {
				freed += n
				round, dropped = true, true
				if freed >= need {
					return true
				}
			}
		}
		if !round {
			return dropped
		}
	}
}
