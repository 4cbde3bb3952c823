package web

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/leakui/leakui/web/serrors"
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
// serves it too, without the long cache (a later upload may share the prefix),
// but on a server with a token only to a client that has it: anyone else
// must know the whole SHA-256, as a report's page gives it. Every 404 counts
// toward the client address's lock-out (the one wrong tokens earn, 429), so
// SHA-256s cannot be guessed at speed.
func (rs artifactsResource) download(w http.ResponseWriter, r *http.Request) error {
	client := clientKey(r)
	if wait := rs.s.logins.wait(client, time.Now()); wait > 0 {
		return tooManySignIns(w, wait)
	}
	sha := chi.URLParam(r, "sha256")
	cache := "public, max-age=31536000, immutable"
	if len(sha) < 64 {
		if rs.s.cfg.Token != "" && !rs.s.authorized(r) {
			return serrors.Errorf(http.StatusUnauthorized, "a download by a prefix of the SHA-256 needs this server's token (sign in at /login, or send Authorization: Bearer TOKEN); without it, give the whole SHA-256")
		}
		full, err := resolveArtifactPrefix(r.Context(), rs.s.store, sha)
		if err != nil {
			return rs.miss(client, err)
		}
		sha, cache = full, "no-cache"
	}
	a, err := rs.s.store.Artifact(r.Context(), sha)
	if err != nil {
		return rs.miss(client, err)
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

// miss counts a download that found no file toward the client's lock-out, and
// returns its error.
func (rs artifactsResource) miss(client string, err error) error {
	if status, _ := serrors.StatusOf(err); status == http.StatusNotFound {
		if lockout := rs.s.logins.failed(client, time.Now()); lockout > 0 {
			rs.s.log.Warn("downloads of unknown files refused", "client", client, "locked_out", lockout)
		}
	}
	return err
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
