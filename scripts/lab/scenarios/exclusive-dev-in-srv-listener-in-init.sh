# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode. rxe0 is moved into srv (where vA, 192.0.2.1, is); the only listener
# is in init, which owns neither vA nor rxe0.
base_exclusive
addr srv vA 192.0.2.1/24
say "exclusive mode: rxe0 belongs to srv"
x rdma dev set rxe0 netns srv
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
