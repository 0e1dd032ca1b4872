# No pods: the host's own address on the rxe netdev, a wildcard listener in init.
base
addr init vA 192.0.2.1/24
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
