# Two RDMA ports (two veth pairs, rxe on each end): a macvlan pod on each host-side device.
base
say "second port: veth vA2 <-> vB2, rxe2/rxe3"
x ip link add vA2 type veth peer name vB2 netns cli
x ip link set vA2 up
x ip -n cli link set vB2 up
addr cli vB2 203.0.113.2/24
x rdma link add rxe2 type rxe netdev vA2
x ip netns exec cli rdma link add rxe3 type rxe netdev vB2
pod pod1
pod pod2
macvlan pod1 m1 vA
addr pod1 m1 192.0.2.11/24
macvlan pod2 m2 vA2
addr pod2 m2 203.0.113.12/24
pin 192.0.2.11 vA vB
pin 203.0.113.12 vA2 vB2
listen pod1 0.0.0.0 7471
listen pod2 0.0.0.0 7471
CAPTURE_DEVS="vB vB2"
record
connect 192.0.2.11 7471
connect 203.0.113.12 7471
