# IPv6: the /128 on the lower device is added before the pod's address, so the lowest GID for
# the IP has ndev = vA in init, which has no route back to the client.
base
pod pod1
macvlan pod1 m1
pin_neigh 2001:db8::11 vA
say "the /128 on vA first"
addr init vA 2001:db8::11/128
addr pod1 m1 2001:db8::11/64
listen pod1 :: 7471
record
connect 2001:db8::11 7471
