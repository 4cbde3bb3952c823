package checkpoint

import "fmt"

// SSP is a SystemStreamPartition: one partition of one stream of one system.
type SSP struct {
	// System is the Samza system name, such as "kafka".
	System string
	// Stream is the topic.
	Stream string
	// Partition is the partition number.
	Partition int32
}

// String formats the SSP as Samza does: "SystemStreamPartition [kafka, events, 0]".
func (s SSP) String() string {
	return fmt.Sprintf("SystemStreamPartition [%s, %s, %d]", s.System, s.Stream, s.Partition)
}
