package analyze

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/leakui/leakui/internal/varint"
)

// FormatGoroutineLeak is Detection.Format of the debug=1 text of the Go runtime's
// goroutineleak profile (GOEXPERIMENT=goroutineleakprofile): goroutines the garbage
// collector proved can never run again.
const FormatGoroutineLeak = "goroutineleak"

// SniffSize is how many leading bytes of decompressed content DetectKind looks at.
const SniffSize = 64 << 10

// Detection is what DetectKind found: the kind and, for data leakui does not read, a
// short description of what it looks like ("an HTML page", "an ELF executable").
type Detection struct {
	Kind Kind
	// Format names the specific format within the kind, such as "profile.proto",
	// "legacy text heap", "debug=2", "panic", "jmap -histo"; empty when unknown.
	Format string
	// Encoding is EncodingUTF16LE or EncodingUTF16BE when the input was UTF-16 text,
	// transcoded to UTF-8 before it was looked at (see Decompress); empty for UTF-8.
	// DetectKind leaves it empty; Sniff sets it.
	Encoding string
	// Prefix is the line prefix (one of the Prefix constants) every line of the dump
	// carries and the parsers strip; empty when none.
	Prefix string
	// Skipped and SkippedLines are how many bytes and lines of other text (a
	// container log) come before a dump that Sniff found past the first lines.
	Skipped, SkippedLines int64
}

// String describes the detection for messages, such as "pprof profile (profile.proto)".
func (d Detection) String() string {
	format := d.FullFormat()
	if format == "" {
		return d.Kind.Description()
	}
	if d.Kind == KindUnknown {
		return format
	}
	return d.Kind.Description() + " (" + format + ")"
}

// Notes says in words what was done to the input before it was read: transcoded
// from UTF-16, a line prefix stripped, a log before the dump skipped, such as
// "UTF-16LE; kubectl logs --timestamps prefixes stripped"; "" when nothing was.
func (d Detection) Notes() string {
	var notes []string
	if d.Encoding != "" {
		notes = append(notes, d.Encoding)
	}
	if d.Prefix != "" {
		notes = append(notes, d.Prefix+" prefixes stripped")
	}
	if d.SkippedLines > 0 {
		notes = append(notes, fmt.Sprintf("%s lines (%s) of log before the dump skipped", FormatCount(d.SkippedLines), FormatBytes(d.Skipped)))
	}
	return strings.Join(notes, "; ")
}

// FullFormat is Format followed by the Notes, such as "thread dump; UTF-16LE": what
// pages show where they show the format.
func (d Detection) FullFormat() string {
	notes := d.Notes()
	switch {
	case notes == "":
		return d.Format
	case d.Format == "":
		return notes
	}
	return d.Format + "; " + notes
}

var (
	legacyTextProfile = regexp.MustCompile(`\A(?:heap profile: |heap_v2/|--- heapz|--- threadz|--- contention|--- mutex|--- cpu|[a-z_]+ profile: total \d+\r?\n\d+ @ )`)
	countProfileHead  = regexp.MustCompile(`\A([a-z_]+) profile: total \d+`)
	goroutineHeader   = regexp.MustCompile(`(?m)^goroutine \d+ (?:gp=0x[0-9a-f]+ m=\S+ (?:mp=\S+ )?)?\[`)
	crashMarker       = regexp.MustCompile(`(?m)^(?:panic: |fatal error: |SIGQUIT: quit|SIGABRT: abort)`)
	jvmHistogramHead  = regexp.MustCompile(`(?m)^\s*num\s+#instances\s+#bytes\s+(?:Class|class)\s+(?:name|description)`)
	jvmThreadHead     = regexp.MustCompile(`(?m)^(?:Full thread dump|"[^"\n]*"(?: #\d+)?(?: \[\d+\])?(?: daemon)? (?:prio=|os_prio=|tid=))`)
	jvmNMTHead        = regexp.MustCompile(`(?m)^Native Memory Tracking:`)
)

