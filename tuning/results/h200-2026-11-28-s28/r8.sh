#!/bin/bash
# s28 run 8: divrem and mod at 8192 and 16384 bits (Q 32), lanes in one part (ab1: the session-start code) against two
# parts of 16 words (ab2), alternating
cd build/s28
for t in ab1 ab2 ab1 ab2; do
  echo "== $t"
  { echo "run divrem 8192 262144 default 5"; echo "run mod 8192 262144 default 5"
    echo "run divrem 16384 131072 default 5"; echo "run mod 16384 131072 default 5"
  } | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
