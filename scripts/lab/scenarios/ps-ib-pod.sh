# RDMA_PS_IB over IPv4: ucmatose -P ib (an AF_INET id in the IB port space, RC) to a macvlan pod
# that listens on port 7471 in both RDMA_PS_TCP (rping) and RDMA_PS_IB (ucmatose -P ib). The REQ
# carries the rdma_cm header in every port space (cma_get_net_dev reads it for every request), so
# the kernel finds the pod's net device and the listener in the pod's PS_IB bind list. A PS_IB
# request to a port where the pod listens only in PS_TCP has no ib_cm listener: REJ 8.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471 rping
listen pod1 0.0.0.0 7472 rping
listen pod1 0.0.0.0 7471 ucmatose -P ib
record
connect 192.0.2.11 7472 ucmatose -P ib
connect 192.0.2.11 7471 rping
connect 192.0.2.11 7471 ucmatose -P ib
