package recovery

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int
}

// ReadRecoveryPoints reads the recovery-point-offset-checkpoint of a log directory
// (Kafka's OffsetCheckpoint text format: a version line "0", a count line, then
// "topic partition offset" per line). A missing file means no recovery points.
func ReadRecoveryPoints(dir string) (map[TopicPartition]int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecoveryPointFile))
	if os.IsNotExist(err) {
		return map[TopicPartition]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseRecoveryPoints(b)
}

func parseRecoveryPoints(b []byte) (map[TopicPartition]int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	line := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		return strings.TrimSpace(sc.Text()), true
	}
	version, ok := line()
	if !ok || version != "0" {
		return nil, fmt.Errorf("%w: unrecognized version %q", ErrBadCheckpoint, version)
	}
	countLine, ok := line()
	count, err := strconv.Atoi(countLine)
	if !ok || err != nil || count < 0 {
		return nil, fmt.Errorf("%w: bad entry count %q", ErrBadCheckpoint, countLine)
	}
	points := make(map[TopicPartition]int64, min(count, 1<<16))
	for i := range count {
		l, ok := line()
		if !ok {
			return nil, fmt.Errorf("%w: expected %d entries but found only %d", ErrBadCheckpoint, count, i)
		}
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: malformed line %q", ErrBadCheckpoint, l)
		}
		p, err1 := strconv.Atoi(f[1])
		o, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 || o < 0 {
			return nil, fmt.Errorf("%w: malformed line %q", ErrBadCheckpoint, l)
		}
		points[TopicPartition{f[0], p}] = o
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	return points, nil
}

// WriteRecoveryPoints writes the checkpoint file of a log directory atomically
// (a temporary file renamed over the old one, as Kafka does).
func WriteRecoveryPoints(dir string, points map[TopicPartition]int64) error {
	keys := make([]TopicPartition, 0, len(points))
	for k := range points {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Topic != keys[j].Topic {
			return keys[i].Topic < keys[j].Topic
		}
		return keys[i].Partition < keys[j].Partition
	})
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "0\n%d\n", len(keys))
	for _, k := range keys {
		fmt.Fprintf(&buf, "%s %d %d\n", k.Topic, k.Partition, points[k])
	}
	path := filepath.Join(dir, RecoveryPointFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
