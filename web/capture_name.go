package web

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/leakui/leakui/lab"
)

// captureName names a lab capture by its run, kind and step, such as
// "checkpoint-leaky-ab3d9f-heap-step004.pb.gz" (a jvm run's jcmd outputs
// keep their own name after the role: "recovery-jvm-ab3d9f-jvm-nmt-before-step002.txt"), so that a download or a listing
// of captures from several runs says where each came from. A run the store
// cannot read keeps the lab's own name.
func (rr runRecorder) captureName(ctx context.Context, runID string, c lab.Capture) string {
	run, err := rr.s.store.Run(ctx, runID)
	if err != nil {
		return c.Name
	}
	var spec lab.Spec
	jsonUnmarshal(run.Spec, &spec)
	parts := []string{}
	for _, p := range []string{spec.Workload, spec.Variant, runID[:min(6, len(runID))], c.Role} {
		if p = nameSafe(p); p != "" {
			parts = append(parts, p)
		}
	}
	if c.Role == lab.RoleJVM {
		// A jvm run's jcmd outputs share their step: the lab's own name
		// ("jvm-nmt-before.txt") tells them apart.
		if stem := nameSafe(strings.TrimPrefix(strings.TrimSuffix(c.Name, path.Ext(c.Name)), "jvm-")); stem != "" {
			parts = append(parts, stem)
		}
	}
	ext := ".pb.gz"
	if e := path.Ext(c.Name); e != ".gz" && e != "" {
		ext = e
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
