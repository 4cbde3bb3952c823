package hostile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

var update = flag.Bool("update", false, "rewrite testdata/hostile/ from Small")

// TestSmallCorpusIsCommitted checks that testdata/hostile/ holds exactly what
// Small makes (go test ./internal/hostile -run Committed -update rewrites it).
func TestSmallCorpusIsCommitted(t *testing.T) {
	dir := filepath.Join(fixtures.Root(t), "testdata", "hostile")
	small := Small()
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range small {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(small) < 20 {
		t.Errorf("the small corpus has %d inputs", len(small))
	}
	for name, want := range small {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("testdata/hostile/%s is not what Small makes (%v); run go test ./internal/hostile -update", name, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := small[e.Name()]; !ok && e.Name() != "README.md" {
			t.Errorf("testdata/hostile/%s is not made by Small", e.Name())
		}
	}
}
