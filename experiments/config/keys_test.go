package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// yamlKeys lists the YAML keys of struct type t and of the structs below
// it, as Keys writes them ("series[].name", "plot.panels[].x").
func yamlKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		path := prefix + tag
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft.Name() != "Node":
			out = append(out, yamlKeys(ft, path+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, yamlKeys(ft.Elem(), path+"[].")...)
		default:
			out = append(out, path)
		}
	}
	return out
}

// TestKeysDocumentEveryKey: Keys documents exactly the keys Parse accepts.
func TestKeysDocumentEveryKey(t *testing.T) {
	accepted := yamlKeys(reflect.TypeOf(file{}), "")
	var documented []string
	for _, k := range Keys() {
		if k.Doc == "" || k.Default == "" {
			t.Errorf("key %s: empty doc or default", k.Path)
		}
		documented = append(documented, k.Path)
	}
	for _, k := range accepted {
		if !slices.Contains(documented, k) {
			t.Errorf("key %s is accepted but not documented in Keys", k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(accepted, k) {
			t.Errorf("Keys documents %s, which Parse does not accept", k)
		}
	}
}

// TestKeysIsACopy: changing what Keys returns changes no later answer.
func TestKeysIsACopy(t *testing.T) {
	first := Keys()[0].Path
	Keys()[0].Path = "changed"
	if Keys()[0].Path != first {
		t.Error("Keys changed through a copy")
	}
}
