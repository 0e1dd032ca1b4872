# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode. vA (192.0.2.1) in srv; a macvlan pod over vA (192.0.2.11, pinned);
# rxe0 is moved into pod1. Wildcard listeners in pod1 and in srv on the same port; requests to
# the pod's address and to srv's.
# Classified as an rxe limit: after `rdma dev set rxe0 netns X` the moved rxe device answers
# nothing at all (no REP, no REJ, not even for the request whose netdev, listener and device are
# all in the same namespace), and a moved client device fails rdma_connect with EINVAL
# (exclusive-client-dev-moved). Silence from a moved rxe device says nothing about the RDMA CM.
base_exclusive
addr srv vA 192.0.2.1/24
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
say "exclusive mode: rxe0 belongs to pod1"
x rdma dev set rxe0 netns pod1
listen pod1 0.0.0.0 7471
listen srv 0.0.0.0 7471
record
connect 192.0.2.11 7471
connect 192.0.2.1 7471
