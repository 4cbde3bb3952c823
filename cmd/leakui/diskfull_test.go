package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"
)

// onSmallDisk returns the command prefix that runs a program with dir as the
// mount point of a tmpfs of size bytes of its own: unshare makes a user and
// mount namespace (no root needed where unprivileged user namespaces are
// allowed), mounts the tmpfs and execs the program, which keeps the process.
func onSmallDisk(t *testing.T, dir string, size int) []string {
	t.Helper()
	unshare := testtool.Require(t, "unshare", "unshare")
	if out, err := exec.Command(unshare, "-r", "-m", "true").CombinedOutput(); err != nil {
		testtool.Missing(t, "an unprivileged user namespace", "apt-get install -y util-linux; sysctl -w kernel.unprivileged_userns_clone=1",
			"the disk-full test mounts a small tmpfs in one: "+strings.TrimSpace(string(out)))
	}
	return []string{unshare, "-r", "-m", "sh", "-c", `mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"`, "sh",
		strconv.Itoa(size), dir}
}

// randomLog is a log of about n bytes whose lines carry a timestamp and a
// level, as a log's do, then random base64, which no compression makes
// smaller.
func randomLog(t *testing.T, n int) []byte {
	t.Helper()
	const stamp = "2024-01-01 00:00:00,000 INFO "
	raw := make([]byte, n*3/4*76/(76+len(stamp)))
	rand.Read(raw)
	var b strings.Builder
	enc := base64.StdEncoding.EncodeToString(raw)
	for len(enc) > 76 {
		b.WriteString(stamp + enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(stamp + enc + "\n")
	return []byte(b.String())
}

// postFile uploads one file to /api/artifacts.
func (s *server) postFile(t *testing.T, name string, data []byte) uploadAnswer {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", name)
	w.Write(data)
	mw.Close()
	a, _ := s.send(t, &body, mw.FormDataContentType(), int64(body.Len()), time.Minute)
	return a
}

// TestDiskFullIs507 runs a real server whose data directory is a 3 MiB tmpfs
// and fills it twice for real: an upload larger than the disk fails while it
// is spooled, and one that fits the spool fails in the database's write. Both
// answer 507 with a message that names no server path, store nothing (the
// artifact is not there) and give the room back: a small upload afterwards is
// stored.
func TestDiskFullIs507(t *testing.T) {
	dir := t.TempDir()
	srv := startServerVia(t, onSmallDisk(t, dir, 3<<20), dir)
	for _, c := range []struct {
		what string
		size int
	}{
		{"larger than the disk (the spool fills it)", 5 << 20},
		{"fits the spool, not the database", 1600 << 10},
	} {
		data := randomLog(t, c.size)
		a := srv.postFile(t, "big.log", data)
		if a.Status != http.StatusInsufficientStorage {
			t.Fatalf("%s: %d %s, want 507\n%s", c.what, a.Status, a.Raw, srv.log.String())
		}
		if strings.Contains(a.Error, "/") || strings.Contains(a.Raw, dir) || !strings.Contains(a.Error, "disk is full") {
			t.Errorf("%s: the message names a path or not the full disk: %q", c.what, a.Error)
		}
		sum := sha256.Sum256(data)
		if code := srv.getJSON(t, "/a/"+hex.EncodeToString(sum[:]), nil); code != http.StatusNotFound {
			t.Errorf("%s: the artifact answers %d after the failed upload, want 404", c.what, code)
		}
	}
	if a := srv.postFile(t, "small.log", randomLog(t, 64<<10)); a.Status != http.StatusCreated {
		t.Fatalf("a small upload after the full disk: %d %s", a.Status, a.Raw)
	}
}
