# Not a fixture: measures the rdma_cm connection rate on rxe in the lab (issue 10, item 7).
# init has 192.0.2.1 on vA; pod1 (macvlan, pinned) has 192.0.2.11. cmtime times each step of
# N connections (rdma_cm's own per-step clock); ucmatose -c N is timed end to end.
CLIENT_TIMEOUT=300
base
addr init vA 192.0.2.1/24
pod pod1
macvlan pod1 m1
addr pod1 m1 192.0.2.11/24
pin 192.0.2.11 vA
listen_cmd init 192.0.2.1 7471 cmtime cmtime -b 192.0.2.1 -p 7471 -c 200
listen_cmd pod1 192.0.2.11 7472 cmtime cmtime -b 192.0.2.11 -p 7472 -c 200
listen_cmd init 192.0.2.1 7473 ucmatose ucmatose -b 192.0.2.1 -p 7473 -c 100 -C 1
sleep 5
connect 192.0.2.1 7471 cmd cmtime -s 192.0.2.1 -p 7471 -c 200
connect 192.0.2.11 7472 cmd cmtime -s 192.0.2.11 -p 7472 -c 200
connect 192.0.2.1 7473 cmd sh -c 'a=$(date +%s.%N); ucmatose -s 192.0.2.1 -p 7473 -c 100 -C 1; rc=$?; b=$(date +%s.%N); echo "ucmatose wall seconds: $(echo "$b - $a" | bc 2>/dev/null || echo "$a $b")"; exit $rc'
nproc > "$OUT/nproc"; cat /proc/cpuinfo | grep -m1 'model name' > "$OUT/cpu"
