package web

import (
	"net/http"
	"strings"
	"testing"
)

// uploadFrom uploads files from the loopback address from and returns the
// status and the answer.
func uploadFrom(t *testing.T, ts *testServer, from string, files ...file) (int, string) {
	t.Helper()
	return ts.web().UploadFrom(t, from, webFiles(files)...)
}

// dump is a small goroutine dump of about n bytes, told apart by tag.
func dump(tag string, n int) file {
	var b strings.Builder
	b.WriteString("goroutine 1 [running]:\nmain.main()\n\t/src/" + tag + ".go:1 +0x1\n")
	for b.Len() < n {
		b.WriteString("\ngoroutine 2 [chan receive]:\nmain.wait()\n\t/src/" + tag + ".go:2 +0x2\n")
	}
	return file{tag + ".txt", []byte(b.String())}
}

// TestDiskQuotas fills the server's quota per client from 127.0.0.2: its
// next upload is refused with 507 naming -client-disk-quota and nothing is
// stored, the same bytes again cost nothing and are taken, and 127.0.0.3
// still uploads; then 127.0.0.4, within its own quota, gets 507 naming
// -disk-quota for the overall one.
func TestDiskQuotas(t *testing.T) {
	ts := newTestServer(t, Config{ClientDiskQuota: 15 << 10, DiskQuota: 30 << 10, UploadsPerMinute: -1})
	first := dump("first", 10<<10)
	if code, raw := uploadFrom(t, ts, "127.0.0.2", first); code != http.StatusCreated {
		t.Fatalf("the first upload: %d %s", code, raw)
	}
	artifacts, _, reports, _ := ts.db.Counts(t.Context())
	code, raw := uploadFrom(t, ts, "127.0.0.2", dump("second", 10<<10))
	if code != http.StatusInsufficientStorage || !strings.Contains(raw, "-client-disk-quota") || !strings.Contains(raw, "15.0 kB") {
		t.Errorf("an upload past the quota per client: %d %s, want 507 naming -client-disk-quota and its size", code, raw)
	}
	if a, _, r, _ := ts.db.Counts(t.Context()); a != artifacts || r != reports {
		t.Errorf("the refused upload stored something: %d artifacts and %d reports, were %d and %d", a, r, artifacts, reports)
	}
	if code, raw := uploadFrom(t, ts, "127.0.0.2", first); code != http.StatusCreated {
		t.Errorf("the same bytes again, which take no more disk: %d %s", code, raw)
	}
	if code, raw := uploadFrom(t, ts, "127.0.0.3", dump("third", 12<<10)); code != http.StatusCreated {
		t.Errorf("an upload from another address within both quotas: %d %s", code, raw)
	}
	if code, raw := uploadFrom(t, ts, "127.0.0.4", dump("fourth", 12<<10)); code != http.StatusInsufficientStorage || !strings.Contains(raw, "(-disk-quota)") {
		t.Errorf("an upload past the overall quota: %d %s, want 507 naming -disk-quota", code, raw)
	}
}
