// Package lock provides advisory, non-blocking locks on files, to keep two
// processes from writing the same results at once.
//
// Acquire creates (or reuses) a lock file and locks it, or fails at once,
// never waiting for the holder to finish: a lock held by another process,
// or by another Acquire in this process, is an error (*HeldError, marked
// as bad input with package inputerr) that names the lock file and its
// holder as the holder recorded it in the file (JSON): process id, host
// name, a description such as the command line, and the time it took the
// lock, in UTC. (A holder that has locked the file but not yet recorded
// itself is waited for, 100 ms at most.) Release removes the lock file,
// so that a finished job leaves nothing behind.
//
// On Unix systems with flock(2) the lock is the kernel's lock on the open
// file, which dies with the process: a lock file left behind by a killed
// process blocks nobody, and the next Acquire takes it over. Acquire
// checks, after locking, that the path still names the file it locked
// (another holder may have removed it in between) and starts over if not,
// so two processes never both hold the lock. flock locks one open file
// description: two Acquires of one path in one process exclude each other
// just as two processes do. Whether flock excludes processes on different
// hosts sharing a network file system depends on the file system (Linux
// NFS clients emulate it with POSIX byte-range locks, which NFS shares;
// some other file systems lock per host only).
//
// Elsewhere (Windows, Plan 9, AIX, Solaris, WebAssembly) the lock is the
// existence of the lock file, created with O_EXCL. Nothing releases it when
// its process dies: a stale lock file blocks until removed by hand, and the
// error says so. Building with the tag lockexcl selects this fallback on
// Unix too (to test it).
package lock
