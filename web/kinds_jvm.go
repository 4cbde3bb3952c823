package web

// The JVM inputs plug into the upload path and the report pages from here. (The
// file's name sorts after kinds.go, so its init runs later and the upload page lists
// the JVM inputs after the pprof profiles.)
