# rxe limit, not an RDMA CM decision. As ipvlan-l2-pod with an L3 ipvlan slave: ipvlan steals
# the frame by destination IP before init's stack (and rxe0's socket) sees it.
base
pod pod1
say "pod1: ipvlan l3 over vA"
x ip link add i1 link vA type ipvlan mode l3
x ip link set i1 netns pod1
x ip -n pod1 link set i1 up
addr pod1 i1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
