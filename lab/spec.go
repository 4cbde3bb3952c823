package lab

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Spec is what to run. Fields that do not apply to the workload stay zero.
type Spec struct {
	Workload string `json:"workload"`
	Variant  string `json:"variant"`
	// Checkpoint (SAMZA-2785).
	Mode         string  `json:"mode,omitempty"`
	Scenario     string  `json:"scenario,omitempty"`
	ReadFraction float64 `json:"read_fraction,omitempty"`
	Cycles       int     `json:"cycles,omitempty"`
	Tasks        int     `json:"tasks,omitempty"`
	// Recovery (KAFKA-3933).
	Codec      string `json:"codec,omitempty"`
	Partitions int    `json:"partitions,omitempty"`
	Segments   int    `json:"segments,omitempty"`
	Batches    int    `json:"batches,omitempty"`
	Records    int    `json:"records,omitempty"`
	ValueBytes int    `json:"value_bytes,omitempty"`
	// Format is the message format, v0, v1 or v2 (default v0, v2 for zstd).
	Format string `json:"format,omitempty"`
	// Damage corrupts batch DamageBatch's compressed payload before recovery:
	// "payload" (a byte in the middle) or "trailer" (the gzip trailer); "" is none.
	Damage string `json:"damage,omitempty"`
}

// DamageBatch is the batch of partition 0's first segment a Damage corrupts: at
// the default shape it gets an index entry, offset 2000.
const DamageBatch = 100

// The workloads and their choices.
const (
	WorkloadCheckpoint = "checkpoint"
	WorkloadRecovery   = "recovery"
)

var (
	checkpointVariants  = []string{"leaky", "pr1674", "reset", "guard-start"}
	checkpointModes     = []string{"active", "standby"}
	checkpointScenarios = []string{"storm", "steady", "reuse"}
	recoveryVariants    = []string{"leaky", "close", "drain", "header", VariantJVM}
	recoveryCodecs      = []string{"none", "gzip", "snappy", "lz4", "zstd"}
	recoveryFormats     = []string{"v0", "v1", "v2"}
	recoveryDamages     = []string{"", "payload", "trailer"}
)

// The defaults of Limits.
const (
	// DefaultReadFraction is the checkpoint storm's share of containers that read
	// their checkpoints, an input: 14 of SAMZA-2785's 1741 (checkpoint.DefaultReadFraction).
	DefaultReadFraction = 0.008
	// DefaultMaxCycles bounds a checkpoint run's cycles.
	DefaultMaxCycles = 5000
	// DefaultMaxRecords bounds a recovery run's partitions × segments × batches ×
	// records.
	DefaultMaxRecords = 20_000_000
)

// Limits bound what one run may ask for.
type Limits struct {
	// MaxCycles bounds checkpoint cycles (default DefaultMaxCycles).
	MaxCycles int
	// MaxRecords bounds recovery's partitions × segments × batches × records
	// (default DefaultMaxRecords).
	MaxRecords int
}

func (l Limits) withDefaults() Limits {
	if l.MaxCycles <= 0 {
		l.MaxCycles = DefaultMaxCycles
	}
	if l.MaxRecords <= 0 {
		l.MaxRecords = DefaultMaxRecords
	}
	return l
}

