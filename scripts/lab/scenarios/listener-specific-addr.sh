# A macvlan pod whose listener is bound to the pod's own address (not wildcard).
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 192.0.2.11 7471
record
connect 192.0.2.11 7471
