package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze/pprof"
)

// filterFlags are go tool pprof's sample filters, named as pprof names them:
// -focus, -ignore, -hide, -show (RE2 regexps over function, file and binary
// names) and -tagfocus, -tagignore (label values or numeric ranges).
type filterFlags struct {
	focus, ignore, hide, show, tagFocus, tagIgnore *string
}

// addFilterFlags registers the filter flags on fs.
func addFilterFlags(fs *flag.FlagSet) filterFlags {
	return filterFlags{
		focus:     fs.String("focus", "", "keep only samples with a frame matching this `regexp`, as pprof's -focus"),
		ignore:    fs.String("ignore", "", "drop samples with a frame matching this `regexp`, as pprof's -ignore"),
		hide:      fs.String("hide", "", "remove frames matching this `regexp` from the stacks, as pprof's -hide"),
		show:      fs.String("show", "", "keep only frames matching this `regexp` in the stacks, as pprof's -show"),
		tagFocus:  fs.String("tagfocus", "", "keep only samples with a label matching this, as pprof's -tagfocus: regexps over key:value (key=regexp for one key) or a numeric range such as 1mb:, :64kb, bytes=1kb:4kb"),
		tagIgnore: fs.String("tagignore", "", "drop samples with a label matching this, as pprof's -tagignore (the forms of -tagfocus)"),
	}
}

// compile compiles the filter; a tag filter read as a numeric range is said on
// w, as pprof says it.
func (ff filterFlags) compile(w io.Writer, command string) (pprof.Filter, error) {
	f, err := pprof.CompileFilter(*ff.focus, *ff.ignore, *ff.hide, *ff.show)
	if err != nil {
		return f, err
	}
	if f.TagFocus, err = pprof.CompileTagFilter("tagfocus", *ff.tagFocus); err != nil {
		return f, err
	}
	if f.TagIgnore, err = pprof.CompileTagFilter("tagignore", *ff.tagIgnore); err != nil {
		return f, err
	}
	for name, t := range map[string]*pprof.TagFilter{"tagfocus": f.TagFocus, "tagignore": f.TagIgnore} {
		if t.IsRange() {
			fmt.Fprintf(w, "leakui %s: %s: interpreted %q as a range, not a regexp\n", command, name, t.String())
		}
	}
	return f, nil
}

// apply filters p (nothing to do without a filter) within the command's budget
// and says on w which options matched no sample, as pprof warns.
func applyFilter(w io.Writer, command, path string, p *pprof.Profile, f pprof.Filter) (*pprof.Profile, error) {
	if !f.Active() {
		return p, nil
	}
	fp, m, err := p.Filter(f, cliBudget())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, name := range f.Unmatched(m) {
		fmt.Fprintf(w, "leakui %s: the %s expression matched no samples in %s\n", command, name, path)
	}
	return fp, nil
}

// openFiltered opens the profile file at path within limit and filters it
// with f, as applyFilter does. release closes the file; call it when done
// with p, which may share the file's memory.
func openFiltered(w io.Writer, command, path string, limit int64, f pprof.Filter) (p *pprof.Profile, release func(), err error) {
	whole, err := openProfileFile(path, limit)
	if err != nil {
		return nil, nil, err
	}
	if p, err = applyFilter(w, command, path, whole, f); err != nil {
		whole.Close()
		return nil, nil, err
	}
	return p, whole.Close, nil
}
