package web

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// sharedPackages are the packages under web that every kind may use; every
// other package under web (but the root and web/internal/...) is a kind of
// evidence.
var sharedPackages = map[string]bool{
	"web/chart": true, "web/groups": true, "web/kind": true, "web/page": true, "web/serrors": true,
	"web/snapshot": true, "web/classhist": true, "web/view": true, "web/background": true,
}

// TestKindsImportNoKind holds the web's layers: no kind of evidence imports
// another kind (what two kinds share lives in a shared package), and nothing but
// the web root imports a kind: adding a kind touches its package and one line
// of the root's wiring.
func TestKindsImportNoKind(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/leakui/leakui/"
	type pkg struct {
		ImportPath    string
		Imports, Deps []string
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs = append(pkgs, p)
		}
	}
	isKind := func(path string) bool {
		rel, ok := strings.CutPrefix(path, module)
		return ok && strings.HasPrefix(rel, "web/") && !sharedPackages[rel] && !strings.HasPrefix(rel, "web/internal/") &&
			strings.Count(rel, "/") == 1
	}
	kinds := 0
	for _, p := range pkgs {
		if isKind(p.ImportPath) {
			kinds++
			for _, d := range p.Deps {
				if isKind(d) {
					t.Errorf("kind %s depends on kind %s; move what they share into a shared package", p.ImportPath, d)
				}
			}
			continue
		}
		if p.ImportPath == module+"web" {
			continue
		}
		for _, imp := range p.Imports {
			if isKind(imp) {
				t.Errorf("%s imports kind %s; only the web root may", p.ImportPath, imp)
			}
		}
	}
	if kinds == 0 {
		t.Error("found no kind package under web")
	}
}
