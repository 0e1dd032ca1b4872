# A vlan (VID 100) of the rxe netdev moved into a pod, with a wildcard listener there. The client
# sends tagged frames from its own vlan device. The pod has its own rxe socket (rxe_aux).
base
client_vlan 100 198.51.100.2/24
pod pod1
say "pod1: vlan 100 over vA"
x ip link add link vA name vA.100 type vlan id 100
x ip link set vA.100 netns pod1
x ip -n pod1 link set vA.100 up
addr pod1 vA.100 198.51.100.11/24
rxe_aux pod1
listen pod1 0.0.0.0 7471
CAPTURE_DEVS=vB
record
connect 198.51.100.11 7471
