package web

import "encoding/json"

// jsonUnmarshal decodes stored JSON that the server wrote itself; a stored value
// it cannot read leaves v at its zero value.
func jsonUnmarshal(raw json.RawMessage, v any) {
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, v)
	}
}
