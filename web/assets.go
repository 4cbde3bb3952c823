package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"time"

	"github.com/go-chi/chi/v5"
)

// assets serves the embedded static files under /static/{hash}/{name}: the URL
// changes whenever the content does, so responses can be cached for a year.
type assets struct {
	files map[string]asset
}

type asset struct {
	hash string
	body []byte
}

// newAssets reads and hashes every file of fsys.
func newAssets(fsys fs.FS) (*assets, error) {
	a := &assets{files: map[string]asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.files[p] = asset{hash: hex.EncodeToString(sum[:6]), body: b}
		return nil
	})
	return a, err
}

// url returns the versioned URL of an asset.
func (a *assets) url(name string) string {
	f, ok := a.files[name]
	if !ok {
		return "/static/missing/" + name
	}
	return "/static/" + f.hash + "/" + name
}

// Routes serves /{hash}/{name} (a name may have folders: vendor/uplot/…); a stale
// hash still gets the current file, without the long cache.
func (a *assets) Routes() chi.Router {
	r := chi.NewRouter()
	r.Get("/{hash}/*", func(w http.ResponseWriter, r *http.Request) {
		name := chi.URLParam(r, "*")
		f, ok := a.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if chi.URLParam(r, "hash") == f.hash {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
	})
	return r
}
