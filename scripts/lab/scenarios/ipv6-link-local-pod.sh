# An IPv6 link-local request to a pod (cma_match_net_dev's rule for link-local requests: the
# listener's namespace, and its bound interface when it has one, must be the request's net
# device's). pod1 has two macvlans, m1 and m2, both with fe80::11 (m1's first, so its GID entry
# is the lower one); rping listens on fe80::11%m1 port 7471 and on fe80::11%m2 port 7472. The
# request to 7471 is delivered; the one to 7472 comes on m1 and is refused: REJ 28.
base
pod pod1
macvlan pod1 m1
addr pod1 m1 fe80::11/64
macvlan pod1 m2
addr pod1 m2 fe80::11/64
pin fe80::11 vA
listen_cmd pod1 fe80::11%m1 7471 rping rping -s -P -d -a fe80::11%m1 -p 7471
listen_cmd pod1 fe80::11%m2 7472 rping rping -s -P -d -a fe80::11%m2 -p 7472
record
connect fe80::11%vB 7471 rping
connect fe80::11%vB 7472 rping
