#!/usr/bin/env bash
# Submit a sweep to Slurm: an array job of N shards, then a merge job that
# runs only if every shard succeeded. Prints the two job ids.
#
#   deploy/slurm/submit.sh CONFIG.yaml OUTDIR N [extra sbatch options...]
#
# Run it from the repository root after `make build` (or set RUNEXP).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
config=${1:?usage: submit.sh CONFIG.yaml OUTDIR N [sbatch options]}
out=${2:?missing OUTDIR}
n=${3:?missing N (number of shards)}
shift 3
case $n in ''|*[!0-9]*) echo "submit.sh: N must be a positive integer, got '$n'" >&2; exit 2;; esac
[ "$n" -ge 1 ] || { echo "submit.sh: N must be >= 1" >&2; exit 2; }
mkdir -p "$out"
array=$(sbatch --parsable "$@" --array=0-$((n - 1)) "$here/shard.sbatch" "$config" "$out" "$n")
array=${array%%;*}
merge=$(sbatch --parsable "$@" --dependency=afterok:"$array" "$here/merge.sbatch" "$out")
merge=${merge%%;*}
echo "array job $array ($n shards), merge job $merge"
