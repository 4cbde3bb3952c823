package pprof

// protoCensus counts what a profile.proto's decoder will hold, field by field,
// before the decoder allocates any of it: the budget is charged from these counts
// (cost), and the decoder sizes its tables from them exactly, so that nothing
// grows by doubling.
type protoCensus struct {
	strings, stringBytes int64
	sampleTypes          int64
	samples              int64
	stackEntries         int64 // location ids over all samples
	values               int64 // values over all samples
	mappings             int64
	locations            int64
	lines                int64 // lines over all locations
	functions            int64
	comments             int64
	// wideValues is set when some sample value may not fit in 32 bits (a
	// varint longer than 4 bytes, or a value not packed).
	wideValues bool
}

// The in-memory cost, in bytes on a 64-bit machine, of each thing the decoder
// holds, from its raw table entry to the call graph's (see protodecode.go and
// callgraph.go): a Line is a rawLine (8) and a graphLine (48); a Location a
// rawLocation (40), a graphLoc (48) and its id's index entry (16); a Function a
// rawFunction with its id (24), its entry in the id map (48) and its node (a name
// and its entry in the name map, 64); a Mapping a rawMapping (16), its file (16)
// and map entry (48); a string its header (16) and bytes; a sample its offset (4),
// 4 per location and 8 per value.
const (
	costString     = 16
	costSampleType = 24 + 32
	costSample     = 4
	costStackEntry = 4
	costValue      = 8
	costMapping    = 16 + 16 + 48
	costLocation   = 40 + 48 + 16
	costLine       = 8 + 48
	costFunction   = 24 + 48 + 64
	costComment    = 8 + 16
)

// cost is the bytes the decoder will hold for what was counted.
func (c *protoCensus) cost() int64 {
	return c.strings*costString + c.stringBytes + c.sampleTypes*costSampleType +
		c.samples*costSample + c.stackEntries*costStackEntry + c.values*costValue +
		c.mappings*costMapping + c.locations*costLocation + c.lines*costLine +
		c.functions*costFunction + c.comments*costComment
}

// worstCase is the most a top-level field of n bytes can cost once decoded,
// whatever it holds: a Location of n bytes holds at most n/2 Lines (an empty Line
// is two bytes), a Sample at most n values, a packed comment list n entries.
// Before a large field has been read whole, the loader compares this with what the
// budget has left, so a hostile field is refused at its first bytes.
func worstCase(field int, n int64) int64 {
	switch field {
	case fieldProfileLocation:
		return costLocation + n/2*costLine
	case fieldProfileSample:
		return costSample + n*costValue
	case fieldProfileComment:
		return n * costComment
	case fieldProfileStringTable:
		return costString + n
	}
	return costFunction + costMapping + costSampleType // one message of fixed size
}

// add counts one top-level field of a Profile message (as walkMessage gives it).
func (c *protoCensus) add(field, wire int, msg []byte) error {
	switch field {
	case fieldProfileSampleType:
		c.sampleTypes++
	case fieldProfileSample:
		c.samples++
		return walkMessage(msg, func(f, w int, _ uint64, b []byte) error {
			n := int64(1)
			if w == wireBytes {
				n = countVarints(b)
			}
			switch f {
			case fieldSampleLocationID:
				c.stackEntries += n
			case fieldSampleValue:
				c.values += n
				if w != wireBytes || longVarint(b) {
					c.wideValues = true
				}
			}
			return nil
		})
	case fieldProfileMapping:
		c.mappings++
	case fieldProfileLocation:
		c.locations++
		return walkMessage(msg, func(f, _ int, _ uint64, _ []byte) error {
			if f == fieldLocationLine {
				c.lines++
			}
			return nil
		})
	case fieldProfileFunction:
		c.functions++
	case fieldProfileStringTable:
		c.strings++
		c.stringBytes += int64(len(msg))
	case fieldProfileComment:
		if wire == wireBytes {
			c.comments += countVarints(msg)
		} else {
			c.comments++
		}
	}
	return nil
}

// countVarints counts the varints of a packed field: the bytes that end one.
func countVarints(b []byte) int64 {
	var n int64
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// longVarint reports whether a packed field holds a varint of more than 4
// bytes (28 bits).
func longVarint(b []byte) bool {
	run := 0
	for _, c := range b {
		if c >= 0x80 {
			if run++; run >= 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// censusOf counts a whole Profile message.
func censusOf(data []byte) (*protoCensus, error) {
	c := &protoCensus{}
	err := walkMessage(data, func(f, w int, _ uint64, b []byte) error { return c.add(f, w, b) })
	return c, err
}
