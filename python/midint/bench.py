"""`python -m midint.bench`: throughput through Python for any operation (default mul, mullo, add) at several sizes,
from NumPy arrays
(against the C host call on the same buffers), device arrays (CuPy, or midint.DeviceArray without CuPy; against
the C device call on the same buffers) and lists of Python ints (conversion cost shown separately), with gmpy2
and Python's int on one CPU core beside them when asked. `--convert`: the conversions alone (no library or device),
pure Python and the C extension, against gmpy2 and Python's int multiplying the same lists.

"C host" and "C device" call the library's functions directly through ctypes on the same buffers (one ctypes call,
about a microsecond, over the C function): the rate a C program gets, measured in the same run, so the "% of C"
column is the binding's own cost. Times are medians of --reps calls after one warm-up; device calls are timed with
CUDA events (CuPy) or to midint_synchronize. Every row's result is checked on a sample of instances against
Python's integers (check column)."""

import argparse
import csv
import ctypes
import random
import statistics
import sys
import time

import numpy as np

import midint

from .context import _cupy
from .convert import ints_to_limbs, limbs_to_ints
from .ops import OPS, OUTPUT
from .reference import expected

SHIFT = 37   # the shift count of the shifts' rows (any count costs the same)


def bytes_moved(op, bits):
    """Bytes an instance reads and writes: every buffer of the operation (the GB/s column)."""
    return 4 * sum(p.words(bits) for p in OPS[op].buffers if not (p.optional and p.kind == OUTPUT) and
                   not p.fallback)


def plain(spec):
    """Whether the benchmark's random operands suit the operation: at most two inputs, all of bits bits, with no
    rules (not divrem, mod, mulmod, powm, modinv: their divisors and moduli, widths and flags; not the operations of a
    modulus object, mulmod_shared and powm_shared)."""
    return (len(spec.inputs) <= 2 and not any(p.width_scalar or p.nonzero or p.odd for p in spec.inputs)
            and not any(p.width or p.flag for p in spec.scalars) and not spec.moduli)


def c_args(op, r, a, b):
    """midint_run's buffers (r the first output, a and b the inputs in order, the rest NULL) and scalars (SHIFT)."""
    spec, ins = OPS[op], iter((a, b))
    bufs = [r if p is spec.outputs[0] else next(ins) if p.kind != OUTPUT and p.words_per_n else None
            for p in spec.buffers]
    return ((ctypes.c_void_p * len(bufs))(*bufs),
            (ctypes.c_uint * max(1, len(spec.scalars)))(*[SHIFT for _ in spec.scalars]))


def py_call(ctx, op, a, b, **kw):
    """ctx.<op>(a[, b]) with its scalars at SHIFT."""
    spec = OPS[op]
    return getattr(ctx, spec.method)(*(a, b)[:len(spec.inputs)], **{p.name: SHIFT for p in spec.scalars}, **kw)


def parse_int(s):
    """'2^27', '1<<27' or '134217728'."""
    s = s.strip()
    if "^" in s:
        b, e = s.split("^")
        return int(b) ** int(e)
    if "<<" in s:
        b, e = s.split("<<")
        return int(b) << int(e)
    return int(s)


def median_time(fn, reps, sync=None, events=None):
    """Median seconds of fn() over reps calls after one warm-up. events: a CuPy module (time on its current
    stream with CUDA events); sync: called before stopping a wall-clock timer."""
    fn()
    if sync:
        sync()
    ts = []
    for _ in range(reps):
        if events is not None:
            s, e = events.cuda.Event(), events.cuda.Event()
            s.record()
            fn()
            e.record()
            e.synchronize()
            ts.append(events.cuda.get_elapsed_time(s, e) / 1e3)
        else:
            t = time.perf_counter()
            fn()
            if sync:
                sync()
            ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def reference(op, x, y, bits):
    spec = OPS[op]
    values = dict(zip((p.name for p in spec.inputs), (x, y)))
    values.update({p.name: SHIFT for p in spec.scalars})
    return expected(spec, values, bits)[spec.outputs[0].name]


