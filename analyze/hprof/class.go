package hprof

import "strings"

// noClass marks a missing superclass.
const noClass = ^uint32(0)

// Class is one class of the dump: an instance class, an array class, the synthetic
// class of each primitive array type, or java.lang.Class (of the class objects).
type Class struct {
	// Name is the Java name: "java.lang.String", "byte[]", "java.lang.Object[]".
	Name string `json:"name"`
	// ID is the class object's identifier (0 for the synthetic classes).
	ID uint64 `json:"id,omitempty"`

	kind     objKind
	elem     byte   // element type of a primitive array class
	superID  uint64 // identifier of the superclass, 0 for none
	super    uint32 // index of the superclass, noClass for none
	loaderID uint64
	loader   uint32 // the class loader's ordinal, noObject for the bootstrap loader
	dumped   bool   // a CLASS DUMP was read
	dumpSize uint32 // instance size as the dump says (field bytes in the dump)
	fields   []fieldDef
	statics  []staticField
	cpRefs   []uint64
	ordinal  uint32 // the class object's ordinal, noObject if not dumped

	// Derived from the class and its superclasses once every class is read.
	refOffsets []uint32 // where the references are in an instance's field data
	refNames   []uint64 // the name (UTF8 id) of each of those fields
	fieldBytes uint32   // field data size of an instance in the dump
	shallow    uint32   // shallow size of an instance
	isThread   bool
	isString   bool
	coderAt    int32    // offset of String.coder in an instance's data, -1 if none
	special    *special // the fields pass 2 reads besides references (native.go)
}

// javaName turns a class name as HotSpot writes it ("java/lang/String",
// "[Ljava/lang/Object;", "[[I") into the Java name MAT shows ("java.lang.String",
// "java.lang.Object[]", "int[][]").
func javaName(raw string) string {
	dims := 0
	for dims < len(raw) && raw[dims] == '[' {
		dims++
	}
	base := raw[dims:]
	if dims > 0 {
		switch {
		case len(base) >= 2 && base[0] == 'L' && base[len(base)-1] == ';':
			base = base[1 : len(base)-1]
		case len(base) == 1:
			switch base[0] {
			case 'Z':
				base = "boolean"
			case 'C':
				base = "char"
			case 'F':
				base = "float"
			case 'D':
				base = "double"
			case 'B':
				base = "byte"
			case 'S':
				base = "short"
			case 'I':
				base = "int"
			case 'J':
				base = "long"
			}
		}
	}
	return strings.ReplaceAll(base, "/", ".") + strings.Repeat("[]", dims)
}

// Package is the package of the class (of the element class for an array), "" for
// primitive arrays and the unnamed package.
func (c *Class) Package() string {
	name := strings.TrimRight(c.Name, "[]")
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return ""
}

// HistogramName is the name GC.class_histogram prints for the class
// ("[B", "[Ljava.lang.Object;", "java.lang.String").
func (c *Class) HistogramName() string { return HistogramClassName(c.Name) }

// HistogramClassName turns a class name as reports spell it ("byte[]",
// "java.lang.Object[]") into the one GC.class_histogram prints ("[B",
// "[Ljava.lang.Object;"), so that a dump's histogram compares with jcmd's.
func HistogramClassName(name string) string {
	dims := strings.Count(name, "[]")
	if dims == 0 {
		return name
	}
	base := strings.TrimSuffix(name, strings.Repeat("[]", dims))
	code := map[string]string{"boolean": "Z", "char": "C", "float": "F", "double": "D", "byte": "B", "short": "S", "int": "I", "long": "J"}[base]
	if code == "" {
		code = "L" + base + ";"
	}
	return strings.Repeat("[", dims) + code
}
