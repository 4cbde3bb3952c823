package web

import "github.com/leakui/leakui/web/kind"

// inputKinds lists every kind of evidence leakui accepts, in the order the upload
// page and errors name them: pprof profiles first (the most common input), then Go
// goroutine dumps, the JVM's outputs, capture bundles, and logs, the kind any other
// text is.
func (s *Server) inputKinds() []kind.Kind {
	return []kind.Kind{
		s.profileKind,
		s.goroutineKind,
		s.histogramsKind,
		s.threadsKind,
		s.nmtKind,
		s.heapDumps,
		s.bundlesKind,
	}
}

// newKindRegistry builds the one dispatch on kinds, in the order of inputKinds
// and then the lab's run reports.
func (s *Server) newKindRegistry() *kind.Registry {
	return kind.NewRegistry(append(s.inputKinds(), s.logs, s.runs)...)
}
