# Helpers for the lab scenarios; sourced inside the guest by main.sh before each scenario.
# A scenario builds a topology with `x` (every command is logged to commands.sh for the fixture
# README), starts listeners with `listen`, calls `record`, then makes requests with `connect`.
#
# Output of one scenario, in $OUT (= /lab/out/<scenario>), read back by scripts/lab/run and
# turned into a fixture by scripts/lab/assemble:
#   commands.sh               the topology commands, in order
#   netns.tsv                 name inode nsid-in-host
#   nsids/<ns>.txt            `ip -n <ns> netns list-id` (names which nsid is which namespace)
#   rtnl/<ns>.pcap            nlmon capture of the dumps in <ns> (see record_rtnl)
#   sysfs/<dev>.txt           `grep -r` of the device's sysfs (node_guid, ports/*/...)
#   cm_id.txt, cm_id.<ns>.txt `rdma res show cm_id` (JSON) from init and from each namespace
#   pids.tsv                  listener pid, its namespace name
#   listeners.tsv             ns addr port ps tool pid  (what we started; the fixture's comes from cm_id)
#   servers/<n>.log           each listener's output, with "### req N" markers appended
#   clients/<N>.log           each client's output
#   requests.tsv              N start end ns dst port ps tool rc   (guest clock, seconds)
#   cm.pcap                   the client side's capture
#   rdma/<ns>.pcap            the kernel's replies to the nldev dumps GET, PORT_GET, RES_CM_ID_GET in <ns> (nldev-dump)
#   tracefs/trace.txt         the ib_cma (ib_cm's icm_*), rdma_cma and ib_mad tracepoints and our kretprobes on the
#                             request handlers (group cmdemux_lab) from `record` to the end, from our own tracefs
#                             instance (instances/cmdemux, as the observer makes it), with the observer's kprobe
#                             cmdemux/req; tracefs/formats/<system>/<event> their formats; tracefs/kprobes.txt which
#                             kretprobes this kernel took

OUT=${OUT:?}
CLIENT_NS=cli
CLIENT_TIMEOUT=${CLIENT_TIMEOUT:-15}
mkdir -p "$OUT/servers" "$OUT/clients" "$OUT/rtnl" "$OUT/sysfs" "$OUT/nsids" "$OUT/rdma" "$OUT/tracefs"
: > "$OUT/commands.sh"
: > "$OUT/listeners.tsv"
: > "$OUT/requests.tsv"
REQ_N=0
SRV_N=0
SERVER_PIDS=()
CAPTURE_PID=

log() { echo "[$(date +%s.%N | cut -c1-14)] $*"; }
die() { log "SCENARIO FAILED: $*"; exit 1; }

# Runs a topology command and logs it; a failing command fails the scenario.
x() {
  echo "$*" >> "$OUT/commands.sh"
  "$@" || die "command failed: $*"
}

# Section header in commands.sh (shows up in the README).
say() { echo "# $*" >> "$OUT/commands.sh"; }

