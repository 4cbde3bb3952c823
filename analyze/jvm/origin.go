package jvm

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Origin says which JVM a file came from, as far as the file says: the process id
// jcmd prints on its first line ("12345:"), the JVM's version (from a class
// histogram's module column, "java.base@17.0.15", or a thread dump's header, "Full
// thread dump OpenJDK 64-Bit Server VM (17.0.15+6-LTS mixed mode)"), and the
// program (the class whose main method the thread named main runs). An empty field
// is not known.
type Origin struct {
	PID        int64  `json:"pid,omitempty"`
	JVMVersion string `json:"jvm_version,omitempty"`
	Program    string `json:"program,omitempty"`
}

// OriginWarnings says why two files compared as base and target may not be
// comparable: they come from different JVM versions, programs or processes. Each
// is said only when both files say it. A comparison shows them first.
func OriginWarnings(base, target Origin) []string {
	return originWarnings("The two files come", []Origin{base, target}, func(i int) string {
		return [2]string{"the base", "the target"}[i]
	})
}

// SeriesWarnings is OriginWarnings for snapshots analyzed as a series (a
// series.Input's Warnings): each reason once, naming the first snapshot that
// differs from the first one.
func SeriesWarnings(origins []Origin) []string {
	return originWarnings("The snapshots come", origins, func(i int) string {
		return fmt.Sprintf("snapshot %d", i+1)
	})
}

// originWarnings compares every origin with the first; name says which file an
// index is.
func originWarnings(subject string, origins []Origin, name func(int) string) []string {
	var out []string
	first := func(field func(Origin) string) (int, bool) {
		for i := 1; i < len(origins); i++ {
			a, b := field(origins[0]), field(origins[i])
			if a != "" && b != "" && a != b {
				return i, true
			}
		}
		return 0, false
	}
	version := func(o Origin) string { return o.JVMVersion }
	program := func(o Origin) string { return o.Program }
	pid := func(o Origin) string {
		if o.PID == 0 {
			return ""
		}
		return strconv.FormatInt(o.PID, 10)
	}
	if i, ok := first(version); ok {
		out = append(out, fmt.Sprintf("%s from different JVM versions (%s in %s, %s in %s): the JDK's own classes, threads and memory differ between versions, and its lambdas are named anew, so a change may be the JVM's, not a leak.",
			subject, origins[0].JVMVersion, name(0), origins[i].JVMVersion, name(i)))
	}
	if i, ok := first(program); ok {
		out = append(out, fmt.Sprintf("%s from different programs (%s in %s, %s in %s): compare snapshots of one program.",
			subject, origins[0].Program, name(0), origins[i].Program, name(i)))
	}
	if i, ok := first(pid); ok {
		out = append(out, fmt.Sprintf("%s from different processes (PID %d in %s, %d in %s): the JVM was restarted in between, so a change may be the restart, not a leak.",
			subject, origins[0].PID, name(0), origins[i].PID, name(i)))
	}
	return out
}

// pidLine recognizes jcmd's first line, the process id and a colon
// ("31271:").
func pidLine(line []byte) (int64, bool) {
	t := bytes.TrimSpace(line)
	if len(t) < 2 || len(t) > 20 || t[len(t)-1] != ':' {
		return 0, false
	}
	pid, err := strconv.ParseInt(string(t[:len(t)-1]), 10, 64)
	if err != nil || pid <= 0 || t[0] == '+' {
		return 0, false
	}
	return pid, true
}

// histogramJVMVersion reads the JDK's version from the module column of a
// histogram's rows: the version of java.base ("java.base@17.0.15"), "" when the
// histogram has no module column.
func histogramJVMVersion(classes []Class) string {
	for _, c := range classes {
		if v, ok := strings.CutPrefix(c.Module, "java.base@"); ok && v != "" {
			return v
		}
	}
	return ""
}

// headerJVMVersion reads the version from a thread dump's header, the first word
// in its last parentheses: "Full thread dump OpenJDK 64-Bit Server VM
// (17.0.15+6-Debian-1deb12u1 mixed mode):" gives "17.0.15+6-Debian-1deb12u1", a JDK
// 8 header the HotSpot version ("25.91-b14").
func headerJVMVersion(header string) string {
	open, end := strings.LastIndexByte(header, '('), strings.LastIndexByte(header, ')')
	if open < 0 || end < open {
		return ""
	}
	f := strings.Fields(header[open+1 : end])
	if len(f) == 0 {
		return ""
	}
	return strings.TrimSuffix(f[0], ",")
}

// threadProgram names the program of a dump: the class whose main method the
// thread named main runs (its outermost "Class.main(" frame), "" when there is
// none (the main thread ended, or the dump left it out).
func threadProgram(threads []Thread) string {
	for i := range threads {
		t := &threads[i]
		if t.Name != "main" {
			continue
		}
		for j := len(t.Frames) - 1; j >= 0; j-- {
			fn, _, _ := strings.Cut(t.Frames[j], "(")
			if class, ok := strings.CutSuffix(fn, ".main"); ok && class != "" {
				return class
			}
		}
		return ""
	}
	return ""
}
