// Copyright 2014 Google Inc. All Rights Reserved.
// Copyright 2026 the leakui authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// This file is ported from github.com/google/pprof as Go 1.26 vendors it
// (cmd/vendor/github.com/google/pprof, version
// v0.0.0-20251114195745-4902fdda35c8): internal/measurement/measurement.go and
// internal/report/report.go.
//
// Changed by the leakui authors: the unit types unexported, and
// selectOutputUnit (as OutputUnit) for the "minimum" unit only.

package pprof

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// This file ports the unit and percentage formatting of go tool pprof, from the
// copy of github.com/google/pprof the Go toolchain vendors
// ($GOROOT/src/cmd/vendor/github.com/google/pprof/internal/measurement/measurement.go):
// internal packages cannot be imported. The vendored copy is the reference because
// it is what `go tool pprof` runs (it still sniffs units by byte length, see
// sniffUnit).

// Percentage is measurement.Percentage: value as a percentage of total with at
// least two significant digits ("%5.2f%%" from 1%, "%5.2g%%" below), and "  100%"
// for 99.95–100.05%. The result is padded to at least 6 characters.
func Percentage(value, total int64) string {
	var ratio float64
	if total != 0 {
		ratio = math.Abs(float64(value)/float64(total)) * 100
	}
	switch {
	case math.Abs(ratio) >= 99.95 && math.Abs(ratio) <= 100.05:
		return "  100%"
	case math.Abs(ratio) >= 1.0:
		return fmt.Sprintf("%5.2f%%", ratio)
	default:
		return fmt.Sprintf("%5.2g%%", ratio)
	}
}

// ScaledLabel is measurement.ScaledLabel: value (in fromUnit) converted to toUnit
// ("minimum" or "auto" to pick one) and printed with two decimals, ".00" trimmed:
// "2560.26kB", "0.04s", "37".
func ScaledLabel(value int64, fromUnit, toUnit string) string {
	v, u := scaleValue(value, fromUnit, toUnit)
	sv := strings.TrimSuffix(fmt.Sprintf("%.2f", v), ".00")
	if sv == "0" || sv == "-0" {
		return "0"
	}
	return sv + u
}

// scaleValue is measurement.Scale: it converts value from fromUnit to toUnit and
// returns the unit it chose ("" when the unit is uninteresting, as for counts).
func scaleValue(value int64, fromUnit, toUnit string) (float64, string) {
	// Avoid infinite recursion on overflow.
	if value < 0 && -value > 0 {
		v, u := scaleValue(-value, fromUnit, toUnit)
		return -v, u
	}
	for _, ut := range unitTypes {
		if v, u, ok := ut.convertUnit(value, fromUnit, toUnit); ok {
			return v, u
		}
	}
	switch toUnit {
	case "count", "sample", "unit", "minimum", "auto":
		return float64(value), ""
	default:
		return float64(value), toUnit
	}
}

// measureUnit and unitType are measurement.Unit and measurement.UnitType.
type measureUnit struct {
	canonicalName string
	aliases       []string
	factor        float64
}

type unitType struct {
	defaultUnit measureUnit
	units       []measureUnit
}

// sniffUnit is UnitType.sniffUnit as the Go toolchain's pprof has it: a plural "s"
// is trimmed from units longer than two bytes (so "μs" is not recognised).
func (ut unitType) sniffUnit(unit string) *measureUnit {
	unit = strings.ToLower(unit)
	if len(unit) > 2 {
		unit = strings.TrimSuffix(unit, "s")
	}
	for _, u := range ut.units {
		if slices.Contains(u.aliases, unit) {
			return &u
		}
	}
	return nil
}

// autoScale is UnitType.autoScale.
func (ut unitType) autoScale(value float64) (float64, string, bool) {
	var f float64
	var unit string
	for _, u := range ut.units {
		if u.factor >= f && (value/u.factor) >= 1.0 {
			f = u.factor
			unit = u.canonicalName
		}
	}
	if f == 0 {
		return 0, "", false
	}
	return value / f, unit, true
}

