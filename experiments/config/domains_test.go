package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// domainsModule is the import path of package domains.
const domainsModule = "github.com/ope-lab/longhorizon/domains"

// TestDomainPackagesImported: every package under domains/ that registers
// domain kinds (calls domains.Register or domains.RegisterTabular outside
// its tests) is imported by this package, so that domains.Names() is the
// whole set wherever config is (the set itself is pinned by
// docs/reference.md, which cmd/runexp's TestReferenceIsGenerated keeps
// equal to the registry). Found by parsing the source tree, so a new
// package of domains fails here until domains.go imports it.
func TestDomainPackagesImported(t *testing.T) {
	registering := map[string]bool{} // import paths
	root := filepath.Join("..", "..", "domains")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil || rel == "." {
			return err // package domains registers its own
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "domains" && (sel.Sel.Name == "Register" || sel.Sel.Name == "RegisterTabular") {
					registering[path.Join(domainsModule, filepath.ToSlash(rel))] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(registering) < 2 {
		t.Fatalf("found %d packages registering domains under %s, want at least domains/suite and domains/taxi", len(registering), root)
	}
	imported := map[string]bool{}
	matches, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range matches {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				imported[p] = true
			}
		}
	}
	var missing []string
	for p := range registering {
		if !imported[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("packages %v register domains but config does not import them: add a blank import to domains.go", missing)
	}
}
