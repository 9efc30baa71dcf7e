package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Locate finds, in input order, the first place where raw does not fit
// the shape of target (a pointer to the value the input decodes into): a
// key no field of the struct has, or a value of the wrong kind. Its error
// names the field's whole path (failures[0].prob), which encoding/json's
// own errors do not (an unknown field has none; a type error has no
// index), and a key that matches a field only but for case (which
// encoding/json takes). It returns nil when it finds nothing; after Check,
// it is what a reader runs before decoding with encoding/json.
func Locate(raw []byte, target any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := locate(dec, reflect.TypeOf(target), ""); err != nil && !errors.Is(err, errUnreadable) {
		return err
	}
	return nil
}

// errUnreadable stops the walk at input that is not JSON: Check's to
// report. (A decoder that failed keeps saying More, so the walk must not
// go on.)
var errUnreadable = errors.New("not JSON")

func locate(dec *json.Decoder, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return errUnreadable
	}
	here := path
	if here == "" {
		here = "the value"
	}
	if tok == nil {
		return nil // null fits anything
	}
	switch t.Kind() {
	case reflect.Struct:
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return fmt.Errorf("%s: must be an object, got %s", here, tokenKind(tok))
		}
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return errUnreadable
			}
			key, _ := keyTok.(string)
			field, ok := fieldByName(t, key)
			if !ok {
				if name, ok := foldedName(t, key); ok {
					return fmt.Errorf("%s: unknown field: keys are matched as written; did you mean %s?", join(path, key), name)
				}
				return fmt.Errorf("%s: unknown field (known: %s)", join(path, key), strings.Join(fieldNames(t), ", "))
			}
			if err := locate(dec, field.Type, join(path, key)); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // }
			return errUnreadable
		}
	case reflect.Slice, reflect.Array:
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fmt.Errorf("%s: must be an array, got %s", here, tokenKind(tok))
		}
		n := 0
		for ; dec.More(); n++ {
			if err := locate(dec, t.Elem(), path+"["+strconv.Itoa(n)+"]"); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return errUnreadable
		}
		// encoding/json pads a Go array from a shorter one and drops what
		// is past its length: [1] for a [2]float64 would read as [1, 0].
		if t.Kind() == reflect.Array && n != t.Len() {
			return fmt.Errorf("%s: must be an array of %s, got %s", here, values(t.Len()), values(n))
		}
	case reflect.Map, reflect.Interface:
		return skip(dec, tok)
	default:
		if want, ok := fits(t, tok); !ok {
			return fmt.Errorf("%s: must be %s, got %s", here, want, tokenKind(tok))
		}
	}
	return nil
}

// fits reports whether a scalar token fits a scalar type, and what the
// type wants.
func fits(t reflect.Type, tok json.Token) (string, bool) {
	switch t.Kind() {
	case reflect.Bool:
		_, ok := tok.(bool)
		return "true or false", ok
	case reflect.String:
		_, ok := tok.(string)
		return "a string", ok
	case reflect.Float32, reflect.Float64:
		_, ok := tok.(json.Number)
		return "a number", ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := tok.(json.Number)
		if !ok {
			return "an integer", false
		}
		_, err := strconv.ParseInt(string(n), 10, 64)
		return "an integer", err == nil
	}
	return "a value", true
}

// skip passes over the rest of a value whose first token was tok.
func skip(dec *json.Decoder, tok json.Token) error {
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		for depth := 1; depth > 0; {
			t, err := dec.Token()
			if err != nil {
				return errUnreadable
			}
			if d, ok := t.(json.Delim); ok {
				if d == '{' || d == '[' {
					depth++
				} else {
					depth--
				}
			}
		}
	}
	return nil
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string " + Printable(strconv.Quote(v))
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return string(v)
	}
	return "null"
}

// fieldByName is the struct field a JSON key names: its json tag's name,
// exactly. encoding/json also matches case-insensitively, which
// DisallowUnknownFields does not refuse, so that {"forMs": …, "forMS": …}
// decodes with the last one silently winning: a strict reader takes only
// the exact keys.
func fieldByName(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name := jsonName(f); name != "" && name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// foldedName is the field name a key matches but for case, to suggest.
func foldedName(t reflect.Type, key string) (string, bool) {
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" && strings.EqualFold(name, key) {
			return name, true
		}
	}
	return "", false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			names = append(names, name)
		}
	}
	return names
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}

func join(path, key string) string {
	key = Printable(key)
	if path == "" {
		return key
	}
	return path + "." + key
}

// values counts an array's values for a message.
func values(n int) string {
	if n == 1 {
		return "1 value"
	}
	return strconv.Itoa(n) + " values"
}
