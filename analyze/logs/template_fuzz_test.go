package logs

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

var templateSeeds = []string{
	"2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - Notification time out: 3200\r",
	"[2020-02-14 00:00:00,029] INFO [GroupCoordinator 0]: Preparing to rebalance group spark-group (kafka.coordinator.group.GroupCoordinator)",
	"time=2024-01-02T03:04:05Z level=warn msg=\"slow\" id=123e4567-e89b-12d3-a456-426614174000 addr=10.0.0.1:8080 ptr=0x7f3a",
	"I0102 15:04:05.000000    1 main.go:42] started \t tab",
	"{\"level\":\"error\",\"ts\":1.7e9,\"msg\":\"a.b-c_d 1fd3804a840c16fc\"}",
	"plain words only.",
	"",
	"héllo 42 wörld\x01",
	"x\x00y 7",
	"abcdefab-abcd-abcd-abcd-abcdefabcdef \\ [*] (a|b) {1} ^$ .+? 9",
}

// FuzzTemplateMask checks the masker's promise: a line with a template
// matches the template's regexp, and another line matches it exactly when it
// has the same template (with the field kinds of both lines, as a table
// gathers them). The regexps always compile.
func FuzzTemplateMask(f *testing.F) {
	for i, s := range templateSeeds {
		f.Add([]byte(s), []byte(templateSeeds[(i+1)%len(templateSeeds)]))
		f.Add([]byte(s), bytes.Map(func(r rune) rune {
			if r >= '0' && r <= '8' {
				return r + 1
			}
			return r
		}, []byte(s)))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		a, _, _ = bytes.Cut(a, []byte{'\n'})
		b, _, _ = bytes.Cut(b, []byte{'\n'})
		var ma, mb lineMasker
		_, okA := ma.mask(a)
		if !okA {
			return
		}
		_, okB := mb.mask(b)
		same := okB && bytes.Equal(ma.key, mb.key)
		kinds := append([]uint8(nil), ma.kinds...)
		if same {
			for i, k := range mb.kinds {
				kinds[i] |= k
			}
		} else {
			for i := range kinds {
				kinds[i] = fieldNum | fieldIP | fieldHex | fieldUUID | fieldDate | fieldWord
			}
		}
		expr := templateRegexp(string(ma.key), kinds)
		re, err := regexp.Compile(expr)
		if err != nil {
			t.Fatalf("template of %q: regexp %q: %v", a, expr, err)
		}
		_ = templateText(string(ma.key), kinds)
		if !re.Match(a) {
			t.Fatalf("%q does not match its own template's regexp %q", a, expr)
		}
		if got := re.Match(b); got != same {
			t.Fatalf("%q: matches %q (the template of %q) = %v, but same template = %v", b, expr, a, got, same)
		}
	})
}

// FuzzOverviewCounts counts a whole input with the overview, split into tiny
// parts, and checks every listed template against its regexp run over every
// line, and the levels against the line count.
func FuzzOverviewCounts(f *testing.F) {
	for _, s := range templateSeeds {
		f.Add([]byte(s+"\n"+s+"\n"+templateSeeds[0]), uint16(64), uint16(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, block, part uint16) {
		opts := CountOptions{Overview: true, blockSize: int(block%512) + 16, partSize: int(part%2048) + 1, Workers: 2, maxLine: 4096}
		rep, err := Count(context.Background(), opts, Input{Name: "f", Reader: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		var lines [][]byte
		if len(data) > 0 {
			lines = bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
		}
		if int64(len(lines)) != rep.Lines {
			t.Fatalf("%d lines, Count says %d", len(lines), rep.Lines)
		}
		var sum int64
		for _, l := range rep.Overview.Levels {
			sum += l.Lines
		}
		if sum != rep.Lines {
			t.Fatalf("levels add up to %d of %d lines", sum, rep.Lines)
		}
		if rep.LongLines > 0 {
			return // lines longer than maxLine have no template, by design
		}
		for _, tp := range rep.Overview.Templates {
			re := regexp.MustCompile(tp.Regexp)
			var want int64
			for _, l := range lines {
				if re.Match(l) {
					want++
				}
			}
			if tp.Count != want {
				t.Fatalf("template %q: counted %d, its regexp %q matches %d lines", tp.Template, tp.Count, tp.Regexp, want)
			}
		}
	})
}
