package logs

// timeState tells what is known of a line's timestamp.
type timeState uint8

const (
	timeNone    timeState = iota // no line up to this one has a timestamp
	timeKnown                    // ms holds it (its own or inherited)
	timePending                  // none yet in this part: inherit from the part before
)

// keyMark is where a key was started: file, line and timestamp.
type keyMark struct {
	file  int
	line  int64 // 0-based within the part while scanning, 1-based within the file after merging
	ms    int64
	state timeState
}

// keyState is what is known of one key of a pair.
type keyState struct {
	starts, closes int64
	// peak is the most of the key open at once (starts − closes, running in
	// line order from 0): above 1, the key was started again while still
	// open, so it names several things at once.
	peak        int64
	first, last keyMark // the first and last start
}

// keyTable holds the keys of one pair in first-seen order, up to a limit.
type keyTable struct {
	index     map[string]int
	keys      []string
	states    []keyState
	limit     int
	truncated bool // a key was seen after the table was full
}

func newLogKeyTable(limit int) *keyTable {
	return &keyTable{index: make(map[string]int), limit: limit}
}

// get returns the state of key, adding it when there is room, or nil (and marks
// the table truncated) when it is full.
func (t *keyTable) get(key []byte) *keyState {
	if i, ok := t.index[string(key)]; ok {
		return &t.states[i]
	}
	return t.add(string(key))
}

// getString is get for a key held as a string (no copy when it is new).
func (t *keyTable) getString(key string) *keyState {
	if i, ok := t.index[key]; ok {
		return &t.states[i]
	}
	return t.add(key)
}

func (t *keyTable) add(k string) *keyState {
	if len(t.keys) >= t.limit {
		t.truncated = true
		return nil
	}
	t.index[k] = len(t.keys)
	t.keys = append(t.keys, k)
	t.states = append(t.states, keyState{})
	return &t.states[len(t.states)-1]
}

// start records a start of the key at mark.
func (s *keyState) start(m keyMark) {
	s.starts++
	if s.starts == 1 {
		s.first = m
	}
	s.last = m
	s.peak = max(s.peak, s.starts-s.closes)
}

// close records a close of the key.
func (s *keyState) close() { s.closes++ }

// merge adds a later part's state of the same key, whose marks are already
// resolved. The later part's peak counts from the balance the earlier parts
// left.
func (s *keyState) merge(o *keyState) {
	if o.starts > 0 {
		if s.starts == 0 {
			s.first = o.first
		}
		s.last = o.last
	}
	s.peak = max(s.peak, s.starts-s.closes+o.peak)
	s.starts += o.starts
	s.closes += o.closes
}
