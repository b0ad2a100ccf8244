#!/bin/bash
# session script kept as the record: compute-sanitizer on the pieces' row kernels (fb9, the landed code), then fb7 against
# fb9 on batch GCD (2^16, 2^20 moduli) and the divisions of the marks
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd build/s24 && for b in fb7 fb9; do tar xJf $b.tar.xz; done && cd ../..
mkdir -p lib build/tests build/examples && cp build/s24/fb9/lib/libmidint.so lib/ && cp build/s24/fb9/tests/* build/tests/ && cp build/s24/fb9/examples/* build/examples/ && cp build/s24/fb9/variants.txt generated/
cases='mul 65536 2 max 1 device none
sqr 131072 1 random 2 device none
mullo 131072 2 mixed 3 host none
mullo 98304 2 max 4 device none
mul 98304 1 runs 5 host none'
for tool in memcheck racecheck; do
  echo "== $tool"
  printf '%s\n' "$cases" | MIDINT_TEST_NTT_PIECE=700 timeout 200 compute-sanitizer --tool $tool build/tests/check_batch --backend cuda > /tmp/san.txt 2>&1
  grep -v "^ok" /tmp/san.txt | tail -4; grep -c "^ok" /tmp/san.txt
done
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2; do for B in fb7 fb9; do echo "== $B round $r"
  for i in 1 2 3; do build/s24/$B/bg_cmp - 65536; done
  build/s24/$B/bg_cmp - 1048576
  printf 'run divrem 67108864 1 default 5 abits=134217728\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 100 $M 2>&1 | grep "^run"
done; done
for B in fb7 fb9; do echo "== $B divrem 2^30 / 2^29"
printf 'run divrem 536870912 1 default 1 abits=1073741824\n' | LD_LIBRARY_PATH=$PWD/build/s24/$B/lib timeout 150 $M 2>&1 | grep "^run"; done
