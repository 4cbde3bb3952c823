package web

import (
	"mime"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzContentDisposition: the header for any uploaded name parses, its ASCII
// filename is plain ASCII without quotes or backslashes, and its filename*
// decodes to the name the upload form keeps (safeFileName).
func FuzzContentDisposition(f *testing.F) {
	for _, s := range []string{"heap.pb.gz", `a "b";c.txt`, "ünïcødé 09:00.log", "", "..", "a\\b/c", "%41%zz", "\x00\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		cd := contentDisposition(name, "fallback.txt")
		ascii, _, _ := strings.Cut(strings.TrimPrefix(cd, `attachment; filename="`), `"`)
		for i := 0; i < len(ascii); i++ {
			if c := ascii[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				t.Fatalf("%q: the ASCII filename %q holds %q", name, ascii, c)
			}
		}
		_, params, err := mime.ParseMediaType(cd)
		if err != nil {
			t.Fatalf("%q: %q does not parse: %v", name, cd, err)
		}
		star := cd[strings.Index(cd, "filename*=UTF-8''")+len("filename*=UTF-8''"):]
		decoded, err := url.PathUnescape(star)
		if err != nil || !utf8.ValidString(decoded) || params["filename"] != decoded || strings.ContainsAny(decoded, "/\\") {
			t.Fatalf("%q: filename* %q decodes to %q (%v); ParseMediaType says %q", name, star, decoded, err, params["filename"])
		}
	})
}

// FuzzParseBaseURL: an accepted base URL is an http(s) URL that, with a path
// after it, parses to the same host.
func FuzzParseBaseURL(f *testing.F) {
	for _, s := range []string{"https://leakui.example.com/", "http://[::1]:8080", "ftp://x", "https://u:p@h", "https://h/?q", "//h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		base, err := ParseBaseURL(raw)
		if err != nil {
			return
		}
		u, err := url.Parse(base + "/r/x")
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.HasSuffix(u.Path, "/r/x") {
			t.Fatalf("%q became %q, which with a path is %v (%v)", raw, base, u, err)
		}
	})
}
