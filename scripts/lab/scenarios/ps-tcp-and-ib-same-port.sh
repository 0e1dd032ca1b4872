# The same port number in two port spaces in two pods: pod1 listens on 7471 in RDMA_PS_TCP (rping),
# pod2 on 7471 in RDMA_PS_IB (ucmatose -P ib). Both service IDs have an ib_cm listener, so the
# crossed requests (PS_IB to pod1, PS_TCP to pod2) pass ib_cm and find no bind list of their port
# space in the namespace of their net device: REJ 28. The straight ones are delivered.
base
pod pod1
pod pod2
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
pin 192.0.2.11 vA
pin 192.0.2.12 vA
listen pod1 0.0.0.0 7471 rping
listen pod2 0.0.0.0 7471 ucmatose -P ib
record
connect 192.0.2.11 7471 ucmatose -P ib
connect 192.0.2.12 7471 rping
connect 192.0.2.11 7471 rping
connect 192.0.2.12 7471 ucmatose -P ib
