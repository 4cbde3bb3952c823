package main

import (
	"bufio"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// machineMemory is the memory this process may use: its cgroup's limit (v2
// memory.max, else v1 memory.limit_in_bytes) when there is one below the
// machine's, else the machine's (MemTotal of /proc/meminfo); 0 when unknown.
func machineMemory() int64 {
	total := memTotal()
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			return n
		}
	}
	return total
}

// memTotal is /proc/meminfo's MemTotal in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// serveMemoryLimit gives the Go runtime a soft memory limit of three quarters
// of machineMemory when GOMEMLIMIT does not set one, so the garbage collector
// works harder before the kernel's limit is near; it returns the limit in
// effect (0 when there is none and the machine's memory is unknown).
func serveMemoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") == "" {
		if mem := machineMemory(); mem > 0 {
			debug.SetMemoryLimit(mem / 4 * 3)
		}
	}
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		return limit
	}
	return 0
}
