# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode (ib_core netns_mode=0 at boot). The client and rxe1 stay in init;
# vA (192.0.2.1) is in srv, and rxe0 is moved there with `rdma dev set rxe0 netns srv`.
# A wildcard listener in srv.
# Classified as an rxe limit: after `rdma dev set rxe0 netns X` the moved rxe device answers
# nothing at all (no REP, no REJ, not even for the request whose netdev, listener and device are
# all in the same namespace), and a moved client device fails rdma_connect with EINVAL
# (exclusive-client-dev-moved). Silence from a moved rxe device says nothing about the RDMA CM.
base_exclusive
addr srv vA 192.0.2.1/24
say "exclusive mode: rxe0 belongs to srv"
x rdma dev set rxe0 netns srv
listen srv 0.0.0.0 7471
record
connect 192.0.2.1 7471
