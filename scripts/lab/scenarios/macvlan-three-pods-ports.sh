# Three macvlan pods, each listening (wildcard) on its own port. Requests to each pod's own port,
# and to a pod on another pod's port: that port has an ib_cm listener (so not REJ 8), but the
# target namespace has no bind list for it.
base
pod pod1
pod pod2
pod pod3
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
macvlan pod3 m3
addr pod3 m3 192.0.2.13/24
pin 192.0.2.11 vA
pin 192.0.2.12 vA
pin 192.0.2.13 vA
listen pod1 0.0.0.0 7471
listen pod2 0.0.0.0 7472
listen pod3 0.0.0.0 7473
record
connect 192.0.2.11 7471
connect 192.0.2.12 7472
connect 192.0.2.13 7473
connect 192.0.2.11 7472
connect 192.0.2.13 7471
