#!/usr/bin/env bash
# big.sh — powm rates at larger counts (the tail of a partial last wave), ebits 512
set -u
B=build/s26/base
mkdir -p lib build/tuning generated && cp $B/lib/libmidint.so lib/ && cp $B/measure build/tuning/ && cp $B/variants.txt generated/
M="build/tuning/measure --backend cuda --tuning none"
{ echo "run powm 512 2097152 default 3 ebits=512"; echo "run powm 1024 524288 default 3 ebits=512"
  echo "run powm 2048 131072 default 3 ebits=512"; echo "run powm 4096 32768 default 3 ebits=512"; } | $M 2>&1 | grep "^run" | tee $OUT/big_rates.txt
