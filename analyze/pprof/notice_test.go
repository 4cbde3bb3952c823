package pprof

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// noticeRow matches a row of NOTICE's list of ported files: the file, then
// the pprof files it came from; continuationRow matches the rest of that list
// on the lines after it.
var (
	noticeRow       = regexp.MustCompile(`^  ([a-z/_]+\.go) +(\S.*)$`)
	continuationRow = regexp.MustCompile(`^ {20,}(\S.*)$`)
	pprofFile       = regexp.MustCompile(`\b(?:internal|profile)/[a-z/_]*\.go\b`)
)

// TestPortedFilesCarryPprofNotice holds NOTICE and the files ported from
// google/pprof to each other: every file NOTICE lists keeps pprof's copyright
// header and the Apache licence above its package clause, and the pprof
// files its header names are the ones NOTICE names; every Go file of the
// module whose header credits Google is listed.
func TestPortedFilesCarryPprofNotice(t *testing.T) {
	root := filepath.Join("..", "..")
	notice, err := os.ReadFile(filepath.Join(root, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{} // ported file → pprof files
	var last string
	for _, line := range strings.Split(string(notice), "\n") {
		if m := noticeRow.FindStringSubmatch(line); m != nil {
			last = m[1]
			listed[last] = pprofFile.FindAllString(m[2], -1)
		} else if m := continuationRow.FindStringSubmatch(line); m != nil && last != "" {
			listed[last] = append(listed[last], pprofFile.FindAllString(m[1], -1)...)
		} else {
			last = ""
		}
	}
	if len(listed) == 0 {
		t.Fatal("NOTICE lists no ported file")
	}
	for file, sources := range listed {
		header := fileHeader(t, filepath.Join(root, file))
		for _, want := range []string{
			"Google Inc. All Rights Reserved.",
			`Licensed under the Apache License, Version 2.0 (the "License");`,
			"http://www.apache.org/licenses/LICENSE-2.0",
			"ported from github.com/google/pprof",
			"the leakui authors", // who changed it, and how
		} {
			if !strings.Contains(header, want) {
				t.Errorf("%s: its header lacks %q", file, want)
			}
		}
		named := pprofFile.FindAllString(header, -1)
		slices.Sort(named)
		slices.Sort(sources)
		if len(sources) == 0 || !slices.Equal(named, sources) {
			t.Errorf("%s: its header names the pprof files %v, NOTICE %v", file, named, sources)
		}
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if strings.Contains(fileHeader(t, path), "Google Inc.") && listed[filepath.ToSlash(rel)] == nil {
			t.Errorf("%s credits Google Inc. in its header but NOTICE does not list it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fileHeader returns the comment lines of a Go file above its package clause
// that are not its package doc (those separated from the clause by a blank
// line).
func fileHeader(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(string(b), "package ") {
		return ""
	}
	head, _, ok := strings.Cut(string(b), "\npackage ")
	if !ok {
		return ""
	}
	// head ends with "\n" when a blank line stands before the clause; else
	// the comment right above it is the package doc, and the header (if
	// any) ends at the blank line before that.
	if i := strings.LastIndex(head+"\n", "\n\n"); i >= 0 {
		return head[:i]
	}
	return ""
}
