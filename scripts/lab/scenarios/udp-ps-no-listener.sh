# UDP port space: a SIDR REQ to a macvlan pod while nobody listens anywhere.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
record
connect 192.0.2.11 7174 udaddy
