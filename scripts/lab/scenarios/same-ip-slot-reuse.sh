# The same IP in two pods, where the one added later gets a freed, lower GID slot:
# pod1 first holds 192.0.2.31, pod2 then adds 192.0.2.11, pod1 drops .31 and adds .11.
base
pod pod1
pod pod2
macvlan pod1 m1
macvlan pod2 m2
addr pod1 m1 192.0.2.31/24
addr pod2 m2 192.0.2.11/24
say "free pod1's slot, then reuse it for the shared address"
x ip -n pod1 addr del 192.0.2.31/24 dev m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen pod1 0.0.0.0 7471
listen pod2 0.0.0.0 7471
record
connect 192.0.2.11 7471