mac_of() { # [ns] dev
  if [ $# = 2 ] && [ "$1" != init ]; then ip -n "$1" -br link show dev "$2" | awk '{print $3}'; else ip -br link show dev "${!#}" | awk '{print $3}'; fi
}

# Where the client runs (cli by default) and where the rxe netdev vA lives (init by default);
# the exclusive-mode scenarios swap them: the client in init, vA in namespace srv.
SERVER_NS=${SERVER_NS:-init}
cns() { [ "$CLIENT_NS" = init ] || echo "-n $CLIENT_NS"; }

# The exclusive-mode base: the client (vB, rxe1) stays in init, whose RDMA devices it needs;
# vA is in namespace srv. rxe0 is created from srv but, as every RDMA device, registered in init.
base_exclusive() {
  CLIENT_NS=init
  SERVER_NS=srv
  say "exclusive-mode base: client vB in init, vA in srv, soft-RoCE on both ends (both RDMA devices start in init)"
  pod srv
  x ip link add vB type veth peer name vA netns srv
  x ip link set vB up
  x ip -n srv link set vA up
  addr init vB 192.0.2.2/24
  addr init vB 2001:db8::2/64
  x rdma link add rxe1 type rxe netdev vB
  x ip netns exec srv rdma link add rxe0 type rxe netdev vA
}

pod() { # name: a namespace with an nsid in the host (needed by `ip netns list-id target-nsid`)
  x ip netns add "$1"
  x ip netns set "$1" auto
  x ip -n "$1" link set lo up
}

# The standard base: client namespace `cli`, veth vA (host) <-> vB (cli), rxe on both ends.
# vA has no address of its own: every address that the client reaches through it belongs to a
# pod (or is added explicitly by the scenario).
base() {
  say "base: client namespace, veth pair, soft-RoCE on both ends"
  pod cli
  x ip link add vA type veth peer name vB netns cli
  x ip link set vA up
  x ip -n cli link set vB up
  x ip -n cli addr add 192.0.2.2/24 dev vB
  x ip -n cli addr add 2001:db8::2/64 dev vB nodad
  x rdma link add rxe0 type rxe netdev vA
  x ip netns exec cli rdma link add rxe1 type rxe netdev vB
}

# The base with a bond: vA enslaved to bond0 (active-backup), rxe0 on bond0 (rxe on a bond
# slave never sees RoCE: the slave's frames arrive with skb->dev = bond0).
base_bond() {
  say "base: client namespace, veth pair, bond0 (active-backup) over vA, soft-RoCE on bond0 and vB"
  pod cli
  x ip link add vA type veth peer name vB netns cli
  x ip link add bond0 type bond mode active-backup miimon 100
  x ip link set vA master bond0
  x ip link set vA up
  x ip link set bond0 up
  x ip -n cli link set vB up
  x ip -n cli addr add 192.0.2.2/24 dev vB
  x ip -n cli addr add 2001:db8::2/64 dev vB nodad
  x rdma link add rxe0 type rxe netdev bond0
  x ip netns exec cli rdma link add rxe1 type rxe netdev vB
  sleep 1   # let the bond pick its active slave
}

# A vlan on the client's device, for vlan scenarios.  usage: client_vlan VID ADDR/PLEN
client_vlan() {
  say "client: vlan $1 on vB"
  x ip -n cli link add link vB name "vB.$1" type vlan id "$1"
  x ip -n cli link set "vB.$1" up
  addr cli "vB.$1" "$2"
}

# rxe receives only through a UDP socket in its netdev's namespace: a pod that gets a vlan of
# the rxe netdev needs an rxe socket of its own, made by an auxiliary rxe on a dummy device.
rxe_aux() { # POD
  say "rxe is not a NIC: give $1 its own rxe UDP socket (rxe_aux on a dummy device)"
  x ip -n "$1" link add dummy0 type dummy
  x ip -n "$1" link set dummy0 up
  x ip netns exec "$1" rdma link add rxe_aux type rxe netdev dummy0
}

# A listener started by an arbitrary command (for tools without a helper above).
# usage: listen_cmd NS ADDR PORT TOOL cmd...
listen_cmd() {
  local ns=$1 addr=$2 port=$3 tool=$4 logf pid; shift 4
  SRV_N=$((SRV_N + 1))
  logf="$OUT/servers/$SRV_N.log"
  : > "$logf"
  in_ns "$ns" stdbuf -oL -eL "$@" >> "$logf" 2>&1 &
  pid=$!
  SERVER_PIDS+=("$pid")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ns" "$addr" "$port" "$tool" "$pid" "$SRV_N" "$*" >> "$OUT/listeners.tsv"
  log "listener $SRV_N: $* in $ns (pid $pid)"
}

# A macvlan (bridge mode) over LOWER, moved into POD and brought up.  usage: macvlan POD IF [LOWER]
macvlan() {
  local pod=$1 ifn=$2 lower=${3:-vA}
  say "$pod: macvlan $ifn over $lower"
  if [ "$SERVER_NS" = init ]; then
    x ip link add "$ifn" link "$lower" type macvlan mode bridge
    x ip link set "$ifn" netns "$pod"
  else
    x ip -n "$SERVER_NS" link add "$ifn" link "$lower" type macvlan mode bridge
    x ip -n "$SERVER_NS" link set "$ifn" netns "$pod"
  fi
  x ip -n "$pod" link set "$ifn" up
}

# An address in a namespace (init for the host); IPv6 without DAD.  usage: addr NS IF ADDR/PLEN
addr() {
  local ns=$1 ifn=$2 a=$3
  local nodad=(); case $a in *:*) nodad=(nodad) ;; esac
  if [ "$ns" = init ]; then x ip addr add "$a" dev "$ifn" "${nodad[@]}"
  else x ip -n "$ns" addr add "$a" dev "$ifn" "${nodad[@]}"; fi
}

