package web

import (
	"context"

	"github.com/leakui/leakui/analyze/hprof"
)

// heapDumpIndexName names a heap dump report's index among its derived blobs.
const heapDumpIndexName = "hprof-index"

// heapDumpIndexOptions prepares a background analysis's options; call finish
// when it is done.
func (s *Server) heapDumpIndexOptions(opt *hprof.Options) (finish func(), err error) {
	return func() {}, nil
}

// storeHeapDumpIndex stores the analyzed heap's index with report id.
func (s *Server) storeHeapDumpIndex(ctx context.Context, id string, h *hprof.Heap, progress func(string, float64)) (bool, error) {
	return false, nil
}
