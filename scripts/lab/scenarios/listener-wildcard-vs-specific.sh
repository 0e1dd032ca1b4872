# Same port in two pods: a wildcard listener in pod1, an address-bound one in pod2.
# Each request goes to the namespace that owns the destination's GID.
base
pod pod1
pod pod2
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
pin 192.0.2.11 vA
pin 192.0.2.12 vA
listen pod1 0.0.0.0 7471
listen pod2 192.0.2.12 7471
record
connect 192.0.2.11 7471
connect 192.0.2.12 7471
