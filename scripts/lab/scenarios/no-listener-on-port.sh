# A pod listening on 7471; requests to 7999 (no ib_cm listener for that service ID) and to 7471.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
record
connect 192.0.2.11 7999
connect 192.0.2.11 7471
