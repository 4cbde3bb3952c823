package logs

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// writeUTF16 writes the UTF-8 text b as UTF-16 with a byte order mark (big-endian
// when be is set) into a temporary file and returns its path.
func writeUTF16(t *testing.T, b []byte, be bool, name string) string {
	t.Helper()
	out := []byte{0xff, 0xfe}
	if be {
		out = []byte{0xfe, 0xff}
	}
	for _, u := range utf16.Encode([]rune(string(b))) {
		if be {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCountUTF16MatchesGrep counts UTF-16LE and UTF-16BE copies of real logs every
// way Count reads (parallel, streamed, gzip, zstd): lines and pattern counts are
// grep's on the UTF-8 text `iconv -f UTF-16 -t UTF-8` makes of the copy, and the
// report names the encoding.
func TestCountUTF16MatchesGrep(t *testing.T) {
	patterns := []Pattern{Literal("INFO"), Literal("WARN"), Literal("e"), Regexp(`^[0-9]+ `), Regexp(`blk_-?[0-9]+$`), Literal("Preparing to rebalance")}
	for _, name := range []string{"loghub-HDFS_2k.log", "kafka-2.1.1-broker-server.log.2020-02-13-23"} {
		b, err := os.ReadFile(fixtures.Path(t, "logs", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, be := range []bool{false, true} {
			path := writeUTF16(t, b, be, name)
			utf8Path := greptest.UTF8Copy(t, "UTF-16", path)
			wantLines := grepLines(t, utf8Path)
			for _, v := range countVariants {
				rep := countFile(t, v, path, CountOptions{Patterns: patterns})
				enc := rep.Files[0].Encoding
				if rep.Lines != wantLines || (be && enc != "UTF-16BE") || (!be && enc != "UTF-16LE") {
					t.Errorf("%s (big-endian %v, %s): %d lines, encoding %q; grep counts %d", name, be, v.name, rep.Lines, enc, wantLines)
				}
				for i, p := range patterns {
					if want := grepCount(t, p, utf8Path); rep.Patterns[i].Count != want {
						t.Errorf("%s (big-endian %v, %s): %v counted %d, grep says %d", name, be, v.name, p, rep.Patterns[i].Count, want)
					}
				}
			}
		}
	}
}
