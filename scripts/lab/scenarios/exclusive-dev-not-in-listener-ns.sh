# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode. vA (192.0.2.1) is in srv but rxe0 stays in init (not moved).
# The only listener is in srv, the namespace of the GID's netdev, which cannot see rxe0.
base_exclusive
addr srv vA 192.0.2.1/24
listen srv 0.0.0.0 7471
record
connect 192.0.2.1 7471
