package doccheck

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/fixtures"
)

// maxReadmeLines is the hard limit on README.md's length: it is the front door,
// and everything else lives in docs/.
const maxReadmeLines = 200

// architecture is the file whose package tables must name real packages.
const architecture = "docs/ARCHITECTURE.md"

// docFiles lists README.md and every .md file under docs/, as slash paths
// relative to root.
func docFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

func TestLinks(t *testing.T) {
	root := fixtures.Root(t)
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found only %v: docs/ should hold the documentation", files)
	}
	for _, p := range checkLinks(root, files) {
		t.Error(p)
	}
}

func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures.Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && !strings.HasSuffix(string(b), "\n") {
		n++
	}
	if n >= maxReadmeLines {
		t.Errorf("README.md has %d lines; it must stay under %d: move the details into docs/", n, maxReadmeLines)
	}
}

func TestArchitecturePackages(t *testing.T) {
	root := fixtures.Root(t)
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(architecture)))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, problems := packageTable(string(b))
	for _, p := range problems {
		t.Errorf("%s: %s", architecture, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("%s: found no package rows under its \"## Packages\" heading", architecture)
	}
	for _, pkg := range pkgs {
		if err := hasGoFiles(filepath.Join(root, filepath.FromSlash(pkg))); err != nil {
			t.Errorf("%s names package %s: %v", architecture, pkg, err)
		}
	}
	named := map[string]bool{}
	for _, pkg := range pkgs {
		named[pkg] = true
	}
	all, err := goPackageDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range all {
		if !named[pkg] {
			t.Errorf("package %s is not in %s's package tables: say what it owns and imports", pkg, architecture)
		}
	}
}

// goPackageDirs lists, as slash paths relative to root, every directory of the
// module that holds Go files, leaving out testdata folders and hidden ones.
func goPackageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "leakui-data") {
			return filepath.SkipDir
		}
		if hasGoFiles(path) == nil && path != root {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	return dirs, err
}

// TestCheckerFails makes sure the checks can fail: a small repository with one
// kind of mistake per link.
func TestCheckerFails(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/x\n")
	write("bench/README.md", "# Bench\n")
	write("docs/screenshots/a.png", "png")
	write("README.md", "# X\n\n## The lab: runs watched live\n\n"+
		"[ok](docs/guide.md#filters-and-diffs) [ok](#the-lab-runs-watched-live) ![ok](docs/screenshots/a.png)\n"+
		"[ok](https://example.com/nowhere) [ok](bench/) `[not a link](nowhere.md)`\n"+
		"[missing file](docs/nowhere.md)\n"+
		"[bad anchor](#no-such-heading)\n"+
		"[bad cross-file anchor](docs/guide.md#nowhere)\n"+
		"```\n[in a code block](nowhere-either.md)\n```\n")
	write("docs/guide.md", "# Guide\n\n## Filters and diffs\n\n"+
		"![moved picture](docs/screenshots/a.png) [ok](screenshots/a.png) [ok](../bench/README.md#bench)\n"+
		"[outside](../../elsewhere.md)\n")
	got := checkLinks(root, []string{"README.md", "docs/guide.md"})
	want := []string{
		"README.md:7: link docs/nowhere.md: docs/nowhere.md does not exist",
		"README.md:8: link #no-such-heading: README.md has no heading with the anchor no-such-heading",
		"README.md:9: link docs/guide.md#nowhere: docs/guide.md has no heading with the anchor nowhere",
		"docs/guide.md:5: link docs/screenshots/a.png: docs/docs/screenshots/a.png does not exist",
		"docs/guide.md:6: link ../../elsewhere.md: it points outside the repository",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	pkgs, problems := packageTable("# A\n\n## Packages\n\n| package | owns |\n| --- | --- |\n| `web` | x |\n| `a`, `b/c` | y |\n| web | z |\n\n## Other\n\n| package | owns |\n| --- | --- |\n| `not/this` | x |\n")
	if !slices.Equal(pkgs, []string{"web", "a", "b/c"}) || len(problems) != 1 {
		t.Errorf("packageTable = %q, %q; want [web a b/c] and one problem", pkgs, problems)
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"The lab: reproductions watched live":                      "the-lab-reproductions-watched-live",
		"Log forensics: `leakui count`":                            "log-forensics-leakui-count",
		"What leakui promises, and how it is tested":               "what-leakui-promises-and-how-it-is-tested",
		"Beyond one machine: PostgreSQL and a real Kafka cluster":  "beyond-one-machine-postgresql-and-a-real-kafka-cluster",
		"SAMZA-2785: `leakui work checkpoint`":                     "samza-2785-leakui-work-checkpoint",
		"JVM dumps: class histograms, thread dumps, native memory": "jvm-dumps-class-histograms-thread-dumps-native-memory",
		"Analysis: `analyze`":                                      "analysis-analyze",
		"The `-sample_index` flag":                                 "the--sample_index-flag",
		"A [linked](http://example.com) *word*":                    "a-linked-word",
		"Ünïcode → arrows":                                         "ünïcode--arrows",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

var (
	// linkRE matches an inline link or image: [text](target) or ![alt](target "title").
	linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// headingRE matches an ATX heading.
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	// htmlAnchorRE matches an explicit HTML anchor.
	htmlAnchorRE = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	// schemeRE matches a URL with a scheme: not a repository path.
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// lineAnchorRE matches GitHub's line anchors in source files.
	lineAnchorRE = regexp.MustCompile(`^L\d+(-L\d+)?$`)
)

// checkLinks checks every relative link of files (slash paths relative to root)
// and returns one line per problem.
func checkLinks(root string, files []string) []string {
	var problems []string
	anchors := map[string]map[string]bool{} // by slash path of a Markdown file
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(b))
		anchors[rel] = a
		return a, nil
	}
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		for i, line := range strings.Split(proseOnly(string(b)), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if target == "" || schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
					continue
				}
				report := func(format string, args ...any) {
					problems = append(problems, fmt.Sprintf("%s:%d: link %s: %s", file, i+1, target, fmt.Sprintf(format, args...)))
				}
				p, anchor, _ := strings.Cut(target, "#")
				if q := strings.IndexByte(p, '?'); q >= 0 {
					p = p[:q]
				}
				if unescaped, err := url.PathUnescape(p); err == nil {
					p = unescaped
				}
				if a, err := url.PathUnescape(anchor); err == nil {
					anchor = a
				}
				rel := file // a bare #anchor points into the same file
				if p != "" {
					if strings.HasPrefix(p, "/") {
						rel = path.Clean(strings.TrimPrefix(p, "/"))
					} else {
						rel = path.Join(path.Dir(file), p)
					}
					if rel == ".." || strings.HasPrefix(rel, "../") {
						report("it points outside the repository")
						continue
					}
				}
				info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil {
					report("%s does not exist", rel)
					continue
				}
				if anchor == "" {
					continue
				}
				md := rel
				if info.IsDir() {
					md = path.Join(rel, "README.md") // what GitHub shows for a folder
				}
				if !strings.HasSuffix(md, ".md") {
					if !lineAnchorRE.MatchString(anchor) {
						report("%s is not Markdown: only line anchors (#L10) can point into it", rel)
					}
					continue
				}
				a, err := anchorsOf(md)
				if err != nil {
					report("%v", err)
					continue
				}
				if !a[anchor] {
					report("%s has no heading with the anchor %s", md, anchor)
				}
			}
		}
	}
	return problems
}