def to_ints(op, r):
    return limbs_to_ints(r) if r.ndim == 2 else (r.view(np.int32) if OPS[op].outputs[0].signed else r).tolist()


def sample_check(op, a, b, r, bits, k=8):
    """'pass' or 'FAIL': k instances (first, last, random) of host arrays a, b, r against Python's integers."""
    count = a.shape[0]
    idx = sorted({0, count - 1, *random.Random(bits).sample(range(count), min(k, count))})
    xs, ys, rs = limbs_to_ints(a[idx]), limbs_to_ints(b[idx]), to_ints(op, np.asarray(r)[idx])
    return "pass" if all(reference(op, x, y, bits) == z for x, y, z in zip(xs, ys, rs)) else "FAIL"


class Table:
    def __init__(self, csv_path):
        self.rows, self.csv_path = [], csv_path
        print(f"{'op':6} {'bits':>6} {'count':>9}  {'path':24} {'ms':>10} {'M inst/s':>10} {'GB/s':>8} "
              f"{'% of C':>7}  check")

    def add(self, op, bits, count, path, seconds, base=None, check="", note=""):
        rate = count / seconds / 1e6
        gbps = bytes_moved(op, bits) * count / seconds / 1e9
        pct = f"{100 * base / seconds:6.1f}%" if base else ""
        print(f"{op:6} {bits:>6} {count:>9}  {path:24} {seconds * 1e3:10.3f} {rate:10.3f} {gbps:8.2f} {pct:>7}  "
              f"{check}{note}", flush=True)
        self.rows.append(dict(op=op, bits=bits, count=count, path=path, ms=seconds * 1e3, minst_s=rate, gbps=gbps,
                              pct_of_c=pct.strip(), check=check))

    def write(self):
        if self.csv_path and self.rows:
            with open(self.csv_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(self.rows[0]))
                w.writeheader()
                w.writerows(self.rows)
            print(f"\nwrote {self.csv_path}")


def result_shape(op, count, bits):
    p = OPS[op].outputs[0]
    return (count, p.words(bits)) if p.words_per_n else (count,)


def host_rows(ctx, t, op, bits, count, reps, rng):
    w = bits // 32
    a = rng.integers(0, 1 << 32, (count, w), dtype=np.uint32)
    b = rng.integers(0, 1 << 32, (count, w), dtype=np.uint32)
    r = np.empty(result_shape(op, count, bits), np.uint32)
    bufs, scalars = c_args(op, r.ctypes.data, a.ctypes.data, b.ctypes.data)
    c_s = median_time(lambda: ctx._lib.midint_run(ctx._h, OPS[op].code, count, bits, bufs, scalars), reps)
    t.add(op, bits, count, "C host (same buffers)", c_s, check=sample_check(op, a, b, r, bits))
    out = {}
    np_s = median_time(lambda: out.update(r=py_call(ctx, op, a, b)), reps)
    t.add(op, bits, count, "NumPy ctx." + op, np_s, c_s, sample_check(op, a, b, out["r"], bits))
    # into a result array the caller keeps (out=), as the C call above: a fresh result's pages are first touched
    # by the call, and that page-fault cost (tens of ms per GiB) is the operating system's, not the binding's
    r2 = np.empty_like(r)
    out_s = median_time(lambda: py_call(ctx, op, a, b, out=r2), reps)
    t.add(op, bits, count, f"NumPy ctx.{op}(out=)", out_s, c_s, sample_check(op, a, b, r2, bits))
    return c_s


