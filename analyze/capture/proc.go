package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/leakui/leakui/analyze"
)

// ProcStatus is what /proc/PID/status says of a process's memory, in bytes
// (the kernel prints kB, which is 1024 bytes). A field the file lacks is -1.
type ProcStatus struct {
	Name string `json:"name"`
	PID  int64  `json:"pid"`
	// VmRSS is the resident set: RssAnon + RssFile + RssShmem.
	VmRSS    int64 `json:"vm_rss"`
	VmHWM    int64 `json:"vm_hwm"`
	VmSize   int64 `json:"vm_size"`
	RssAnon  int64 `json:"rss_anon"`
	RssFile  int64 `json:"rss_file"`
	RssShmem int64 `json:"rss_shmem"`
	VmSwap   int64 `json:"vm_swap"`
	Threads  int64 `json:"threads"`
}

// ParseStatus reads /proc/PID/status. It fails with ErrEmpty on no input,
// ErrUnsupportedKind when the text is not a status file (its first line is
// "Name:"), and ErrMalformed without a VmRSS line (a kernel thread, or a file cut
// short) or with an amount that is not a number of kB.
func ParseStatus(b []byte) (*ProcStatus, error) {
	if len(b) == 0 {
		return nil, analyze.ErrEmpty
	}
	if !bytes.HasPrefix(b, []byte("Name:")) {
		return nil, fmt.Errorf("%w: not a /proc/PID/status file (it starts with \"Name:\")", analyze.ErrUnsupportedKind)
	}
	s := &ProcStatus{PID: -1, VmRSS: -1, VmHWM: -1, VmSize: -1, RssAnon: -1, RssFile: -1, RssShmem: -1, VmSwap: -1, Threads: -1}
	fields := map[string]*int64{"VmRSS": &s.VmRSS, "VmHWM": &s.VmHWM, "VmSize": &s.VmSize, "RssAnon": &s.RssAnon,
		"RssFile": &s.RssFile, "RssShmem": &s.RssShmem, "VmSwap": &s.VmSwap}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<10)
	line := 0
	for sc.Scan() {
		line++
		key, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch k := string(key); k {
		case "Name":
			s.Name = clip(string(value))
		case "Pid", "Threads":
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: /proc/PID/status line %d: %s %q is not a count", analyze.ErrMalformed, line, k, clip(string(value)))
			}
			if k == "Pid" {
				s.PID = n
			} else {
				s.Threads = n
			}
		default:
			if p, ok := fields[k]; ok {
				n, err := kiloBytes(value)
				if err != nil {
					return nil, fmt.Errorf("%w: /proc/PID/status line %d: %s: %v", analyze.ErrMalformed, line, k, err)
				}
				*p = n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: /proc/PID/status: %v", analyze.ErrMalformed, err)
	}
	if s.VmRSS < 0 {
		return nil, fmt.Errorf("%w: /proc/PID/status has no VmRSS line (a kernel thread, or the file was cut)", analyze.ErrMalformed)
	}
	return s, nil
}

