// Package reference writes the help texts of runexp and its reference
// (docs/reference.md) from the registries: the estimators', the bounds',
// the domains', the config keys, the panel and claim quantities
// (quantity.Table, claims.Table), the logged-data columns and the output
// files. Nothing in it is typed twice: a new registry entry appears in
// every text that lists its kind.
package reference
