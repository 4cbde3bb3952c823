package web

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/page"
)

// captureName names a lab capture by its run, kind and step, such as
// "checkpoint-leaky-ab3d9f-heap-step004.pb.gz" (a jvm run's jcmd outputs
// keep their own name after the role: "recovery-jvm-ab3d9f-jvm-capture-before-step002.tar.gz"), so that a download or a listing
// of captures from several runs says where each came from. A run the store
// cannot read keeps the lab's own name.
func (rr runRecorder) captureName(ctx context.Context, runID string, c lab.Capture) string {
	run, err := rr.s.store.Run(ctx, runID)
	if err != nil {
		return c.Name
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	ext := ".pb.gz"
	switch e := path.Ext(c.Name); {
	case strings.HasSuffix(c.Name, ".tar.gz"):
		ext = ".tar.gz" // a jvm run's capture bundle
	case e != ".gz" && e != "":
		ext = e
	}
	// The kind is the capture's role ("heap-00004.pb.gz" is a heap), unless the
	// lab named the capture itself ("jvm-nmt-before.txt"): then its own name
	// says more, and several captures of one role and step stay apart.
	kind := c.Role
	if stem := strings.TrimSuffix(strings.TrimSuffix(c.Name, ".pb.gz"), ext); !genericCaptureName(stem, c.Role) {
		kind = stem
	}
	parts := []string{}
	for _, p := range []string{spec.Workload, spec.Variant, runID[:min(6, len(runID))], kind} {
		if p = nameSafe(p); p != "" {
			parts = append(parts, p)
		}
	}
	return fmt.Sprintf("%s-step%03d%s", strings.Join(parts, "-"), c.Step, ext)
}

// nameSafe keeps the letters, digits, dots and dashes of s, for a file name.
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		if r == '_' || r == ' ' || r == '/' || r == ':' {
			return '-'
		}
		return -1
	}, s)
}

// genericCaptureName reports whether stem says no more than the capture's role
// and step: the lab's numbered names ("heap-00004"), a target's
// ("api-heap-003") and a run's log ("checkpoint"). Only a name that starts
// with the role and goes on with words ("jvm-nmt-before") says more.
func genericCaptureName(stem, role string) bool {
	rest, ok := strings.CutPrefix(stem, role+"-")
	if !ok {
		return true
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