// DetectKind tells what an input is from its first bytes after decompression (at
// most SniffSize of them). It looks only at content, never at a file name. A
// profile.proto is recognized by its first field; whether it really parses is for
// the loader to find out. A goroutine or JVM thread dump whose every line carries a
// log collector's prefix (see DetectLinePrefix) is a dump, with Prefix set.
// Text of no kind is a log only when it looks like one (see LogShape); other
// text is KindUnknown, "text, not a log".
func DetectKind(head []byte) Detection {
	if len(head) > SniffSize {
		head = head[:SniffSize]
	}
	d := detectText(head)
	if d.Kind == KindLog {
		if notLog := looksLikeLog(head); notLog != nil {
			return *notLog
		}
	}
	return d
}

// detectText is DetectKind with every text of no other kind a log.
func detectText(head []byte) Detection {
	d := detectKind(head)
	if d.Kind != KindLog {
		return d
	}
	if prefix := DetectLinePrefix(head); prefix != "" {
		if s := detectKind(stripHead(head, prefix)); s.Kind == KindGoroutines || s.Kind == KindJVMThreads {
			s.Prefix = prefix
			return s
		}
	}
	return d
}

// detectKind is DetectKind without the look behind line prefixes.
func detectKind(head []byte) Detection {
	if len(head) == 0 {
		return Detection{Kind: KindUnknown, Format: "an empty file"}
	}
	if m := countProfileHead.FindSubmatch(head); m != nil {
		switch string(m[1]) {
		case "goroutine":
			return Detection{Kind: KindGoroutines, Format: "debug=1"}
		case "goroutineleak":
			// The runtime's proof of leaked goroutines (GOEXPERIMENT=goroutineleakprofile,
			// /debug/pprof/goroutineleak?debug=1): a goroutine dump of its own.
			return Detection{Kind: KindGoroutines, Format: FormatGoroutineLeak}
		}
		return Detection{Kind: KindProfile, Format: "legacy text " + string(m[1])}
	}
	if legacyTextProfile.Match(head) {
		return Detection{Kind: KindProfile, Format: "legacy text heap"}
	}
	if isLegacyBinaryCPU(head) {
		return Detection{Kind: KindProfile, Format: "legacy binary CPU"}
	}
	if bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0.1\x00")) || bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0.2\x00")) {
		return Detection{Kind: KindJVMHeapDump, Format: "HPROF " + string(head[13:18])}
	}
	if d, ok := detectCapture(head); ok {
		return d
	}
	if magic := binaryMagic(head); magic != "" {
		return Detection{Kind: KindUnknown, Format: magic}
	}
	if looksBinary(head) {
		if enc := utf16WithoutMark(head); enc != "" {
			// Text in UTF-16 without its byte order mark, which Decompress needs
			// to transcode it: half its bytes are 0, and its first may pass for a
			// profile.proto's field (a '2' is field 6).
			return Detection{Kind: KindUnknown, Format: enc + " text without a byte order mark (convert it to UTF-8, such as with iconv -f " + enc + " -t UTF-8)"}
		}
		if looksLikeProfileProto(head) {
			return Detection{Kind: KindProfile, Format: "profile.proto"}
		}
		return Detection{Kind: KindUnknown, Format: "binary data"}
	}
	// A profile.proto can look like text: one whose strings (function names of
	// 100 KB, say) fill the sniffed prefix has few control bytes. It still has
	// some (field keys and lengths), which text has not, and its fields walk.
	if hasControlBytes(head) && looksLikeProfileProto(head) && profileProtoFraming(head, len(head) < SniffSize) {
		return Detection{Kind: KindProfile, Format: "profile.proto"}
	}
	// Text from here on.
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case hasPrefixFold(trimmed, "<!doctype html") || hasPrefixFold(trimmed, "<html"):
		return Detection{Kind: KindUnknown, Format: "an HTML page"}
	case (bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("["))) && json.Valid(bytes.TrimSpace(head)):
		return Detection{Kind: KindUnknown, Format: "a JSON document"}
	}
	if jvmNMTHead.Match(head) {
		return Detection{Kind: KindJVMNMT, Format: "VM.native_memory"}
	}
	// A dump starts with a goroutine header, or with a crash message followed by
	// goroutines (a panic may print a long runtime stack first); a few lines of noise
	// before it (`go run`, a banner) are fine, a long log before it is a log.
	loc := goroutineHeader.FindIndex(head)
	start := -1
	if loc != nil {
		start = loc[0]
		if m := crashMarker.FindIndex(head[:loc[0]]); m != nil {
			start = m[0]
		}
	}
	if start >= 0 && bytes.Count(head[:start], []byte("\n")) <= 50 {
		format := "goroutine dump"
		before := head[:loc[0]]
		switch {
		case bytes.Contains(before, []byte("panic: ")):
			format = "panic"
		case bytes.Contains(before, []byte("fatal error: ")):
			format = "fatal error"
		case bytes.Contains(before, []byte("SIGQUIT")):
			format = "SIGQUIT"
		}
		return Detection{Kind: KindGoroutines, Format: format}
	}
	if loc := jvmHistogramHead.FindIndex(head); loc != nil && !jvmThreadHead.Match(head[:loc[0]]) {
		return Detection{Kind: KindJVMHistogram, Format: "class histogram"}
	}
	if jvmThreadHead.Match(head) {
		return Detection{Kind: KindJVMThreads, Format: "thread dump"}
	}
	return Detection{Kind: KindLog}
}

