package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MaxCheckpointBytes bounds the size of one encoded checkpoint message.
const MaxCheckpointBytes = 1 << 20

// Checkpoint is the state of one task: for each input partition, the offset to resume
// from (Samza's CheckpointV1).
type Checkpoint struct {
	Offsets map[SSP]string
}

// Equal reports whether c and o hold the same offsets.
func (c Checkpoint) Equal(o Checkpoint) bool {
	if len(c.Offsets) != len(o.Offsets) {
		return false
	}
	for ssp, off := range c.Offsets {
		if other, ok := o.Offsets[ssp]; !ok || other != off {
			return false
		}
	}
	return true
}

// String formats the checkpoint as Samza's CheckpointV1.toString, with the offsets
// sorted: "CheckpointV1 [OFFSETS={SystemStreamPartition [kafka, events, 0]=42}]".
func (c Checkpoint) String() string {
	var b strings.Builder
	b.WriteString("CheckpointV1 [OFFSETS={")
	for i, ssp := range c.sortedSSPs() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", ssp, c.Offsets[ssp])
	}
	b.WriteString("}]")
	return b.String()
}

func (c Checkpoint) sortedSSPs() []SSP {
	ssps := make([]SSP, 0, len(c.Offsets))
	for ssp := range c.Offsets {
		ssps = append(ssps, ssp)
	}
	sort.Slice(ssps, func(i, j int) bool {
		a, b := ssps[i], ssps[j]
		if a.System != b.System {
			return a.System < b.System
		}
		if a.Stream != b.Stream {
			return a.Stream < b.Stream
		}
		return a.Partition < b.Partition
	})
	return ssps
}

// sspEntry is one offset in the JSON form of a checkpoint, as CheckpointV1Serde
// writes it.
type sspEntry struct {
	System    string `json:"system"`
	Stream    string `json:"stream"`
	Partition string `json:"partition"`
	Offset    string `json:"offset"`
}

// Encode returns the checkpoint message value: a JSON object keyed by
// "system.stream.partition", like Samza's CheckpointV1Serde.
func (c Checkpoint) Encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ssp := range c.sortedSSPs() {
		if i > 0 {
			b.WriteByte(',')
		}
		p := strconv.FormatInt(int64(ssp.Partition), 10)
		key, _ := json.Marshal(ssp.System + "." + ssp.Stream + "." + p)
		val, _ := json.Marshal(sspEntry{ssp.System, ssp.Stream, p, c.Offsets[ssp]})
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// DecodeCheckpoint parses a checkpoint message value written by Encode (or by Samza's
// CheckpointV1Serde). Anything else is an error wrapping ErrBadCheckpoint.
func DecodeCheckpoint(data []byte) (Checkpoint, error) {
	if len(data) > MaxCheckpointBytes {
		return Checkpoint{}, fmt.Errorf("%w: %d bytes, more than %d", ErrBadCheckpoint, len(data), MaxCheckpointBytes)
	}
	var raw map[string]sspEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	if dec.More() {
		return Checkpoint{}, fmt.Errorf("%w: data after the JSON object", ErrBadCheckpoint)
	}
	if raw == nil {
		return Checkpoint{}, fmt.Errorf("%w: not a JSON object", ErrBadCheckpoint)
	}
	cp := Checkpoint{Offsets: make(map[SSP]string, len(raw))}
	for key, e := range raw {
		if e.System == "" || e.Stream == "" || e.Offset == "" {
			return Checkpoint{}, fmt.Errorf("%w: entry %q lacks system, stream or offset", ErrBadCheckpoint, key)
		}
		p, err := strconv.ParseInt(e.Partition, 10, 32)
		if err != nil || p < 0 {
			return Checkpoint{}, fmt.Errorf("%w: entry %q: partition %q", ErrBadCheckpoint, key, e.Partition)
		}
		ssp := SSP{e.System, e.Stream, int32(p)}
		if _, dup := cp.Offsets[ssp]; dup {
			return Checkpoint{}, fmt.Errorf("%w: %s appears twice", ErrBadCheckpoint, ssp)
		}
		cp.Offsets[ssp] = e.Offset
	}
	return cp, nil
}
