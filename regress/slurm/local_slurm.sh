#!/usr/bin/env bash
# A throw-away single-node Slurm on localhost for the `slurm` test label.
#   local_slurm.sh start DIR   writes DIR/slurm.conf, starts munged, slurmctld
#                              and slurmd with their state, logs and pid files
#                              in DIR; prints the SLURM_CONF to use
#   local_slurm.sh stop DIR    stops exactly the daemons that start recorded
# Exit 77 from start: Slurm cannot run here (not root, packages missing, or a
# daemon did not come up); the caller skips. Needs Debian's slurm-wlm + munge.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[[ -n "$cmd" && -n "$dir" ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)

stop() {
  # Daemons we started, newest first, by the pids recorded at start.
  for name in slurmd slurmctld munged; do
    local pidfile="$dir/$name.pid"
    [[ -s "$pidfile" ]] || continue
    local pid; pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

skip() { echo "local_slurm: $*" >&2; stop; exit 77; }

wait_for_pidfile() {  # name, seconds
  for _ in $(seq $(( $2 * 10 ))); do
    [[ -s "$dir/$1.pid" ]] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac

[[ $(id -u) -eq 0 ]] || skip "needs root (slurmd runs jobs as their submitter)"
for tool in munged slurmctld slurmd sbatch squeue; do
  command -v "$tool" >/dev/null 2>&1 || [[ -x /usr/sbin/$tool ]] ||
    skip "$tool not found (apt-get install slurm-wlm munge)"
done
export PATH=$PATH:/usr/sbin
id munge >/dev/null 2>&1 || skip "no munge user (apt-get install munge)"

# Ports nobody listens on, so several test runs (other worktrees, other
# engineers) each get their own cluster; the lock keeps two starts from
# picking the same ports before their daemons bind them.
port_in_use() {
  local hex; hex=$(printf '%04X' "$1")
  awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { found = 1 }
                    END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
free_port() {  # first free port from $1, other than $2
  local port=$1
  while port_in_use "$port" || [[ "$port" == "${2:-}" ]]; do port=$((port + 1)); done
  echo "$port"
}
exec 9>/tmp/pto_local_slurm.lock
flock -w 120 9 || skip "another local Slurm is starting and holds /tmp/pto_local_slurm.lock"
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)) "$ctld_port")

host=$(hostname)
cpus=$(nproc)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chown munge:munge "$dir/munge"
chmod 711 "$dir/munge"
key=/etc/munge/munge.key
if [[ ! -s $key ]]; then
  mkdir -p /etc/munge
  mungekey --create --keyfile "$key" >/dev/null 2>&1 || skip "cannot create $key"
  chown munge:munge "$key"; chmod 400 "$key"
fi

# munged as the munge user, on a private socket so nothing else is touched.
runuser -u munge -- munged --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munge.seed" \
  --log-file="$dir/munge/munged.log" --key-file="$key" 9>&- ||
  skip "munged did not start (see $dir/munge/munged.log)"
for _ in $(seq 50); do [[ -s "$dir/munge/munged.pid" ]] && break; sleep 0.1; done
cp "$dir/munge/munged.pid" "$dir/munged.pid" 2>/dev/null || skip "munged wrote no pid file"

cat > "$dir/slurm.conf" <<CONF
ClusterName=ptosimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
# 9>&-: the daemons must not inherit (and so hold) the start lock.
slurmctld -f "$SLURM_CONF" -i >"$dir/log/slurmctld.out" 2>&1 9>&- ||
  skip "slurmctld did not start (see $dir/log/)"
wait_for_pidfile slurmctld 10 || skip "slurmctld did not stay up (see $dir/log/slurmctld.log)"
slurmd -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 9>&- || skip "slurmd did not start (see $dir/log/)"
wait_for_pidfile slurmd 10 || skip "slurmd did not stay up (see $dir/log/slurmd.log)"
# Ready when the node accepts work.
for _ in $(seq 150); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  [[ "$state" == idle* ]] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
skip "the node did not become idle (state '${state:-none}'; see $dir/log/)"
