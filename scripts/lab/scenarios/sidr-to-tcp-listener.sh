# A SIDR REQ (udaddy: RDMA_PS_UDP, port 7174) to a pod whose only listener on 7174 is RDMA_PS_TCP
# (rping). The UDP service ID has no ib_cm listener anywhere: cm_sidr_req_handler answers a SIDR
# REP with status IB_SIDR_UNSUPPORTED (1), where a REQ would get REJ 8. A REQ to the same port is
# delivered.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7174 rping
record
connect 192.0.2.11 7174 udaddy
connect 192.0.2.11 7174 rping
