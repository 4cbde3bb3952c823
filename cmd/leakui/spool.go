package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leakui/leakui/store"
)

// uploadSpool is this server's own directory for uploads in progress,
// DATA/uploads/<id>, locked for as long as the server runs. Servers that share a
// data directory (replicas on one machine over PostgreSQL) each have their own.
// At start, a server removes the directories whose lock it can take: the server
// that owned one is gone, killed in the middle of an upload.
type uploadSpool struct {
	dir  string
	lock *os.File
}

// spoolLockName is the lock file inside a spool directory.
const spoolLockName = ".lock"

// openUploadSpool creates and locks this server's spool directory under
// dataDir/uploads and removes those of servers that died. It returns how many
// stale directories it removed.
func openUploadSpool(dataDir string) (*uploadSpool, int, error) {
	root := filepath.Join(dataDir, "uploads")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, 0, fmt.Errorf("upload directory: %w", err)
	}
	dir := filepath.Join(root, store.NewID())
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, 0, fmt.Errorf("upload directory: %w", err)
	}
	lock, err := os.Create(filepath.Join(dir, spoolLockName))
	if err == nil {
		var ok bool
		if ok, err = tryLock(lock); errors.Is(err, errors.ErrUnsupported) {
			err = nil // no locks on this system: stale directories stay
		} else if err == nil && !ok {
			err = errors.New("a new directory is locked by another process")
		}
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(dir)
		return nil, 0, fmt.Errorf("upload directory %s: %w", dir, err)
	}
	s := &uploadSpool{dir: dir, lock: lock}
	removed, err := s.removeStale(root)
	return s, removed, err
}

// removeStale removes the spool directories under root whose lock is free.
func (s *uploadSpool) removeStale(root string) (int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if dir == s.dir {
			continue
		}
		if !e.IsDir() {
			errs = append(errs, os.Remove(dir)) // a spool file of a version without directories
			removed++
			continue
		}
		f, err := os.Open(filepath.Join(dir, spoolLockName))
		if err == nil {
			ok, lerr := tryLock(f)
			f.Close() // releases the lock again
			if lerr != nil || !ok {
				continue // a live server's, or one we cannot judge
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// runsDir is where the lab makes its runs' directories (their logs, the Kafka
// log directory of a recovery run): inside this server's spool, so a server
// killed in the middle of a run leaves them to be removed, with its spool, when
// the next server starts (see removeStale).
func (s *uploadSpool) runsDir() string { return filepath.Join(s.dir, "runs") }

// Close releases the lock and removes the directory.
func (s *uploadSpool) Close() error {
	return errors.Join(s.lock.Close(), os.RemoveAll(s.dir))
}
