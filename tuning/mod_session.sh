#!/usr/bin/env bash
# mod_session.sh — division and modular arithmetic on a lent GPU: their CUDA tests, then each operation timed against
# the issue's CGBN marks (tuning/measure's run command: device buffers, random inputs, 257 instances checked against
# GMP) and GMP on the host's cores. Run from the repository root after make (SIZES including 256..8192); logs to $OUT.
# Knobs: MOD_STEPS ("tests bench"; "gmp": GMP's mpz on the host's cores, the same inputs; "shared": a shared modulus
# against mul; "cgbn": CGBN's own perf harness on the same card, CGBN_TESTER naming its xmp_tester, built outside this
# tree from NVlabs/CGBN's perf_tests, e.g. `nvcc -O3 -I../include -arch=sm_90 xmp_tester.cu -o xmp_tester
# -Xlinker -Bstatic -lgmp -Xlinker -Bdynamic` where GMP's headers are; never committed), MOD_SIZES, CT_SIZES,
# SHARED_SIZES, CGBN_SIZES, REPS.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
MOD_STEPS=${MOD_STEPS:-"tests bench"}
MOD_SIZES=${MOD_SIZES:-"256 384 512 1024 1536 2048 3072 4096 8192"}
REPS=${REPS:-5}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
has() { case " $MOD_STEPS " in *" $1 "*) return 0;; esac; return 1; }

if has tests; then
  echo "== modular operations: CUDA tests"
  timeout 300 python3 -m pytest -q -p no:cacheprovider -x -k "cuda and (divrem_ or mod_ or mulmod_ or powm_ or gcd_ or \
    modinv_ or _shared_)" tests/test_variants.py 2>&1 | tee "$OUT/pytest_mod.log" | tail -4
fi

# constant time: powm with secret=1 on all-zero against all-one exponents of the same width (CT_SIZES)
CT_SIZES=${CT_SIZES:-"256 1024 2048"}

# instances per call: enough threads to fill the GPU and ~0.1 s of work where the operation is slow; powm's fill
# eight waves or more (at an eighth of this count 2048-bit powm made 1.3 waves and read 4% low, H200,
# results/h200-2026-11-28-s26)
count_for() {   # op bits
  case $1 in
    powm) echo $(( (1 << 31) / ($2 * $2 / 256) )) ;;
    # gcd and modinv: at least 2^17 instances (at 2^30 / (bits^2 / 256) the 4096-bit modinv had 16384, half a wave,
    # and read 8% low: 6.9 against 7.5 M/s, H200, results/h200-2026-11-28-s27)
    gcd|modinv) c=$(( (1 << 30) / ($2 * $2 / 256) )); [ $c -lt 131072 ] && c=131072; [ $c -gt 1048576 ] && c=1048576
                echo $c ;;
    *) echo $(( (1 << 27) / ($2 / 32) / 2 )) ;;
  esac
}

if has bench; then
  echo "== modular operations: M instances/s (CUDA)"
  {
    for b in $MOD_SIZES; do
      c=$(count_for powm $b); [ $c -gt 2097152 ] && c=2097152; [ $c -lt 4096 ] && c=4096
      echo "run powm $b $c default $REPS ebits=512"
      echo "run powm $b $c default $REPS ebits=512,secret=1"
      [ $b -le 3072 ] && echo "run powm $b $c default $REPS ebits=$b"   # above, minutes of work per call
      c=$(count_for gcd $b)
      echo "run gcd $b $c default $REPS"
      echo "run modinv $b $c default $REPS"
      c=$(count_for divrem $b)
      echo "run divrem $b $c default $REPS"
      echo "run mod $b $c default $REPS"
      echo "run mulmod $b $c default $REPS"
      echo "time mul $b $c default $REPS"
    done
    for b in $CT_SIZES; do
      c=$(count_for powm $b); [ $c -gt 1048576 ] && c=1048576; [ $c -lt 4096 ] && c=4096
      for p in zero max zero max; do echo "run powm $b $c default $REPS ebits=$b,secret=1,pattern=$p"; done
    done
  } > "$OUT/mod_cmds.txt"
  timeout 400 build/tuning/measure --backend cuda --tuning none < "$OUT/mod_cmds.txt" 2>&1 | tee "$OUT/mod_bench.log" |
    awk '$1 == "run" || $1 == "time" { ms = $7; printf "%-7s %5s %8s %-38s %10.3f ms %10.2f M/s %s %s\n", $2, $3, $4, $5, ms, (ms > 0 ? $4 / ms / 1000 : 0), $8, $9 }
    $1 == "gmpop" { printf "gmpop %-7s %5s %8s %s threads %10.3f s %s\n", $2, $3, $4, $5, $6, $7 }'
