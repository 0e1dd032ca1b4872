# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode: rxe0 stays in init; a macvlan pod listens (wildcard) and a listener
# in init uses the same port. A request to the pod's address, and one to the host's.
base
say "exclusive mode: the client's device belongs to cli"
x rdma dev set rxe1 netns cli
addr init vA 192.0.2.1/24
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
listen init 0.0.0.0 7471
record 1
connect 192.0.2.11 7471
connect 192.0.2.1 7471
