# rxe on an active-backup bond with the host's address and a listener in init, plus a macvlan pod
# over the bond with its own listener on the same port.
base_bond
addr init bond0 192.0.2.1/24
pod pod1
macvlan pod1 m1 bond0
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 bond0
listen init 0.0.0.0 7471
listen pod1 0.0.0.0 7471
record
connect 192.0.2.1 7471
connect 192.0.2.11 7471
