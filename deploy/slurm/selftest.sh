#!/usr/bin/env bash
# Prove the Slurm deployment on a real Slurm: install Debian's slurm-wlm and
# munge, bring up a single-node cluster on this machine, submit a sharded
# sweep (array job + dependent merge job) with submit.sh, wait, and check
# that the merged curve.csv equals a single-machine run byte for byte.
# Everything it starts is stopped by pid on exit.
#
#   sudo deploy/slurm/selftest.sh [SHARDS]      (default 3 shards)
#
# Needs root (package install, munge key) and Debian's package archive. Not
# part of `make test`: CI machines need not allow package installs or
# daemons, and a cluster bring-up is an integration check, not a unit test.
set -euo pipefail
cd "$(dirname "$0")/../.."
shards=${1:-3}
config=deploy/slurm/selftest.yaml
work=$(mktemp -d /tmp/slurm-selftest.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
say() { printf '== %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "selftest.sh: run as root (installs packages, starts daemons)" >&2; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
say "$(slurmctld -V), $(munged -V 2>&1 | head -1)"

say "starting munged"
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 0400 /etc/munge/munge.key
runuser -u munge -- /usr/sbin/munged --foreground &
pids+=($!)
for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
munge -n </dev/null | unmunge >/dev/null

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=selftest
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=selftest Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
say "starting slurmctld and slurmd ($host, $cpus CPUs)"
slurmctld -D -f "$SLURM_CONF" &
pids+=($!)
slurmd -D -f "$SLURM_CONF" &
pids+=($!)
for i in $(seq 120); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
sinfo
[ "$state" = idle ] || { echo "selftest.sh: node not idle: $state"; tail "$work"/*.log; exit 1; }

say "building runexp"
make -s build
say "single-machine run"
bin/runexp run -quiet -out "$work/single" "$config"

say "submitting $shards shards and the merge job"
out=$work/slurm
ids=$(cd "$work" && "$OLDPWD/deploy/slurm/submit.sh" "$OLDPWD/$config" "$out" "$shards" --export=ALL,RUNEXP="$OLDPWD/bin/runexp")
echo "$ids"
merge=${ids##* }
for i in $(seq 600); do
  st=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case $st in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break;; esac
  sleep 0.5
done
say "merge job $merge: $st"
squeue || true
ls "$out"
for f in "$work"/runexp-*.out; do echo "--- $(basename "$f")"; cat "$f"; done
[ "$st" = COMPLETED ] || { tail -30 "$work/slurmctld.log"; exit 1; }

for f in curve.csv kstar.csv; do
  if cmp "$work/single/$f" "$out/$f"; then
    say "$f: merged Slurm result equals the single-machine run byte for byte ($(wc -l <"$out/$f") lines, sha256 $(sha256sum <"$out/$f" | cut -c1-16))"
  else
    say "$f: DIFFERS"; exit 1
  fi
done
say "selftest passed"
