package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
)

// acked is an upload the server acknowledged with 201 before a crash.
type acked struct {
	report string
	sha    string
	data   []byte
}

// TestKillMidUpload kills `leakui serve` with SIGKILL twice: while it receives a
// large upload that a client streams slowly, and while it stores a large valid
// upload in its database. After each restart: PRAGMA integrity_check is ok,
// every report acknowledged before the kill opens and serves its original bytes,
// no artifact is half-stored (its chunks add up to its size and hash to its
// sha256), nothing refers to a missing artifact, and the partial upload the
// killed server was spooling is gone.
func TestKillMidUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a server twice")
	}
	dir := t.TempDir()
	s := startServer(t, dir, "-upload-rate", "-1")
	var before []acked
	for _, name := range []string{"flameshow-heap.pb.gz", "parca-self-heap-t0-1644509272.pb.gz"} {
		before = append(before, uploadAck(t, s, name, readFile(t, fixtures.Path(t, "pprof", name))))
	}
	before = append(before, uploadAck(t, s, "dump.txt", readFile(t, fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug2.txt"))))

	// 1. Mid-receive: a client streams 64 KiB every 5 ms of a file it never
	// finishes; the server is killed once it has spooled 4 MiB.
	stream := startSlowUpload(t, s)
	waitFor(t, 60*time.Second, "the server to spool 4 MiB of the slow upload", func() bool {
		return spooledBytes(t, dir) >= 4<<20
	})
	s.kill()
	stream.wait(t)
	if left := spooled(t, dir); len(left) == 0 {
		t.Error("the killed server left no partial upload to clean up; the test did not kill it mid-receive")
	}
	s = startServer(t, dir, "-upload-rate", "-1")
	if left := spooled(t, dir); len(left) != 0 {
		t.Errorf("after the restart the partial upload is still there: %v", left)
	}
	checkStore(t, s, dir, before)

	// 2. Mid-store: a 40 MB profile.proto (5 million samples, uncompressed) is
	// uploaded whole; the server parses it, then writes it in 1 MiB chunks in
	// one transaction, and is killed once its write-ahead log has grown by 8 MiB.
	big := filepath.Join(t.TempDir(), "big.pb")
	writeRawManySamples(t, big)
	data := readFile(t, big)
	killedMidStore := false
	for attempt := 1; attempt <= 3 && !killedMidStore; attempt++ {
		data[len(data)-1] ^= byte(attempt) // a new sha256 each attempt: the store cannot skip it
		wal := filepath.Join(dir, "leakui.db-wal")
		base := fileSize(wal)
		up := startUpload(s, "big.pb", data)
		grew := false
		deadline := time.Now().Add(90 * time.Second)
		for !grew && !up.done() && time.Now().Before(deadline) {
			grew = fileSize(wal) >= base+8<<20
			time.Sleep(2 * time.Millisecond)
		}
		s.kill()
		status := up.wait()
		killedMidStore = grew && status != http.StatusCreated
		t.Logf("attempt %d: WAL grew by %d MiB before the kill, upload status %d", attempt, (fileSize(wal)-base)>>20, status)
		s = startServer(t, dir, "-upload-rate", "-1")
		checkStore(t, s, dir, before)
	}
	if !killedMidStore {
		t.Error("three attempts never caught the server in the middle of storing")
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spooledBytes adds up the sizes of the spool files.
func spooledBytes(t *testing.T, dir string) int64 {
	var n int64
	for _, f := range spooled(t, dir) {
		n += fileSize(f)
	}
	return n
}

// uploadAck uploads one file and returns what the server acknowledged.
func uploadAck(t *testing.T, s *server, name string, data []byte) acked {
	t.Helper()
	body, ct := multipartUpload(t, part{name: name, data: data})
	a, _ := s.send(t, bytes.NewReader(body), ct, int64(len(body)), time.Minute)
	if a.Status != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", name, a.Status, a.Raw)
	}
	return acked{report: a.ReportID, sha: a.Artifacts[0].SHA256, data: data}
}

// slowUpload is a client streaming a multipart body that never ends.
type slowUpload struct {
	wg sync.WaitGroup
}

func startSlowUpload(t *testing.T, s *server) *slowUpload {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	u := &slowUpload{}
	u.wg.Add(2)
	go func() {
		defer u.wg.Done()
		defer pw.Close()
		w, err := mw.CreateFormFile("file", "endless.log")
		if err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("2024-01-01 00:00:00 INFO still uploading\n"), 64<<10/41)
		for range 100_000 {
			if _, err := w.Write(chunk); err != nil {
				return // the server died
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	go func() {
		defer u.wg.Done()
		resp, err := http.Post(s.base+"/api/artifacts", mw.FormDataContentType(), pr)
		if err == nil {
			resp.Body.Close()
		}
		pr.CloseWithError(fmt.Errorf("the request ended: %v", err))
	}()
	return u
}

func (u *slowUpload) wait(t *testing.T) {
	done := make(chan struct{})
	go func() { u.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the slow upload's client did not end after the server was killed")
	}
}

// pendingUpload is one upload in flight.
type pendingUpload struct {
	status chan int
	got    int
	ended  bool
}

func startUpload(s *server, name string, data []byte) *pendingUpload {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("file", name)
	w.Write(data)
	mw.Close()
	u := &pendingUpload{status: make(chan int, 1)}
	go func() {
		resp, err := http.Post(s.base+"/api/artifacts", mw.FormDataContentType(), &buf)
		if err != nil {
			u.status <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		u.status <- resp.StatusCode
	}()
	return u
}

// done reports whether the upload has been answered (or failed).
func (u *pendingUpload) done() bool {
	if u.ended {
		return true
	}
	select {
	case u.got = <-u.status:
		u.ended = true
	default:
	}
	return u.ended
}

// wait returns the status (0 when the connection failed).
func (u *pendingUpload) wait() int {
	if !u.ended {
		u.got, u.ended = <-u.status, true
	}
	return u.got
}

// writeRawManySamples writes the 5-million-sample profile uncompressed.
func writeRawManySamples(t *testing.T, path string) {
	t.Helper()
	gz := path + ".gz"
	if err := hostile.WriteManySamples(gz); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := gunzipTo(out, f); err != nil {
		t.Fatal(err)
	}
}

// checkStore checks a restarted server's store: SQLite's integrity check, the
// acknowledged reports and their bytes, and every artifact whole.
func checkStore(t *testing.T, s *server, dir string, reports []acked) {
	t.Helper()
	checkIntegrity(t, filepath.Join(dir, "leakui.db"))
	for _, a := range reports {
		if code, _ := s.get(t, "/r/"+a.report); code != 200 {
			t.Errorf("acknowledged report %s: %d", a.report, code)
		}
		if code, _ := s.get(t, "/api/reports/"+a.report); code != 200 {
			t.Errorf("acknowledged report %s as JSON: %d", a.report, code)
		}
		if code, b := s.get(t, "/a/"+a.sha); code != 200 || !bytes.Equal(b, a.data) {
			t.Errorf("artifact %s: %d, %d bytes of %d, equal %v", a.sha, code, len(b), len(a.data), bytes.Equal(b, a.data))
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "leakui.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT sha256, size FROM artifacts`)
	if err != nil {
		t.Fatal(err)
	}
	type art struct {
		sha  string
		size int64
	}
	var arts []art
	for rows.Next() {
		var a art
		rows.Scan(&a.sha, &a.size)
		arts = append(arts, a)
	}
	rows.Close()
	for _, a := range arts {
		h := sha256.New()
		var n int64
		chunks, err := db.Query(`SELECT data FROM artifact_chunks WHERE sha256 = ? ORDER BY seq`, a.sha)
		if err != nil {
			t.Fatal(err)
		}
		for chunks.Next() {
			var b []byte
			chunks.Scan(&b)
			h.Write(b)
			n += int64(len(b))
		}
		chunks.Close()
		if n != a.size || hex.EncodeToString(h.Sum(nil)) != a.sha {
			t.Errorf("half-stored artifact %s: %d chunk bytes of %d", a.sha, n, a.size)
		}
	}
	for q, what := range map[string]string{
		`SELECT COUNT(*) FROM artifact_chunks c LEFT JOIN artifacts a ON a.sha256 = c.sha256 WHERE a.sha256 IS NULL`:  "chunks without an artifact",
		`SELECT COUNT(*) FROM report_artifacts r LEFT JOIN artifacts a ON a.sha256 = r.sha256 WHERE a.sha256 IS NULL`: "report files without an artifact",
		`SELECT COUNT(*) FROM reports r WHERE NOT EXISTS (SELECT 1 FROM report_artifacts x WHERE x.report_id = r.id)`: "reports without files",
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d %s (%v)", n, what, err)
		}
	}
	t.Logf("store after restart: %d artifacts, all whole", len(arts))
}

func gunzipTo(w io.Writer, r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, zr)
	return err
}
