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
