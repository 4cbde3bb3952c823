package hostile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
)

// Field numbers of profile.proto (github.com/google/pprof/proto/profile.proto).
const (
	fieldSampleType  = 1
	fieldSample      = 2
	fieldLocation    = 4
	fieldFunction    = 5
	fieldStringTable = 6
	fieldTimeNanos   = 9
)

// Sample is one sample of a Profile: its stack, leaf first, and one value per
// sample type.
type Sample struct {
	Stack  []string
	Values []int64
}

// Profile is a profile.proto to encode: sample types as {type, unit} pairs and
// samples whose frames are function names. Every distinct name becomes one
// function and one location with the same id.
type Profile struct {
	SampleTypes [][2]string
	Samples     []Sample
	// TimeNanos is the profile's time_nanos (0: not set).
	TimeNanos int64
}

// Encode returns the profile as uncompressed profile.proto bytes.
func (p Profile) Encode() []byte {
	e := newEncoder()
	for _, st := range p.SampleTypes {
		e.msg(fieldSampleType, e.valueType(st[0], st[1]))
	}
	for _, s := range p.Samples {
		ids := make([]uint64, len(s.Stack))
		for i, name := range s.Stack {
			ids[i] = e.function(name)
		}
		e.msg(fieldSample, sampleMsg(ids, s.Values))
	}
	if p.TimeNanos != 0 {
		e.varint(fieldTimeNanos, uint64(p.TimeNanos))
	}
	return e.finish()
}

// encoder writes a profile.proto: the tables (strings, functions, locations) are
// collected while the samples are written, and appended at the end, which the
// format allows.
type encoder struct {
	body      []byte
	strings   []string
	stringIDs map[string]uint64
	funcIDs   map[string]uint64
	tables    []byte
}

func newEncoder() *encoder {
	return &encoder{strings: []string{""}, stringIDs: map[string]uint64{"": 0}, funcIDs: map[string]uint64{}}
}

// str interns a string and returns its index.
func (e *encoder) str(s string) uint64 {
	if id, ok := e.stringIDs[s]; ok {
		return id
	}
	id := uint64(len(e.strings))
	e.strings = append(e.strings, s)
	e.stringIDs[s] = id
	return id
}

// function returns the id of the function (and location) named name.
func (e *encoder) function(name string) uint64 {
	if id, ok := e.funcIDs[name]; ok {
		return id
	}
	id := uint64(len(e.funcIDs) + 1)
	e.funcIDs[name] = id
	e.tables = appendMsg(e.tables, fieldFunction, functionMsg(id, e.str(name), e.str("hostile.go")))
	e.tables = appendMsg(e.tables, fieldLocation, locationMsg(id, id))
	return id
}

func (e *encoder) valueType(typ, unit string) []byte {
	var b []byte
	b = appendVarint(b, 1, e.str(typ))
	return appendVarint(b, 2, e.str(unit))
}

func (e *encoder) msg(field int, m []byte)    { e.body = appendMsg(e.body, field, m) }
func (e *encoder) varint(field int, v uint64) { e.body = appendVarint(e.body, field, v) }

func (e *encoder) finish() []byte {
	out := append(e.body, e.tables...)
	for _, s := range e.strings {
		out = appendMsg(out, fieldStringTable, []byte(s))
	}
	return out
}

// sampleMsg encodes a Sample message: packed location ids and packed values.
func sampleMsg(locationIDs []uint64, values []int64) []byte {
	var ids, vals []byte
	for _, id := range locationIDs {
		ids = binary.AppendUvarint(ids, id)
	}
	for _, v := range values {
		vals = binary.AppendUvarint(vals, uint64(v))
	}
	var b []byte
	b = appendMsg(b, 1, ids)
	return appendMsg(b, 2, vals)
}

// functionMsg encodes a Function: id, name and file name (string indexes).
func functionMsg(id, name, file uint64) []byte {
	var b []byte
	b = appendVarint(b, 1, id)
	b = appendVarint(b, 2, name)
	b = appendVarint(b, 3, name)
	return appendVarint(b, 4, file)
}

// locationMsg encodes a Location of one line calling function functionID.
func locationMsg(id, functionID uint64) []byte {
	var b []byte
	b = appendVarint(b, 1, id)
	line := appendVarint(nil, 1, functionID)
	line = appendVarint(line, 2, 1)
	return appendMsg(b, 4, line)
}

func appendVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

func appendMsg(b []byte, field int, m []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// Gzip compresses b with gzip (the way pprof writes profiles).
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
