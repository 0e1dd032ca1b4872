# IPv6: a macvlan pod with 2001:db8::11, a wildcard (::) listener; an IPv6 request.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 2001:db8::11/64
pin 2001:db8::11 vA
listen pod1 :: 7471
record
connect 2001:db8::11 7471
