package hprof

// objectCounts are what countObjects counts: by class number the instances and
// their shallow size, and in all the shallow size and the unreachable objects
// and their size.
type objectCounts struct {
	instances, byClass                     []int64
	shallow, unreachable, unreachableBytes int64
}

// halfFrom is the fewest references whose rows sortRows sorts in two halves
// (a variable for the tests).
var halfFrom = 1 << 16

// countObjects counts the objects by class and the unreachable ones from what
// Analyze counted of each class by reachability (countClasses), without
// another pass over the objects: an object is strongly reachable exactly when
// it is in the dominator tree (reachability).
func (h *Heap) countObjects() (objectCounts, error) {
	if len(h.classStats) != len(h.Classes) {
		if err := h.countClasses(); err != nil {
			return objectCounts{}, err
		}
	}
	classes := len(h.Classes)
	all := objectCounts{instances: make([]int64, classes), byClass: make([]int64, classes)}
	for cn := range h.classStats {
		for r, c := range h.classStats[cn].reach {
			all.instances[cn] += c.Count
			all.byClass[cn] += c.Bytes
			all.shallow += c.Bytes
			if Reachability(r) != Strong {
				all.unreachable += c.Count
				all.unreachableBytes += c.Bytes
			}
		}
	}
	return all, nil
}
