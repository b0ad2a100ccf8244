#!/bin/bash
# s28 run 10: powm's constant-time window select (16 entries through masks) unrolled (new) against the loop (prev)
cd build/s28
for t in prev new prev new; do
  echo "== $t"
  { echo "run powm 1024 524288 default 3 ebits=1024,secret=1"
    echo "run powm 1024 524288 default 3 ebits=1024"
    echo "run powm 2048 131072 default 3 ebits=512,secret=1"
    echo "run powm 2048 131072 default 3 ebits=512"
  } | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