// isLegacyBinaryCPU recognizes the header of the pre-proto binary CPU profile: the
// words 0 and 3 (header count) in 32- or 64-bit, either byte order.
func isLegacyBinaryCPU(b []byte) bool {
	for _, w := range []int{4, 8} {
		if len(b) < 2*w {
			continue
		}
		zero, three := b[:w], b[w:2*w]
		if !allZero(zero) {
			continue
		}
		le := three[0] == 3 && allZero(three[1:])
		be := three[w-1] == 3 && allZero(three[:w-1])
		if le || be {
			return true
		}
	}
	return false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// captureManifest is the start of a capture bundle's manifest.json: its format
// field, then its kind.
var captureManifest = regexp.MustCompile(`\A\s*\{\s*"format"\s*:\s*"leakui-capture/[0-9]+"\s*,\s*"kind"\s*:\s*"([a-z]{1,10})"`)

// detectCapture recognizes a leakui capture bundle: a tar (ustar) whose first
// entry is a regular file named manifest.json that starts with leakui's format.
// A PAX extended header before it (some tar writers add one) is passed over.
func detectCapture(head []byte) (Detection, bool) {
	const block = 512
	if len(head) < block+16 || string(head[257:262]) != "ustar" {
		return Detection{}, false
	}
	if head[156] == 'x' {
		size, err := strconv.ParseUint(strings.TrimRight(strings.TrimSpace(string(head[124:136])), "\x00"), 8, 32)
		next := block + (int(size)+block-1)/block*block
		if err != nil || size > 16<<10 || len(head) < next+block+16 {
			return Detection{}, false
		}
		head = head[next:]
	}
	if string(head[257:262]) != "ustar" || (head[156] != '0' && head[156] != 0) {
		return Detection{}, false
	}
	name, _, _ := bytes.Cut(head[:100], []byte{0})
	if string(name) != "manifest.json" {
		return Detection{}, false
	}
	m := captureManifest.FindSubmatch(head[block:])
	if m == nil {
		return Detection{}, false
	}
	return Detection{Kind: KindCapture, Format: "leakui capture bundle (" + string(m[1]) + ")"}, true
}

// binaryMagic names well-known binary formats so that a wrong upload gets a helpful
// message.
func binaryMagic(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return "an ELF executable"
	case bytes.HasPrefix(b, []byte("MZ")):
		return "a Windows executable"
	case bytes.HasPrefix(b, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(b, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return "a Mach-O executable or Java class file"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return "a zip archive"
	case bytes.HasPrefix(b, []byte("%PDF")):
		return "a PDF document"
	case bytes.HasPrefix(b, []byte("\x89PNG")):
		return "a PNG image"
	case bytes.HasPrefix(b, []byte("JAVA PROFILE")):
		return "a Java HPROF heap dump of a version leakui does not read (it reads 1.0.1 and 1.0.2)"
	case len(b) > 262 && string(b[257:262]) == "ustar":
		return "a tar archive"
	}
	return ""
}

// looksBinary reports whether the head has more than a few control bytes, which text
// (even a log with the odd NUL or invalid UTF-8) does not.
func looksBinary(b []byte) bool {
	control := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			control++
		}
	}
	return control*20 > len(b) // more than 5%
}

