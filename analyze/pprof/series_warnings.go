package pprof

import "fmt"

// seriesWarnings says when the snapshots of a series may not come from one
// process: different programs (the main binary's file names differ) or different
// builds of one program (its build ids differ), which a restart in between makes
// of any growth. Snapshots that do not say are taken as alike.
func seriesWarnings(snaps []Snapshot) []string {
	var out []string
	first := snaps[0]
	program, build := first.Profile.MainBinary(), first.Profile.meta.mainBuildID
	for i, s := range snaps[1:] {
		p := s.Profile.MainBinary()
		if program != "" && p != "" && p != program {
			out = append(out, fmt.Sprintf("The snapshots come from different programs (%s in snapshot 1, %s in snapshot %d): a series follows one program over time.",
				program, p, i+2))
			return out
		}
	}
	for i, s := range snaps[1:] {
		b := s.Profile.meta.mainBuildID
		if build != "" && b != "" && b != build {
			out = append(out, fmt.Sprintf("The snapshots come from different builds of %s (build ID %s in snapshot 1, %s in snapshot %d): the program was rebuilt and restarted between them, so what it holds started again.",
				seriesProgramName(program), shortBuildID(build), shortBuildID(b), i+2))
			return out
		}
	}
	return out
}

// seriesProgramName names the program in a warning.
func seriesProgramName(program string) string {
	if program == "" {
		return "the program"
	}
	return program
}

// shortBuildID cuts a build id to its first 12 characters, enough to tell two apart.
func shortBuildID(id string) string {
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}