// proseOnly blanks what is not prose, keeping the line structure: fenced code
// blocks and inline code spans, where brackets are not links.
func proseOnly(text string) string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fence = trimmed[:3]
				lines[i] = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) {
			fence = ""
		}
		lines[i] = ""
	}
	return blankCodeSpans(strings.Join(lines, "\n"))
}

// blankCodeSpans replaces the contents of every code span (a run of n backticks up
// to the next run of exactly n) with spaces; newlines inside a span are kept.
func blankCodeSpans(s string) string {
	b := []byte(s)
	run := func(i int) int { // length of the backtick run at i
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n // an unmatched run is literal text
			continue
		}
		for k := i; k < end+n; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

// headingAnchors returns the anchors GitHub makes for the headings of a Markdown
// text (a repeated heading gets -1, -2, …), and those of explicit HTML anchors.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

var (
	inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
)

// slug is GitHub's anchor for a heading: the rendered text in lower case, without
// punctuation other than hyphens and underscores, spaces turned into hyphens.
func slug(heading string) string {
	text := inlineLinkRE.ReplaceAllString(heading, "$1")
	text = htmlTagRE.ReplaceAllString(text, "")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// packageTable returns the packages named in the first column of every table in
// the "## Packages" section (up to the next "## " heading) of the architecture
// file. A cell names one or more packages, each in backticks.
func packageTable(text string) (pkgs, problems []string) {
	for _, cells := range packageRows(text) {
		first := strings.TrimSpace(cells[0])
		var names []string
		for _, part := range strings.Split(first, ",") {
			part = strings.TrimSpace(part)
			if len(part) < 3 || !strings.HasPrefix(part, "`") || !strings.HasSuffix(part, "`") {
				names = nil
				break
			}
			names = append(names, strings.Trim(part, "`"))
		}
		if names == nil {
			problems = append(problems, fmt.Sprintf("package table row %q: the first column must hold package paths in backticks", first))
			continue
		}
		pkgs = append(pkgs, names...)
	}
	return pkgs, problems
}

// packageRows returns the cells of every data row of the tables in the
// "## Packages" section (up to the next "## " heading), header and separator
// rows left out.
func packageRows(text string) [][]string {
	var rows [][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(strings.TrimPrefix(line, "## ")) == "Packages"
			continue
		}
		if !in || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if first := strings.TrimSpace(cells[0]); first == "package" || strings.Trim(first, "-: ") == "" {
			continue // a header or separator row
		}
		rows = append(rows, cells)
	}
	return rows
}

// hasGoFiles reports an error unless dir is a directory holding .go files.
func hasGoFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("no such directory")
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return nil
		}
	}
	return fmt.Errorf("the directory holds no Go files")
}

