# lab-boot: ib_core.netns_mode=0
# Exclusive RDMA netns mode with the usual base: the client's rxe1 is moved into cli with
# `rdma dev set rxe1 netns cli` (it moves: cli's sysfs shows it). The client (rping in cli) then
# fails in rdma_connect with EINVAL and no REQ reaches the wire, so nothing about the passive
# side's demux can be learned this way. The exclusive-* demux scenarios keep the client in init.
# Also seen: a wildcard listener in init gets a LISTEN cm_id on rxe1 although rxe1 is in cli.
base
say "exclusive mode: the client's device belongs to cli"
x rdma dev set rxe1 netns cli
addr init vA 192.0.2.1/24
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
