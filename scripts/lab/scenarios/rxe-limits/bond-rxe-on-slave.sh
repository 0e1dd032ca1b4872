# rxe limit, not an RDMA CM decision. rxe on a bond SLAVE (vA) while the address is on bond0:
# frames received through the slave reach rxe's UDP socket with skb->dev = bond0, which has no
# rxe device, so rxe drops them. A NIC would see them on its port.
base
say "enslave vA (which carries rxe0) to bond0"
x ip link add bond0 type bond mode active-backup miimon 100
x ip link set vA down
x ip link set vA master bond0
x ip link set vA up
x ip link set bond0 up
addr init bond0 192.0.2.1/24
sleep 1
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
