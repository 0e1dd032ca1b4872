# A macvlan pod and nobody listening anywhere: ib_cm has no listener for the service ID.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
record
connect 192.0.2.11 7471
