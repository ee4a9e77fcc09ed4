package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/ope-lab/longhorizon/internal/yamlcheck"
)

// multiline lists the string fields that may span lines.
var multiline = map[string]bool{"text": true}

// scalars checks the document node against type t (internal/yamlcheck:
// every value yaml.v3 would convert silently, every unknown key) and
// records the first problem at its line.
func (v *validator) scalars(node *yaml.Node, t reflect.Type) {
	v.scalarsAt(node, t, "")
}

// scalarsAt is scalars for the node of field (a field path such as
// "series[0].external[1]"; "" for the document).
func (v *validator) scalarsAt(node *yaml.Node, t reflect.Type, field string) {
	if v.err != nil || node == nil {
		return
	}
	w := yamlcheck.Walker{Multiline: multiline}
	p := w.Check(node, t, field)
	switch {
	case p == nil:
	case p.Field == "": // an unknown key of the document itself
		v.err = fmt.Errorf("config %s:%d: %s", v.path, p.Line, p.Msg)
	default:
		v.failLine(p.Field, p.Line, "%s", p.Msg)
	}
}
