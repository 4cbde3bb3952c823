package hostile

import (
	"bytes"
	"encoding/binary"
)

// Valid profile.proto that is small gzipped and huge decoded (amplifying profiles):
// no byte of them is invalid, so only a decoder that counts what it allocates,
// repeated field by repeated field, refuses them before it has allocated
// gigabytes.

// LineBombLines is the number of empty Line entries of LineBomb's one Location.
const LineBombLines = 200_000_000

// LineBomb is a gzipped profile.proto (about 400 KB) with one sample type, one
// sample and one Location holding LineBombLines empty Line entries: 400 MB
// decompressed, two bytes a Line, which a naive decoder holds as 200 M structs.
func LineBomb() []byte {
	var head []byte
	head = appendMsg(head, fieldSampleType, append(appendVarint(nil, 1, 1), appendVarint(nil, 2, 2)...))
	head = appendMsg(head, fieldSample, append(appendMsg(nil, 1, []byte{1}), appendMsg(nil, 2, []byte{1})...))
	for _, s := range []string{"", "inuse_space", "bytes"} {
		head = appendMsg(head, fieldStringTable, []byte(s))
	}
	id := appendVarint(nil, 1, 1)
	head = binary.AppendUvarint(head, fieldLocation<<3|2)
	head = binary.AppendUvarint(head, uint64(len(id))+2*LineBombLines)
	head = append(head, id...)
	const perMember = 1 << 19 // Lines per gzip member (1 MiB)
	var out bytes.Buffer
	out.Write(gzipMember(head))
	repeatMember(&out, gzipMember(bytes.Repeat([]byte{fieldLocationLine<<3 | 2, 0}, perMember)), LineBombLines/perMember)
	if rest := LineBombLines % perMember; rest > 0 {
		out.Write(gzipMember(bytes.Repeat([]byte{fieldLocationLine<<3 | 2, 0}, rest)))
	}
	return out.Bytes()
}

// fieldLocationLine is Location.line.
const fieldLocationLine = 4

// EmptyStringsBytes is the decompressed size of EmptyStringsBomb's string table.
const EmptyStringsBytes = 100 << 20

// EmptyStringsBomb is a gzipped profile.proto (about 100 KB) of one sample type
// whose string table goes on with EmptyStringsBytes of empty strings: 52 M of
// them, two bytes each, that a decoder holds as 16-byte string headers.
func EmptyStringsBomb() []byte {
	var head []byte
	head = appendMsg(head, fieldSampleType, append(appendVarint(nil, 1, 1), appendVarint(nil, 2, 2)...))
	for _, s := range []string{"", "inuse_space", "bytes"} {
		head = appendMsg(head, fieldStringTable, []byte(s))
	}
	var out bytes.Buffer
	out.Write(gzipMember(head))
	repeatMember(&out, gzipMember(bytes.Repeat([]byte{fieldStringTable<<3 | 2, 0}, 1<<19)), EmptyStringsBytes>>20)
	return out.Bytes()
}
