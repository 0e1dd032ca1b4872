# A vlan (VID 100) of the rxe netdev in the host namespace, with a wildcard listener in init.
base
client_vlan 100 198.51.100.2/24
say "init: vlan 100 over vA"
x ip link add link vA name vA.100 type vlan id 100
x ip link set vA.100 up
addr init vA.100 198.51.100.1/24
listen init 0.0.0.0 7471
record
connect 198.51.100.1 7471
