# RDMA_PS_IB with the only listener in init (ucmatose -P ib on 0.0.0.0): a request to a macvlan
# pod's address belongs to the pod's namespace (the net device of the GID entry), which has no
# PS_IB bind list: REJ 28, exactly as for RDMA_PS_TCP. A request to the host's own address is
# delivered in init.
base
addr init vA 192.0.2.1/24
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen init 0.0.0.0 7471 ucmatose -P ib
record
connect 192.0.2.11 7471 ucmatose -P ib
connect 192.0.2.1 7471 ucmatose -P ib
