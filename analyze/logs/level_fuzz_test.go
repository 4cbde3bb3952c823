package logs

import (
	"bytes"
	"testing"

	"github.com/leakui/leakui/analyze/logline"
)

// FuzzLevelAgrees holds the level the overview gives each line of random
// inputs, read in order through the skeleton cache, the fast path and the
// masker, to logline.Level, which the sniffer reads: the two judge a line
// alike.
func FuzzLevelAgrees(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:00.030 [main] INFO x\n2023-06-21 00:00:01 WARN y\nE0102 15:04:05 z\nlog.INFO -info error.\n"))
	f.Add([]byte("a\x01 ERROR\nERROR\x01\r\n\tWARN\xff\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx ERROR\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		sc := newLogScanner(&countPlan{}, 0, 0)
		ov := &overviewPart{table: newLogTemplateTable()}
		for i, line := range bytes.Split(in, []byte{'\n'}) {
			for range 2 { // the second time through the caches
				got, _ := sc.template(ov, line, int64(i), false)
				if want := logline.Level(line); got != want {
					t.Fatalf("%q: overview level %s, logline.Level %s", line, LevelNames[got], LevelNames[want])
				}
			}
		}
	})
}
