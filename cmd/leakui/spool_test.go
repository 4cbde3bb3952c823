package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUploadSpoolRemovesOnlyTheDeads: servers sharing a data directory each get
// a directory of their own; a new server removes those whose lock is free (their
// server died) and stray spool files, never a live server's.
func TestUploadSpoolRemovesOnlyTheDeads(t *testing.T) {
	data := t.TempDir()
	live, removed, err := openUploadSpool(data)
	if err != nil || removed != 0 {
		t.Fatalf("first spool: %v, removed %d", err, removed)
	}
	inFlight := filepath.Join(live.dir, "leakui-upload-1")
	dead := filepath.Join(data, "uploads", "deadserver")
	stray := filepath.Join(data, "uploads", "leakui-upload-2")
	for _, f := range []string{inFlight, filepath.Join(dead, spoolLockName), filepath.Join(dead, "leakui-upload-3"), stray} {
		os.MkdirAll(filepath.Dir(f), 0o700)
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	second, removed, err := openUploadSpool(data)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 2 {
		t.Errorf("removed %d, want the dead server's directory and the stray file", removed)
	}
	for path, want := range map[string]bool{inFlight: true, dead: false, stray: false, second.dir: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", path, err == nil, want)
		}
	}
	for _, s := range []*uploadSpool{live, second} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
			t.Errorf("%s survives Close", s.dir)
		}
	}
}
