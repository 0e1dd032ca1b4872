# AF_IB (native IB addressing, RDMA_PS_IB) attempted with ucmatose -f gid -P ib on soft-RoCE:
# the server binds to rxe0's default GID and the client connects to it. Whether a REQ reaches the
# wire at all is what this records (rdma_cm resolves AF_IB routes only for IB link layers).
base
addr init vA 192.0.2.1/24
gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
say "rxe0's GID 0 is $gid"
listen_cmd init "$gid" 7471 ucmatose ucmatose -f gid -P ib -b "$gid" -p 7471 -c 1 -C 1
sleep 3
record 0
connect "$gid" 7471 cmd ucmatose -f gid -P ib -s "$gid" -p 7471 -c 1 -C 1
