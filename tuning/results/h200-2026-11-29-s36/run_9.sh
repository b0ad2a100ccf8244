#!/bin/bash
# s36 run 9: calls whose width is not the kernel's (runtime n below N: d and x zero-padded to the kernel's words),
# dispatched to the FP64 division's kernels: fin3 (2048, 16384, 32768) at 1984, 2016, 4000, 16352 and 20000-ish bits;
# fin2 (3072, 4096, 8192, 16384) at 2080, 3040, 3104, 5024 bits; every mod pattern, device API
set -u
S=build/s36
run() {
  for b in $2; do
    for op in divrem mod; do
      for p in random zero max one mersenne fermat pow2 near multiple single_bits shared equal mixed; do
        printf "$op $b 300 $p 23 device none\n" | LD_LIBRARY_PATH=$S/$1 timeout 60 $S/$1/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/$1 /"
      done
    done
  done
}
run fin3 "1984 2016 4000 16352 20000"
run fin2 "2080 3040 3104 5024"
