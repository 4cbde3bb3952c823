package hprof

// Top-level record tags (heapDumper.cpp, "HPROF_UTF8" … "HPROF_HEAP_DUMP_END").
const (
	tagUTF8            = 0x01
	tagLoadClass       = 0x02
	tagStackFrame      = 0x04
	tagStackTrace      = 0x05
	tagHeapDump        = 0x0C
	tagHeapDumpSegment = 0x1C
	tagHeapDumpEnd     = 0x2C
)

// Heap dump sub-record tags (heapDumper.cpp "HPROF_GC_…"), with the Android
// extensions MAT also reads.
const (
	subRootUnknown       = 0xFF
	subRootJNIGlobal     = 0x01
	subRootJNILocal      = 0x02
	subRootJavaFrame     = 0x03
	subRootNativeStack   = 0x04
	subRootStickyClass   = 0x05
	subRootThreadBlock   = 0x06
	subRootMonitorUsed   = 0x07
	subRootThreadObject  = 0x08
	subClassDump         = 0x20
	subInstanceDump      = 0x21
	subObjArrayDump      = 0x22
	subPrimArrayDump     = 0x23
	subAndroidHeapInfo   = 0xFE
	subAndroidInterned   = 0x89
	subAndroidFinalizing = 0x8A
	subAndroidDebugger   = 0x8B
	subAndroidRefCleanup = 0x8C
	subAndroidVMInternal = 0x8D
	subAndroidJNIMonitor = 0x8E
	subAndroidUnreach    = 0x90
	subAndroidPrimNoData = 0xC3
)

// Basic types of fields and array elements (heapDumper.cpp "HPROF_NORMAL_OBJECT" …).
const (
	typeObject  = 2
	typeBoolean = 4
	typeChar    = 5
	typeFloat   = 6
	typeDouble  = 7
	typeByte    = 8
	typeShort   = 9
	typeInt     = 10
	typeLong    = 11
)

// typeSize is the size in the dump of a value of basic type t (0 for an unknown
// type); an object reference takes the identifier size.
func typeSize(t byte, idSize int) int {
	switch t {
	case typeObject:
		return idSize
	case typeBoolean, typeByte:
		return 1
	case typeChar, typeShort:
		return 2
	case typeFloat, typeInt:
		return 4
	case typeDouble, typeLong:
		return 8
	}
	return 0
}

// primName is the Java name of the array of basic type t.
func primName(t byte) string {
	switch t {
	case typeBoolean:
		return "boolean[]"
	case typeChar:
		return "char[]"
	case typeFloat:
		return "float[]"
	case typeDouble:
		return "double[]"
	case typeByte:
		return "byte[]"
	case typeShort:
		return "short[]"
	case typeInt:
		return "int[]"
	case typeLong:
		return "long[]"
	}
	return ""
}

// RootKind is the kind of a GC root record.
type RootKind uint8

// The kinds of GC roots.
const (
	RootUnknown RootKind = iota
	RootJNIGlobal
	RootJNILocal
	RootJavaFrame
	RootNativeStack
	RootStickyClass
	RootThreadBlock
	RootMonitorUsed
	RootThreadObject
	RootOther
)

// String names the root kind as MAT does.
func (k RootKind) String() string {
	switch k {
	case RootJNIGlobal:
		return "JNI global"
	case RootJNILocal:
		return "JNI local"
	case RootJavaFrame:
		return "Java local"
	case RootNativeStack:
		return "native stack"
	case RootStickyClass:
		return "system class"
	case RootThreadBlock:
		return "thread block"
	case RootMonitorUsed:
		return "busy monitor"
	case RootThreadObject:
		return "thread"
	case RootOther:
		return "VM internal"
	}
	return "unknown"
}
