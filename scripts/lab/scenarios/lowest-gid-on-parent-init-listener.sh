# As lowest-gid-on-parent, with a wildcard listener in init as well as in the pod.
base
pod pod1
macvlan pod1 m1
pin_neigh 192.0.2.11 vA
say "the /32 on vA first"
addr init vA 192.0.2.11/32
addr pod1 m1 192.0.2.11/24
listen pod1 0.0.0.0 7471
listen init 0.0.0.0 7471
record
connect 192.0.2.11 7471
