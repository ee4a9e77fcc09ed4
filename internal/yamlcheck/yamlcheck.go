package yamlcheck

import (
	"bytes"
	"errors"
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

// DecimalInt matches the only integer form a document may use.
var DecimalInt = regexp.MustCompile(`^[-+]?[0-9]+$`)

// Problem is the first value a Walker refused: the field path ("" for the
// top level), the 1-based line, and what is wrong, in the document's terms.
type Problem struct {
	Field string
	Line  int
	Msg   string
}

// Walker checks a YAML document beside the Go type it decodes into.
type Walker struct {
	// Multiline lists the keys of string fields that may span lines.
	Multiline map[string]bool
	found     *Problem
}

// Check walks node beside type t (a struct whose fields carry yaml tags,
// or a slice, map or scalar type) and returns the first value refused,
// nil when none is; field names node in the problem's field path ("" for
// the document, "series[0].external[1]" for a node within it).
func (w *Walker) Check(node *yaml.Node, t reflect.Type, field string) *Problem {
	w.found = nil
	w.walk(node, t, field)
	return w.found
}

// walk checks node against type t; field names the node as errors do
// ("claims[0].n_min").
func (w *Walker) walk(node *yaml.Node, t reflect.Type, field string) {
	if w.found != nil || node == nil {
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
		w.walk(node, t.Elem(), field)
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			w.fail(field, node.Line, "want a mapping of keys to values")
			return
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			key := node.Content[i].Value
			f, ok := fieldByTag(t, key)
			if !ok {
				w.unknownKey(field, node.Content[i], tagKeys(t))
				return
			}
			w.walk(node.Content[i+1], f.Type, Join(field, key))
		}
	case reflect.Slice:
		if node.Kind != yaml.SequenceNode {
			w.fail(field, node.Line, "%s, want a list such as [a, b]", Describe(node))
			return
		}
		for i, item := range node.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", field, i))
		}
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			w.fail(field, node.Line, "%s, want a mapping of keys to values", Describe(node))
			return
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			w.walk(node.Content[i+1], t.Elem(), field+"."+node.Content[i].Value)
		}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		w.integer(node, t, field)
	case reflect.Float64:
		if node.Kind != yaml.ScalarNode {
			w.fail(field, node.Line, "%s, want a number", Describe(node))
			return
		}
		f, err := strconv.ParseFloat(node.Value, 64)
		if node.Tag != "!!int" && node.Tag != "!!float" || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			w.fail(field, node.Line, "%q is not a finite number (written without quotes)", node.Value)
		}
	case reflect.Bool:
		if node.Kind != yaml.ScalarNode || node.Tag != "!!bool" {
			w.fail(field, node.Line, "%s, want true or false (without quotes)", Describe(node))
		}
	case reflect.String:
		if node.Kind != yaml.ScalarNode {
			w.fail(field, node.Line, "%s, want a string", Describe(node))
			return
		}
		if strings.ContainsFunc(node.Value, func(r rune) bool {
			return unicode.IsControl(r) && !(w.Multiline[LastKey(field)] && (r == '\n' || r == '\t'))
		}) {
			w.fail(field, node.Line, "%q holds a control character (a newline, tab, ...)", node.Value)
		}
	}
}

// integer checks an integer field: decimal digits only, within the range
// of the Go type.
func (w *Walker) integer(node *yaml.Node, t reflect.Type, field string) {
	if node.Kind != yaml.ScalarNode {
		w.fail(field, node.Line, "%s, want an integer", Describe(node))
		return
	}
	// a decimal too large for int64 is tagged !!float: the range check
	// below names it
	if !DecimalInt.MatchString(node.Value) || node.Tag == "!!str" {
		w.fail(field, node.Line, "%q is not an integer (write decimal digits without quotes, e.g. 1000)", node.Value)
		return
	}
	if t.Kind() == reflect.Uint64 {
		if _, err := strconv.ParseUint(strings.TrimPrefix(node.Value, "+"), 10, 64); err != nil {
			w.fail(field, node.Line, "%s is outside [0, 18446744073709551615]", node.Value)
		}
		return
	}
	if _, err := strconv.ParseInt(node.Value, 10, 64); err != nil {
		w.fail(field, node.Line, "%s is outside the range of a 64-bit integer", node.Value)
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
func (w *Walker) unknownKey(field string, key *yaml.Node, known []string) {
	msg := fmt.Sprintf("unknown key %q", key.Value)
	if k, ok := suggest.Closest(key.Value, known); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", k)
	} else {
		msg += " (known: " + strings.Join(known, ", ") + ")"
	}
	w.fail(field, key.Line, "%s", msg)
}

// fail records the walk's first problem.
func (w *Walker) fail(field string, line int, format string, args ...any) {
	if w.found == nil {
		w.found = &Problem{Field: field, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
}

// Join is the field path of key under field ("" is the top level).
func Join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// LastKey is the last key of a field path ("claims[0].text": "text").
func LastKey(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// Describe names what a node is, for errors: a quoted scalar, a list, a
// mapping.
func Describe(n *yaml.Node) string {
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

// KnownList is "known: a, b, ..." for an unknown name, led by "did you
// mean "x"?" when one of known is close to word.
func KnownList(word string, known []string) string {
	list := "known: " + strings.Join(known, ", ")
	if k, ok := suggest.Closest(word, known); ok {
		return fmt.Sprintf("did you mean %q? %s", k, list)
	}
	return list
}

// CleanError turns yaml.v3's "yaml: unmarshal errors:\n  line 3: ..."
// into one line per problem.
func CleanError(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return errors.New(strings.Join(te.Errors, "; "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// yamlLine matches the line yaml.v3 puts in a syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// SyntaxError is err, a YAML syntax error of the config data at path, at the
// line where the document breaks. yaml.v3 reports the line where the
// broken mapping or list starts (its parser's context mark), which can
// be many lines above the mistake (issue 32: an indentation error at line
// 14 reported at line 7); the line where the document breaks is the one
// after its longest prefix of whole lines that parses (syntaxLine).
func SyntaxError(data []byte, path string, err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("config %s: %w", path, CleanError(err))
	}
	reported, _ := strconv.Atoi(m[1])
	msg, hint := m[2], ""
	if strings.HasPrefix(msg, "did not find expected key") || strings.HasPrefix(msg, "did not find expected '-'") {
		hint = "is this line indented like the lines above it? "
	}
	line, ok := syntaxLine(data)
	if !ok || line <= reported {
		line = reported
	}
	if line != reported {
		hint += fmt.Sprintf("the block it breaks starts at line %d", reported)
	}
	if hint = strings.TrimSpace(hint); hint != "" {
		msg += " (" + hint + ")"
	}
	return fmt.Errorf("config %s:%d: %s", path, line, msg)
}

// maxSyntaxLines bounds the configs whose syntax errors syntaxLine
// places: it parses up to one prefix per line (the largest committed
// config has about 800 lines).
const maxSyntaxLines = 4000

// syntaxLine returns the 1-based line after the longest prefix of whole
// lines of data that parses as YAML, and false when data has more than
// maxSyntaxLines lines or every prefix fails. The longest, not the first
// failing prefix: a prefix ending inside a valid multi-line list or
// string fails too.
func syntaxLine(data []byte) (int, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxSyntaxLines {
		return 0, false
	}
	end := len(data)
	for k := len(lines) - 1; k >= 1; k-- {
		end -= len(lines[k])
		var n yaml.Node
		if yaml.Unmarshal(data[:end], &n) == nil {
			return k + 1, true
		}
	}
	return 0, false
}
