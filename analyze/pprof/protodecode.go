package pprof

import (
	"errors"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/varint"
)

// profileMeta is what a profile says about itself besides its samples.
type profileMeta struct {
	sampleTypes       []valueType
	defaultSampleType string
	timeNanos         int64
	durationNanos     int64
	periodType        valueType
	period            int64
	comments          []string
	mappingFiles      []string
	dropFrames        string
	// mainBuildID is the first mapping's build id, docURL the profile's doc_url.
	mainBuildID, docURL string
	// textExact is true when the call graph names every frame as pprof's
	// function nodes do (every frame symbolized, ids regular), so that
	// `go tool pprof -top` can be printed from it (see WriteProfileTopText).
	textExact bool
}

type valueType struct{ typ, unit string }

// errProto describes the first thing wrong in a profile.proto.
var errProto = errors.New("invalid profile.proto")

// protoDecoder reads profile.proto directly into a call graph: two passes over the
// message, the first for the tables (strings, functions, locations, mappings), the
// second for the samples, which become location indexes without building a
// profile.Profile. It is what makes loading a profile of 262,144 stacks fast and
// lean; anything it does not understand falls back to the full parser.
type protoDecoder struct {
	// data is the message when it is all in memory; nil when the decoder reads
	// a stream (streamTables).
	data    []byte
	strings []string
	meta    profileMeta

	// The tables of pass 1, by id until resolve.
	sampleTypeMsgs              [][]byte
	functions                   []rawFunction
	functionIDs                 []uint64
	locations                   []rawLocation
	lines                       []rawLine
	mappings                    []rawMapping
	commentIdx                  []int64
	dropIdx, defaultIdx, docIdx int64
	periodTypeMsg               []byte
	samples                     int
	// budget is a stream's (data nil): its tables grow as they come, and each
	// new array is charged before it is made.
	budget   *analyze.Budget
	nTypes   int
	locIndex *idIndex
}

// rawFunction and rawLocation hold the tables by id until the graph is built.
type rawFunction struct {
	name, file int64
}

type rawLine struct{ functionID uint64 }

type rawLocation struct {
	id, mappingID uint64
	lines         []rawLine
}

type rawMapping struct {
	id            uint64
	file, buildID int64
}

// decodeProfileProto decodes data (an uncompressed profile.proto).
func decodeProfileProto(data []byte) (*callGraph, profileMeta, error) {
	c, err := censusOf(data)
	if err != nil {
		return nil, profileMeta{}, err
	}
	return decodeCounted(data, c)
}

// decodeCounted decodes data, whose census is c: every table is allocated once,
// at the size the census counted.
func decodeCounted(data []byte, c *protoCensus) (*callGraph, profileMeta, error) {
	d := newProtoDecoder(c)
	d.data = data
	g, err := d.decode(c)
	return g, d.meta, err
}

// newProtoDecoder makes a decoder whose tables have room for what c counted.
func newProtoDecoder(c *protoCensus) *protoDecoder {
	return &protoDecoder{
		strings:        make([]string, 0, c.strings),
		sampleTypeMsgs: make([][]byte, 0, c.sampleTypes),
		functions:      make([]rawFunction, 0, c.functions),
		functionIDs:    make([]uint64, 0, c.functions),
		locations:      make([]rawLocation, 0, c.locations),
		lines:          make([]rawLine, 0, c.lines),
		mappings:       make([]rawMapping, 0, c.mappings),
		commentIdx:     make([]int64, 0, c.comments),
	}
}

