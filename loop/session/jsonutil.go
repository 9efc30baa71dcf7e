package session

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as compact JSON without HTML escaping, as DSH's
// JSON.stringify does, so that "<compacted-summary>" stays as it is.
func Marshal(v any) ([]byte, error) { return marshal(v) }

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	// Strings cannot fail to encode.
	_ = writeValue(b, s)
}
