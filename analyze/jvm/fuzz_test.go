package jvm

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/jvmtext"
)

// fuzzSeeds adds the JVM fixtures (the large HP-UX dump cut to its first 16 KiB)
// and the test's own generated files to a fuzz corpus.
func fuzzSeeds(f *testing.F, extra ...string) {
	for _, p := range fixtures.Glob(f, "jvm", "*") {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(b) > 16<<10 {
			b = b[:16<<10]
		}
		f.Add(b)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// fuzzErr checks that a parser failed with one of the package's sentinel errors.
func fuzzErr(t *testing.T, err error) {
	if !errors.Is(err, analyze.ErrEmpty) && !errors.Is(err, analyze.ErrUnsupportedKind) && !errors.Is(err, analyze.ErrMalformed) {
		t.Fatalf("error %v is none of ErrEmpty, ErrUnsupportedKind, ErrMalformed", err)
	}
}

func FuzzParseHistograms(f *testing.F) {
	fuzzSeeds(f, jvmtext.Histogram(jvmtext.JDK9, samzaHeap(7)), jvmtext.Histogram(jvmtext.SA, samzaHeap(2)), "12345:\n"+jvmtext.Histogram(jvmtext.JDK8, samzaHeap(1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWithin(t, data, func(r io.Reader, b *analyze.Budget) (int, error) {
			hs, err := ParseHistogramsWithin(r, b)
			return len(hs), err
		})
		hs, err := ParseHistograms(bytes.NewReader(data))
		if err != nil {
			fuzzErr(t, err)
			return
		}
		for _, h := range hs {
			var inst, byt int64
			for _, c := range h.Classes {
				inst += c.Instances
				byt += c.Bytes
				if !utf8.ValidString(c.Name) || !utf8.ValidString(c.Module) || c.Instances < 0 || c.Bytes < 0 {
					t.Fatalf("row %+v", c)
				}
			}
			if inst != h.RowInstances || byt != h.RowBytes || (!h.HasTotal && (h.TotalBytes != byt || h.TotalInstances != inst)) {
				t.Fatalf("sums %d/%d, histogram %+v", inst, byt, h)
			}
			s := h.Snapshot()
			var snap int64
			for _, v := range s.Bytes {
				snap += v
			}
			if snap != h.RowBytes {
				t.Fatalf("snapshot adds up to %d bytes, rows to %d", snap, h.RowBytes)
			}
			d := DiffHistograms(h, h)
			if d.TotalBytes != 0 || len(d.Grown(ByBytes, 0)) != 0 || len(d.Suspects(0)) != 0 {
				t.Fatalf("a histogram against itself grew: %+v", d)
			}
			_ = h.Headline()
			_ = d.Headline()
		}
	})
}

func FuzzParseThreadDumps(f *testing.F) {
	fuzzSeeds(f,
		jvmtext.Dump("2020-02-25 09:21:02", append(samzaContainerThreads(), samzaPollThreads(5)...)),
		"Found one Java-level deadlock:\n=====\n\"a\":\n  waiting to lock monitor 0x1 (object 0x2, a X),\n  which is held by \"b\"\nJava stack information for the threads listed above:\n\"a\":\n\tat x\nFound 1 deadlock.\n",
		"\"a\" #1 daemon prio=5 tid=0x1 nid=0x2 waiting on condition [0x3]\n   java.lang.Thread.State: WAITING (parking)\n\tat a.B(C.java:1)\n\t- parking to wait for  <0x4> (a D)\n\n   Locked ownable synchronizers:\n\t- <0x5> (a E)\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWithin(t, data, func(r io.Reader, b *analyze.Budget) (int, error) {
			tf, err := ParseThreadDumpsWithin(r, b)
			if err != nil {
				return 0, err
			}
			return tf.Threads(), nil
		})
		tf, err := ParseThreadDumps(bytes.NewReader(data))
		if err != nil {
			fuzzErr(t, err)
			return
		}
		total := 0
		for _, d := range tf.Dumps {
			g := GroupThreads(d)
			sum := 0
			for _, grp := range g.Groups {
				sum += grp.Count
				if grp.Count <= 0 || grp.Daemon > grp.Count || len(grp.Names) == 0 {
					t.Fatalf("group %+v", grp)
				}
			}
			if sum != len(d.Threads) || g.Total != sum {
				t.Fatalf("groups hold %d threads of %d", sum, len(d.Threads))
			}
			total += sum
			for _, th := range d.Threads {
				checkUTF8(t, th)
			}
			self := DiffThreads(g, g)
			if len(self.New)+len(self.Grown)+len(self.Shrunk)+len(self.Names) != 0 {
				t.Fatalf("a dump against itself changed: %+v", self)
			}
			_ = g.Headline()
			_ = self.Headline()
		}
		if total != tf.Threads() || total == 0 {
			t.Fatalf("%d threads in groups, %d in the file", total, tf.Threads())
		}
	})
}

func FuzzParseNMT(f *testing.F) {
	cats := kafkaBroker("Other", 300<<20)
	fuzzSeeds(f, nmtDiffText(cats), nmtSummaryText(cats), nmtSummaryText(nmtBase(cats)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWithin(t, data, func(r io.Reader, b *analyze.Budget) (int, error) {
			all, err := ParseNMTsWithin(r, b)
			return len(all), err
		})
		all, err := ParseNMTs(bytes.NewReader(data))
		if err != nil {
			fuzzErr(t, err)
			return
		}
		for _, n := range all {
			for _, c := range n.Categories {
				if !utf8.ValidString(c.Name) {
					t.Fatalf("category name %q", c.Name)
				}
			}
			d := DiffNMT(n, n)
			if d.TotalCommittedDelta != 0 || d.NonHeapCommittedDelta != 0 || d.NativeLeak != nil {
				t.Fatalf("a report against itself changed: %+v", d)
			}
			if bd := n.BaselineDiff(); (bd != nil) != n.Diff {
				t.Fatalf("BaselineDiff %v for a report with Diff %v", bd, n.Diff)
			}
			_ = n.Headline()
			_ = d.Headline()
		}
	})
}
