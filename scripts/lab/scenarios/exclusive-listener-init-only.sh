# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode. vA (192.0.2.1) is in srv, rxe0 stays in init; the only listener is
# in init (wildcard), so ib_cm listens on rxe0, but the GID's netdev is in srv.
base_exclusive
addr srv vA 192.0.2.1/24
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
