package hprof

// csr is a graph's adjacency in compressed sparse rows: the targets of node i are
// targets[offsets[i]:offsets[i+1]].
type csr struct {
	offsets []uint32
	targets []uint32
}

func (g *csr) row(i uint32) []uint32 {
	if int(i)+1 >= len(g.offsets) {
		return nil
	}
	return g.targets[g.offsets[i]:g.offsets[i+1]]
}

// reverse builds the transposed graph of g over n nodes.
func (g *csr) reverse(n int) csr {
	offsets := make([]uint32, n+1)
	for _, t := range g.targets {
		offsets[t+1]++
	}
	for i := 1; i <= n; i++ {
		offsets[i] += offsets[i-1]
	}
	targets := make([]uint32, len(g.targets))
	fill := make([]uint32, n)
	copy(fill, offsets[:n])
	for src := 0; src+1 < len(g.offsets); src++ {
		for _, t := range g.targets[g.offsets[src]:g.offsets[src+1]] {
			targets[fill[t]] = uint32(src)
			fill[t]++
		}
	}
	return csr{offsets: offsets, targets: targets}
}