// convertUnit is UnitType.convertUnit.
func (ut unitType) convertUnit(value int64, fromUnitStr, toUnitStr string) (float64, string, bool) {
	fromUnit := ut.sniffUnit(fromUnitStr)
	if fromUnit == nil {
		return 0, "", false
	}
	v := float64(value) * fromUnit.factor
	if toUnitStr == "minimum" || toUnitStr == "auto" {
		if v, u, ok := ut.autoScale(v); ok {
			return v, u, true
		}
		return v / ut.defaultUnit.factor, ut.defaultUnit.canonicalName, true
	}
	toUnit := ut.sniffUnit(toUnitStr)
	if toUnit == nil {
		return v / ut.defaultUnit.factor, ut.defaultUnit.canonicalName, true
	}
	return v / toUnit.factor, toUnit.canonicalName, true
}

// unitTypes is measurement.UnitTypes.
var unitTypes = []unitType{{
	units: []measureUnit{
		{"B", []string{"b", "byte"}, 1},
		{"kB", []string{"kb", "kbyte", "kilobyte"}, float64(1 << 10)},
		{"MB", []string{"mb", "mbyte", "megabyte"}, float64(1 << 20)},
		{"GB", []string{"gb", "gbyte", "gigabyte"}, float64(1 << 30)},
		{"TB", []string{"tb", "tbyte", "terabyte"}, float64(1 << 40)},
		{"PB", []string{"pb", "pbyte", "petabyte"}, float64(1 << 50)},
	},
	defaultUnit: measureUnit{"B", []string{"b", "byte"}, 1},
}, {
	units: []measureUnit{
		{"ns", []string{"ns", "nanosecond"}, float64(time.Nanosecond)},
		{"us", []string{"μs", "us", "microsecond"}, float64(time.Microsecond)},
		{"ms", []string{"ms", "millisecond"}, float64(time.Millisecond)},
		{"s", []string{"s", "sec", "second"}, float64(time.Second)},
		{"hrs", []string{"hour", "hr"}, float64(time.Hour)},
	},
	defaultUnit: measureUnit{"s", []string{}, float64(time.Second)},
}, {
	units: []measureUnit{
		{"n*GCU", []string{"nanogcu"}, 1e-9},
		{"u*GCU", []string{"microgcu"}, 1e-6},
		{"m*GCU", []string{"milligcu"}, 1e-3},
		{"GCU", []string{"gcu"}, 1},
		{"k*GCU", []string{"kilogcu"}, 1e3},
		{"M*GCU", []string{"megagcu"}, 1e6},
		{"G*GCU", []string{"gigagcu"}, 1e9},
		{"T*GCU", []string{"teragcu"}, 1e12},
		{"P*GCU", []string{"petagcu"}, 1e15},
	},
	defaultUnit: measureUnit{"GCU", []string{}, 1.0},
}}

// OutputUnit is report.selectOutputUnit for unit "minimum" (pprof's default -unit):
// the unit of the smallest nonzero value shown (minValue; total when there is none),
// or, when that and the total's unit differ and the smallest is below 1% of the
// total, the unit of 100 × the smallest. Any other unit is returned as given.
func OutputUnit(unit, sampleUnit string, minValue, total int64) string {
	if unit != "minimum" {
		return unit
	}
	maxValue := total
	if minValue == 0 {
		minValue = maxValue
	}
	_, minUnit := scaleValue(minValue, sampleUnit, "minimum")
	_, maxUnit := scaleValue(maxValue, sampleUnit, "minimum")
	out := minUnit
	if minUnit != maxUnit && minValue*100 < maxValue {
		_, out = scaleValue(100*minValue, sampleUnit, "minimum")
	}
	if out == "" {
		return sampleUnit
	}
	return out
}
