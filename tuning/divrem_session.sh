#!/usr/bin/env bash
# divrem_session.sh — divrem and mod (2 bits dividend by bits) timed on a lent GPU for one or more builds in the same
# call, so that a change is compared with its baseline on the same card (tuning/measure's run command: device buffers,
# random inputs, 257 instances checked against GMP; 2^27 dividend words a call, as tuning/mod_session.sh).
# BUILDS: build roots, each with lib/libmidint.so and build/tuning/measure (default "."); SIZES, OPS, REPS, BACKEND.
# Baseline: check out the parent commit elsewhere, `make gen SIZES=... GENFLAGS="--ops divrem,mod,mulmod" && make all`
# there, copy its lib/ and build/tuning/ under base/ here (measure finds ../../lib through its rpath), carry both.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
BUILDS=${BUILDS:-.}
SIZES=${SIZES:-"256 512 1024 2048"}
OPS=${OPS:-"divrem mod"}
REPS=${REPS:-10}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | tee "$OUT/gpu.txt"
for b in $SIZES; do
  for op in $OPS; do echo "run $op $b $(( (1 << 27) / (b / 32) / 2 )) default $REPS"; done
done > "$OUT/divrem_cmds.txt"
for root in $BUILDS; do
  tag=$(basename "$(cd "$root" && pwd)")
  echo "== $root"
  timeout 250 "$root/build/tuning/measure" --backend ${BACKEND:-cuda} --tuning none < "$OUT/divrem_cmds.txt" 2>&1 |
    tee "$OUT/divrem_$tag.log" |
    awk '$1 == "run" { printf "%-7s %5s %8s %-34s %9.3f ms %9.1f M/s %s\n", $2, $3, $4, $5, $7, $4 / $7 / 1000, $8 }'
done
