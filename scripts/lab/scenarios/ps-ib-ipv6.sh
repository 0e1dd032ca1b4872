# RDMA_PS_IB over IPv6 (ucmatose -P ib -f ipv6): pod1 listens on its own IPv6 address only, pod2 on
# the IPv6 wildcard (afonly 0, net.ipv6.bindv6only's default). An IPv4 request to pod1 finds no
# listener there (cma_match_private_data: an AF_INET6 listener bound to an address takes only
# IPv6 headers): REJ 28. The wildcard in pod2 takes an IPv4 request as well.
base
pod pod1
pod pod2
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
addr pod1 m1 2001:db8::11/64
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
addr pod2 m2 2001:db8::12/64
pin 192.0.2.11 vA
pin 2001:db8::11 vA
pin 192.0.2.12 vA
pin 2001:db8::12 vA
listen pod1 2001:db8::11 7471 ucmatose -P ib -f ipv6
listen pod2 :: 7471 ucmatose -P ib -f ipv6
record
connect 192.0.2.11 7471 ucmatose -P ib
connect 2001:db8::11 7471 ucmatose -P ib -f ipv6
connect 192.0.2.12 7471 ucmatose -P ib
