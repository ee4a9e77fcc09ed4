package lock

// DiesWithProcess reports whether a lock dies with its process on this
// build (flock), or outlives it (O_EXCL lock files).
const DiesWithProcess = staleHint == ""