// Normalize fills defaults and checks the spec against the limits. Errors wrap
// ErrInvalidSpec or ErrTooLarge and say what is accepted.
func (s *Spec) Normalize(limits Limits) error {
	limits = limits.withDefaults()
	oneOf := func(field, v string, allowed []string) error {
		if !slices.Contains(allowed, v) {
			return fmt.Errorf("%w: %s %q is not one of %v", ErrInvalidSpec, field, v, allowed)
		}
		return nil
	}
	inRange := func(field string, v *int, def, lo, hi int) error {
		if *v == 0 {
			*v = def
		}
		if *v < lo || *v > hi {
			return fmt.Errorf("%w: %s must be between %d and %d, not %d", ErrInvalidSpec, field, lo, hi, *v)
		}
		return nil
	}
	switch s.Workload {
	case WorkloadCheckpoint:
		if s.Variant == "" {
			s.Variant = "leaky"
		}
		if s.Mode == "" {
			s.Mode = "active"
		}
		if err := oneOf("variant", s.Variant, checkpointVariants); err != nil {
			return err
		}
		if err := oneOf("mode", s.Mode, checkpointModes); err != nil {
			return err
		}
		if s.Scenario == "" {
			s.Scenario = "storm"
		}
		if err := oneOf("scenario", s.Scenario, checkpointScenarios); err != nil {
			return err
		}
		if s.ReadFraction == 0 {
			s.ReadFraction = DefaultReadFraction
		}
		if !(s.ReadFraction > 0 && s.ReadFraction <= 1) {
			return fmt.Errorf("%w: read_fraction must be above 0 and at most 1, not %v", ErrInvalidSpec, s.ReadFraction)
		}
		if s.Cycles > limits.MaxCycles {
			return fmt.Errorf("%w: %d cycles; this server allows at most %d", ErrTooLarge, s.Cycles, limits.MaxCycles)
		}
		if err := inRange("cycles", &s.Cycles, 100, 1, limits.MaxCycles); err != nil {
			return err
		}
		if err := inRange("tasks", &s.Tasks, 8, 1, 256); err != nil {
			return err
		}
		s.Codec, s.Partitions, s.Segments, s.Batches, s.Records, s.ValueBytes, s.Format, s.Damage = "", 0, 0, 0, 0, 0, "", ""
	case WorkloadRecovery:
		if s.Variant == "" {
			s.Variant = "leaky"
		}
		if s.Codec == "" {
			s.Codec = "gzip"
		}
		if s.Format == "" {
			s.Format = "v0"
			if s.Codec == "zstd" {
				s.Format = "v2"
			}
		}
		if err := oneOf("variant", s.Variant, recoveryVariants); err != nil {
			return err
		}
		if s.Variant == VariantJVM {
			if ok, why := JVMAvailable(); !ok {
				return fmt.Errorf("%w: variant jvm is unavailable: %s", ErrInvalidSpec, why)
			}
			if s.Codec != "gzip" || s.Format != "v0" || s.Damage != "" {
				return fmt.Errorf("%w: variant jvm reproduces 0.10.0.0 over an undamaged gzip log of format v0", ErrInvalidSpec)
			}
		}
		if err := oneOf("codec", s.Codec, recoveryCodecs); err != nil {
			return err
		}
		if err := oneOf("format", s.Format, recoveryFormats); err != nil {
			return err
		}
		if err := oneOf("damage", s.Damage, recoveryDamages); err != nil {
			return err
		}
		if s.Codec == "zstd" && s.Format != "v2" {
			return fmt.Errorf("%w: zstd came with record batches v2 (Kafka 2.1); format %s has no zstd", ErrInvalidSpec, s.Format)
		}
		for _, f := range []struct {
			name        string
			v           *int
			def, lo, hi int
		}{
			{"partitions", &s.Partitions, 4, 1, 64},
			{"segments", &s.Segments, 20, 1, 1000},
			{"batches", &s.Batches, 500, 1, 100000},
			{"records", &s.Records, 20, 1, 10000},
			{"value_bytes", &s.ValueBytes, 512, 1, 1 << 20},
		} {
			if err := inRange(f.name, f.v, f.def, f.lo, f.hi); err != nil {
				return err
			}
		}
		if s.Damage != "" && (s.Codec == "none" || s.Batches <= DamageBatch || s.Damage == "trailer" && s.Codec != "gzip") {
			return fmt.Errorf("%w: damage %q needs a compressed log (gzip for a trailer) of more than %d batches per segment", ErrInvalidSpec, s.Damage, DamageBatch)
		}
		if n := s.Partitions * s.Segments * s.Batches * s.Records; n > limits.MaxRecords {
			return fmt.Errorf("%w: %d records (partitions × segments × batches × records); this server allows at most %d",
				ErrTooLarge, n, limits.MaxRecords)
		}
		s.Mode, s.Scenario, s.ReadFraction, s.Cycles, s.Tasks = "", "", 0, 0, 0
	default:
		return fmt.Errorf("%w: workload %q is not one of [checkpoint recovery]", ErrInvalidSpec, s.Workload)
	}
	return nil
}

