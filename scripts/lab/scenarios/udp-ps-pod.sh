# UDP port space: udaddy (RDMA_PS_UDP, SIDR REQ/REP) listening in a macvlan pod.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7174 udaddy
record
connect 192.0.2.11 7174 udaddy
