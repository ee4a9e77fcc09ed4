package experiments

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// architectureDoc is the page whose package table TestArchitectureTable
// checks, relative to this package's directory.
const architectureDoc = "../docs/ARCHITECTURE.md"

// archRow is one row of the package table of docs/ARCHITECTURE.md.
type archRow struct {
	line     int
	text     string
	packages []string // module-relative paths, from the first column
	imports  []string // the last column's names; "-" is none
}

// readArchTable reads the rows of the table under "## Packages".
func readArchTable(t *testing.T) []archRow {
	data, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile("`([^`]+)`")
	var rows []archRow
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 1; sc.Scan(); i++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Fatalf("%s:%d: a package row with fewer than 3 columns: %s", architectureDoc, i, line)
		}
		r := archRow{line: i, text: line}
		for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
			r.packages = append(r.packages, m[1])
		}
		if imp := strings.TrimSpace(cells[len(cells)-2]); imp != "-" {
			for _, name := range strings.Split(imp, ",") {
				r.imports = append(r.imports, strings.TrimSpace(name))
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no package table under ## Packages", architectureDoc)
	}
	return rows
}

// goListImports returns every package of the module (module-relative
// path) with the module's packages it imports (tests excluded), from `go
// list`. The go tool is required: the test fails without it.
func goListImports(t *testing.T) map[string][]string {
	gobin := goTool(t)
	cmd := exec.Command(gobin, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	modCmd := exec.Command(gobin, "list", "-m")
	modCmd.Dir = ".."
	mod, err := modCmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	prefix := strings.TrimSpace(string(mod)) + "/"
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p := strings.TrimPrefix(f[0], prefix)
		pkgs[p] = nil
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, prefix); ok {
				pkgs[p] = append(pkgs[p], rel)
			}
		}
	}
	return pkgs
}

// goTool returns the go command ($GOROOT/bin/go, else go on $PATH). The
// architecture tests need it: without it they fail, never skip.
func goTool(t *testing.T) string {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err == nil {
		return gobin
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to check %s against go list: %v", architectureDoc, err)
	}
	return gobin
}

// shortName is how the table names an imported package: experiments/x as
// x, any other by its module-relative path.
func shortName(p string) string {
	if rest, ok := strings.CutPrefix(p, "experiments/"); ok {
		return rest
	}
	return p
}

// nameMatches reports whether a name of the imports column stands for
// package p: its path, its last element when no other package of the
// module has that last element (config for experiments/config), or, as
// dir/*, every package under dir.
func nameMatches(name, p string, all map[string][]string) bool {
	if dir, ok := strings.CutSuffix(name, "/*"); ok {
		return strings.HasPrefix(p, dir+"/")
	}
	if name == p {
		return true
	}
	if path.Base(p) != name {
		return false
	}
	n := 0
	for q := range all {
		if path.Base(q) == name {
			n++
		}
	}
	return n == 1
}

// TestArchitectureTable: the package table of docs/ARCHITECTURE.md has
// one row for every package of the module (go list ./...), and each row's
// imports column names exactly the packages of this module that the row's
// packages import (go list's Imports, tests excluded; imports among the
// row's own packages left out): a name is a module-relative path, the
// last element of a path when it is unique (config for
// experiments/config), or dir/* for packages under dir; "-" is none.
// A failure says which row to add or change, and to what.
func TestArchitectureTable(t *testing.T) {
	pkgs := goListImports(t)
	rows := readArchTable(t)
	rowOf := map[string]int{}
	for i, r := range rows {
		for _, p := range r.packages {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("%s:%d: row names package `%s`, which go list ./... does not list: remove it from the row", architectureDoc, r.line, p)
			}
			if j, dup := rowOf[p]; dup {
				t.Errorf("%s:%d: package `%s` is also in the row of line %d: keep one", architectureDoc, r.line, p, rows[j].line)
			}
			rowOf[p] = i
		}
	}
	var missing []string
	for p := range pkgs {
		if _, ok := rowOf[p]; !ok {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("%s: the package table (## Packages) has no row for package `%s`; add one:\n| `%s` | <its job> | %s |",
			architectureDoc, p, p, importsCell(pkgs[p], []string{p}))
	}
	for _, r := range rows {
		var imports []string
		for _, p := range r.packages {
			for _, imp := range pkgs[p] {
				if !slices.Contains(r.packages, imp) && !slices.Contains(imports, imp) {
					imports = append(imports, imp)
				}
			}
		}
		var wrong []string
		for _, imp := range imports {
			if !slices.ContainsFunc(r.imports, func(name string) bool { return nameMatches(name, imp, pkgs) }) {
				wrong = append(wrong, "imports "+imp+", which the column does not name")
			}
		}
		for _, name := range r.imports {
			if !slices.ContainsFunc(imports, func(imp string) bool { return nameMatches(name, imp, pkgs) }) {
				wrong = append(wrong, "the column names "+name+", which no package of the row imports")
			}
		}
		if len(wrong) > 0 {
			cells := strings.Split(r.text, "|")
			cells[len(cells)-2] = " " + importsCell(imports, r.packages) + " "
			t.Errorf("%s:%d: row of %s: %s; change the row to:\n%s",
				architectureDoc, r.line, strings.Join(r.packages, ", "), strings.Join(wrong, "; "), strings.Join(cells, "|"))
		}
	}
}

// TestArchitectureDomainDeps: "Getting a domain (`domains.New`, with
// every package under domains/ that registers domains) builds N packages
// of this module and no third-party one" (docs/ARCHITECTURE.md) holds, by
// go list -deps ./domains/... (the registry, the packages that register
// domains, the truth cache).
func TestArchitectureDomainDeps(t *testing.T) {
	data, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("builds (\\d+) packages of this module and no\\s+third-party one").FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s: no sentence \"Getting a domain (`domains.New`, ...) builds N packages of this module and no third-party one\"", architectureDoc)
	}
	cmd := exec.Command(goTool(t), "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./domains/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./domains/...: %v", err)
	}
	mod, third := 0, []string{}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/ope-lab/longhorizon/") {
			mod++
		} else {
			third = append(third, p)
		}
	}
	if string(m[1]) != strconv.Itoa(mod) || len(third) > 0 {
		t.Errorf("%s: domains.New builds %s packages of this module and no third-party one, says the page; go list -deps ./domains/...: %d of this module, third-party %v: change the sentence", architectureDoc, m[1], mod, third)
	}
}

// importsCell is the imports column for imports (sorted short names), "-"
// for none.
func importsCell(imports, own []string) string {
	var names []string
	for _, imp := range imports {
		if !slices.Contains(own, imp) {
			names = append(names, shortName(imp))
		}
	}
	if len(names) == 0 {
		return "-"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// TestPackageComments: every package of the module has a package comment
// (go list's Doc, its first sentence), which states its contract.
func TestPackageComments(t *testing.T) {
	cmd := exec.Command(goTool(t), "list", "-f", "{{.ImportPath}}\t{{.Doc}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		p, doc, _ := strings.Cut(line, "\t")
		if strings.TrimSpace(doc) == "" {
			t.Errorf("package %s has no package comment: add a doc.go starting \"// Package %s ...\" (or \"// Command ...\") that states its job", p, path.Base(p))
		}
	}
}
