#!/bin/bash
# Runs inside the lab guest (started by /sbin/lab-init). Loads the modules, then runs each
# scenario listed in /lab/run.list in a fresh subshell and resets the host between them.
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
LAB=/lab
mkdir -p "$LAB/out"
exec > >(tee -a "$LAB/out/guest.log") 2>&1

echo "lab: kernel $(uname -r), cmdline: $(cat /proc/cmdline)"
uname -r > "$LAB/out/uname-r"
cat /proc/version > "$LAB/out/proc-version"
date -u +%FT%TZ > "$LAB/out/date"
dpkg-query -W -f '${Package}\t${Version}\n' iproute2 rdma-core rdmacm-utils ibverbs-providers tcpdump perftest > "$LAB/out/packages.tsv" 2>/dev/null

# Module parameters: bonding and dummy create bond0/dummy0 by themselves unless told not to.
modprobe bonding max_bonds=0
modprobe dummy numdummies=0
for m in rdma_rxe ib_uverbs rdma_ucm ib_umad nlmon 8021q macvlan ipvlan veth; do
  modprobe "$m" || echo "lab: modprobe $m failed"
done
# The BTF of the kernel and of the RDMA modules: the observer computes its kprobe's fetch args
# from them (scripts/lab/btf-facts turns them into the small offsets file the tests use).
mkdir -p "$LAB/out/btf"
for b in vmlinux ib_core ib_cm rdma_cm; do
  cp "/sys/kernel/btf/$b" "$LAB/out/btf/$b" 2>/dev/null || echo "lab: no BTF for $b"
done
cat /sys/module/ib_core/parameters/netns_mode > "$LAB/out/netns_mode" 2>/dev/null || true
rdma system show > "$LAB/out/rdma-system" 2>&1 || true
ip link set lo up

reset_host() {
  local l ns p me
  # No process of a scenario may survive it: a listener left in a deleted namespace still
  # holds its ib_cm listener and would change the next scenario's REJ reasons.
  me=$(stat -L -c %i /proc/1/ns/net)
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if [ "$p" = 1 ] || [ "$p" = $$ ] || [ "$p" = $BASHPID ]; then continue; fi
    case $(cat /proc/$p/comm 2>/dev/null) in
      rping|udaddy|ucmatose|cmtime|tcpdump|rdma_server|rdma_client|stdbuf) kill -9 "$p" 2>/dev/null; continue ;;
    esac
    [ "$(stat -L -c %i /proc/$p/ns/net 2>/dev/null)" = "$me" ] || kill -9 "$p" 2>/dev/null
  done
  sleep 0.5
  for l in $(rdma link show 2>/dev/null | awk '{print $2}' | cut -d/ -f1); do rdma link del "$l" 2>/dev/null; done
  for ns in $(ip netns list | awk '{print $1}'); do
    ip netns exec "$ns" sh -c 'for l in $(rdma link show 2>/dev/null | awk "{print \$2}" | cut -d/ -f1); do rdma link del $l; done' 2>/dev/null
  done
  ip -all netns delete 2>/dev/null
  for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1); do
    [ "$l" = lo ] || ip link del "$l" 2>/dev/null
  done
  ip addr flush dev lo scope global 2>/dev/null
  sleep 1
}

while read -r s; do
  [ -n "$s" ] || continue
  out="$LAB/out/$s"
  mkdir -p "$out"
  echo "lab: === scenario $s"
  left=$(rdma res show cm_id 2>/dev/null | grep -c LISTEN || true)
  [ "$left" = 0 ] || echo "lab: WARNING: $left LISTEN cm_ids left over before $s"
  echo "$left" > "$out/leftover-listeners"
  # This boot's RDMA netns mode and the time, per scenario: scenarios of other boots share the results directory.
  cp "$LAB/out/netns_mode" "$LAB/out/rdma-system" "$out/" 2>/dev/null
  date -u +%FT%TZ > "$out/date"
  t0=$(date +%s)
  OUT="$out" timeout -k 5 "${SCENARIO_TIMEOUT:-420}" bash -c '
    set -uo pipefail
    exec 9>> "$OUT/trace.log"; BASH_XTRACEFD=9
    set -x
    source /lab/guest/lib.sh
    trap finish EXIT
    source "/lab/scenarios/$1.sh"
  ' scenario "$s" > "$out/guest.log" 2>&1
  rc=$?
  echo "$rc" > "$out/rc"
  echo "lab: === scenario $s rc=$rc in $(( $(date +%s) - t0 )) s"
  tail -5 "$out/guest.log"
  reset_host
done < "$LAB/run.list"
echo "lab: all scenarios done"
