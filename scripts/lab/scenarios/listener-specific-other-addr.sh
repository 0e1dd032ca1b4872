# A pod with two addresses; its only listener is bound to the second one. A request to the first
# address finds the namespace's bind list but no matching listener; the second is delivered.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
addr pod1 m1 192.0.2.21/24
pin 192.0.2.11 vA
pin 192.0.2.21 vA
listen pod1 192.0.2.21 7471
record
connect 192.0.2.11 7471
connect 192.0.2.21 7471
