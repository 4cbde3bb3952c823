// Package bundle writes hostile capture bundles: tar archives made by hand
// (links, traversal, declared sizes the data does not have, bombs) for the
// tests of the bundle reader and of uploads. It is apart from package hostile
// because archive/tar links os/user, which brings cgo into every test binary
// that imports it, and a cgo binary no longer detects deadlocks, which the
// goroutine dump tests make on purpose.
package bundle

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/leakui/leakui/internal/hostile"
)

// Entry is one entry of a hand-made tar: its header and its bytes (a
// declared Size larger than Data leaves the archive cut short after Data).
type Entry struct {
	Header tar.Header
	Data   []byte
}

// File is a regular file entry named name holding data.
func File(name string, data []byte) Entry {
	return Entry{Header: tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg, ModTime: time.Unix(1764633600, 0), Format: tar.FormatUSTAR}, Data: data}
}

// Tar writes entries as a tar, gzip-compressed. An entry whose declared size is
// larger than its data ends the archive right after its data, as a bundle cut
// short (or one that only claims a size) does.
func Tar(entries ...Entry) []byte {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, e := range entries {
		h := e.Header
		if err := tw.WriteHeader(&h); err != nil {
			panic(err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			panic(err)
		}
		if int64(len(e.Data)) < h.Size {
			return hostile.Gzip(raw.Bytes()) // the rest never comes
		}
	}
	tw.Close()
	return hostile.Gzip(raw.Bytes())
}

// Manifest is a capture bundle's manifest.json (leakui-capture/1, a JVM's)
// listing files as the outputs of its steps, one step per file.
func Manifest(files ...string) []byte {
	type step struct {
		Name    string `json:"name"`
		Command string `json:"command"`
		File    string `json:"file"`
	}
	m := struct {
		Format string `json:"format"`
		Kind   string `json:"kind"`
		Target struct {
			Host string `json:"host"`
			PID  int    `json:"pid"`
		} `json:"target"`
		Tool  string `json:"tool"`
		Steps []step `json:"steps"`
	}{Format: "leakui-capture/1", Kind: "jvm", Tool: "hostile"}
	m.Target.Host, m.Target.PID = "host", 4242
	for i, f := range files {
		m.Steps = append(m.Steps, step{Name: fmt.Sprintf("step-%d", i+1), Command: "hostile", File: f})
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}

// Case is a hostile capture bundle and what a server must answer.
type Case struct {
	Name   string
	Data   []byte
	Status int
	// Message is part of the refusal's message.
	Message string
}

// Cases are capture bundles a server must refuse, each with a 4xx
// and nothing stored: path traversal in tar names (relative and absolute), a
// symlink and a hard link, a device, a 20 GB declared size, a tar bomb of many
// files (over maxTotal bytes when inflated), a gzip bomb (one file of twice
// maxTotal bytes of zeros), gzip inside gzip, a file the manifest does not
// list, one it lists but the tar lacks, a file twice, a bundle cut short, and a
// tar whose first file is not the manifest.
func Cases(maxTotal int64) []Case {
	status := []byte("Name:\tjava\nVmRSS:\t  1024 kB\n")
	const huge = 20 << 30
	link := func(name, target string, typ byte) Entry {
		return Entry{Header: tar.Header{Name: name, Linkname: target, Typeflag: typ, Mode: 0o777, ModTime: time.Unix(1764633600, 0), Format: tar.FormatUSTAR}}
	}
	// The tar bomb: files of 64 KiB of zeros, as many as pass maxTotal.
	var bomb []Entry
	var bombNames []string
	for i := int64(0); i <= maxTotal/(64<<10)+1; i++ {
		name := fmt.Sprintf("f%05d.txt", i)
		bombNames = append(bombNames, name)
		bomb = append(bomb, File(name, make([]byte, 64<<10)))
	}
	bomb = append([]Entry{File("manifest.json", Manifest(bombNames...))}, bomb...)
	device := Entry{Header: tar.Header{Name: "proc-status.txt", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666, ModTime: time.Unix(1764633600, 0), Format: tar.FormatUSTAR}}
	declared := File("class-histogram.txt", []byte("x"))
	declared.Header.Size, declared.Header.Format = huge, tar.FormatPAX // USTAR's size field stops at 8 GiB
	cut := File("proc-status.txt", status[:10])
	cut.Header.Size = int64(len(status))
	return []Case{
		{"traversal", Tar(File("manifest.json", Manifest("../../../../tmp/leakui-escaped")), File("../../../../tmp/leakui-escaped", status)), 422, "not a plain file name"},
		{"traversal-unlisted", Tar(File("manifest.json", Manifest("proc-status.txt")), File("../proc-status.txt", status), File("proc-status.txt", status)), 422, "a path"},
		{"absolute", Tar(File("manifest.json", Manifest("proc-status.txt")), File("/etc/passwd", status)), 422, "a path"},
		{"symlink", Tar(File("manifest.json", Manifest("proc-status.txt")), link("proc-status.txt", "/etc/passwd", tar.TypeSymlink)), 422, "is a link"},
		{"hardlink", Tar(File("manifest.json", Manifest("proc-status.txt")), link("proc-status.txt", "/etc/shadow", tar.TypeLink)), 422, "is a link"},
		{"device", Tar(File("manifest.json", Manifest("proc-status.txt")), device), 422, "only regular files"},
		{"declared-20GB", Tar(File("manifest.json", Manifest("class-histogram.txt")), declared), 413, "declares 20.0 GB"},
		{"tar-bomb", Tar(bomb...), 413, ""},
		{"gzip-bomb", Tar(File("manifest.json", Manifest("class-histogram.txt")), File("class-histogram.txt", make([]byte, 2*maxTotal))), 413, ""},
		{"gzip-in-gzip", hostile.Gzip(Tar(File("manifest.json", Manifest()))), 415, "gzip inside gzip"},
		{"unlisted", Tar(File("manifest.json", Manifest("proc-status.txt")), File("proc-status.txt", status), File("extra.txt", status)), 422, "not listed in the manifest"},
		{"missing", Tar(File("manifest.json", Manifest("proc-status.txt", "native-memory.txt")), File("proc-status.txt", status)), 422, "which the archive lacks"},
		{"twice", Tar(File("manifest.json", Manifest("proc-status.txt")), File("proc-status.txt", status), File("proc-status.txt", status)), 422, "appears twice"},
		{"cut-short", Tar(File("manifest.json", Manifest("proc-status.txt")), cut), 422, "cut short"},
		{"manifest-not-first", Tar(File("proc-status.txt", status), File("manifest.json", Manifest("proc-status.txt"))), 415, "tar archive"},
	}
}
