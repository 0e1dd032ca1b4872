# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode. vA (192.0.2.1) is in srv, rxe0 stays in init. Wildcard listeners
# on the same port in init (which sees rxe0, so ib_cm listens on rxe0) and in srv (the GID's
# netdev namespace, which does not see rxe0).
base_exclusive
addr srv vA 192.0.2.1/24
listen init 0.0.0.0 7471
listen srv 0.0.0.0 7471
record 1
connect 192.0.2.1 7471
