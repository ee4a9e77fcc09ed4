package config

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/ope-lab/longhorizon/internal/suggest"
)

// yaml.v3 converts more than a researcher means: 2.5 into an int field
// (truncated to 2), 1.9 into a seed, 2^64 into a uint64 (wrapped), .inf
// into a float. scalars walks the document beside the Go type it decodes
// into and refuses every such value, with its line and field, before the
// decoded values are used.

// decimalInt is the only integer form a config may use.
var decimalInt = regexp.MustCompile(`^[-+]?[0-9]+$`)

// multiline lists the string fields that may span lines.
var multiline = map[string]bool{"text": true}

// scalars checks node against type t; field names the node as errors do
// ("claims[0].n_min").
func (v *validator) scalars(node *yaml.Node, t reflect.Type, field string) {
	if v.err != nil || node == nil {
		return
	}
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	if t == reflect.TypeOf(yaml.Node{}) || node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return // decoded by hand (series params), or empty: the zero value
	}
	switch t.Kind() {
	case reflect.Pointer:
		v.scalars(node, t.Elem(), field)
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			v.failLine(field, node.Line, "want a mapping of keys to values")
			return
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			key := node.Content[i].Value
			f, ok := fieldByTag(t, key)
			if !ok {
				v.unknownKey(field, node.Content[i], tagKeys(t))
				return
			}
			v.scalars(node.Content[i+1], f.Type, join(field, key))
		}
	case reflect.Slice:
		if node.Kind != yaml.SequenceNode {
			v.failLine(field, node.Line, "%s, want a list such as [a, b]", describe(node))
			return
		}
		for i, item := range node.Content {
			v.scalars(item, t.Elem(), fmt.Sprintf("%s[%d]", field, i))
		}
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			v.failLine(field, node.Line, "%s, want a mapping of keys to values", describe(node))
			return
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			v.scalars(node.Content[i+1], t.Elem(), field+"."+node.Content[i].Value)
		}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		v.integer(node, t, field)
	case reflect.Float64:
		if node.Kind != yaml.ScalarNode {
			v.failLine(field, node.Line, "%s, want a number", describe(node))
			return
		}
		f, err := strconv.ParseFloat(node.Value, 64)
		if node.Tag != "!!int" && node.Tag != "!!float" || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			v.failLine(field, node.Line, "%q is not a finite number (written without quotes)", node.Value)
		}
	case reflect.Bool:
		if node.Kind != yaml.ScalarNode || node.Tag != "!!bool" {
			v.failLine(field, node.Line, "%s, want true or false (without quotes)", describe(node))
		}
	case reflect.String:
		if node.Kind != yaml.ScalarNode {
			v.failLine(field, node.Line, "%s, want a string", describe(node))
			return
		}
		if strings.ContainsFunc(node.Value, func(r rune) bool {
			return unicode.IsControl(r) && !(multiline[lastKey(field)] && (r == '\n' || r == '\t'))
		}) {
			v.failLine(field, node.Line, "%q holds a control character (a newline, tab, ...)", node.Value)
		}
	}
}

// integer checks an integer field: decimal digits only, within the range
// of the Go type.
func (v *validator) integer(node *yaml.Node, t reflect.Type, field string) {
	if node.Kind != yaml.ScalarNode {
		v.failLine(field, node.Line, "%s, want an integer", describe(node))
		return
	}
	// a decimal too large for int64 is tagged !!float: the range check
	// below names it
	if !decimalInt.MatchString(node.Value) || node.Tag == "!!str" {
		v.failLine(field, node.Line, "%q is not an integer (write decimal digits without quotes, e.g. 1000)", node.Value)
		return
	}
	if t.Kind() == reflect.Uint64 {
		if _, err := strconv.ParseUint(strings.TrimPrefix(node.Value, "+"), 10, 64); err != nil {
			v.failLine(field, node.Line, "%s is outside [0, 18446744073709551615]", node.Value)
		}
		return
	}
	if _, err := strconv.ParseInt(node.Value, 10, 64); err != nil {
		v.failLine(field, node.Line, "%s is outside the range of a 64-bit integer", node.Value)
	}
}

// fieldByTag finds the struct field decoded from YAML key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && key != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tagKeys lists the YAML keys of struct type t, in declaration order.
func tagKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// unknownKey records an unknown key of the mapping field (top level: "")
// at the key's line, in the user's terms: the key, the closest known one
// when it looks like a typo (trails: trials), else every known key. The
// decoder's own message names Go types (field trails not found in type
// config.file), so the walk refuses the key first.
func (v *validator) unknownKey(field string, key *yaml.Node, known []string) {
	msg := fmt.Sprintf("unknown key %q", key.Value)
	if k, ok := suggest.Closest(key.Value, known); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", k)
	} else {
		msg += " (known: " + strings.Join(known, ", ") + ")"
	}
	if field == "" {
		if v.err == nil {
			v.err = fmt.Errorf("config %s:%d: %s", v.path, key.Line, msg)
		}
		return
	}
	v.failLine(field, key.Line, "%s", msg)
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func lastKey(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// describe names what a node is, for errors: a quoted scalar, a list, a
// mapping.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if n.Tag == "!!str" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		return fmt.Sprintf("%q (quoted)", n.Value)
	}
	return fmt.Sprintf("%q", n.Value)
}

// knownList is "known: a, b, ..." for an unknown name, led by "did you
// mean "x"?" when one of known is close to word.
func knownList(word string, known []string) string {
	list := "known: " + strings.Join(known, ", ")
	if k, ok := suggest.Closest(word, known); ok {
		return fmt.Sprintf("did you mean %q? %s", k, list)
	}
	return list
}