# rxe is not a NIC: it takes RoCE only from a UDP socket in its netdev's namespace, and only
# for a destination whose GID has ndev = the receiving device. To make rxe0 act like a NIC port
# for a child device in a pod:
#  1. pin the pod IP's neighbour on the client to the lower device's MAC, so that the frame is
#     addressed to the lower device (not to the child's own MAC, which would hand it to the pod);
#  2. add the same IP as a host route (/32 or /128) on the lower device, AFTER the pod's own
#     address: the pod's GID then has the lower index (the RDMA CM picks it), while the lower
#     device's entry makes rxe accept the frame.
# usage: pin IP LOWER [CLIENT_DEV]
pin() {
  local ip=$1 lower=$2 cdev=${3:-vB} mac plen=32
  mac=$(mac_of "$SERVER_NS" "$lower")
  case $ip in *:*) plen=128 ;; esac
  say "rxe is not a NIC: pin $ip to $lower's MAC on the client, add it as /$plen on $lower"
  x ip $(cns) neigh replace "$ip" lladdr "$mac" dev "$cdev" nud permanent
  addr "$SERVER_NS" "$lower" "$ip/$plen"
}

# Only the neighbour part of pin (for scenarios that add the /32 themselves, in another order).
pin_neigh() { # IP LOWER [CLIENT_DEV]
  local mac; mac=$(mac_of "$SERVER_NS" "$2")
  x ip $(cns) neigh replace "$1" lladdr "$mac" dev "${3:-vB}" nud permanent
}

# Runs a command in a namespace (foreground). Do not start a capture with `in_ns ... &`: a
# function in the background runs in a bash subshell, $! is that subshell, and a signal to it
# leaves the command running (see start_tcpdump).
in_ns() { # ns cmd...   (init = the host namespace)
  local ns=$1; shift
  if [ "$ns" = init ]; then "$@"; else nsenter --net="/run/netns/$ns" "$@"; fi
}

# Starts a listener. tool: rping (TCP port space, persistent), ucmatose (RC, one connection:
# -c 1; RDMA_PS_TCP unless the extra arguments say `-P ib`), udaddy (UDP port space, SIDR, fixed
# port 7174, one request). Extra arguments go to the tool (e.g. `-P ib -f ipv6` for ucmatose).
# usage: listen NS ADDR PORT [tool [extra args...]]
listen() {
  local ns=$1 addr=$2 port=$3 tool=${4:-rping} logf pid
  shift 4 2>/dev/null || shift $#
  SRV_N=$((SRV_N + 1))
  logf="$OUT/servers/$SRV_N.log"
  : > "$logf"
  case $tool in
    rping) in_ns "$ns" stdbuf -oL -eL rping -s -P -d -a "$addr" -p "$port" >> "$logf" 2>&1 & ;;
    # ucmatose and udaddy serve -c requests, then exit: one request per listener. (ucmatose's server
    # prints nothing per request, only "initiating data transfers" once all -c are established.)
    ucmatose) in_ns "$ns" stdbuf -oL -eL ucmatose -b "$addr" -p "$port" -c 1 -C 1 "$@" >> "$logf" 2>&1 & ;;
    udaddy) in_ns "$ns" stdbuf -oL -eL udaddy -b "$addr" -c 1 -C 1 "$@" >> "$logf" 2>&1 & ;;
    *) die "unknown listener tool $tool" ;;
  esac
  pid=$!
  SERVER_PIDS+=("$pid")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ns" "$addr" "$port" "$tool" "$pid" "$SRV_N" "$tool $addr $*" >> "$OUT/listeners.tsv"
  log "listener $SRV_N: $tool $* in $ns on $addr:$port (pid $pid)"
}

# Waits until `rdma res show cm_id` (from every namespace) shows at least N LISTEN entries.
wait_listeners() {
  local want=$1 i n
  for i in $(seq 1 60); do
    n=$(all_cm_ids | grep -c 'state LISTEN' || true)
    [ "$n" -ge "$want" ] && return 0
    sleep 0.5
  done
  log "warning: only $n LISTEN cm_ids after 30 s (wanted $want)"
}

all_namespaces() { echo init; ip netns list | awk '{print $1}'; }

all_cm_ids() {
  local ns
  for ns in $(all_namespaces); do in_ns "$ns" rdma res show cm_id 2>/dev/null || true; done
}

# ---- recording -------------------------------------------------------------------------

