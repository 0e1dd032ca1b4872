# A dual-stack pod whose only listener is the IPv4 wildcard (0.0.0.0, afonly by rdma_cm's rule
# for AF_INET): an IPv6 request and an IPv4 request.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
addr pod1 m1 2001:db8::11/64
pin 192.0.2.11 vA
pin 2001:db8::11 vA
listen pod1 0.0.0.0 7471
record
connect 2001:db8::11 7471
connect 192.0.2.11 7471