def device_rows(ctx, t, op, bits, count, reps, rng, use_cupy):
    w = bits // 32
    a = rng.integers(0, 1 << 32, (count, w), dtype=np.uint32)
    b = rng.integers(0, 1 << 32, (count, w), dtype=np.uint32)
    cp = _cupy() if use_cupy else None
    if cp is not None:
        da, db, dr = cp.asarray(a), cp.asarray(b), cp.empty(result_shape(op, count, bits), cp.uint32)
        ptr = lambda x: x.data.ptr   # noqa: E731
        stream = lambda: cp.cuda.get_current_stream().ptr or None   # noqa: E731
        timing = dict(events=cp)
        kind, get = "CuPy", cp.asnumpy
    else:
        da, db, dr = ctx.to_device(a), ctx.to_device(b), ctx.empty(result_shape(op, count, bits))
        ptr = lambda x: x.handle   # noqa: E731
        stream = lambda: None   # noqa: E731
        timing = dict(sync=ctx.synchronize)
        kind, get = "DeviceArray", lambda x: x.get()
    bufs, scalars = c_args(op, ptr(dr), ptr(da), ptr(db))
    c_s = median_time(lambda: ctx._lib.midint_run_device(ctx._h, OPS[op].code, count, bits, bufs, scalars, stream()),
                      reps, **timing)
    t.add(op, bits, count, "C device (same buffers)", c_s, check=sample_check(op, a, b, get(dr), bits))
    out = {}
    py_s = median_time(lambda: out.update(r=py_call(ctx, op, da, db)), reps, **timing)
    t.add(op, bits, count, f"{kind} ctx.{op}", py_s, c_s, sample_check(op, a, b, get(out["r"]), bits))


def ints_rows(ctx, t, op, bits, count, reps, rng, gmpy2_too, base_s):
    """Lists of ints: the whole call, and its three parts (conversion in, the call on arrays, conversion out)."""
    pyrng = random.Random(bits)
    a = [pyrng.getrandbits(bits) for _ in range(count)]
    b = [pyrng.getrandbits(bits) for _ in range(count)]
    out = {}
    total = median_time(lambda: out.update(r=py_call(ctx, op, a, b, bits=bits)), reps)
    ok = all(reference(op, x, y, bits) == z for x, y, z in list(zip(a, b, out["r"]))[:64])
    t.add(op, bits, count, f"ints ctx.{op} (total)", total, check="pass" if ok else "FAIL")
    conv_in = median_time(lambda: (ints_to_limbs(a, bits), ints_to_limbs(b, bits)), reps)
    na, nb = ints_to_limbs(a, bits), ints_to_limbs(b, bits)
    call = median_time(lambda: out.update(r=py_call(ctx, op, na, nb)), reps)
    conv_out = median_time(lambda: to_ints(op, out["r"]), reps)
    t.add(op, bits, count, "  ints -> limbs (a and b)", conv_in, note=f"   {1e6 * conv_in / count / 2:.3f} us/int")
    t.add(op, bits, count, "  call on the arrays", call)
    t.add(op, bits, count, "  limbs -> ints (result)", conv_out, note=f"   {1e6 * conv_out / count:.3f} us/int")
    if gmpy2_too and op in CPU_OPS:
        mask = (1 << bits) - 1
        py_op = CPU_OPS[op](mask)
        t.add(op, bits, count, "Python int, 1 core", median_time(lambda: [py_op(x, y) for x, y in zip(a, b)], 3))
        try:
            import gmpy2
        except ImportError:
            print(f"{'':44}(gmpy2 not installed: pip install gmpy2)")
            return
        ga, gb = [gmpy2.mpz(x) for x in a], [gmpy2.mpz(y) for y in b]
        g_op = CPU_OPS[op](gmpy2.mpz(mask))
        t.add(op, bits, count, "gmpy2, 1 core", median_time(lambda: [g_op(x, y) for x, y in zip(ga, gb)], 3))


# The CPU rows' operations as plain arithmetic (the same on Python ints and gmpy2's mpz), for the comparison rows only
CPU_OPS = {"add": lambda m: lambda x, y: (x + y) & m, "sub": lambda m: lambda x, y: (x - y) & m,
           "mul": lambda m: lambda x, y: x * y, "mullo": lambda m: lambda x, y: (x * y) & m,
           "sqr": lambda m: lambda x, y: x * x}