# nlmon capture of `ip -d link show`, `ip addr show`, `ip route show table all` and
# `ip netns list-id` run in namespace NS. Netlink taps are per namespace, so each namespace
# gets its own nlmon0 (it shows in that namespace's link dump, kind "nlmon"). For a namespace
# other than init, the capture also gets the host's `ip netns list-id target-nsid <nsid>`
# (RTM_NEWNSID with NETNSA_CURRENT_NSID), captured on init's nlmon0 and appended record by
# record: that is what maps the pod's own nsids (IFLA_LINK_NETNSID) to namespaces.
# Captures. `cmd &` on a simple command forks a child that execs cmd, and nsenter --net execs
# too, so $! is tcpdump itself. (Starting them as `in_ns NS tcpdump ... &` made $! a bash
# subshell: SIGTERM killed the subshell, tcpdump kept running, and its later writes, at its own
# file offset, overwrote the host's target-nsid records appended to the pod's capture.)
start_tcpdump() { # ns pcap-file tcpdump-args... -> sets TCPDUMP_PID
  local ns=$1 f=$2 i; shift 2
  if [ "$ns" = init ]; then
    tcpdump --immediate-mode -U -s 0 -w "$f" "$@" 2> "$f.tcpdump.log" &
  else
    nsenter --net="/run/netns/$ns" tcpdump --immediate-mode -U -s 0 -w "$f" "$@" 2> "$f.tcpdump.log" &
  fi
  TCPDUMP_PID=$!
  for i in $(seq 1 100); do grep -q 'listening on' "$f.tcpdump.log" 2>/dev/null && break; sleep 0.1; done
  grep -q 'listening on' "$f.tcpdump.log" 2>/dev/null || die "tcpdump $* in $ns did not start: $(cat "$f.tcpdump.log" 2>/dev/null)"
  [ "$(cat "/proc/$TCPDUMP_PID/comm" 2>/dev/null)" = tcpdump ] || die "pid $TCPDUMP_PID (tcpdump $* in $ns) is $(cat "/proc/$TCPDUMP_PID/comm" 2>/dev/null || echo gone), not tcpdump"
}

# nlmon capture in NS (its nlmon0) -> sets NLMON_PID
# -B: with --immediate-mode libpcap uses a TPACKET_V2 ring, and on a non-Ethernet device each
# frame is the full snaplen (262144 with -s 0), so the default 2 MiB buffer is 8 frames. A dump
# burst of more than 8 netlink messages before tcpdump (slow under TCG) frees a frame was dropped
# ("N packets dropped by kernel"). 32 MiB = 128 frames, more than any rtnl capture holds.
start_nlmon_capture() { # ns file
  start_tcpdump "$1" "$2" -B 32768 -i nlmon0
  NLMON_PID=$TCPDUMP_PID
}

running() { # pid: true while the process exists and is not a zombie
  local st; st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  case $st in Z*) return 1 ;; esac
}

# Stops a capture started by start_tcpdump and reaps it. Waits first until the file stops
# growing (TCG is slow, and tcpdump writes a packet only after reading it), then SIGINT, which
# tcpdump handles (it installs its own handler, so bash's SIG_IGN for background jobs does not
# matter): it breaks its loop, flushes, closes the file and exits 0. Returns non-zero if tcpdump
# needed SIGTERM/SIGKILL or exited with an error.
stop_capture() { # pid [file]
  local pid=$1 f=${2:-} i last=-1 now rc
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = tcpdump ] || { log "stop_capture: pid $pid is not a tcpdump"; return 1; }
  sleep 0.5
  if [ -n "$f" ]; then
    for i in $(seq 1 30); do
      now=$(stat -c %s "$f" 2>/dev/null || echo 0)
      [ "$now" = "$last" ] && [ "$now" -gt 24 ] && break
      last=$now; sleep 0.5
    done
  fi
  kill -INT "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do running "$pid" || break; sleep 0.1; done
  if running "$pid"; then
    log "stop_capture: tcpdump $pid ignored SIGINT for 10 s; SIGTERM"
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do running "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null
    return 1
  fi
  wait "$pid" 2>/dev/null; rc=$?
  [ -z "$f" ] || tail -3 "$f.tcpdump.log" 2>/dev/null | sed "s|^|[tcpdump $pid] |"
  [ "$rc" = 0 ] || { log "stop_capture: tcpdump $pid exited $rc"; return 1; }
  ! grep -q '^[1-9][0-9]* packets dropped by kernel' "$f.tcpdump.log" 2>/dev/null || { log "stop_capture: tcpdump $pid: the kernel dropped packets"; return 1; }
}

