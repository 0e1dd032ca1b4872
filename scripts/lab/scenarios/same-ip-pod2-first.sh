# The same IP in two pods, pod2's address added first; both listen (wildcard, same port).
base
pod pod1
pod pod2
macvlan pod1 m1
macvlan pod2 m2
addr pod2 m2 192.0.2.11/24
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
listen pod2 0.0.0.0 7471
record
connect 192.0.2.11 7471