def convert_rows(sizes, words, reps, csv_path):
    """--convert: ns per int of ints -> limbs (bits-bit ints) and limbs -> ints (their 2*bits-bit products, as
    ctx.mul returns them) through each conversion path, the three conversions of a ctx.mul on lists per instance,
    and gmpy2's and Python's products of the same lists on this core, which a ctx.mul on lists should beat."""
    from . import convert
    try:
        import gmpy2
    except ImportError:
        gmpy2 = None
    native = convert._native
    paths = {"pure": None, "C": native} if native is not None else {"pure": None}
    print(f"conversions: {convert.PATH}; {words} words per list; median of {reps}; ns per int" +
          ("" if gmpy2 else " (gmpy2 not installed: pip install gmpy2)"))
    cols = [f"{p} {k}" for p in paths for k in ("to", "from", "conv")] + ["int mul", "gmpy2 mul", "gmpy2/conv"]
    print("to: ints -> limbs per int; from: limbs -> ints per 2*bits product; conv: 2 to + from, the conversions of "
          "one instance\nof ctx.mul on lists; int mul, gmpy2 mul: per product; gmpy2/conv: gmpy2 mul over the fastest "
          "conv (> 1: cheaper)")
    print(f"{'bits':>6} {'count':>7}  " + " ".join(f"{c:>11}" for c in cols))
    rows = []
    for bits in sizes:
        count = max(1, words // (bits // 32))
        rng = random.Random(bits)
        a = [rng.getrandbits(bits) for _ in range(count)]
        b = [rng.getrandbits(bits) for _ in range(count)]
        prods = [x * y for x, y in zip(a, b)]
        r = ints_to_limbs(prods, 2 * bits)
        row = dict(bits=bits, count=count)
        try:
            for name, mod in paths.items():
                convert._native = mod
                assert limbs_to_ints(ints_to_limbs(a, bits)) == a and limbs_to_ints(r) == prods, name
                to = median_time(lambda: ints_to_limbs(a, bits), reps) / count * 1e9
                frm = median_time(lambda: limbs_to_ints(r), reps) / count * 1e9
                row.update({f"{name} to": to, f"{name} from": frm, f"{name} conv": 2 * to + frm})
        finally:
            convert._native = native
        row["int mul"] = median_time(lambda: [x * y for x, y in zip(a, b)], min(reps, 3)) / count * 1e9
        if gmpy2:
            ga, gb = [gmpy2.mpz(x) for x in a], [gmpy2.mpz(y) for y in b]
            row["gmpy2 mul"] = median_time(lambda: [x * y for x, y in zip(ga, gb)], reps) / count * 1e9
            row["gmpy2/conv"] = row["gmpy2 mul"] / min(row[f"{p} conv"] for p in paths)
        print(f"{bits:>6} {count:>7}  " + " ".join(f"{row[c]:>11.1f}" if c in row else f"{'-':>11}" for c in cols),
              flush=True)
        rows.append(row)
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["bits", "count"] + cols)
            w.writeheader()
            w.writerows(rows)
        print(f"\nwrote {csv_path}")
    return 0