record_rtnl() {
  local ns hostnsid
  for ns in $(all_namespaces); do
    in_ns "$ns" ip link add nlmon0 type nlmon || die "nlmon in $ns"
    in_ns "$ns" ip link set nlmon0 up
  done
  for ns in $(all_namespaces); do
    local f="$OUT/rtnl/$ns.pcap"
    start_nlmon_capture "$ns" "$f"
    in_ns "$ns" ip -d link show > /dev/null
    in_ns "$ns" ip addr show > /dev/null
    in_ns "$ns" ip route show table all > /dev/null
    in_ns "$ns" ip netns list-id > /dev/null
    stop_capture "$NLMON_PID" "$f" || die "the nlmon capture in $ns did not stop cleanly"
    if [ "$ns" != init ]; then
      # The host's nlmon0 is captured for the whole host-side step: started (and "listening")
      # before the command, stopped with SIGINT and reaped after it; only then is it appended.
      hostnsid=$(ip netns list-id | awk -v n="$ns" '$5 == n")" || $NF == n")" {print $2}')
      if [ -n "$hostnsid" ]; then
        start_nlmon_capture init "$f.target"
        ip netns list-id target-nsid "$hostnsid" > "$OUT/nsids/$ns.target.txt" 2>&1
        stop_capture "$NLMON_PID" "$f.target" || die "the host's nlmon capture for $ns did not stop cleanly"
        [ "$(stat -c %s "$f.target")" -gt 24 ] || die "the host's target-nsid capture for $ns is empty"
        local before; before=$(stat -c %s "$f")
        tail -c +25 "$f.target" >> "$f"   # pcap records after the 24-byte global header
        [ "$(stat -c %s "$f")" = $(( before + $(stat -c %s "$f.target") - 24 )) ] || die "appending the host's records to $f"
        rm -f "$f.target"
      fi
    fi
    rm -f "$f.tcpdump.log" "$f.target.tcpdump.log"
  done
  # Every capture must be gone before the nlmon0s are deleted (a live one would record that too).
  ! pgrep -x tcpdump > /dev/null || die "tcpdump still running after the rtnl captures: $(pgrep -a -x tcpdump | tr '\n' ' ')"
  for ns in $(all_namespaces); do in_ns "$ns" ip link del nlmon0; done
}

record_netns() {
  {
    echo "# name	inode	nsid-in-host"
    printf 'init\t%s\t-\n' "$(stat -L -c %i /proc/1/ns/net)"
    local ns nsid
    for ns in $(ip netns list | awk '{print $1}'); do
      nsid=$(ip netns list-id | awk -v n="$ns" '$NF == n")" {print $2}')
      printf '%s\t%s\t%s\n' "$ns" "$(stat -L -c %i "/run/netns/$ns")" "${nsid:--}"
    done
  } > "$OUT/netns.tsv"
  local ns
  for ns in $(all_namespaces); do
    if [ "$ns" = init ]; then ip netns list-id; else ip -n "$ns" netns list-id; fi > "$OUT/nsids/$ns.txt" 2>&1 || true
  done
}

# One grep per device (TCG makes a cat per file slow). In exclusive mode a device is visible
# only in its namespace's sysfs, which `ip netns exec` mounts.
sysfs_ns() { local ns=$1; shift; if [ "$ns" = init ]; then "$@"; else ip netns exec "$ns" "$@"; fi; }
record_sysfs() {
  local ns dev
  for ns in $(all_namespaces); do
    for dev in $(sysfs_ns "$ns" ls /sys/class/infiniband 2>/dev/null); do
      [ -s "$OUT/sysfs/$dev.txt" ] && continue
      sysfs_ns "$ns" sh -c "cd /sys/class/infiniband/$dev && grep -r . node_guid ports/*/link_layer ports/*/state ports/*/gids ports/*/gid_attrs/types ports/*/gid_attrs/ndevs ports/*/pkeys 2>/dev/null" > "$OUT/sysfs/$dev.txt" || true
      echo "$ns" > "$OUT/sysfs/$dev.netns"
    done
  done
}

