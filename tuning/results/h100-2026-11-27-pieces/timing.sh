#!/bin/bash
# session script kept as the record; run from the repository root on the GPU machine with lib/ and build/ carried
# timings: mul before (oldlib: a044a40) and after, products in pieces, large divisions; GMP beside
M="build/tuning/measure --backend cuda --tuning none"
base='time mul 1048576 64 default 20
time mul 16777216 4 default 10
time mul 67108864 1 default 10
time mul 134217728 1 default 10
time sqr 134217728 1 default 10'
for round in 1 2; do
echo "== old round $round"; printf '%s\n' "$base" | LD_LIBRARY_PATH=oldlib timeout 100 $M 2>&1 | grep "^time"
echo "== new round $round"; printf '%s\n' "$base" | timeout 100 $M 2>&1 | grep "^time"
done
echo "== pieces"
printf '%s\n' 'time mul 268435456 1 default 10' 'time sqr 268435456 1 default 10' 'time mullo 268435456 1 default 10' \
  'time mul 536870912 1 default 10' 'time sqr 536870912 1 default 10' 'time mullo 536870912 1 default 5' \
  'time mul 1073741824 1 default 5' | timeout 200 $M 2>&1 | grep "^time\|rror"
echo "== division"
printf '%s\n' 'run divrem 134217728 1 default 3 abits=268435456' 'run divrem 268435456 1 default 3 abits=536870912' \
  'run divrem 536870912 1 default 2 abits=1073741824' 'run mod 536870912 1 default 2 abits=1073741824' | timeout 200 $M 2>&1 | grep "^run\|rror"