// Args is the child's command line after the binary: `work <workload> …`.
func (s Spec) Args() []string {
	args := []string{"work", s.Workload, "-variant", s.Variant}
	add := func(flag string, v int) { args = append(args, flag, strconv.Itoa(v)) }
	switch s.Workload {
	case WorkloadCheckpoint:
		args = append(args, "-mode", s.Mode)
		if s.Scenario != "" {
			args = append(args, "-scenario", s.Scenario)
		}
		if s.ReadFraction != 0 {
			args = append(args, "-read-fraction", strconv.FormatFloat(s.ReadFraction, 'g', -1, 64))
		}
		add("-cycles", s.Cycles)
		add("-tasks", s.Tasks)
	case WorkloadRecovery:
		args = append(args, "-codec", s.Codec)
		add("-partitions", s.Partitions)
		add("-segments", s.Segments)
		add("-batches", s.Batches)
		add("-records", s.Records)
		add("-value-bytes", s.ValueBytes)
		if s.Format != "" {
			args = append(args, "-format", s.Format)
		}
		if s.Damage != "" {
			add("-corrupt-batch", DamageBatch)
			if s.Damage == "trailer" {
				args = append(args, "-corrupt-trailer")
			}
		}
	}
	return args
}

// Title describes the run in a few words: the upstream bug it reproduces, the
// code it runs (leaky or fixed) and its shape, such as "SAMZA-2785, leaky:
// checkpoint storm leaky/active, 1741 rebalances × 4 tasks".
func (s Spec) Title() string {
	switch s.Workload {
	case WorkloadCheckpoint:
		return fmt.Sprintf("SAMZA-2785, %s: checkpoint %s %s/%s, %s × %s", s.Code(), s.Scenario, s.Variant, s.Mode, counted(s.Cycles, "rebalance"), counted(s.Tasks, "task"))
	case WorkloadRecovery:
		t := fmt.Sprintf("KAFKA-3933, %s: recovery %s/%s %s, %s × %s × %s", s.Code(), s.Variant, s.Codec, s.Format,
			counted(s.Partitions, "partition"), counted(s.Segments, "segment"), counted(s.Batches, "batch"))
		if s.Damage != "" {
			t += ", damaged " + s.Damage
		}
		return t
	case WorkloadCapture:
		return fmt.Sprintf("capture %s of %s, %s", s.Mode, s.Variant, counted(s.Cycles, "snapshot"))
	}
	return s.Workload
}

// Bug is the upstream bug a run reproduces, "SAMZA-2785" or "KAFKA-3933"; ""
// for a capture.
func (s Spec) Bug() string {
	switch s.Workload {
	case WorkloadCheckpoint:
		return "SAMZA-2785"
	case WorkloadRecovery:
		return "KAFKA-3933"
	}
	return ""
}

// Code says whether the run's variant is the leaky code or a fix, and which:
// "leaky", "fixed by pr1674", "fixed by drain (0.10.0.1)", "the JVM reference".
func (s Spec) Code() string {
	switch {
	case s.Variant == "leaky":
		return "leaky"
	case s.Workload == WorkloadRecovery && s.Variant == VariantJVM:
		return "the JVM reference"
	case s.Workload == WorkloadRecovery && s.Variant == "drain":
		return "fixed by drain (0.10.0.1)"
	case s.Workload == WorkloadRecovery && s.Variant == "header":
		return "fixed by header (2.0.0)"
	}
	return "fixed by " + s.Variant
}

// VariantJVM is the recovery variant that runs the JVM reference
// (GzipLeak.java) instead of the Go model; it needs a JDK.
const VariantJVM = "jvm"

// RoleJVM is the role of what a jvm variant run captured of its JVM: the two
// capture bundles (leakui capture jvm) before its streams and with them open.
const RoleJVM = "jvm"

// JVMAvailable reports whether the jvm variant can run here, and if not why.
func JVMAvailable() (bool, string) {
	for _, tool := range []string{"javac", "java", "jcmd"} {
		if _, err := exec.LookPath(tool); err != nil {
			return false, "no JDK on this server (" + tool + " is not on PATH; apt-get install -y openjdk-17-jdk-headless)"
		}
	}
	return true, ""
}

// RecoveryVariants lists the recovery variants this server can run: jvm only
// where a JDK is installed.
func RecoveryVariants() []string {
	if ok, _ := JVMAvailable(); ok {
		return slices.Clone(recoveryVariants)
	}
	return slices.Clone(recoveryVariants[:len(recoveryVariants)-1])
}

