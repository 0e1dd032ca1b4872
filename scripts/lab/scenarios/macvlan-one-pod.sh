# One macvlan pod on the host's veth end; a wildcard rping listener in the pod.
# Expect: the REQ for the pod's IP goes to pod1.
base
pod pod1
say "pod1: macvlan m1 over vA"
x ip link add m1 link vA type macvlan mode bridge
x ip link set m1 netns pod1
x ip -n pod1 addr add 192.0.2.11/24 dev m1
x ip -n pod1 link set m1 up
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
