# The /32 on the lower device is added BEFORE the pod's address, so the lowest GID entry for the
# IP has ndev = vA in init, which has only that /32: validate_net_dev finds no route back.
base
pod pod1
macvlan pod1 m1
pin_neigh 192.0.2.11 vA
say "the /32 on vA first"
addr init vA 192.0.2.11/32
addr pod1 m1 192.0.2.11/24
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
