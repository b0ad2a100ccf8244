"""Benchmark users can run (`make bench`): the dispatched variant of every op and size against GMP on all cores.

Prints a table, writes a CSV and, when matplotlib is installed, a log-log PNG of throughput against size. Then
single instances of large sizes (one product of 2^20..2^29 bits, one addition of 2^30 bits) against GMP on one
host core: a second table and CSV (`<out>_single.csv`). Division and modular arithmetic get a table of their own
(`<out>_mod.csv`): powm with 512-bit and full-width exponents, divrem of a 2 bits dividend (above the division
kernels, at mul's generated sizes: the division of large numbers), against GMP's mpz.
GPU side: backend events, one warm-up, the median of --reps launches, random operands, results checked against
GMP on 257 instances. CPU side: GMP's mpn functions over the same batch on every host core (tuning/measure.c's
table: mullo uses mpn_mul_n, GMP has no public low-half product; sqr mpn_sqr; the shifts mpn_lshift / mpn_rshift;
cmp mpn_cmp). GB/s count every buffer a call reads and writes. A device-to-device copy is timed in the same run.
"""

import argparse
import csv
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune import ROOT, Measure, read_variants  # noqa: E402
from generator.ops import BY_NAME, OPERATIONS, WIDTHS  # noqa: E402
from generator.space import MOD_PRIVATE_MAX_BITS  # noqa: E402


