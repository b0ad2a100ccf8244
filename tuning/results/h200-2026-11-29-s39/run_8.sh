#!/bin/bash
# s39 run 8: where one divrem of a 2^27-bit dividend by a 2^26-bit divisor spends its time on the device (issue 25's
# mark: 3 products, today about 8.7): every kernel's duration from Nsight Compute over the measure calls (one warm-up
# and one timed call, the reciprocal recorded and replayed as in the library), summed by kernel family, against the
# call's wall time from CUDA events
set -u
bash build/s39/full/unpack.sh
printf 'time mul 67108864 1 default 5\nrun divrem 67108864 1 default 5 abits=134217728\n' | timeout 120 build/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|^time" | awk '{print $1, $2, $3, $7, $8, $9}'
printf 'run divrem 67108864 1 default 1 abits=134217728\n' | timeout 500 ncu --csv --print-units base --metrics gpu__time_duration.sum build/tuning/measure --backend cuda --tuning none > /tmp/ncu.csv 2>/dev/null
python3 - <<'PY'
import csv, collections, re
rows = [r for r in csv.reader(open('/tmp/ncu.csv')) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
kn, val = hdr.index('Kernel Name'), hdr.index('Metric Value')
tot = collections.Counter(); cnt = collections.Counter()
for r in rows:
    fam = re.sub(r'_u32.*|_\d+$', '', r[kn].split('(')[0])
    tot[fam] += float(r[val].replace(',', '')); cnt[fam] += 1
print('kernels', len(rows), 'total ms', round(sum(tot.values()) / 1e6, 3))
for f, t in tot.most_common(14):
    print(f'{f:40s} {cnt[f]:6d} launches {t / 1e6:8.3f} ms')
PY
