# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode (set at boot with ib_core netns_mode=0): rxe0 stays in init, the
# client's rxe1 is moved into cli. The host's address and a wildcard listener in init.
base
say "exclusive mode: the client's device belongs to cli"
x rdma dev set rxe1 netns cli
addr init vA 192.0.2.1/24
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
