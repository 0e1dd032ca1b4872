# UDP port space: two macvlan pods, udaddy listens only in pod2; a SIDR REQ for pod1's address.
base
pod pod1
pod pod2
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
macvlan pod2 m2
addr pod2 m2 192.0.2.12/24
pin 192.0.2.11 vA
pin 192.0.2.12 vA
listen pod2 0.0.0.0 7174 udaddy
record
connect 192.0.2.11 7174 udaddy