record_listeners() {
  local ns pid
  : > "$OUT/cm_id.txt"
  for ns in $(all_namespaces); do
    in_ns "$ns" rdma -j res show cm_id > "$OUT/cm_id.$ns.json" 2>/dev/null || true
    in_ns "$ns" rdma res show cm_id >> "$OUT/cm_id.txt" 2>/dev/null || true
  done
  # pid -> namespace, for the pids that own cm_ids
  local nsino
  declare -A ino2ns
  ino2ns[$(stat -L -c %i /proc/1/ns/net)]=init
  for ns in $(ip netns list | awk '{print $1}'); do ino2ns[$(stat -L -c %i "/run/netns/$ns")]=$ns; done
  : > "$OUT/pids.tsv"
  for pid in $(grep -o 'pid [0-9]*' "$OUT/cm_id.txt" | awk '{print $2}' | sort -u); do
    nsino=$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) || continue
    printf '%s\t%s\t%s\n' "$pid" "${ino2ns[$nsino]:-@$nsino}" "$(cat /proc/$pid/comm 2>/dev/null)" >> "$OUT/pids.tsv"
  done
}

# The nldev dumps (devices, ports, and RES_CM_ID, whose RDMA_NLDEV_ATTR_RES_PS is a listener's port
# space as a number: rdma's own text says "IPoIB" for RDMA_PS_IB too), as the kernel's raw replies in
# a DLT_NETLINK pcap. nlmon cannot capture NETLINK_RDMA (netlink_filter_tap passes only a few
# families), so /lab/bin/nldev-dump (guest/nldev-dump.c, built by scripts/lab/run) asks the kernel
# itself, in each namespace.
record_nldev() {
  local ns
  for ns in $(all_namespaces); do
    in_ns "$ns" /lab/bin/nldev-dump "$OUT/rdma/$ns.pcap" || die "nldev-dump in $ns failed"
  done
}