// kiloBytes parses "268052 kB" into bytes.
func kiloBytes(v []byte) (int64, error) {
	digits, unit, _ := bytes.Cut(v, []byte(" "))
	if u := string(bytes.TrimSpace(unit)); u != "kB" {
		return 0, fmt.Errorf("unit %q, not kB", clip(u))
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>10 {
		return 0, fmt.Errorf("%q is not a number of kB", clip(string(digits)))
	}
	return n << 10, nil
}

// SmapsField is one line of /proc/PID/smaps_rollup, in bytes.
type SmapsField struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// SmapsRollup is /proc/PID/smaps_rollup: the sums over every mapping of the
// process, in the kernel's order (Rss, Pss, Pss_Anon, …, Anonymous, Swap, …).
type SmapsRollup struct {
	Fields []SmapsField `json:"fields"`
}

// Get returns the field called name, -1 when absent.
func (s *SmapsRollup) Get(name string) int64 {
	for _, f := range s.Fields {
		if f.Name == name {
			return f.Bytes
		}
	}
	return -1
}

// ParseSmapsRollup reads /proc/PID/smaps_rollup: a "[rollup]" mapping line, then
// one "Name: N kB" line per field. It fails with ErrEmpty on no input,
// ErrUnsupportedKind without the rollup line and ErrMalformed without an Rss line
// or with an amount that is not a number of kB.
func ParseSmapsRollup(b []byte) (*SmapsRollup, error) {
	if len(b) == 0 {
		return nil, analyze.ErrEmpty
	}
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	if !bytes.HasSuffix(bytes.TrimSpace(first), []byte("[rollup]")) {
		return nil, fmt.Errorf("%w: not a /proc/PID/smaps_rollup file (its first line ends in [rollup])", analyze.ErrUnsupportedKind)
	}
	s := &SmapsRollup{}
	line := 1
	for l := range bytes.SplitSeq(rest, []byte("\n")) {
		line++
		key, value, ok := bytes.Cut(l, []byte(":"))
		if !ok || len(s.Fields) >= 64 {
			continue
		}
		n, err := kiloBytes(bytes.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%w: /proc/PID/smaps_rollup line %d: %v", analyze.ErrMalformed, line, err)
		}
		s.Fields = append(s.Fields, SmapsField{Name: clip(string(key)), Bytes: n})
	}
	if s.Get("Rss") < 0 {
		return nil, fmt.Errorf("%w: /proc/PID/smaps_rollup has no Rss line", analyze.ErrMalformed)
	}
	return s, nil
}

// ResidentIn sums the Rss of the mappings of /proc/PID/smaps that start within
// [start, end): the resident pages of a reservation such as the Java heap. It
// fails with ErrUnsupportedKind when smaps holds no mapping line and ErrMalformed
// for an Rss that is not a number of kB.
func ResidentIn(smaps []byte, start, end uint64) (int64, error) {
	var (
		total    int64
		inside   bool
		mappings int
	)
	line := 0
	for l := range bytes.SplitSeq(smaps, []byte("\n")) {
		line++
		if lo, ok := mappingStart(l); ok {
			mappings++
			inside = lo >= start && lo < end
			continue
		}
		if !inside || !bytes.HasPrefix(l, []byte("Rss:")) {
			continue
		}
		n, err := kiloBytes(bytes.TrimSpace(l[len("Rss:"):]))
		if err != nil {
			return 0, fmt.Errorf("%w: /proc/PID/smaps line %d: %v", analyze.ErrMalformed, line, err)
		}
		if total > math.MaxInt64-n {
			return 0, fmt.Errorf("%w: /proc/PID/smaps line %d: the sum overflows", analyze.ErrMalformed, line)
		}
		total += n
	}
	if mappings == 0 {
		return 0, fmt.Errorf("%w: not a /proc/PID/smaps file (no \"start-end perms …\" mapping line)", analyze.ErrUnsupportedKind)
	}
	return total, nil
}

// mappingStart parses the start address of a mapping line
// "7f1c2c000000-7f1c2c021000 rw-p 00000000 00:00 0".
func mappingStart(l []byte) (uint64, bool) {
	dash := bytes.IndexByte(l, '-')
	if dash <= 0 || dash > 16 {
		return 0, false
	}
	sp := bytes.IndexByte(l, ' ')
	if sp < dash || sp-dash-1 > 16 || sp-dash-1 <= 0 {
		return 0, false
	}
	lo, err := strconv.ParseUint(string(l[:dash]), 16, 64)
	if err != nil {
		return 0, false
	}
	if _, err := strconv.ParseUint(string(l[dash+1:sp]), 16, 64); err != nil {
		return 0, false
	}
	return lo, true
}

// ParseStatStart returns a process's start time in clock ticks since boot, the
// 22nd field of /proc/PID/stat (counted after the command name in parentheses,
// which may itself hold spaces and parentheses).
func ParseStatStart(b []byte) (int64, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, fmt.Errorf("%w: not a /proc/PID/stat line", analyze.ErrUnsupportedKind)
	}
	f := bytes.Fields(b[end+1:])
	// Fields after the name start at the 3rd (state); the 22nd is f[19].
	if len(f) < 20 {
		return 0, fmt.Errorf("%w: /proc/PID/stat has %d fields after the name; the start time is the 22nd", analyze.ErrMalformed, len(f)+2)
	}
	n, err := strconv.ParseInt(string(f[19]), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: /proc/PID/stat's start time %q is not a number", analyze.ErrMalformed, clip(string(f[19])))
	}
	return n, nil
}
