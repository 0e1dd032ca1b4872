# RDMA devices on both an active-backup bond (rxe0 on bond0) and its active slave (rxe9 on vA).
# The pod's address (192.0.2.11 on a macvlan of bond0) is added before the host's copy of it
# (the /32 on bond0 that lets rxe accept the frame), and rxe9 is made after both, so its table
# lists them the other way round (init's addresses are enumerated first). A frame arriving on vA
# belongs to bond0 after bond_handle_frame, and rxe_udp_encap_recv takes the device of skb->dev:
# rxe0's table decides, where the pod's entry is the lower one.
base_bond
addr init bond0 192.0.2.1/24
pod pod1
macvlan pod1 m1 bond0
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 bond0
say "a second RDMA device on the bond's active slave"
x rdma link add rxe9 type rxe netdev vA
listen pod1 0.0.0.0 7471 rping
listen init 0.0.0.0 7472 rping
record
connect 192.0.2.11 7471 rping
connect 192.0.2.1 7472 rping
connect 192.0.2.11 7472 rping