// TestArchitectureImports checks the last column of the package tables against
// the code: every leakui package a package imports (outside its tests) must be
// named there, in backticks, or covered by "`P` and its subpackages"; a row that
// says "none" must import none.
func TestArchitectureImports(t *testing.T) {
	root := fixtures.Root(t)
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(architecture)))
	if err != nil {
		t.Fatal(err)
	}
	columns := importColumns(string(b))
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/leakui/leakui/"
	checked := 0
	imported := map[string][]string{} // the leakui packages each package imports
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		column, ok := columns[pkg]
		if !ok {
			continue // TestArchitecturePackages reports a missing row
		}
		checked++
		imported[pkg] = nil
		for _, imp := range fields[1:] {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				imported[pkg] = append(imported[pkg], dep)
			}
		}
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if !strings.Contains(column, "`"+dep+"`") && !coveredBySubpackages(column, dep) {
				t.Errorf("%s: %s imports %s, which its row's imports column (%q) does not name", architecture, pkg, dep, column)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked the imports of %d packages; the tables did not parse", checked)
	}
	for pkg, column := range columns {
		imports, ok := imported[pkg]
		if !ok {
			continue
		}
		for _, named := range namedImports(column) {
			if !slices.ContainsFunc(imports, func(dep string) bool {
				return dep == named.path || named.subpackages && strings.HasPrefix(dep, named.path+"/")
			}) {
				t.Errorf("%s: %s's row names %s in its imports column, which it does not import", architecture, pkg, named.path)
			}
		}
	}
}

// namedImport is one package an imports column names, and whether the
// column covers its subpackages too.
type namedImport struct {
	path        string
	subpackages bool
}

// namedImports returns the packages an imports column names in backticks.
func namedImports(column string) []namedImport {
	var out []namedImport
	for _, m := range regexp.MustCompile("`([^`]+)`( and its subpackages)?").FindAllStringSubmatch(column, -1) {
		out = append(out, namedImport{path: m[1], subpackages: m[2] != ""})
	}
	return out
}

// maxArchitectureLines is the length of docs/ARCHITECTURE.md in lines: one
// screen. What a package owns in detail is its package documentation.
const maxArchitectureLines = 150

// maxCell is the longest a package table's cell may be, in characters, but
// for its imports column: a cell is a line, never a paragraph.
const maxCell = 120

// TestArchitectureFitsOneScreen holds docs/ARCHITECTURE.md to one screen and
// each cell of its package tables to one line.
func TestArchitectureFitsOneScreen(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures.Root(t), filepath.FromSlash(architecture)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range screenProblems(string(b)) {
		t.Errorf("%s: %s", architecture, p)
	}
}

// screenProblems returns what makes text longer than one screen or a package
// table's cell longer than a line.
func screenProblems(text string) []string {
	var problems []string
	if n := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1; n > maxArchitectureLines {
		problems = append(problems, fmt.Sprintf("%d lines; at most %d: what a package owns belongs in its package documentation", n, maxArchitectureLines))
	}
	for _, cells := range packageRows(text) {
		for _, cell := range cells[:max(len(cells)-1, 1)] {
			if cell = strings.TrimSpace(cell); utf8.RuneCountInString(cell) > maxCell {
				problems = append(problems, fmt.Sprintf("package table cell of %d characters, at most %d: %.60q…", utf8.RuneCountInString(cell), maxCell, cell))
			}
		}
	}
	return problems
}

// coveredBySubpackages reports whether column says "`P` and its subpackages" for
// a P that dep is P or under.
func coveredBySubpackages(column, dep string) bool {
	for _, m := range regexp.MustCompile("`([^`]+)` and its subpackages").FindAllStringSubmatch(column, -1) {
		if dep == m[1] || strings.HasPrefix(dep, m[1]+"/") {
			return true
		}
	}
	return false
}

// importColumns maps each package named in the tables under "## Packages" to the
// text of its row's last column.
func importColumns(text string) map[string]string {
	out := map[string]string{}
	for _, cells := range packageRows(text) {
		if len(cells) < 3 {
			continue
		}
		last := strings.TrimSpace(cells[len(cells)-1])
		for _, part := range strings.Split(cells[0], ",") {
			if name := strings.Trim(strings.TrimSpace(part), "`"); name != "" {
				out[name] = last
			}
		}
	}
	return out
}