# Our own tracefs instance (never the global buffer): ib_cm's and rdma_cma's tracepoints for the
# requests, so that a REJ the kernel decided on but rxe could not send (no route back) still shows.
TRACEFS=/sys/kernel/tracing
TRACE_INSTANCE=$TRACEFS/instances/cmdemux
# With the observer running live (CMDEMUX_LAB_WATCH=1 put a JDK on the scenario disk) the name cmdemux is its
# instance; ours is cmdemux-lab then, and enables the observer's own kprobe event beside it.
LIVE_WATCH=0
[ -x /lab/jdk/bin/java ] && [ -f /lab/cmdemux.jar ] && { LIVE_WATCH=1; TRACE_INSTANCE=$TRACEFS/instances/cmdemux-lab; }
WATCH_PID=
start_watch() {
  mkdir -p "$OUT/watch"
  # --silence-after 1: a dropped request is reported before stop_watch, which waits that long first.
  /lab/jdk/bin/java -XX:TieredStopAtLevel=1 -Xshare:auto -jar /lab/cmdemux.jar watch --json --silence-after 1 \
    > "$OUT/watch/watch.jsonl" 2> "$OUT/watch/watch.err" &
  WATCH_PID=$!
  local i
  for i in $(seq 1 480); do
    grep -q "reading $TRACEFS/instances/cmdemux/trace_pipe" "$OUT/watch/watch.err" 2>/dev/null && break
    running "$WATCH_PID" || break
    sleep 0.5
  done
  grep -q "reading " "$OUT/watch/watch.err" || { log "watch did not start: $(cat "$OUT/watch/watch.err")"; return 1; }
  log "cmdemux watch (pid $WATCH_PID) reads its instance"
  watch_cpu started
}
# The observer's CPU time so far (utime, stime: fields 14, 15 of /proc/PID/stat, in clock ticks).
watch_cpu() {
  local f
  f=$(cut -d')' -f2- "/proc/$WATCH_PID/stat" 2>/dev/null) || return 0
  printf '%s\t%s\t%s\t%s\n' "$1" "$(echo $f | awk '{print $12}')" "$(echo $f | awk '{print $13}')" "$(getconf CLK_TCK)" >> "$OUT/watch/cpu.tsv"
}
stop_watch() {
  [ -n "$WATCH_PID" ] || return 0
  sleep 2 # past --silence-after, and a tick of the watch's loop
  watch_cpu stopping
  kill -TERM "$WATCH_PID" 2>/dev/null
  local i
  for i in $(seq 1 120); do running "$WATCH_PID" || break; sleep 0.5; done
  wait "$WATCH_PID" 2>/dev/null; echo "exit $?" > "$OUT/watch/exit"
  # What the observer left behind after SIGTERM: nothing, or this says what.
  { ls "$TRACEFS/instances"; grep cmdemux/ "$TRACEFS/kprobe_events"; } > "$OUT/watch/left-after-exit.txt" 2>&1
  WATCH_PID=
}
start_trace() {
  mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" || die "cannot mount tracefs"
  [ -d "$TRACE_INSTANCE" ] && rmdir "$TRACE_INSTANCE"
  mkdir "$TRACE_INSTANCE" || die "cannot make the tracefs instance $TRACE_INSTANCE"
  echo 4096 > "$TRACE_INSTANCE/buffer_size_kb"
  local sys
  for sys in ib_cma rdma_cma ib_mad; do
    [ -d "$TRACE_INSTANCE/events/$sys" ] || die "no tracepoint system $sys in this kernel"
    echo 1 > "$TRACE_INSTANCE/events/$sys/enable"
  done
  # What the request handlers return, where no tracepoint says it (a REJ that is decided on but
  # never sent leaves no icm_send_rej). kretprobe definitions are global: ours are in group
  # cmdemux_lab, enabled only in our instance, and removed again by stop_trace.
  local spec f t added=0
  : > "$OUT/tracefs/kprobes.txt"
  for spec in $KRETPROBES; do
    f=${spec%%:*}; t=${spec#*:}
    if ! grep -q "^$f " "$TRACEFS/available_filter_functions"; then
      echo "$f: not a probe point in this kernel (inlined?)" >> "$OUT/tracefs/kprobes.txt"
      continue
    fi
    if echo "r:cmdemux_lab/${f}_ret $f ret=\$retval:$t" >> "$TRACEFS/kprobe_events" 2>> "$OUT/tracefs/kprobes.txt"; then
      echo "$f: r:cmdemux_lab/${f}_ret ret=\$retval:$t" >> "$OUT/tracefs/kprobes.txt"
      added=1
    fi
  done
  [ "$added" = 0 ] || echo 1 > "$TRACE_INSTANCE/events/cmdemux_lab/enable"
  # The observer's own kprobe (cmdemux/req on cma_ib_req_handler), its fetch args computed by the observer's
  # Java code from this kernel's BTF (scripts/lab/run puts its definition on the scenario disk), and beside it
  # the same fields named for the kernel's own BTF resolution, so that the recording shows whether both agree.
  if [ "$LIVE_WATCH" = 1 ]; then
    start_watch || die "cmdemux watch did not start in the guest"
  fi
  if [ -s /lab/observer-kprobes.txt ]; then
    while read -r def; do
      [ -n "$def" ] || continue
      # The live observer defined cmdemux/req itself; only the kernel-resolved twin is ours then.
      [ "$LIVE_WATCH" = 1 ] && case $def in p:cmdemux/req\ *) continue ;; esac
      if echo "$def" >> "$TRACEFS/kprobe_events" 2>> "$OUT/tracefs/kprobes.txt"; then
        echo "observer: $def" >> "$OUT/tracefs/kprobes.txt"
      else
        echo "observer: REFUSED: $def" >> "$OUT/tracefs/kprobes.txt"
        cat "$TRACEFS/error_log" >> "$OUT/tracefs/kprobes.txt" 2>/dev/null
      fi
    done < /lab/observer-kprobes.txt
    local g
    for g in cmdemux cmdemux_check; do
      [ -d "$TRACE_INSTANCE/events/$g" ] && echo 1 > "$TRACE_INSTANCE/events/$g/enable"
    done
  fi
}
KRETPROBES="cm_req_handler:s32 cm_sidr_req_handler:s32 cma_ib_req_handler:s32 cm_init_av_for_response:s32 cm_init_av_by_path:s32 cma_ib_acquire_dev:s32 cma_ib_id_from_event:s64"
stop_trace() {
  [ -d "$TRACE_INSTANCE" ] || return 0
  echo 0 > "$TRACE_INSTANCE/tracing_on"
  cat "$TRACE_INSTANCE/trace" > "$OUT/tracefs/trace.txt"
  cat "$TRACE_INSTANCE/per_cpu/cpu0/stats" "$TRACE_INSTANCE/per_cpu/cpu1/stats" > "$OUT/tracefs/stats.txt" 2>/dev/null || true
  local sys e spec g
  [ -d "$TRACE_INSTANCE/events/cmdemux_lab" ] && echo 0 > "$TRACE_INSTANCE/events/cmdemux_lab/enable"
  for g in cmdemux cmdemux_check; do [ -d "$TRACE_INSTANCE/events/$g" ] && echo 0 > "$TRACE_INSTANCE/events/$g/enable"; done
  for sys in ib_cma rdma_cma ib_mad cmdemux_lab cmdemux cmdemux_check; do
    for e in "$TRACE_INSTANCE"/events/$sys/*/; do
      [ -f "$e/format" ] || continue
      mkdir -p "$OUT/tracefs/formats/$sys"
      cat "$e/format" > "$OUT/tracefs/formats/$sys/$(basename "$e")"
    done
  done
  rmdir "$TRACE_INSTANCE" || log "warning: could not remove $TRACE_INSTANCE"
  for spec in $KRETPROBES; do echo "-:cmdemux_lab/${spec%%:*}_ret" >> "$TRACEFS/kprobe_events" 2>/dev/null; done
  [ "$LIVE_WATCH" = 1 ] || echo "-:cmdemux/req" >> "$TRACEFS/kprobe_events" 2>/dev/null
  echo "-:cmdemux_check/req_btf" >> "$TRACEFS/kprobe_events" 2>/dev/null
  echo "-:cmdemux_check/req_gid" >> "$TRACEFS/kprobe_events" 2>/dev/null
  true
}

# Everything about the state before the connections.
record() {
  local want=${1:-$SRV_N}
  [ "$SRV_N" -gt 0 ] && wait_listeners "$want"
  record_netns
  record_rtnl
  record_sysfs
  record_listeners
  record_nldev
  start_trace
  ip -br link > "$OUT/links.txt"; ip -br addr >> "$OUT/links.txt"
  for ns in $(ip netns list | awk '{print $1}'); do echo "== $ns"; ip -n "$ns" -br link; ip -n "$ns" -br addr; done >> "$OUT/links.txt"
  start_cm_capture
}

# The client side's capture, on the client's device(s): CAPTURE_DEVS (default vB). With several
# devices, each gets cm.<dev>.pcap and assemble merges them (mergecap) into cm.pcap.
CAPTURE_PIDS=()
CAPTURE_FILES=()
start_cm_capture() {
  local devs=(${CAPTURE_DEVS:-vB}) dev f
  for dev in "${devs[@]}"; do
    if [ ${#devs[@]} = 1 ]; then f="$OUT/cm.pcap"; else f="$OUT/cm.$dev.pcap"; fi
    start_tcpdump "$CLIENT_NS" "$f" -i "$dev" 'udp port 4791 or (vlan and udp port 4791)'
    CAPTURE_PIDS+=("$TCPDUMP_PID")
    CAPTURE_FILES+=("$f")
  done
}

# One connection attempt from the client namespace.
# usage: connect DST PORT [tool] [extra client args...]
connect() {
  local dst=$1 port=$2 tool=${3:-rping} start end rc logf n
  shift 3 2>/dev/null || shift $#
  REQ_N=$((REQ_N + 1))
  logf="$OUT/clients/$REQ_N.log"
  for n in $(seq 1 "$SRV_N"); do echo "### req $REQ_N" >> "$OUT/servers/$n.log"; done
  start=$(date +%s.%N)
  case $tool in
    rping) in_ns "$CLIENT_NS" timeout "$CLIENT_TIMEOUT" rping -c -d -a "$dst" -p "$port" -C 1 "$@" > "$logf" 2>&1 ;;
    ucmatose) in_ns "$CLIENT_NS" timeout "$CLIENT_TIMEOUT" ucmatose -s "$dst" -p "$port" -C 1 "$@" > "$logf" 2>&1 ;;
    udaddy) in_ns "$CLIENT_NS" timeout "$CLIENT_TIMEOUT" udaddy -s "$dst" -C 1 "$@" > "$logf" 2>&1 ;;
    cmd) in_ns "$CLIENT_NS" timeout "$CLIENT_TIMEOUT" "$@" > "$logf" 2>&1 ;;  # any client command
    *) die "unknown client tool $tool" ;;
  esac
  rc=$?
  sleep 1   # let the servers log
  end=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$REQ_N" "$start" "$end" "$CLIENT_NS" "$dst" "$port" "$tool $*" "$rc" >> "$OUT/requests.tsv"
  log "request $REQ_N: $tool to $dst:$port rc=$rc"
}

# Called by main.sh after the scenario (also when it failed).
finish() {
  local i p ns
  stop_trace
  stop_watch
  for i in "${!CAPTURE_PIDS[@]}"; do
    stop_capture "${CAPTURE_PIDS[$i]}" "${CAPTURE_FILES[$i]}" || log "warning: the client capture ${CAPTURE_FILES[$i]} did not stop cleanly"
  done
  # `ip netns exec` forks: the listener is a child of the pid we know, so kill by namespace too.
  for p in "${SERVER_PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  for ns in $(ip netns list | awk '{print $1}'); do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  done
  sleep 0.5
  for p in "${SERVER_PIDS[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null; done
  true
}
