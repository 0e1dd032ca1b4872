# IPv6: two macvlan pods; pod1's listener bound to its address, pod2's wildcard (::).
base
pod pod1
pod pod2
macvlan pod1 m1
addr pod1 m1 2001:db8::11/64
macvlan pod2 m2
addr pod2 m2 2001:db8::12/64
pin 2001:db8::11 vA
pin 2001:db8::12 vA
listen pod1 2001:db8::11 7471
listen pod2 :: 7471
record
connect 2001:db8::11 7471
connect 2001:db8::12 7471
