#!/usr/bin/env bash
# modbig_session.sh — the modular operations at 16384 and 32768 bits (a thread per instance, its arrays in the
# workspace: docs/operations.md, "Sizes") on a lent GPU: their CUDA tests (every op at 8192/16384/32768 and the padded
# sizes between), compute-sanitizer memcheck on one call of each kernel, and timings (tuning/measure: device buffers,
# random inputs, 257 instances checked against GMP). Run from the repository root after a build whose SIZES include
# 8192,16384,32768; logs to $OUT. Knobs: BIG_STEPS ("tests sanitize bench"; one per device call: each may take
# minutes), BIG_SIZES, REPS.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
BIG_STEPS=${BIG_STEPS:-"tests sanitize bench"}
BIG_SIZES=${BIG_SIZES:-"8192 16384 32768"}
REPS=${REPS:-3}
OPS="divrem mod mulmod powm gcd modinv mulmod_shared powm_shared"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
has() { case " $BIG_STEPS " in *" $1 "*) return 0;; esac; return 1; }

if has tests; then
  echo "== CUDA tests at 8192, 16384, 32768 bits"
  timeout 500 python3 -m pytest -q -p no:cacheprovider -k "cuda and (8192 or 16384 or 32768) and (divrem_ or mod_ or \
    mulmod_ or powm_ or gcd_ or modinv_ or _shared_)" tests/test_variants.py --durations=16 2>&1 |
    tee "$OUT/pytest_big.log" | tail -22
fi

if has sanitize; then
  echo "== compute-sanitizer memcheck: one call of 3 instances per kernel at its own size and one word less"
  for b in 16384 32768; do
    for op in $OPS; do
      v=$(awk -v o="$op" -v b="$b" '$2 == o && $3 == b && $7 == "cuda" { print $1 }' generated/variants.txt)
      [ -n "$v" ] || continue
      printf '%s %s 3 mixed 1 host none\n%s %s 3 near 2 device none\n' "$op" "$b" "$op" "$((b - 32))" |
        sed '/^powm/ s/$/ ebits=64/' |
        timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_batch --backend cuda \
          --variant "$v" > "$OUT/memcheck_$v.log" 2>&1
      echo "$v: exit $? $(grep -c '^ok' "$OUT/memcheck_$v.log") ok, $(grep -c 'ERROR SUMMARY: 0' "$OUT/memcheck_$v.log") clean"
    done
  done
fi

if has bench; then
  # counts: one pass of the default 1 GiB workspace at 32768 bits (8456 powm instances), twice that at 16384; powm's
  # exponents short above 8192 bits (a thread per instance: a 512-bit exponent is 655 Montgomery products of 2 M
  # multiply-adds each at 32768 bits, seconds per thread)
  echo "== M instances/s (CUDA)"
  {
    for b in $BIG_SIZES; do
      c=$(( 8192 * 32768 / b )); e=64; [ "$b" -le 8192 ] && e=512
      echo "run powm $b $c default $REPS ebits=$e"
      echo "run powm $b $c default $REPS ebits=$e,secret=1"
      echo "run powm_shared $b $c default $REPS ebits=$e,modulus=odd"
      echo "run gcd $b $c default $REPS"
      echo "run modinv $b $c default $REPS"
      echo "run divrem $b $c default $REPS"
      echo "run mod $b $c default $REPS"
      echo "run mulmod $b $c default $REPS"
      echo "run mulmod_shared $b $c default $REPS modulus=odd"
    done
  } > "$OUT/big_cmds.txt"
  timeout 540 build/tuning/measure --backend cuda --tuning none < "$OUT/big_cmds.txt" 2>&1 | tee "$OUT/big_bench.log" |
    awk '$1 == "run" { ms = $7; printf "%-13s %5s %7s %-34s %11.3f ms %10.4f M/s %s %s\n", $2, $3, $4, $5, ms, (ms > 0 ? $4 / ms / 1000 : 0), $8, $9 }'
fi
