# rxe on an active-backup bond; a macvlan over the bond in a pod, with a wildcard listener.
# The /32 on bond0 is added after `rdma link add` (and after the pod's address).
base_bond
pod pod1
macvlan pod1 m1 bond0
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 bond0
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