// utf16WithoutMark tells whether b is UTF-16 text without a byte order mark:
// EncodingUTF16LE when nearly every pair of its first bytes (at least 16 pairs)
// is a printable ASCII character and a zero, EncodingUTF16BE when it is a zero
// and a character, "" otherwise. Text has words: at least 8 distinct
// characters and a space or a line break; a profile.proto of empty repeated
// fields ("2\x00" over and over, an empty string's key and length) has not.
func utf16WithoutMark(b []byte) string {
	if len(b) > 4096 {
		b = b[:4096]
	}
	pairs := len(b) / 2
	if pairs < 16 {
		return ""
	}
	text := func(c byte) bool { return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7f) }
	le, be := 0, 0
	var seenLE, seenBE [128]bool
	for i := 0; i+1 < len(b); i += 2 {
		if text(b[i]) && b[i+1] == 0 {
			le++
			seenLE[b[i]] = true
		}
		if b[i] == 0 && text(b[i+1]) {
			be++
			seenBE[b[i+1]] = true
		}
	}
	words := func(seen *[128]bool) bool {
		distinct := 0
		for _, ok := range seen {
			if ok {
				distinct++
			}
		}
		return distinct >= 8 && (seen[' '] || seen['\n'])
	}
	switch {
	case le*20 >= pairs*19 && words(&seenLE):
		return EncodingUTF16LE
	case be*20 >= pairs*19 && words(&seenBE):
		return EncodingUTF16BE
	}
	return ""
}

// looksLikeProfileProto checks that the message starts with a field of
// profile.proto (numbers 1 to 14) with the wire type that field has.
func looksLikeProfileProto(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	field, wire := b[0]>>3, b[0]&7
	switch {
	case field >= 1 && field <= 6: // repeated messages and strings
		return wire == 2
	case field >= 7 && field <= 14:
		return wire == 0 || wire == 2
	}
	return false
}

// hasControlBytes reports whether b has a control byte that text does not have
// (anything below 0x20 but tab, newline, carriage return, form feed, vertical tab
// and escape).
func hasControlBytes(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			return true
		}
	}
	return false
}

// profileProtoFraming reports whether b is a sequence of profile.proto fields:
// every key a field of the Profile message (1 to 14) with its wire type, every
// varint and length within b. When complete is false, b is a prefix of the
// input and its last field may run past its end.
func profileProtoFraming(b []byte, complete bool) bool {
	fields := 0
	for len(b) > 0 {
		if !looksLikeProfileProto(b) && !(len(b) == 1 && !complete) {
			return false
		}
		key, n := varint.Uvarint(b)
		if n <= 0 {
			return !complete && n == 0 && fields > 0
		}
		b = b[n:]
		fields++
		switch key & 7 {
		case 0:
			_, n := varint.Uvarint(b)
			if n <= 0 {
				return !complete && n == 0
			}
			b = b[n:]
		case 2:
			l, n := varint.Uvarint(b)
			if n <= 0 {
				return !complete && n == 0
			}
			if l > uint64(len(b)-n) {
				return !complete
			}
			b = b[n+int(l):]
		default:
			return false
		}
	}
	return fields > 0
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}

