package checkpoint

import "fmt"

// SSP is a SystemStreamPartition: one partition of one stream of one system.
type SSP struct {
	System    string
	Stream    string
	Partition int32
}

// String formats the SSP as Samza does: "SystemStreamPartition [kafka, events, 0]".
func (s SSP) String() string {
	return fmt.Sprintf("SystemStreamPartition [%s, %s, %d]", s.System, s.Stream, s.Partition)
}
