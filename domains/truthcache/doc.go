// Package truthcache keeps expensive true values on disk: TrueValue is a
// domain kind's truth (domains.Spec.Truth) with a Cache in front of it for
// the kinds that ask for one (domains.Spec.CacheTruth, the NoisyTaxi's
// exact dynamic programme and Monte Carlo cross-check).
//
// Contract:
//   - A cache saves time; it never decides a result. TrueValue returns
//     what an uncached computation returns, whatever the cache directory
//     holds: an entry is used only when it parses, its checksum holds and
//     it records exactly the cache version, the domain and the parameters
//     asked for; any other entry is reported (Options.Warn, naming its
//     file), recomputed and rewritten. A cache directory that cannot be
//     read or written is reported and ignored.
//   - The on-disk format is fixed: one JSON file per (domain, parameters)
//     named DOMAIN-HASH.json, HASH the first 24 hex digits of a SHA-256 of
//     the format version, the domain and every parameter; the entry
//     records the version, the domain, the parameters, the truth (value,
//     method, extras) and a SHA-256 checksum over a canonical text of all
//     of these. Changing a truth computation or the format bumps the
//     version, so stale entries are never read back.
//   - Entries are written atomically (internal/atomicfile): a reader sees
//     the old entry or the new one.
//
// The package imports domains and internal/atomicfile only: the
// computation itself is the domain's.
package truthcache
