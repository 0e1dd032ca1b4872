# AF_IB (native IB addressing, RDMA_PS_IB) attempted with ucmatose -f gid -P ib on soft-RoCE:
# the server binds to rxe0's default GID and the client connects to it. Seen: the server's bind
# fails with ENODEV ("bind address failed: No such device") and so does the client's route
# resolution; no REQ reaches the wire. AF_IB cannot be produced on a RoCE port, so there is no
# AF_IB demux fixture (rdma_cm resolves AF_IB addresses and routes only for IB link layers).
base
addr init vA 192.0.2.1/24
gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
say "rxe0's GID 0 is $gid"
listen_cmd init "$gid" 7471 ucmatose ucmatose -f gid -P ib -b "$gid" -p 7471 -c 1 -C 1
sleep 3
record 0
connect "$gid" 7471 cmd ucmatose -f gid -P ib -s "$gid" -p 7471 -c 1 -C 1
