package page

import "encoding/json"

// Unmarshal decodes stored JSON that the server wrote itself; a stored value
// it cannot read leaves v at its zero value.
func Unmarshal(raw json.RawMessage, v any) {
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, v)
	}
}

// MustJSON marshals a value known to marshal.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
