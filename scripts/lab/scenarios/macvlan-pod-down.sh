# A macvlan pod whose device is down when the request comes: its GID entries stay (roce_gid_mgmt
# does not act on NETDEV_DOWN), so ib_cm matches the pod's entry, and then resolves the
# requester's MAC through that entry's net device before anything else (cm_init_av_for_response ->
# ib_init_ah_attr_from_wc -> ib_resolve_unicast_gid_dmac -> rdma_resolve_ip). Is the request
# dropped there without an answer, or does it reach rdma_cm's own IFF_UP check (REJ 28)?
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
say "the pod's device goes down after its listener is up"
x ip -n pod1 link set m1 down
record
connect 192.0.2.11 7471