// Preset is a named run that means something.
type Preset struct {
	Name, Description string
	Spec              Spec
}

// Presets are the runs the dashboard offers first.
var Presets = []Preset{
	{"samza-2785-production", "SAMZA-2785 replayed: the production log's 1741 rebalances and 14 first reads as inputs; the consumers left open are the result",
		Spec{Workload: WorkloadCheckpoint, Variant: "leaky", Mode: "active", Scenario: "storm", Cycles: 1741, Tasks: 4}},
	{"samza-2785-pr1674", "the same storm with apache/samza#1674's change (pr1674)",
		Spec{Workload: WorkloadCheckpoint, Variant: "pr1674", Mode: "active", Scenario: "storm", Cycles: 1741, Tasks: 4}},
	{"samza-2785-quick", "SAMZA-2785 in a minute: a storm of 100 rebalances, active containers",
		Spec{Workload: WorkloadCheckpoint, Variant: "leaky", Mode: "active", Scenario: "storm", Cycles: 100, Tasks: 4}},
	{"samza-2785-reuse", "one manager started 100 times: upstream's consumer refuses every registration after the first",
		Spec{Workload: WorkloadCheckpoint, Variant: "leaky", Mode: "active", Scenario: "reuse", Cycles: 100, Tasks: 4}},
	{"kafka-3933-gzip-leaky", "KAFKA-3933 as it happened: 20 gzip segments in message format v0, recovered by 0.10.0.0 (leaky: an iterator per index entry, never closed)",
		Spec{Workload: WorkloadRecovery, Variant: "leaky", Codec: "gzip", Format: "v0", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512}},
	{"kafka-3933-gzip-drain", "… with drain (what shipped in 0.10.0.1)",
		Spec{Workload: WorkloadRecovery, Variant: "drain", Codec: "gzip", Format: "v0", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512}},
	{"kafka-3933-gzip-v1-leaky", "… in message format v1: 0.10.0.0 reads v1 wrappers eagerly and closes them, no leak",
		Spec{Workload: WorkloadRecovery, Variant: "leaky", Codec: "gzip", Format: "v1", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512}},
	{"kafka-3933-corrupt-drain", "a damaged gzip payload (CRC recomputed) in batch 100: drain reads it to its end and truncates at offset 2000",
		Spec{Workload: WorkloadRecovery, Variant: "drain", Codec: "gzip", Format: "v0", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512, Damage: "payload"}},
	{"kafka-3933-corrupt-leaky", "the same damage under leaky (0.10.0.0 reads one record of a v0 wrapper) and header: not seen, nothing truncated",
		Spec{Workload: WorkloadRecovery, Variant: "leaky", Codec: "gzip", Format: "v0", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512, Damage: "payload"}},
	{"kafka-3933-jvm-reference", "the JVM reference: as many GZIPInputStreams left open in a real JVM (GzipLeak.java) as leaky leaves iterators, captured with leakui capture jvm before and after them (needs a JDK)",
		Spec{Workload: WorkloadRecovery, Variant: VariantJVM, Codec: "gzip", Format: "v0", Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512}},
	{"kafka-3933-zstd-leaky", "zstd record batches v2, never closed: stranded decoder goroutines, a Go library behaviour (klauspost/compress), not Kafka's",
		Spec{Workload: WorkloadRecovery, Variant: "leaky", Codec: "zstd", Format: "v2", Partitions: 1, Segments: 4, Batches: 10, Records: 1000, ValueBytes: 512}},
}

// PresetByName finds a preset.
func PresetByName(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// quietHeap reports whether the child should run without garbage collection: the
// gzip model's windows are freed only when a GC runs their cleanups, as a JVM frees
// an unclosed GZIPInputStream's native memory only in a finalizer; a JVM with an
// almost empty heap seldom collects, and GOGC=off is the Go way to say so.
func (s Spec) quietHeap() bool {
	return s.Workload == WorkloadRecovery && s.Codec == "gzip"
}

// childEnv is the environment the child runs with.
func (s Spec) childEnv() []string {
	env := os.Environ()
	if s.quietHeap() {
		env = append(env, "GOGC=off", "GOMEMLIMIT=1GiB")
	}
	return env
}

// counted is n and its noun, plural unless n is 1: "1 partition", "4 batches".
// (The lab imports no leakui package, so it does not share analyze's.)
func counted(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
