package logs

import (
	"errors"

	"github.com/leakui/leakui/analyze"

	"slices"
	"testing"
)

// TestRegisterLogPreset checks that a preset can be added and replaced (how
// package main would give KAFKA-3933 the workload's texts), that a broken
// preset is refused, and that every built-in preset is valid.
func TestRegisterLogPreset(t *testing.T) {
	for _, p := range Presets() {
		if err := ValidateCountOptions(CountOptions{Preset: p.Name}); err != nil {
			t.Errorf("built-in preset %s: %v", p.Name, err)
		}
	}
	orig, _ := LookupPreset("kafka-3933")
	defer registerPreset(orig)
	repl := orig
	repl.Pairs = []Pair{{Name: "deep iterators", Start: Literal("iterator opened"), Close: Literal("iterator closed")}}
	if err := registerPreset(repl); err != nil {
		t.Fatal(err)
	}
	if got, _ := LookupPreset("kafka-3933"); got.Pairs[0].Start.Text != "iterator opened" {
		t.Errorf("replaced preset starts with %q", got.Pairs[0].Start.Text)
	}
	if n := len(PresetNames()); n != 3 {
		t.Errorf("%d presets after a replacement, want 3", n)
	}
	if err := registerPreset(Preset{Name: "broken", Patterns: []Pattern{Regexp("(")}}); !errors.Is(err, analyze.ErrInvalidParameter) {
		t.Errorf("broken preset: %v", err)
	}
	if slices.Contains(PresetNames(), "broken") {
		t.Error("broken preset registered")
	}
}