fi

# a shared modulus (midint_modulus_create): mulmod_shared with full-width odd and even moduli (Barrett's reduction) and
# a short odd one (two Montgomery products), powm_shared, against mul and the per-instance rows at 2^27 words per
# operand (the mark: mulmod_shared >= 55% of mul)
SHARED_SIZES=${SHARED_SIZES:-"256 384 512 1024 2048 4096 8192"}
if has shared; then
  echo "== a shared modulus: M instances/s (CUDA)"
  {
    for b in $SHARED_SIZES; do
      c=$(( (1 << 27) / (b / 32) ))
      echo "time mul $b $c default $REPS"
      echo "run mulmod_shared $b $c default $REPS modulus=odd"
      echo "run mulmod_shared $b $c default $REPS modulus=even"
      echo "run mulmod_shared $b $c default $REPS modulus=short"
      echo "run mulmod $b $c default $REPS"
      p=$(count_for powm $b); [ $p -gt 1048576 ] && p=1048576; [ $p -lt 4096 ] && p=4096
      echo "run powm_shared $b $p default $REPS ebits=512,modulus=odd"
      echo "run powm $b $p default $REPS ebits=512"
    done
  } > "$OUT/shared_cmds.txt"
  timeout 500 build/tuning/measure --backend cuda --tuning none < "$OUT/shared_cmds.txt" 2>&1 | tee "$OUT/shared_bench.log" |
    awk '$1 == "run" || $1 == "time" { ms = $7; printf "%-14s %5s %9s %-44s %10.3f ms %10.2f M/s %s %s\n", $2, $3, $4, $5, ms, (ms > 0 ? $4 / ms / 1000 : 0), $8, $9 }'
fi

if has gmp; then
  echo "== modular operations: GMP mpz on $(nproc) host threads"
  {
    for b in $MOD_SIZES; do
      echo "gmpop powm $b 65536 $(nproc) ebits=512"
      echo "gmpop gcd $b 65536 $(nproc)"
      echo "gmpop modinv $b 65536 $(nproc)"
      echo "gmpop divrem $b 262144 $(nproc)"
      echo "gmpop mulmod $b 262144 $(nproc)"
    done
  } > "$OUT/gmp_cmds.txt"
  timeout 300 build/tuning/measure --backend cuda --tuning none < "$OUT/gmp_cmds.txt" 2>&1 | tee "$OUT/gmp.log" |
    awk '$1 == "gmpop" { printf "%-7s %5s %8s on %s threads: %9.3f s %10.3f M/s %s\n", $2, $3, $4, $5, $6, $4 / $6 / 1e6, $7 }'
fi

# CGBN beside midint on the same card: its harness's powm (512-bit exponents, odd modulus), gcd, modinv and div_qr
# (2 bits by bits) at each size, every TPI it supports there; operands in its registers, as the issue's marks
CGBN_SIZES=${CGBN_SIZES:-"256 512 1024 2048 4096"}
if has cgbn; then
  echo "== CGBN's xmp_tester (${CGBN_TESTER:-unset})"
  if [ -x "${CGBN_TESTER:-}" ]; then
    # shellcheck disable=SC2086
    timeout 500 "$CGBN_TESTER" powm_odd gcd modinv div_qr $CGBN_SIZES 2>&1 | tee "$OUT/cgbn.log" | tail -40
  else
    echo "CGBN_TESTER is not an executable: skipped"
  fi
fi