func (d *protoDecoder) decode(c *protoCensus) (*callGraph, error) {
	// Pass 1: everything but the samples.
	if err := walkMessage(d.data, d.tableField); err != nil {
		return nil, err
	}
	b, err := d.resolve(d.samples, int(c.stackEntries), int(c.lines))
	if err != nil {
		return nil, err
	}
	if !c.wideValues {
		b.g.useNarrowValues(d.samples * d.nTypes)
	}

	// Pass 2: the samples.
	var (
		stack  []int32
		values = make([]int64, 0, d.nTypes)
	)
	err = walkMessage(d.data, func(field int, _ int, _ uint64, msg []byte) error {
		if field != fieldProfileSample {
			return nil
		}
		var err error
		if stack, values, err = d.sample(msg, stack, values); err != nil {
			return err
		}
		b.sample(stack, values)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.g, nil
}

// tableField reads one top-level field of pass 1: everything but the samples,
// which it counts. A message it keeps (a sample type's) is copied when the
// decoder reads a stream, whose buffer the next field reuses.
func (d *protoDecoder) tableField(field int, wire int, v uint64, b []byte) error {
	keep := func(b []byte) []byte {
		if d.data == nil {
			return append([]byte{}, b...)
		}
		return b
	}
	var err error
	switch field {
	case fieldProfileSampleType:
		d.sampleTypeMsgs, err = appendTo(d, d.sampleTypeMsgs, keep(b), 24)
	case fieldProfileSample:
		d.samples++
	case fieldProfileMapping:
		m, err := decodeMapping(b)
		if err != nil {
			return err
		}
		d.mappings, err = appendTo(d, d.mappings, m, 24)
		return err
	case fieldProfileLocation:
		lines := &d.lines
		if d.data == nil {
			// A stream's locations each get lines of their own, of the exact
			// size: the shared table's size is not known yet.
			own := make([]rawLine, 0, locationLines(b))
			lines = &own
		}
		l, err := decodeLocation(b, lines)
		if err != nil {
			return err
		}
		d.locations, err = appendTo(d, d.locations, l, 40)
		return err
	case fieldProfileFunction:
		id, f, err := decodeFunction(b)
		if err != nil {
			return err
		}
		if d.functionIDs, err = appendTo(d, d.functionIDs, id, 8); err != nil {
			return err
		}
		d.functions, err = appendTo(d, d.functions, f, 16)
		return err
	case fieldProfileStringTable:
		d.strings, err = appendTo(d, d.strings, string(b), 16)
	case fieldProfileDropFrames:
		d.dropIdx = int64(v)
	case fieldProfileTimeNanos:
		d.meta.timeNanos = int64(v)
	case fieldProfileDurationNanos:
		d.meta.durationNanos = int64(v)
	case fieldProfilePeriodType:
		d.periodTypeMsg = keep(b)
	case fieldProfilePeriod:
		d.meta.period = int64(v)
	case fieldProfileComment:
		if wire == wireBytes { // packed
			return walkPacked(b, func(x uint64) {
				if err == nil {
					d.commentIdx, err = appendTo(d, d.commentIdx, int64(x), 8)
				}
			})
		}
		d.commentIdx, err = appendTo(d, d.commentIdx, int64(v), 8)
	case fieldProfileDefaultSampleType:
		d.defaultIdx = int64(v)
	case fieldProfileDocURL:
		d.docIdx = int64(v)
	}
	return err
}

// appendTo appends x to a table of d whose elements are size bytes. In a
// stream, whose tables' sizes are not known beforehand, it grows the table
// itself by doubling and charges every new array before making it (the arrays
// it leaves behind are garbage, not yet free).
func appendTo[T any](d *protoDecoder, s []T, x T, size int64) ([]T, error) {
	if d.data == nil && len(s) == cap(s) {
		n := max(2*cap(s), 8)
		if err := d.budget.Charge(int64(n) * size); err != nil {
			return s, err
		}
		grown := make([]T, len(s), n)
		copy(grown, s)
		s = grown
	}
	return append(s, x), nil
}

// locationLines counts the Lines of a Location message (0 when it is
// malformed: decodeLocation then says what is wrong).
func locationLines(b []byte) int {
	n := 0
	if walkMessage(b, func(f, _ int, _ uint64, _ []byte) error {
		if f == fieldLocationLine {
			n++
		}
		return nil
	}) != nil {
		return 0
	}
	return n
}

// str resolves a string table index; what names the field for the error.
func (d *protoDecoder) str(i int64, what string) (string, error) {
	if i < 0 || i >= int64(len(d.strings)) {
		return "", fmt.Errorf("%w: %s refers to string %d of %d", errProto, what, i, len(d.strings))
	}
	return d.strings[i], nil
}

// resolve turns the tables of pass 1 into the call graph's locations and
// names, with room for samples samples of stackEntries location references;
// lines is the number of Lines over all locations.
func (d *protoDecoder) resolve(samples, stackEntries, lines int) (*graphBuilder, error) {
	if len(d.strings) == 0 || d.strings[0] != "" {
		return nil, fmt.Errorf("%w: the string table must start with an empty string", errProto)
	}
	str := d.str
	var err error
	for _, b := range d.sampleTypeMsgs {
		vt, err := d.decodeValueType(b, str)
		if err != nil {
			return nil, err
		}
		d.meta.sampleTypes = append(d.meta.sampleTypes, vt)
	}
	if d.periodTypeMsg != nil {
		if d.meta.periodType, err = d.decodeValueType(d.periodTypeMsg, str); err != nil {
			return nil, err
		}
	}
	if d.meta.defaultSampleType, err = str(d.defaultIdx, "default_sample_type"); err != nil {
		return nil, err
	}
	if d.meta.dropFrames, err = str(d.dropIdx, "drop_frames"); err != nil {
		return nil, err
	}
	if d.meta.docURL, err = str(d.docIdx, "doc_url"); err != nil {
		return nil, err
	}
	exact := true
	for _, c := range d.commentIdx {
		s, err := str(c, "a comment")
		if err != nil {
			return nil, err
		}
		d.meta.comments = append(d.meta.comments, s)
	}
	d.nTypes = len(d.meta.sampleTypes)
	if d.nTypes == 0 {
		return nil, fmt.Errorf("%w: no sample types", errProto)
	}

	// Resolve the tables.
	locations := d.locations
	b := newGraphBuilder(d.nTypes, samples, stackEntries, len(locations))
	graphLines := make([]graphLine, 0, lines+len(locations))
	mapFiles := make(map[uint64]string, len(d.mappings))
	for i, m := range d.mappings {
		f, err := str(m.file, "a mapping's file name")
		if err != nil {
			return nil, err
		}
		bid, err := str(m.buildID, "a mapping's build id")
		if err != nil {
			return nil, err
		}
		if i == 0 {
			d.meta.mainBuildID = bid
		}
		if _, dup := mapFiles[m.id]; dup || m.id == 0 {
			exact = false // the reference parser's checks decide
		}
		mapFiles[m.id] = f
		d.meta.mappingFiles = append(d.meta.mappingFiles, f)
	}
	funcs := make(map[uint64]rawFunction, len(d.functions))
	for i, f := range d.functions {
		if _, err := str(f.name, "a function name"); err != nil {
			return nil, err
		}
		if _, err := str(f.file, "a function's file name"); err != nil {
			return nil, err
		}
		if _, dup := funcs[d.functionIDs[i]]; dup || d.functionIDs[i] == 0 || f.name == 0 {
			exact = false // pprof names an unnamed function after its binary, by start line
		}
		funcs[d.functionIDs[i]] = f
	}
	d.locIndex = newIDIndex(len(locations))
	for _, l := range locations {
		if l.id == 0 {
			return nil, fmt.Errorf("%w: a location has id 0", errProto)
		}
		mapFile, hasMapping := "", false
		if l.mappingID != 0 {
			f, ok := mapFiles[l.mappingID]
			if !ok {
				return nil, fmt.Errorf("%w: location %d refers to mapping %d, which does not exist", errProto, l.id, l.mappingID)
			}
			mapFile, hasMapping = f, true
		}
		loc := graphLoc{mapFile: mapFile, hasMapping: hasMapping}
		start := len(graphLines)
		for _, ln := range l.lines {
			f, ok := funcs[ln.functionID]
			if !ok {
				if ln.functionID != 0 {
					return nil, fmt.Errorf("%w: location %d refers to function %d, which does not exist", errProto, l.id, ln.functionID)
				}
				graphLines = append(graphLines, b.line("", "", false, mapFile))
				exact = false
				continue
			}
			graphLines = append(graphLines, b.line(d.strings[f.name], d.strings[f.file], true, mapFile))
		}
		if len(l.lines) == 0 {
			graphLines = append(graphLines, b.line("", "", false, mapFile))
			loc.noLines, exact = true, false
		}
		loc.lines = graphLines[start:len(graphLines):len(graphLines)]
		if !d.locIndex.set(l.id, int32(len(b.g.locs))) {
			return nil, fmt.Errorf("%w: two locations have id %d", errProto, l.id)
		}
		b.g.locs = append(b.g.locs, loc)
	}
	d.meta.textExact = exact
	return b, nil
}

// sample decodes one Sample message into its location indexes (leaf first) and
// values, reusing stack and values. It is walkMessage and walkPacked unrolled:
// the samples are most of a profile.
func (d *protoDecoder) sample(msg []byte, stack []int32, values []int64) ([]int32, []int64, error) {
	stack, values = stack[:0], values[:0]
	var missing uint64
	found := true
	for b := msg; len(b) > 0; {
		key, n := varint.Uvarint(b)
		if n <= 0 {
			return nil, nil, fmt.Errorf("%w: bad field key", errProto)
		}
		b = b[n:]
		field, wire := int(key>>3), int(key&7)
		if field == 0 {
			return nil, nil, fmt.Errorf("%w: field number 0", errProto)
		}
		var v uint64
		var packed []byte
		switch wire {
		case wireVarint:
			if v, n = varint.Uvarint(b); n <= 0 {
				return nil, nil, fmt.Errorf("%w: bad varint in field %d", errProto, field)
			}
			b = b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return nil, nil, fmt.Errorf("%w: truncated fixed64 in field %d", errProto, field)
			}
			v = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			b = b[8:]
		case wireBytes:
			l, n := varint.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, nil, fmt.Errorf("%w: truncated field %d", errProto, field)
			}
			packed, b = b[n:n+int(l)], b[n+int(l):]
		case wireFixed32:
			if len(b) < 4 {
				return nil, nil, fmt.Errorf("%w: truncated fixed32 in field %d", errProto, field)
			}
			v = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
			b = b[4:]
		default:
			return nil, nil, fmt.Errorf("%w: unsupported wire type %d in field %d", errProto, wire, field)
		}
		switch field {
		case fieldSampleLocationID:
			if wire != wireBytes {
				i, ok := d.locIndex.get(v)
				if !ok && found {
					missing, found = v, false
				}
				stack = append(stack, i)
				continue
			}
			for len(packed) > 0 {
				id, n := varint.Uvarint(packed)
				if n <= 0 {
					return nil, nil, fmt.Errorf("%w: bad packed varint", errProto)
				}
				packed = packed[n:]
				i, ok := d.locIndex.get(id)
				if !ok && found {
					missing, found = id, false
				}
				stack = append(stack, i)
			}
		case fieldSampleValue:
			if wire != wireBytes {
				values = append(values, int64(v))
				continue
			}
			for len(packed) > 0 {
				x, n := varint.Uvarint(packed)
				if n <= 0 {
					return nil, nil, fmt.Errorf("%w: bad packed varint", errProto)
				}
				packed = packed[n:]
				values = append(values, int64(x))
			}
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("%w: a sample refers to location %d, which does not exist", errProto, missing)
	}
	if len(values) != d.nTypes {
		return nil, nil, fmt.Errorf("%w: a sample has %d values for %d sample types", errProto, len(values), d.nTypes)
	}
	return stack, values, nil
}

func (d *protoDecoder) decodeValueType(b []byte, str func(int64, string) (string, error)) (valueType, error) {
	var typ, unit int64
	err := walkMessage(b, func(f, _ int, v uint64, _ []byte) error {
		switch f {
		case fieldValueTypeType:
			typ = int64(v)
		case fieldValueTypeUnit:
			unit = int64(v)
		}
		return nil
	})
	if err != nil {
		return valueType{}, err
	}
	t, err := str(typ, "a sample type")
	if err != nil {
		return valueType{}, err
	}
	u, err := str(unit, "a sample unit")
	return valueType{t, u}, err
}

func decodeMapping(b []byte) (rawMapping, error) {
	var m rawMapping
	err := walkMessage(b, func(f, _ int, v uint64, _ []byte) error {
		switch f {
		case fieldMappingID:
			m.id = v
		case fieldMappingFilename:
			m.file = int64(v)
		case fieldMappingBuildID:
			m.buildID = int64(v)
		}
		return nil
	})
	return m, err
}

func decodeFunction(b []byte) (uint64, rawFunction, error) {
	var id uint64
	var fn rawFunction
	err := walkMessage(b, func(f, _ int, v uint64, _ []byte) error {
		switch f {
		case fieldFunctionID:
			id = v
		case fieldFunctionName:
			fn.name = int64(v)
		case fieldFunctionFilename:
			fn.file = int64(v)
		}
		return nil
	})
	return id, fn, err
}

// decodeLocation decodes a Location, appending its lines to *lines (shared by
// all locations, allocated once) and slicing them from there.
func decodeLocation(b []byte, lines *[]rawLine) (rawLocation, error) {
	var l rawLocation
	start := len(*lines)
	err := walkMessage(b, func(f, _ int, v uint64, msg []byte) error {
		switch f {
		case fieldLocationID:
			l.id = v
		case fieldLocationMappingID:
			l.mappingID = v
		case fieldLocationLine:
			var ln rawLine
			if err := walkMessage(msg, func(f, _ int, v uint64, _ []byte) error {
				if f == fieldLineFunctionID {
					ln.functionID = v
				}
				return nil
			}); err != nil {
				return err
			}
			*lines = append(*lines, ln)
		}
		return nil
	})
	l.lines = (*lines)[start:len(*lines):len(*lines)]
	return l, err
}

// idIndex maps ids to indexes: a slice when the ids are dense (the usual case), a
// map otherwise.
type idIndex struct {
	dense []int32 // id → index+1
	m     map[uint64]int32
	limit uint64 // ids below it are dense; fixed, so hostile ids cannot grow it
}

func newIDIndex(n int) *idIndex {
	return &idIndex{dense: make([]int32, 0, n+1), limit: uint64(4*n + 1024)}
}

func (x *idIndex) set(id uint64, i int32) bool {
	if x.m == nil && id < x.limit {
		for uint64(len(x.dense)) <= id {
			x.dense = append(x.dense, 0)
		}
		if x.dense[id] != 0 {
			return false
		}
		x.dense[id] = i + 1
		return true
	}
	if x.m == nil {
		x.m = make(map[uint64]int32)
		for id, v := range x.dense {
			if v != 0 {
				x.m[uint64(id)] = v - 1
			}
		}
		x.dense = nil
	}
	if _, dup := x.m[id]; dup {
		return false
	}
	x.m[id] = i
	return true
}

func (x *idIndex) get(id uint64) (int32, bool) {
	if x.m != nil {
		i, ok := x.m[id]
		return i, ok
	}
	if id < uint64(len(x.dense)) && x.dense[id] != 0 {
		return x.dense[id] - 1, true
	}
	return 0, false
}