def bytes_moved(op, bits):
    """Bytes an instance reads and writes: the operation's buffers that a call always has (add: a, b, r; mul: a, b and
    the 2n-word r; cmp: a, b and a word), from its row of the table; the GB/s column counts them."""
    words = [WIDTHS[b.width] for b in BY_NAME[op].buffers if not b.optional]
    return 4 * sum(per_n * (bits // 32) + fixed for per_n, fixed in words)


def expr_table(m, args):
    """Each generated expression at each size generated for it: the fused kernel (the dispatched variant) next to the
    same program through separate midint calls (`chain`), in million instances/s; GB/s count the operand-sized
    transfers one read of the inputs and one write of the outputs make (six: 3 x operand bytes, like add)."""
    exprs = [e for e in args.exprs.split(",") if e] if args.exprs != "all" else sorted(
        {v.op for v in read_variants() if v.backend == args.backend and v.op.startswith("expr_")})
    if not exprs:
        return []
    print(f"\nfused expressions ({args.reps} launches, median), {args.words} words per operand; separate calls: "
          "the same program as one midint call per step")
    print(f"{'expr':10} {'bits':>7} {'count':>9}  {'variant':40} {'ms':>9} {'M inst/s':>10} {'GB/s':>8} "
          f"{'sep. ms':>9} {'sep. M/s':>9} {'x sep.':>7} check")
    rows = []
    for op in exprs:
        sizes = sorted({v.bits for v in read_variants() if v.backend == args.backend and v.op == op})
        io = EXPR_IO.get(op[len("expr_"):], 3)
        for bits in [int(s) for s in args.sizes.split(",") if s and s != "none"] or sizes:
            count = max(1, args.words // (bits // 32))
            name, ms, passed, msg = m.time(op, bits, count, "default", args.reps)
            if ms is None:
                print(f"{op[5:]:10} {bits:7d} {count:9d}  failed: {msg}")
                continue
            chain = m.ask(f"chain {op} {bits} {count} {args.reps}")
            chain_ms = float(chain[6]) if len(chain) > 7 and chain[5] == "ok" else float("nan")
            chain_ok = len(chain) > 7 and chain[7] == "pass"
            minst, chain_minst = count / ms / 1e3, count / chain_ms / 1e3
            row = dict(expr=op[5:], bits=bits, count=count, variant=name, median_ms=ms, minst_per_s=minst,
                       gbps=io * count * bits / 8 / ms / 1e6, separate_ms=chain_ms, separate_minst_per_s=chain_minst,
                       speedup=chain_ms / ms, check="pass" if passed and chain_ok else "FAIL")
            rows.append(row)
            print(f"{op[5:]:10} {bits:7d} {count:9d}  {name:40} {ms:9.4f} {minst:10.2f} {row['gbps']:8.1f} "
                  f"{chain_ms:9.4f} {chain_minst:9.2f} {row['speedup']:7.2f} {row['check']}", flush=True)
    return rows


def is_modular(op):
    """Division and modular arithmetic: their inputs (divisors, moduli, exponents) and scalars come through the
    descriptor (measure's run command), their CPU column from GMP's mpz functions (gmpop)."""
    return BY_NAME[op].modular


# Per modular operation, the argument sets of its rows: powm with 512-bit exponents (NVIDIA CGBN's benchmark) and with
# exponents as wide as the modulus ("full"); divrem and mod divide a 2 bits dividend (their default) by bits;
# mulmod_shared with an odd and with an even modulus object (from 1024 bits odd ones run on lanes, even ones not).
MOD_ROWS = {"powm": ("ebits=512", "full"), "powm_shared": ("ebits=512", "full"),
            "mulmod_shared": ("modulus=odd", "modulus=even")}
MOD_EXP_OPS = ("powm", "powm_shared")
# Instances per row: the batch of --words words per operand, but at most MOD_WORK word products (a thread per
# instance: powm costs about 1.25 ebits words^2, gcd and modinv about 2 bits words, divrem 2 words^2), at least
# MOD_MIN_COUNT (two instances per thread of the GPU).
MOD_WORK = 1 << 37
MOD_MIN_COUNT = 1 << 19
# Above MOD_PRIVATE_MAX_BITS (a thread per instance, its arrays in the workspace: exact, not fast) powm's rows take
# MOD_BIG_EXP-bit exponents (a 512-bit one is 655 Montgomery products of 2 M multiply-adds at 32768 bits, seconds per
# thread; a full-width one minutes) and every row at most MOD_BIG_COUNT instances (a pass of a 1 GiB
# workspace at 32768 bits)
MOD_BIG_EXP = 64
MOD_BIG_COUNT = 8192


def mod_cost(op, bits, ebits):
    w = bits // 32
    return {"powm": 1.25 * ebits * w * w, "gcd": 2 * bits * w, "modinv": 4 * bits * w}.get(op.removesuffix("_shared"),
                                                                                            2 * w * w)


def division_sizes(backend, op, own):
    """divrem and mod: their kernels' sizes, then mul's generated sizes up to the largest divisor the division of
    large numbers takes (runtime/bigdiv.c: mul's largest size, and a third of the shifts')."""
    sizes = {}
    for v in read_variants():
        if v.backend == backend:
            sizes.setdefault(v.op, set()).add(v.bits)
    top = min(max(sizes.get("mul", {0})), max(sizes.get("shl", {0})) // 3)
    return own + sorted(b for b in sizes.get("mul", ()) if max(own, default=0) < b <= top)


def mod_table(m, ops, gen, asked, args):
    """The modular operations: one row per argument set, million instances/s against GMP's mpz on every core."""
    mod_ops = [op for op in ops if is_modular(op)]
    if not mod_ops:
        return []
    print(f"\ndivision and modular arithmetic ({args.reps} launches, median), GMP's mpz on {args.threads} threads")
    print(f"{'op':7} {'bits':>6} {'args':11} {'count':>9}  {'variant':34} {'ms':>10} {'M inst/s':>10} "
          f"{'GMP M/s':>9} {'x GMP':>8} check")
    rows = []
    for op in mod_ops:
        for bits in asked or (division_sizes(args.backend, op, gen[op]) if op in ("divrem", "mod") else gen[op]):
            big = bits > MOD_PRIVATE_MAX_BITS
            rows_args = (f"ebits={MOD_BIG_EXP}",) if big and op in MOD_EXP_OPS else MOD_ROWS.get(op, ("",))
            for a in dict.fromkeys(f"ebits={bits}" if a == "full" else a for a in rows_args):
                ebits = int(a.split("=")[1]) if a.startswith("ebits=") else bits
                count = max(1, min(args.words // (bits // 32), max(MOD_MIN_COUNT,
                                                                   int(MOD_WORK // mod_cost(op, bits, ebits)))))
                count = min(count, MOD_BIG_COUNT) if big else count
                f = m.ask(f"run {op} {bits} {count} default {args.reps} {a}".rstrip())
                if f[5] != "ok":
                    print(f"{op:7} {bits:6d} {a:11} {count:9d}  failed: {' '.join(f[8:])}")
                    continue
                ms, name = float(f[6]), f[4]
                gcount = max(1, min(count, 1 << 14))   # GMP on a sample of the batch
                g = m.ask(f"gmpop {op} {bits} {gcount} {args.threads} {a}".rstrip())
                minst = count / ms / 1e3
                gmp_minst = gcount / float(g[5]) / 1e6 if g[5] != "none" else float("nan")
                rows.append(dict(op=op, bits=bits, args=a, count=count, variant=name, median_ms=ms, minst_per_s=minst,
                                 gmp_minst_per_s=gmp_minst, speedup=minst / gmp_minst,
                                 check="pass" if f[7] == "pass" else "FAIL"))
                print(f"{op:7} {bits:6d} {a:11} {count:9d}  {name:34} {ms:10.4f} {minst:10.3f} {gmp_minst:9.3f} "
                      f"{minst / gmp_minst:8.1f} {rows[-1]['check']}", flush=True)
    return rows


# operand-sized transfers per instance of the shipped expressions (inputs read + outputs written)
EXPR_IO = {"six": 3, "poly": 3}
# single instances: the products of the marks, and one addition of 128 MiB operands; random operands, and
# ":PATTERN" (the test drivers' shapes) for carries that cross every tile: all-ones sums and differences, the
# product of all-ones operands (grid fix-ups rewrite whole tiles there: tuning/RESULTS.md, twenty-third session)
SINGLE = tuple(f"mul:{1 << e}" for e in (20, 22, 24, 26, 27, 29)) + (
    f"mullo:{1 << 24}", f"add:{1 << 30}", f"sub:{1 << 30}", f"add:{1 << 30}:ones_plus_one",
    f"sub:{1 << 30}:zero_minus_one", f"add:{1 << 30}:breaks", f"mul:{1 << 26}:max")


def single_table(m, args):
    """One instance per call, timed like the batches, against GMP's mpn on one host core."""
    cases = [(f[0], int(f[1]), f[2] if len(f) > 2 else "random") for f in (p.split(":") for p in args.single.split(","))
             if f[0]]
    if not cases:
        return []
    print(f"\nsingle instances ({args.reps} launches, median), GMP on one core")
    print(f"{'op':6} {'bits':>10} {'operands':14} {'variant':40} {'ms':>9} {'GB/s':>8} {'GMP ms':>9} {'x GMP':>7} "
          "check")
    rows = []
    for op, bits, pattern in cases:
        if pattern == "random":
            name, ms, passed, msg = m.time(op, bits, 1, "default", args.reps)
        else:
            f = m.ask(f"run {op} {bits} 1 default {args.reps} pattern={pattern}")
            name, ms, passed, msg = f[4], float(f[6]) if f[5] == "ok" else None, f[7] == "pass", " ".join(f[8:])
        if ms is None:
            print(f"{op:6} {bits:10d} {pattern:14} failed: {msg}")
            continue
        gmp_ms = 1e3 * float(m.ask(f"gmp {op} {bits} 1 1")[5])
        gbps = bytes_moved(op, bits) / ms / 1e6
        rows.append(dict(op=op, bits=bits, operands=pattern, variant=name, median_ms=ms, gbps=gbps, gmp_ms=gmp_ms,
                         speedup=gmp_ms / ms, check="pass" if passed else "FAIL"))
        print(f"{op:6} {bits:10d} {pattern:14} {name:40} {ms:9.4f} {gbps:8.1f} {gmp_ms:9.2f} {gmp_ms / ms:7.1f} "
              f"{rows[-1]['check']}", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl"))
    ap.add_argument("--ops", default=",".join(op.name for op in OPERATIONS), help="operations (default: every "
                    "operation of the table, generator/ops.py)")
    ap.add_argument("--sizes", default="", help="comma-separated sizes in bits (default: every generated size; "
                    "'none': only the single instances)")
    ap.add_argument("--words", type=int, default=1 << 27, help="32-bit words per operand (default 2^27)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="host threads for GMP")
    ap.add_argument("--tuning", default="", help="tuned table to use ('none': the default rule; default: what "
                    "the library finds for this device)")
    ap.add_argument("--out", default=str(ROOT / "out" / "bench"), help="prefix of the CSV and PNG files")
    ap.add_argument("--single", default=",".join(SINGLE),
                    help="op:bits or op:bits:PATTERN (the test drivers' operand shapes) timed as one instance against "
                    "GMP on one core ('' for none)")
    ap.add_argument("--exprs", default="all", help="expressions to time, fused and as separate calls (expr_NAME,...; "
                    "default all generated; '' for none): a third table and <out>_expr.csv")
    args = ap.parse_args(argv)

    ops = [o for o in args.ops.split(",") if o]
    # by default each operation at the sizes generated for it (add and sub go further than the products)
    gen = {op: sorted({v.bits for v in read_variants() if v.backend == args.backend and v.op == op}) for op in ops}
    asked = [] if args.sizes == "none" else [int(s) for s in args.sizes.split(",") if s]
    m = Measure(args.backend, tuning=args.tuning or "")
    copy = m.ask(f"copy {args.words} {args.reps}")
    copy_gbps = float(copy[3]) if len(copy) > 3 else float("nan")
    print(f"bench: {m.header['device']}; dispatch: {m.header['tuning']}; {args.words} words per operand; "
          f"copy {copy_gbps:.1f} GB/s; GMP on {args.threads} threads")
    print(f"{'op':6} {'bits':>7} {'count':>9}  {'variant':34} {'ms':>9} {'GB/s':>8} {'M inst/s':>10} "
          f"{'GMP M/s':>9} {'x GMP':>8} check")
    rows = []
    for op in (op for op in ops if not is_modular(op)):
        for bits in asked or ([] if args.sizes == "none" else gen[op]):
            count = max(1, args.words // (bits // 32))
            name, ms, passed, msg = m.time(op, bits, count, "default", args.reps)
            if ms is None:
                print(f"{op:6} {bits:7d} {count:9d}  failed: {msg}")
                continue
            gmp_s = float(m.ask(f"gmp {op} {bits} {count} {args.threads}")[5])
            minst, gmp_minst = count / ms / 1e3, count / gmp_s / 1e6
            gbps = bytes_moved(op, bits) * count / ms / 1e6
            row = dict(op=op, bits=bits, count=count, variant=name, median_ms=ms, gbps=gbps, minst_per_s=minst,
                       gmp_minst_per_s=gmp_minst, speedup=minst / gmp_minst, copy_gbps=copy_gbps,
                       check="pass" if passed else "FAIL")
            rows.append(row)
            print(f"{op:6} {bits:7d} {count:9d}  {name:34} {ms:9.4f} {gbps:8.1f} {minst:10.2f} {gmp_minst:9.2f} "
                  f"{minst / gmp_minst:8.1f} {row['check']}", flush=True)
    mods = mod_table(m, ops, gen, [] if args.sizes == "none" else asked, args) if args.sizes != "none" else []
    single = single_table(m, args)
    exprs = expr_table(m, args)
    m.close()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for path, table in ((f"{out}.csv", rows), (f"{out}_single.csv", single), (f"{out}_expr.csv", exprs),
                        (f"{out}_mod.csv", mods)):
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0]) if table else ["op"])
            w.writeheader()
            w.writerows(table)
    passed = all(r["check"] == "pass" for r in rows + single + exprs + mods)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"bench: wrote {out}.csv, {out}_single.csv (no PNG: matplotlib is not installed)")
        return 0 if passed else 1
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for op in ops:
        pts = [r for r in rows if r["op"] == op]
        if pts:
            ax.plot([r["bits"] for r in pts], [r["minst_per_s"] for r in pts], "o-", label=f"midint {op}")
            ax.plot([r["bits"] for r in pts], [r["gmp_minst_per_s"] for r in pts], "x--", alpha=0.6,
                    label=f"GMP {op} ({args.threads} threads)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bits per integer")
    ax.set_ylabel("million instances / s")
    ax.set_title(m.header["device"], fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}.png", dpi=120)
    print(f"bench: wrote {out}.csv, {out}_single.csv and {out}.png")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
