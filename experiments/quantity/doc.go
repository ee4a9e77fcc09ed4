// Package quantity is the table of panel quantities: every y a figure
// panel can plot (config plot.panels[].y), in one place, with its
// documentation, default axis label and scale, the data it is computed
// from (curve rows, bounds rows, or curve rows against a baseline set),
// and how its value, its standard error (panels.csv's se) and its closed
// form are computed.
//
// Package config validates panels against Table and fills their defaults
// from it; package report computes every point of panels.csv from it; the
// help text (`runexp help panels`, config.Keys, hence docs/reference.md)
// is generated from it. A new quantity is one entry of
// Table and its case in the table's test (quantity_test.go), which fails
// for an entry without one. A new Source (a quantity computed from data no
// entry reads yet) also adds its panel builder in package report.
//
// Table returns a fresh copy, Lookup a copy of an entry: the table cannot
// be changed from outside. The package imports domains only (for
// domains.Moments, the closed forms a domain supplies), so that config and
// report can both import it.
package quantity
