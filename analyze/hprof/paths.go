package hprof

// indexPath is a suspect's whole path to a GC root, as the index stores it: the
// steps are found again by walking the shortest-path tree up from point, and
// their vias are in Heap.pathVias from slot (one per step from the root when
// full, else one per kept step, at the positions index names).
type indexPath struct {
	point  uint32
	length int
	root   string // the root's label
	slot   uint32
	full   bool
	index  []int
}

// indexPaths keeps what the index needs of the suspects' paths once the
// resolver ran: their steps' vias and the names the vias index, charged to the
// budget until the heap is closed.
func (h *Heap) indexPaths(in []*suspect, res *resolver) []indexPath {
	out := make([]indexPath, 0, len(in))
	for _, g := range in {
		p := indexPath{point: g.points[0], length: g.PathLength, slot: g.slot, full: g.full}
		if !g.full {
			p.index = g.index
		}
		if len(g.kept) > 0 {
			p.root = h.rootLabel(g.kept[0], res)
		}
		out = append(out, p)
	}
	h.pathVias, h.pathNames = res.vias, res.names
	h.pathsCharged = 4 * int64(len(res.vias))
	return out
}

// stepVia is the via of the step at position pos of path p, viaUnknown for the
// root and for a step whose field was not read.
func (h *Heap) stepVia(p *indexPath, pos int) uint32 {
	if pos == 0 {
		return viaUnknown
	}
	if p.full {
		return h.pathVias[p.slot+uint32(pos)]
	}
	for i, at := range p.index {
		if at == pos {
			return h.pathVias[p.slot+uint32(i)]
		}
	}
	return viaUnknown
}
