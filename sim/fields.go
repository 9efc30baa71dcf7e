package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// FieldError is a bad scenario: the field path and the reason.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func ferr(path, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// join names a key under path. A key comes from the input, so it is made
// printable: a field path reaches the terminal.
func join(path, key string) string {
	key = strictjson.Printable(key)
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// object is a JSON object being read field by field, strictly: any key
// not read is reported as unknown.
type object struct {
	path   string
	fields map[string]json.RawMessage
}

func readObject(path string, raw json.RawMessage) (*object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, ferr(path, "must be an object, got %s", describe(raw))
	}
	return &object{path: path, fields: fields}, nil
}

// only reports the first key (in sorted order) that is not allowed.
func (o *object) only(keys ...string) error {
	var unknown []string
	for k := range o.fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return ferr(join(o.path, unknown[0]), "unknown field (known: %s)", strings.Join(keys, ", "))
}

func (o *object) has(key string) bool { _, ok := o.fields[key]; return ok }

func (o *object) raw(key string) json.RawMessage { return o.fields[key] }

func (o *object) str(key string, dst *string) error {
	v, ok := o.fields[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return ferr(join(o.path, key), "must be a string, got %s", describe(v))
	}
	return nil
}

func (o *object) num(key string, dst *float64) error {
	v, ok := o.fields[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil || math.IsNaN(*dst) || math.IsInf(*dst, 0) {
		return ferr(join(o.path, key), "must be a number, got %s", describe(v))
	}
	return nil
}

// duration reads a time in ms: ≥ 0, and within limits.Current.DurationMs
// (an unbounded one overflows virtual time).
func (o *object) duration(key string, dst *float64) error {
	if err := o.num(key, dst); err != nil {
		return err
	}
	if *dst < 0 {
		return ferr(join(o.path, key), "must be ≥ 0, got %v", *dst)
	}
	if max := limits.Current.DurationMs; *dst > max {
		return ferr(join(o.path, key), "%v", &limits.Exceeded{What: limits.Number(*dst) + " ms",
			Limit: limits.Number(max) + " ms", Flag: limits.FlagDurationMs})
	}
	return nil
}

func (o *object) integer(key string, dst *int, minimum int) error {
	v, ok := o.fields[key]
	if !ok {
		return nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || f < float64(minimum) || f > 1<<31 {
		return ferr(join(o.path, key), "must be an integer ≥ %d, got %s", minimum, describe(v))
	}
	*dst = int(f)
	return nil
}

func (o *object) boolean(key string, dst *bool) error {
	v, ok := o.fields[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return ferr(join(o.path, key), "must be true or false, got %s", describe(v))
	}
	return nil
}

func (o *object) array(key string) ([]json.RawMessage, error) {
	v, ok := o.fields[key]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil || items == nil {
		return nil, ferr(join(o.path, key), "must be an array, got %s", describe(v))
	}
	if max := limits.Current.Entries; len(items) > max {
		return nil, ferr(join(o.path, key), "%v", &limits.Exceeded{What: fmt.Sprintf("a list of %d entries", len(items)), Limit: fmt.Sprint(max), Flag: limits.FlagEntries})
	}
	return items, nil
}

func describe(raw json.RawMessage) string { return strictjson.Show(raw) }
