package recovery

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// File names of a Kafka log directory.
const (
	logSuffix   = ".log"
	indexSuffix = ".index"
	// RecoveryPointFile is the checkpoint of flushed offsets in a log directory.
	RecoveryPointFile = "recovery-point-offset-checkpoint"
)

// SegmentFileName returns the name of a segment file: the base offset in 20 digits
// and the suffix (".log" or ".index"), as Kafka names them.
func SegmentFileName(baseOffset int64, suffix string) string {
	return fmt.Sprintf("%020d%s", baseOffset, suffix)
}

// PartitionDirName returns the folder of one partition, "<topic>-<n>".
func PartitionDirName(topic string, partition int) string {
	return topic + "-" + strconv.Itoa(partition)
}

// partitionDir is one partition folder found in a log directory.
type partitionDir struct {
	name      string // "<topic>-<n>"
	topic     string
	partition int
	path      string
}

// listPartitions returns the partition folders of dir, ordered by topic and number.
func listPartitions(dir string) ([]partitionDir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var parts []partitionDir
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		i := strings.LastIndexByte(e.Name(), '-')
		if i <= 0 {
			continue
		}
		n, err := strconv.Atoi(e.Name()[i+1:])
		if err != nil || n < 0 {
			continue
		}
		parts = append(parts, partitionDir{name: e.Name(), topic: e.Name()[:i], partition: n, path: filepath.Join(dir, e.Name())})
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].topic != parts[j].topic {
			return parts[i].topic < parts[j].topic
		}
		return parts[i].partition < parts[j].partition
	})
	return parts, nil
}

// segmentFile is one "<base offset>.log" file of a partition.
type segmentFile struct {
	baseOffset int64
	path       string // the .log file
}

func (s segmentFile) indexPath() string {
	return strings.TrimSuffix(s.path, logSuffix) + indexSuffix
}

// listSegments returns the segments of a partition folder by base offset.
func listSegments(dir string) ([]segmentFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var segs []segmentFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, logSuffix) {
			continue
		}
		base, err := strconv.ParseInt(strings.TrimSuffix(name, logSuffix), 10, 64)
		if err != nil || base < 0 {
			continue
		}
		segs = append(segs, segmentFile{baseOffset: base, path: filepath.Join(dir, name)})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].baseOffset < segs[j].baseOffset })
	return segs, nil
}