def overhead(ctx, reps=2000):
    """Per-call cost of the binding: a bare ctypes call, and the Python wrapper's work on NumPy arrays minus the
    library call it makes (1 instance, so the C side is as short as it gets)."""
    lib, h = ctx._lib, ctx._h
    t0 = time.perf_counter()
    for _ in range(reps):
        lib.midint_max_bits(h, 2)
    bare = (time.perf_counter() - t0) / reps
    bits = min(ctx.max_bits("add"), 512)
    a = np.ones((1, bits // 32), np.uint32)
    r = np.empty_like(a)
    n = max(reps // 10, 20)
    raw, wrapped = [], []
    bufs, scalars = c_args("add", r.ctypes.data, a.ctypes.data, a.ctypes.data)
    code = OPS["add"].code
    for _ in range(n):
        t0 = time.perf_counter()
        lib.midint_run(h, code, 1, bits, bufs, scalars)
        raw.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ctx.add(a, a, out=r)
        wrapped.append(time.perf_counter() - t0)
    print(f"per call: bare ctypes call {bare * 1e6:.2f} us; ctx.add on NumPy arrays {min(wrapped) * 1e6:.1f} us "
          f"against the direct ctypes call {min(raw) * 1e6:.1f} us (1 instance of {bits} bits, fastest of {n}): "
          f"the wrapper adds {(min(wrapped) - min(raw)) * 1e6:.1f} us per call")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m midint.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default=None, choices=("auto", "cuda", "opencl"))
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--ops", default="mul,mullo,add")
    ap.add_argument("--sizes", default=None, help="bits; sizes above the build's largest are skipped (default "
                    "512,4096,65536; with --convert 512,1024,2048,4096,16384,65536)")
    ap.add_argument("--words", default="2^27", help="32-bit words per operand for the NumPy and device rows")
    ap.add_argument("--ints-words", default="2^22", help="words per operand for the list-of-ints rows (Python ints "
                    "take ~10x the memory and seconds to convert; 0: skip)")
    ap.add_argument("--paths", default="host,device,ints", help="which rows: host (NumPy), device (CuPy, else "
                    "midint.DeviceArray), ints")
    ap.add_argument("--no-cupy", action="store_true", help="device rows through midint.DeviceArray even with CuPy")
    ap.add_argument("--cpu", action="store_true", help="also Python int and gmpy2 on one CPU core (ints rows)")
    ap.add_argument("--convert", action="store_true", help="only the conversions between lists of ints and limbs "
                    "(--ints-words per list), pure Python and the C extension, beside gmpy2's and Python's products "
                    "of the same lists; needs no library or device")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--csv", default="", help="write the rows to this CSV file")
    args = ap.parse_args(argv)
    words, iwords = parse_int(args.words), parse_int(args.ints_words)
    if args.convert:
        sizes = args.sizes or "512,1024,2048,4096,16384,65536"
        return convert_rows([int(b) for b in sizes.split(",")], iwords, min(args.reps, 5), args.csv)
    args.sizes = args.sizes or "512,4096,65536"
    paths = set(args.paths.split(","))
    rng = np.random.default_rng(1)
    with midint.Context(args.backend, args.device) as ctx:
        use_cupy = ctx.backend == "cuda" and not args.no_cupy and _cupy() is not None
        print(f"midint {midint.__version__}: {ctx.backend} device {ctx.device}: {ctx.device_name}; "
              f"{ctx.tuning_status}; library {midint.library_path()}")
        print(f"{words} words per operand (ints rows: {iwords}); median of {args.reps}; device rows through "
              f"{'CuPy' if use_cupy else 'midint.DeviceArray'}" +
              ("" if ctx.backend == "cuda" and use_cupy else " (CuPy rows need CUDA and CuPy)"))
        overhead(ctx)
        t = Table(args.csv)
        for op in args.ops.split(","):
            if op in OPS and not plain(OPS[op]):
                print(f"{op:6} skipped: midint.bench times operations on random operands of bits bits; {op}'s have "
                      f"rules or widths of their own (divisors, odd moduli, abits, ebits)")
                continue
            for bits in map(int, args.sizes.split(",")):
                if bits > ctx.max_bits(op):
                    print(f"{op:6} {bits:>6}  skipped: above the largest {op} size of this build "
                          f"({ctx.max_bits(op)} bits)")
                    continue
                count = max(1, words // (bits // 32))
                base = host_rows(ctx, t, op, bits, count, args.reps, rng) if "host" in paths else None
                if "device" in paths:
                    device_rows(ctx, t, op, bits, count, args.reps, rng, use_cupy)
                if "ints" in paths and iwords:
                    ints_rows(ctx, t, op, bits, max(1, iwords // (bits // 32)), min(args.reps, 3), rng, args.cpu,
                              base)
        t.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
