package checkpoint

import (
	"fmt"
	"strconv"
	"strings"
)

// Samza's configuration keys that this model reads, by their upstream names.
const (
	// ConfigStopAfterFirstRead is TaskConfig.INTERNAL_CHECKPOINT_MANAGER_CONSUMER_STOP_AFTER_FIRST_READ
	// (apache/samza TaskConfig.java:145, default true at line 293).
	ConfigStopAfterFirstRead = "samza.internal.task.checkpoint.consumer.stop.after.first.read"
	// configFetchThresholdFormat is KafkaConfig.CONSUMER_FETCH_THRESHOLD,
	// systems.<system>.samza.fetch.threshold (KafkaSystemConsumer.java:191-195).
	configFetchThresholdFormat = "systems.%s.samza.fetch.threshold"
)

// ConfigFetchThreshold returns the fetch threshold key of a system.
func ConfigFetchThreshold(system string) string {
	return fmt.Sprintf(configFetchThresholdFormat, system)
}

// ParseSamzaConfig parses "key=value" settings with upstream's key names; only the
// keys this model reads are accepted: ConfigStopAfterFirstRead (true|false) and
// ConfigFetchThreshold("kafka") (1-1000000). It returns the mode and the fetch
// threshold they set; zero values mean the setting was absent.
func ParseSamzaConfig(settings []string) (mode Mode, fetchThreshold int, err error) {
	for _, s := range settings {
		key, value, ok := strings.Cut(s, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" {
			return "", 0, fmt.Errorf("%w: config %q: want key=value", ErrInvalidConfig, s)
		}
		switch key {
		case ConfigStopAfterFirstRead:
			b, perr := strconv.ParseBool(value)
			if perr != nil || (value != "true" && value != "false") {
				return "", 0, fmt.Errorf("%w: %s must be true or false, got %q", ErrInvalidConfig, key, value)
			}
			mode = Active
			if !b {
				mode = Standby
			}
		case ConfigFetchThreshold("kafka"):
			n, perr := strconv.Atoi(value)
			if perr != nil || n < 1 || n > MaxFetchThreshold {
				return "", 0, fmt.Errorf("%w: %s must be 1-%d, got %q", ErrInvalidConfig, key, MaxFetchThreshold, value)
			}
			fetchThreshold = n
		default:
			return "", 0, fmt.Errorf("%w: config key %q is not one this model reads (%s, %s)", ErrInvalidConfig,
				key, ConfigStopAfterFirstRead, ConfigFetchThreshold("kafka"))
		}
	}
	return mode, fetchThreshold, nil
}
