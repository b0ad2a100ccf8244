#!/bin/bash
# untracked session script: where bigdiv's time goes (divrem of 2 n by n words; products for scale)
nvidia-smi --query-gpu=name --format=csv,noheader
M="build/tuning/measure --backend cuda --tuning none"
printf 'time mul 33554432 1 default 5\ntime mul 67108864 1 default 5\ntime mul 134217728 1 default 5\nrun divrem 33554432 1 default 5 abits=67108864\nrun divrem 33554432 2 default 5 abits=100663296\nrun divrem 67108864 1 default 5 abits=134217728\nrun divrem 268435456 1 default 3 abits=536870912\nrun divrem 1048576 1 default 5 abits=2097152\nrun divrem 65536 1 default 5 abits=131072\n' | timeout 200 $M 2>&1 | grep -v "^registry\|^tuning"
echo "== ncu per kernel: divrem 2^25 / 2^26, one call"
printf 'run divrem 33554432 1 default 1 abits=67108864\n' > /tmp/c.txt
timeout 300 ncu --metrics gpu__time_duration.sum --print-summary per-kernel $M < /tmp/c.txt > /tmp/ncu.txt 2>&1
grep -c "" /tmp/ncu.txt
python3 - <<'PY'
import re
txt = open("/tmp/ncu.txt").read()
# per-kernel summary blocks: name line, then "gpu__time_duration.sum  usecond  min max avg" ... with invocation count
rows = []
for m in re.finditer(r"\n\s*(\S[^\n]*?)\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)[^\n]*\n[^\n]*Invocations\s+(\d+)[\s\S]*?gpu__time_duration.sum\s+(\w+)\s+([\d.,]+)\s+([\d.,]+)\s+([\d.,]+)", txt):
    name, inv, unit, mn, mx, avg = m.groups()
    f = {"nsecond": 1e-3, "usecond": 1, "msecond": 1e3}.get(unit, 1)
    rows.append((float(avg.replace(",", "")) * f * int(inv), int(inv), name[:90]))
rows.sort(reverse=True)
print("kernels:", sum(r[1] for r in rows), "total us:", round(sum(r[0] for r in rows), 1))
for r in rows[:30]:
    print(f"{r[0]:10.1f} us {r[1]:5d}x  {r[2]}")
PY
tail -5 /tmp/ncu.txt
