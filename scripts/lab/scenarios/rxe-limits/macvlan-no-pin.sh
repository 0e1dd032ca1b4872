# rxe limit, not an RDMA CM decision. Without the neighbour pinning, the client resolves the
# pod's IP to the macvlan's own MAC; macvlan hands the frame to m1 in pod1, whose namespace has no
# rxe UDP socket (rxe0's socket lives in vA's namespace, init), so nobody reads the RoCE frame.
# A NIC would have seen it on the port. Silence here says nothing about the RDMA CM.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
say "no neighbour pinning, no /32 on vA"
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7471
