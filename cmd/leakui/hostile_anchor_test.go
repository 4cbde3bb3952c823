package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pprofRow is one row of `go tool pprof -top`.
type pprofRow struct {
	Flat, Cum int64
}

var (
	pprofTopTotal = regexp.MustCompile(`of (-?\d+)B total`)
	pprofTopRow   = regexp.MustCompile(`^\s*(-?\d+)B?\s+\S+%\s+\S+%\s+(-?\d+)B?\s+\S+%\s\s(.*)$`)
)

// pprofTop runs the real `go tool pprof -top` on a profile of bytes and returns
// its total and rows by function name: the anchor for leakui's numbers.
func pprofTop(t *testing.T, path string) (int64, map[string]pprofRow) {
	t.Helper()
	cmd := exec.Command("go", "tool", "pprof", "-top", "-nodefraction=0", "-nodecount=1000", "-symbolize=none", "-unit=B", path)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof -top %s: %v\n%s", path, err, stderr.String())
	}
	var total int64 = -1
	rows := map[string]pprofRow{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pprofTopTotal.FindStringSubmatch(line); m != nil && total < 0 {
			total, _ = strconv.ParseInt(m[1], 10, 64)
			continue
		}
		if m := pprofTopRow.FindStringSubmatch(line); m != nil && !strings.Contains(line, "flat%") {
			flat, _ := strconv.ParseInt(m[1], 10, 64)
			cum, _ := strconv.ParseInt(m[2], 10, 64)
			rows[m[3]] = pprofRow{flat, cum}
		}
	}
	if total < 0 || len(rows) == 0 {
		t.Fatalf("could not read go tool pprof -top:\n%s", out)
	}
	return total, rows
}

// pprofPercents runs `go tool pprof -top` and returns each function's flat% and
// cum% as pprof prints them.
func pprofPercents(t *testing.T, path string) map[string][2]string {
	t.Helper()
	cmd := exec.Command("go", "tool", "pprof", "-top", "-nodefraction=0", "-symbolize=none", "-unit=B", path)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof -top %s: %v", path, err)
	}
	rows := map[string][2]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && strings.HasSuffix(f[1], "%") && strings.HasSuffix(f[4], "%") {
			rows[f[5]] = [2]string{f[1], f[4]}
		}
	}
	if len(rows) == 0 {
		t.Fatalf("no rows in go tool pprof -top:\n%s", out)
	}
	return rows
}
