"""Time every variant of some operations and sizes at one batch size, and report the best per algorithm.

Classical, NTT and grid multiplication side by side, in one run on one device: for each (op, size), every
generated variant is timed on the same operands (2^27 words per operand by default, or --count instances), checked
against GMP, and the best of each algorithm (classical, each NTT prime set and digit size, one-block or grid) is
printed in million instances per second. Writes every measurement to a CSV.
"""

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune import Measure, algorithm, read_variants  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl"))
    ap.add_argument("--ops", default="mul,mullo")
    ap.add_argument("--sizes", default="4096,8192,16384,32768,65536,131072,262144")
    ap.add_argument("--words", type=int, default=1 << 27, help="32-bit words per operand")
    ap.add_argument("--count", type=int, default=0, help="instances per batch instead of --words (e.g. 1)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args(argv)

    ops = [o for o in args.ops.split(",") if o]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    variants = read_variants()
    m = Measure(args.backend)
    print(f"compare: {m.header['device']}; {args.words} words per operand; median of {args.reps}")
    rows, best = [], {}
    for op in ops:
        for bits in sizes:
            count = args.count or max(1, args.words // (bits // 32))
            for v in (v for v in variants if v.backend == args.backend and v.op == op and v.bits == bits):
                name, ms, passed, msg = m.time(op, bits, count, v.name, args.reps)
                status = "ok" if ms is not None and passed else "error" if ms is None else "WRONG"
                minst = count / ms / 1e3 if ms else 0.0
                rows.append(dict(op=op, bits=bits, count=count, variant=name, algorithm=algorithm(v),
                                 median_ms=ms if ms is not None else "", minst_per_s=minst, status=status))
                print(f"  {op} {bits} x{count} {name}: " + (f"{ms:.3f} ms {minst:.3f} M/s" if ms else "failed")
                      + ("" if status == "ok" else f"  {status} {msg}"), flush=True)
                key = (op, bits, algorithm(v))
                if status == "ok" and minst > best.get(key, (0.0, ""))[0]:
                    best[key] = (minst, name)
    m.close()
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["op"])
        w.writeheader()
        w.writerows(rows)
    algos = sorted({k[2] for k in best})
    print(f"\nbest million instances/s ({args.words} words per operand)")
    print(f"{'op':6} {'bits':>7} " + " ".join(f"{a:>12}" for a in algos) + "  fastest")
    for op in ops:
        for bits in sizes:
            vals = {a: best.get((op, bits, a), (0.0, "")) for a in algos}
            top = max(vals.items(), key=lambda kv: kv[1][0])
            print(f"{op:6} {bits:7d} " + " ".join(f"{vals[a][0]:12.3f}" for a in algos) + f"  {top[1][1]}")
    wrong = [r for r in rows if r["status"] != "ok"]
    for r in wrong:
        print(f"NOT OK: {r['variant']} {r['status']}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
