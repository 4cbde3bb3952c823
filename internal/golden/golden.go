// Package golden records a server's answers as golden files and compares them
// later, so that a change meant to move code without changing behaviour (a
// package split) shows every byte it changed. It owns the file format of one
// answer (the request line, the status, the headers that matter and the body),
// the comparison and the -update rewrite, a Store that gives reports ids and
// times that depend only on the order they were made in, and a Tracker that
// notes which of a chi router's routes the requests reached, so that a route
// without a golden file fails the test. It is imported only by tests.
package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ext is the extension of a golden file.
const Ext = ".golden"

// Headers are the response headers a golden file keeps, besides the status:
// those that change what a client does with the body. Date, Content-Length and
// the like are left out.
var Headers = []string{"Content-Type", "Content-Disposition", "Location", "Cache-Control", "Retry-After", "Set-Cookie"}

// Request is what a golden file says of the request: its method, its target
// (path and query) and the request headers that were set.
type Request struct {
	Method, Target string
	Header         http.Header
}

// Format writes one answer as a golden file: the request line and its
// headers, a blank line, the status and the kept headers, a blank line, then
// the body. A text body (text/…, JSON, SVG, Markdown, CSV, events) is written as
// it is; any other body as its length and SHA-256, which pin it as well.
func Format(req Request, status int, header http.Header, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\n", req.Method, req.Target)
	writeHeaders(&b, req.Header, sortedKeys(req.Header))
	fmt.Fprintf(&b, "\n%d %s\n", status, http.StatusText(status))
	writeHeaders(&b, header, Headers)
	b.WriteByte('\n')
	if isText(header.Get("Content-Type"), body) {
		b.Write(body)
	} else {
		sum := sha256.Sum256(body)
		fmt.Fprintf(&b, "(%d bytes, sha256 %s)\n", len(body), hex.EncodeToString(sum[:]))
	}
	return b.Bytes()
}

func writeHeaders(b *bytes.Buffer, h http.Header, keys []string) {
	for _, k := range keys {
		for _, v := range h.Values(k) {
			fmt.Fprintf(b, "%s: %s\n", k, v)
		}
	}
}

func sortedKeys(h http.Header) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isText tells a body written as it is from one written as its digest.
func isText(contentType string, body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	ct, _, _ := strings.Cut(contentType, ";")
	switch ct = strings.TrimSpace(ct); {
	case strings.HasPrefix(ct, "text/"), ct == "application/json", ct == "image/svg+xml":
		return true
	}
	return false
}

// ErrMissing is a golden file that does not exist yet.
var ErrMissing = errors.New("no golden file (run the test with -update to record it)")

// Compare checks got against the golden file at path, or with update writes it
// there. A difference names the first line that differs, with the lines around
// it on both sides.
func Compare(path string, got []byte, update bool) error {
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, ErrMissing)
	}
	if err != nil {
		return err
	}
	if bytes.Equal(got, want) {
		return nil
	}
	return fmt.Errorf("%s differs (%d bytes, the golden file has %d): %s", path, len(got), len(want), firstDifference(got, want))
}

// firstDifference describes where two texts part: the line number and a few
// lines of each from there.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	excerpt := func(lines []string) string {
		end := min(i+3, len(lines))
		if i >= end {
			return "(end of text)"
		}
		out := make([]string, 0, end-i)
		for _, l := range lines[i:end] {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			out = append(out, strconv.Quote(l))
		}
		return strings.Join(out, "\n\t")
	}
	return fmt.Sprintf("first difference at line %d\n\tgot:\n\t%s\n\twant:\n\t%s", i+1, excerpt(g), excerpt(w))
}

// Unused lists the golden files under dir that are not in written (paths
// relative to dir, slash-separated, with the extension): answers that a test
// no longer records. With remove it deletes them, as -update does.
func Unused(dir string, written map[string]bool, remove bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(p, Ext) {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !written[rel] {
			out = append(out, rel)
			if remove {
				return os.Remove(p)
			}
		}
		return nil
	})
	return out, err
}
