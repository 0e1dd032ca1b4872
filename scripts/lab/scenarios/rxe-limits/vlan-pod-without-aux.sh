# rxe limit, not an RDMA CM decision. A vlan of vA moved into a pod, without rxe_aux: the tagged
# frame is received by vA.100 in pod1, whose namespace has no rxe UDP socket, so nobody reads it.
base
client_vlan 100 198.51.100.2/24
pod pod1
say "pod1: vlan 100 over vA, no rxe_aux"
x ip link add link vA name vA.100 type vlan id 100
x ip link set vA.100 netns pod1
x ip -n pod1 link set vA.100 up
addr pod1 vA.100 198.51.100.11/24
listen pod1 0.0.0.0 7471
record
connect 198.51.100.11 7471
