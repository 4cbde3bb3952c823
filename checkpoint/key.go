package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Checkpoint message keys as Samza writes them.
const (
	// KeyTypeCheckpointV1 is KafkaCheckpointLogKey.CHECKPOINT_V1_KEY_TYPE, the type
	// of a key whose value is a CheckpointV1.
	KeyTypeCheckpointV1 = "checkpoint"
	// GroupByPartitionFactory is the grouper factory Samza writes in every key:
	// job.systemstreampartition.grouper.factory's default, whose task names are
	// "Partition <n>".
	GroupByPartitionFactory = "org.apache.samza.container.grouper.stream.GroupByPartitionFactory"
	// maxKeyBytes bounds the size of one key.
	maxKeyBytes = 4096
)

// Key is a checkpoint message key (Samza's KafkaCheckpointLogKey): the type of the
// checkpoint, the task and the grouper factory that named the task.
type Key struct {
	Type, TaskName, GrouperFactory string
}

// CheckpointKey returns the key of a CheckpointV1 of taskName.
func CheckpointKey(taskName string) Key {
	return Key{Type: KeyTypeCheckpointV1, TaskName: taskName, GrouperFactory: GroupByPartitionFactory}
}

// String formats the key as KafkaCheckpointLogKey.toString does.
func (k Key) String() string {
	return fmt.Sprintf("KafkaCheckpointLogKey[factoryClass: %s, taskName: %s, type: %s]", k.GrouperFactory, k.TaskName, k.Type)
}

// Encode returns the key's bytes as KafkaCheckpointLogKeySerde.toBytes writes them:
// Jackson's compact JSON of a map whose fields come in the order
// "systemstreampartition-grouper-factory", "taskName", "type".
func (k Key) Encode() []byte {
	var b bytes.Buffer
	for i, f := range [][2]string{
		{"systemstreampartition-grouper-factory", k.GrouperFactory},
		{"taskName", k.TaskName},
		{"type", k.Type},
	} {
		if i == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f[0])
		value, _ := json.Marshal(f[1])
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// DecodeKey parses a checkpoint message key as KafkaCheckpointLogKeySerde.fromBytes
// does. A key that is not such a JSON object, or has no task name or type, is an
// error wrapping ErrBadCheckpoint.
func DecodeKey(data []byte) (Key, error) {
	if len(data) == 0 {
		return Key{}, fmt.Errorf("%w: message without key", ErrBadCheckpoint)
	}
	if len(data) > maxKeyBytes || !utf8.Valid(data) {
		return Key{}, fmt.Errorf("%w: key of %d bytes is not a checkpoint key", ErrBadCheckpoint, len(data))
	}
	var raw struct {
		Grouper  *string `json:"systemstreampartition-grouper-factory"`
		TaskName *string `json:"taskName"`
		Type     *string `json:"type"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Key{}, fmt.Errorf("%w: key: %v", ErrBadCheckpoint, err)
	}
	if dec.More() {
		return Key{}, fmt.Errorf("%w: data after the key's JSON object", ErrBadCheckpoint)
	}
	if raw.TaskName == nil || *raw.TaskName == "" || raw.Type == nil || *raw.Type == "" {
		return Key{}, fmt.Errorf("%w: key lacks taskName or type", ErrBadCheckpoint)
	}
	k := Key{TaskName: *raw.TaskName, Type: *raw.Type}
	if raw.Grouper != nil {
		k.GrouperFactory = *raw.Grouper
	}
	return k, nil
}
