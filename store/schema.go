package store

import (
	"embed"
	"io/fs"
	"strings"
	"testing/fstest"
)

// schema holds the migrations once for every backend, with the words that differ
// between them left as placeholders: {{int64}} (a 64-bit integer column),
// {{bytes}} (a byte string column), {{float64}} (a double precision column) and
// {{strict}} (after a table's closing parenthesis: SQLite's STRICT).
//
//go:embed schema/*.sql
var schema embed.FS

// SchemaWords are one backend's words for the schema's placeholders.
type SchemaWords struct {
	// Int64 is the type of a 64-bit integer column ("INTEGER", "BIGINT").
	Int64 string
	// Bytes is the type of a byte string column ("BLOB", "BYTEA").
	Bytes string
	// Float64 is the type of a double precision column ("REAL", "DOUBLE
	// PRECISION").
	Float64 string
	// Strict follows a table's closing parenthesis (" STRICT" or "").
	Strict string
}

// Migrations returns the schema's migrations written in one backend's words, for
// a Dialect's Migrations method: the same file names, so the versions a database
// has recorded stay the same.
func Migrations(words SchemaWords) fs.FS {
	r := strings.NewReplacer("{{int64}}", words.Int64, "{{bytes}}", words.Bytes, "{{float64}}", words.Float64, "{{strict}}", words.Strict)
	entries, err := fs.ReadDir(schema, "schema")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	out := fstest.MapFS{}
	for _, e := range entries {
		body, err := fs.ReadFile(schema, "schema/"+e.Name())
		if err != nil {
			panic(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: []byte(r.Replace(string(body))), Mode: 0o444}
	}
	return out
}