// Sniff detects the kind of the text r holds, where r is a reader Decompress
// returned: DetectKind over the first SniffSize bytes, with the Encoding of r. What
// DetectKind calls a log is read on, line by line up to its end (Decompress's limit
// bounds it), for a Go SIGQUIT or SIGABRT dump or a JVM thread dump further in,
// such as one printed into a long container log; a dump found there is the detection,
// with Skipped and SkippedLines saying how much log came before it; text with no
// dump that does not look like a log (LogShape) is then KindUnknown. UTF-16 data
// that decodes to mostly unpaired surrogates, private-use and control characters is
// binary data. Read errors after the first SniffSize bytes end the search, not the
// detection: the readers that follow report them.
func Sniff(r io.Reader) (Detection, error) {
	br := bufio.NewReaderSize(r, SniffSize)
	head, err := br.Peek(SniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Detection{}, err
	}
	enc := EncodingOf(r)
	if enc != "" && looksLikeDecodedBinary(head) {
		return Detection{Kind: KindUnknown, Format: "binary data", Encoding: enc}, nil
	}
	if len(head) > SniffSize {
		head = head[:SniffSize]
	}
	d := detectText(head)
	d.Encoding = enc
	if d.Kind != KindLog {
		return d, nil
	}
	// head is br's buffer: judge its shape before scanForDump reads on and
	// overwrites it.
	notLog := looksLikeLog(head)
	if deep, ok := scanForDump(br, DetectLinePrefix(head)); ok {
		deep.Encoding = enc
		return deep, nil
	}
	if notLog != nil {
		notLog.Encoding = enc
		return *notLog, nil
	}
	return d, nil
}

// crashLinesBefore is how many lines a signal dump's first line may come before its
// first goroutine header (the signal's registers come between).
const crashLinesBefore = 50

// scanForDump reads r to its end (or a read error) for the first line that starts
// a dump: a Go signal dump's first line ("SIGQUIT: quit", "SIGABRT: abort")
// followed within crashLinesBefore lines by a goroutine header,
// or a JVM "Full thread dump" line followed by a thread line. Lines are looked at
// with prefix stripped.
func scanForDump(r *bufio.Reader, prefix string) (Detection, bool) {
	var (
		offset, line int64
		mid          bool
		buf          []byte
		// The last start line seen: its number, offset, format and whether it
		// carried the prefix (a log whose own time stamps look like kubectl's
		// keeps its dump bare).
		startAt, startOffset int64 = -1, 0
		startFormat          string
		startPrefixed        bool
	)
	for {
		raw, err := r.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		start := offset
		offset += int64(len(raw))
		near := startAt >= 0 && line-startAt <= crashLinesBefore
		// Most lines of a log are none of the lines looked for: those are passed
		// over without stripping their prefix.
		if len(raw) > 0 && !mid && (near || mayStartDump(raw)) {
			text, stripped := stripLine(raw, prefix, buf)
			if stripped && prefix == PrefixDockerJSON {
				buf = text[:0]
			}
			switch {
			case near && startFormat != "thread dump" && bytes.HasPrefix(text, []byte("goroutine ")) && goroutineHeader.Match(text),
				near && startFormat == "thread dump" && bytes.HasPrefix(text, []byte(`"`)) && jvmThreadHead.Match(text):
				d := Detection{Kind: KindGoroutines, Format: startFormat, Skipped: startOffset, SkippedLines: startAt}
				if startFormat == "thread dump" {
					d.Kind = KindJVMThreads
				}
				if startPrefixed {
					d.Prefix = prefix
				}
				return d, true
			case bytes.HasPrefix(text, []byte("Full thread dump")):
				startAt, startOffset, startFormat, startPrefixed = line, start, "thread dump", stripped
			default:
				if f := crashFormatOf(text); f != "" {
					startAt, startOffset, startFormat, startPrefixed = line, start, f, stripped
				}
			}
		}
		mid = full
		if !full {
			line++
		}
		if err != nil && !full {
			return Detection{}, false
		}
	}
}

// mayStartDump reports whether line holds the text of a line that starts a dump
// (see crashFormatOf), prefixed or not.
func mayStartDump(line []byte) bool {
	return bytes.Contains(line, []byte("SIGQUIT: quit")) || bytes.Contains(line, []byte("SIGABRT: abort")) ||
		bytes.Contains(line, []byte("Full thread dump"))
}

// crashFormatOf names the dump format a line starts when it is the first line of a
// dump of every goroutine a signal asked for ("SIGQUIT: quit", "SIGABRT: abort"), or
// "". A panic in a log is not one: a service that crashes and restarts logs its
// panics (with the panicking goroutine only), and stays a log.
func crashFormatOf(line []byte) string {
	switch {
	case bytes.HasPrefix(line, []byte("SIGQUIT: quit")):
		return "SIGQUIT"
	case bytes.HasPrefix(line, []byte("SIGABRT: abort")):
		return "SIGABRT"
	}
	return ""
}
