# Only init listens (wildcard); a request to a pod's address is not handed to init.
base
addr init vA 192.0.2.1/24
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen init 0.0.0.0 7471
record
connect 192.0.2.11 7471
connect 192.0.2.1 7471
