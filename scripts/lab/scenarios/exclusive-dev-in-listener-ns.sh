# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode (ib_core netns_mode=0 at boot). The client and rxe1 stay in init;
# vA (192.0.2.1) is in srv, and rxe0 is moved there with `rdma dev set rxe0 netns srv`.
# A wildcard listener in srv.
base_exclusive
addr srv vA 192.0.2.1/24
say "exclusive mode: rxe0 belongs to srv"
x rdma dev set rxe0 netns srv
listen srv 0.0.0.0 7471
record
connect 192.0.2.1 7471
