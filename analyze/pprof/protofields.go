package pprof

// The field numbers of profile.proto (google/pprof, proto/profile.proto) that the
// decoder reads, named as pprof's own decoder names them (profile/profile.proto,
// profile/encode.go). Fields leakui does not need (keep_frames, doc_url,
// memory_start, address, is_folded, labels, …) are skipped by walkMessage.
const (
	// Profile.
	fieldProfileSampleType        = 1  // repeated ValueType sample_type
	fieldProfileSample            = 2  // repeated Sample sample
	fieldProfileMapping           = 3  // repeated Mapping mapping
	fieldProfileLocation          = 4  // repeated Location location
	fieldProfileFunction          = 5  // repeated Function function
	fieldProfileStringTable       = 6  // repeated string string_table
	fieldProfileDropFrames        = 7  // int64 drop_frames (a string table index)
	fieldProfileTimeNanos         = 9  // int64 time_nanos
	fieldProfileDurationNanos     = 10 // int64 duration_nanos
	fieldProfilePeriodType        = 11 // ValueType period_type
	fieldProfilePeriod            = 12 // int64 period
	fieldProfileComment           = 13 // repeated int64 comment (string table indexes)
	fieldProfileDefaultSampleType = 14 // int64 default_sample_type (a string table index)
	fieldProfileDocURL            = 15 // int64 doc_url (a string table index)

	// ValueType.
	fieldValueTypeType = 1 // int64 type (a string table index)
	fieldValueTypeUnit = 2 // int64 unit (a string table index)

	// Sample.
	fieldSampleLocationID = 1 // repeated uint64 location_id
	fieldSampleValue      = 2 // repeated int64 value

	// Mapping.
	fieldMappingID       = 1 // uint64 id
	fieldMappingFilename = 5 // int64 filename (a string table index)
	fieldMappingBuildID  = 6 // int64 build_id (a string table index)

	// Location.
	fieldLocationID        = 1 // uint64 id
	fieldLocationMappingID = 2 // uint64 mapping_id
	fieldLocationLine      = 4 // repeated Line line

	// Line.
	fieldLineFunctionID = 1 // uint64 function_id

	// Function.
	fieldFunctionID       = 1 // uint64 id
	fieldFunctionName     = 2 // int64 name (a string table index)
	fieldFunctionFilename = 4 // int64 filename (a string table index)
)

// The protobuf wire types (encoding/protowire's VarintType, Fixed64Type,
// BytesType, Fixed32Type).
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)
