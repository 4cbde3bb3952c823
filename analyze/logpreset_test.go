package analyze

import (
	"errors"
	"slices"
	"testing"
)

// TestRegisterLogPreset checks that a preset can be added and replaced (how
// package main would give KAFKA-3933 the workload's texts), that a broken
// preset is refused, and that every built-in preset is valid.
func TestRegisterLogPreset(t *testing.T) {
	for _, p := range LogPresets() {
		if err := ValidateLogCountOptions(LogCountOptions{Preset: p.Name}); err != nil {
			t.Errorf("built-in preset %s: %v", p.Name, err)
		}
	}
	orig, _ := LookupLogPreset("kafka-3933")
	defer RegisterLogPreset(orig)
	repl := orig
	repl.Pairs = []LogPair{{Name: "deep iterators", Start: LogLiteral("iterator opened"), Close: LogLiteral("iterator closed")}}
	if err := RegisterLogPreset(repl); err != nil {
		t.Fatal(err)
	}
	if got, _ := LookupLogPreset("kafka-3933"); got.Pairs[0].Start.Text != "iterator opened" {
		t.Errorf("replaced preset starts with %q", got.Pairs[0].Start.Text)
	}
	if n := len(LogPresetNames()); n != 3 {
		t.Errorf("%d presets after a replacement, want 3", n)
	}
	if err := RegisterLogPreset(LogPreset{Name: "broken", Patterns: []LogPattern{LogRegexp("(")}}); !errors.Is(err, ErrInvalidParameter) {
		t.Errorf("broken preset: %v", err)
	}
	if slices.Contains(LogPresetNames(), "broken") {
		t.Error("broken preset registered")
	}
}
