# A dual-stack pod whose only listener is the IPv6 wildcard (::, bindv6only=0, so not afonly):
# an IPv4 request and an IPv6 request.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
addr pod1 m1 2001:db8::11/64
pin 192.0.2.11 vA
pin 2001:db8::11 vA
listen pod1 :: 7471
record
connect 192.0.2.11 7471
connect 2001:db8::11 7471
