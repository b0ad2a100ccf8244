"""Host-path benchmark (`make bench`, after bench.py): host calls from pageable and page-locked memory.

For add, mul and mullo at a few sizes (2^27 words per operand by default) one synchronous host call is timed on
the wall clock (one warm-up, the median of --reps calls; sampled results checked against GMP), and set against
the page-locked copy ceilings measured in the same run: the copy bound of a call is the larger of its input
bytes over the host-to-device rate and its output bytes over the device-to-host rate, both rates measured with
the two directions running at once. Marks (issue 11): page-locked inputs at >= 85% of the bound, pageable ones at
>= 60%. Then single 4096-bit instances: the latency of one host call (mark: <= 15 us).
"""

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune import ROOT, Measure, read_variants  # noqa: E402
from generator.ops import BY_NAME  # noqa: E402

MARKS = {"pinned": 0.85, "pageable": 0.60}
LATENCY_MARK_US = 15.0


def io_bytes(op, n, count):
    """(input, output) bytes of a host call as measure's `host` command makes it (tuning/measure_host.c): the
    operation's inputs of n words, its outputs with the flag output (carry, borrow) asked for, from its row."""
    words = lambda b: b.words[0] * n + b.words[1]   # noqa: E731
    row = BY_NAME[op]
    return (4 * count * sum(words(b) for b in row.inputs if b.width == "n"),
            4 * count * sum(words(b) for b in row.outputs))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl"))
    ap.add_argument("--ops", default="add,mul,mullo")
    ap.add_argument("--sizes", default="512,4096,65536,262144", help="sizes in bits (those generated are run)")
    ap.add_argument("--words", type=int, default=1 << 27, help="32-bit words per operand (default 2^27)")
    ap.add_argument("--mem", default="pageable,pinned")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--latency", default="add:4096,mullo:4096", help="op:bits timed as one instance ('' for none)")
    ap.add_argument("--latency-reps", type=int, default=500)
    ap.add_argument("--copy-bytes", type=int, default=64 << 20)
    ap.add_argument("--tuning", default="")
    ap.add_argument("--out", default=str(ROOT / "out" / "bench_host"), help="prefix of the CSV files")
    args = ap.parse_args(argv)

    gen = {}
    for v in read_variants():
        if v.backend == args.backend:
            gen[v.op] = max(gen.get(v.op, 0), v.bits)
    m = Measure(args.backend, tuning=args.tuning or "")
    f = m.ask(f"hostcopy {args.copy_bytes} 10")
    if f[2] == "error":
        sys.exit(f"bench_host: the copy ceilings could not be measured: {' '.join(f)}")
    h2d, d2h, h2d_both, d2h_both, both = (float(x) for x in f[2:7])
    print(f"bench_host: {m.header['device']}; dispatch: {m.header['tuning']}; {args.words} words per operand; "
          f"page-locked copies GB/s: H2D {h2d:.1f}, D2H {d2h:.1f}; both at once {h2d_both:.1f} + {d2h_both:.1f} "
          f"({both:.1f} together)")
    print(f"{'op':6} {'bits':>7} {'count':>9} {'memory':9} {'ms':>9} {'GB/s':>7} {'M inst/s':>10} {'bound ms':>9} "
          f"{'of bound':>8} {'mark':>5}  {'variant':34} check")
    rows = []
    for op in [o for o in args.ops.split(",") if o]:
        for bits in [int(s) for s in args.sizes.split(",") if s]:
            if bits > gen.get(op, 0):
                print(f"{op:6} {bits:7d}  not generated (largest {op}: {gen.get(op, 0)} bits)")
                continue
            n = bits // 32
            count = max(1, args.words // n)
            in_bytes, out_bytes = io_bytes(op, n, count)
            bound_ms = max(in_bytes / h2d_both, out_bytes / d2h_both) / 1e6
            for mem in [x for x in args.mem.split(",") if x]:
                f = m.ask(f"host {op} {bits} {count} {mem} {args.reps}")
                if f[5] != "ok":
                    print(f"{op:6} {bits:7d} {count:9d} {mem:9} failed: {' '.join(f[7:])}")
                    continue
                ms = float(f[6])
                frac = bound_ms / ms
                row = dict(op=op, bits=bits, count=count, memory=mem, median_ms=ms,
                           gbps=(in_bytes + out_bytes) / ms / 1e6, minst_per_s=count / ms / 1e3, bound_ms=bound_ms,
                           of_bound=frac, mark=MARKS[mem], met=frac >= MARKS[mem], variant=f[8], check=f[7],
                           h2d_both_gbps=h2d_both, d2h_both_gbps=d2h_both)
                rows.append(row)
                print(f"{op:6} {bits:7d} {count:9d} {mem:9} {ms:9.3f} {row['gbps']:7.1f} {row['minst_per_s']:10.2f} "
                      f"{bound_ms:9.3f} {frac:8.0%} {'met' if row['met'] else 'no':>5}  {f[8]:34} {f[7]}", flush=True)
    lat = []
    pairs = [(p.split(":")[0], int(p.split(":")[1])) for p in args.latency.split(",") if p]
    if pairs:
        print(f"\none instance per host call (median of {args.latency_reps}), mark <= {LATENCY_MARK_US:.0f} us")
    for op, bits in pairs:
        for mem in [x for x in args.mem.split(",") if x]:
            f = m.ask(f"host {op} {bits} 1 {mem} {args.latency_reps}")
            if f[5] != "ok":
                print(f"{op:6} {bits:7d} {mem:9} failed: {' '.join(f[7:])}")
                continue
            us = 1e3 * float(f[6])
            lat.append(dict(op=op, bits=bits, memory=mem, median_us=us, met=us <= LATENCY_MARK_US, variant=f[8],
                            check=f[7]))
            print(f"{op:6} {bits:7d} {mem:9} {us:8.1f} us {'met' if us <= LATENCY_MARK_US else 'no':>5}  {f[8]} {f[7]}")
    m.close()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for path, table in ((f"{out}.csv", rows), (f"{out}_latency.csv", lat)):
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(table[0]) if table else ["op"])
            w.writeheader()
            w.writerows(table)
    print(f"bench_host: wrote {out}.csv and {out}_latency.csv")
    return 0 if all(r["check"] == "pass" for r in rows + lat) else 1


if __name__ == "__main__":
    sys.exit(main())
