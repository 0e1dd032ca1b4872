# Two pods on one port: pod1 has a vlan (VID 100) of vA, pod2 a macvlan of vA. Both listen on
# the same port (wildcard). Each request goes to the pod that owns the destination.
base
client_vlan 100 198.51.100.2/24
pod pod1
pod pod2
say "pod1: vlan 100 over vA"
x ip link add link vA name vA.100 type vlan id 100
x ip link set vA.100 netns pod1
x ip -n pod1 link set vA.100 up
addr pod1 vA.100 198.51.100.11/24
rxe_aux pod1
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
pin 192.0.2.12 vA
listen pod1 0.0.0.0 7471
listen pod2 0.0.0.0 7471
record
connect 198.51.100.11 7471
connect 192.0.2.12 7471
