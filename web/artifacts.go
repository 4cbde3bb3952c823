package web

import (
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
)

// artifactsResource serves /a/{sha256}: the original bytes, for go tool pprof.
type artifactsResource struct{ s *Server }

// Routes mounts the downloads.
func (rs artifactsResource) Routes() chi.Router {
	r := chi.NewRouter()
	r.Get("/{sha256}", rs.s.handle(rs.download))
	return r
}

// download streams an artifact as an attachment, chunk by chunk, under the name
// it was uploaded as. A unique prefix of its SHA-256 (12 hex characters or more)
// serves it too, without the long cache: a later upload may share the prefix.
func (rs artifactsResource) download(w http.ResponseWriter, r *http.Request) error {
	sha := chi.URLParam(r, "sha256")
	cache := "public, max-age=31536000, immutable"
	if len(sha) < 64 {
		full, err := rs.s.resolveArtifactPrefix(r.Context(), sha)
		if err != nil {
			return err
		}
		sha, cache = full, "no-cache"
	}
	a, err := rs.s.store.Artifact(r.Context(), sha)
	if err != nil {
		return err
	}
	name, err := rs.s.store.ArtifactName(r.Context(), sha)
	if err != nil {
		return err
	}
	body, err := rs.s.store.OpenArtifact(r.Context(), sha)
	if err != nil {
		return err
	}
	defer body.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", contentDisposition(name, sha[:16]+artifactExt(a.Kind, a.Format)))
	w.Header().Set("Content-Length", strconv.FormatInt(a.Size, 10))
	w.Header().Set("Cache-Control", cache)
	_, err = io.Copy(w, body)
	if err != nil {
		// The status is sent; all we can do is cut the response short.
		rs.s.log.Warn("download interrupted", "sha256", sha, "err", err)
	}
	return nil
}

// artifactExt picks a file extension for a download.
func artifactExt(kind, format string) string {
	switch {
	case kind == "profile" && format == "profile.proto":
		return ".pb.gz"
	case kind == "profile":
		return ".prof"
	default:
		return ".txt"
	}
}
