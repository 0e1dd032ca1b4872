# rxe limit, not an RDMA CM decision. An ipvlan (L2) slave of vA in a pod, with the pinning that
# works for macvlan: ipvlan's rx handler on vA matches the destination IP of the slave and moves
# the frame into the pod before init's stack sees it, so rxe0's UDP socket in init never reads it.
base
pod pod1
say "pod1: ipvlan l2 over vA"
x ip link add i1 link vA type ipvlan mode l2
x ip link set i1 netns pod1
x ip -n pod1 link set i1 up
addr pod1 i1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
