package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestVendoredUPlotMatchesItsREADME checks that every vendored uPlot file has the
// SHA-256 its README records, so the version named there is the one shipped.
func TestVendoredUPlotMatchesItsREADME(t *testing.T) {
	readme, err := os.ReadFile("vendor/uplot/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"uPlot.iife.min.js", "uPlot.min.css", "LICENSE"} {
		b, err := fs.ReadFile(FS, "vendor/uplot/"+name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		row := "| `" + name + "` |"
		var line string
		for _, l := range strings.Split(string(readme), "\n") {
			if strings.HasPrefix(l, row) {
				line = l
			}
		}
		if !strings.Contains(line, hex.EncodeToString(sum[:])) {
			t.Errorf("%s: SHA-256 %x is not the one in vendor/uplot/README.md (%q)", name, sum, line)
		}
	}
}
