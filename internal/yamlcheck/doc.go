// Package yamlcheck reads YAML strictly for the configs: a document
// walked beside the Go type it decodes into, refusing what yaml.v3 would
// silently convert (2.5 into an int, 1.9 into a seed, 2^64 wrapped, .inf,
// quoted numbers, control characters) and unknown keys with a "did you
// mean", each at its line and in the document's terms, never a Go type
// name; and syntax errors placed at the line where the document breaks,
// not where yaml.v3's enclosing block starts. It knows no config key:
// experiments/config says which string fields may span lines and words
// the problems into its messages.
package yamlcheck
