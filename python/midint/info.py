"""`python -m midint.info`: the library, the backends and devices found, the tuned table in use, the generated sizes
and which variant dispatch picks for each operation and size."""

import argparse
import sys

import midint

from ._errors import MidintError
from .context import OPS


def backends_found():
    """{backend: device name or why it cannot run}, opening device 0 of each."""
    out = {}
    for b in ("cuda", "opencl"):
        try:
            with midint.Context(b) as c:
                out[b] = c.device_name
        except MidintError as e:
            out[b] = f"unavailable ({e.status}: {e.message})"
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m midint.info", description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default=None, choices=("auto", "cuda", "opencl"), help="default: CUDA, else OpenCL")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--words", type=int, default=1 << 27,
                    help="32-bit words per operand for the dispatch table (count = words / (bits/32); default 2^27)")
    ap.add_argument("--variants", action="store_true", help="list every generated variant of the context's backend")
    args = ap.parse_args(argv)

    print(f"midint {midint.__version__} (package {midint.__file__.rsplit('/', 1)[0]})")
    print(f"library   {midint.library_path()}")
    print(f"registry  {midint.registry_id()} ({len(midint.variants())} variants)")
    for b, what in backends_found().items():
        print(f"{b:9} {what}")
    try:
        ctx = midint.Context(args.backend, args.device)
    except MidintError as e:
        print(f"no context: {e}")
        return 1
    with ctx:
        print(f"context   {ctx.backend} device {ctx.device}: {ctx.device_name}")
        print(f"tuning    {ctx.tuning_status}")
        sizes = midint.generated_sizes(ctx.backend)
        print(f"\ngenerated sizes ({ctx.backend}; any multiple of 32 up to the largest works):")
        for op in OPS:
            print(f"  {op:6} up to {ctx.max_bits(op):>10} bits: {' '.join(map(str, sizes.get(op, [])))}")
        for name, e in ctx.expressions().items():
            print(f"  expr {name}({', '.join(e.inputs)}) -> {', '.join(e.outputs)}: "
                  f"{' '.join(map(str, sizes.get('expr_' + name, [])))}")
        print(f"\ndispatch at {args.words} words per operand:")
        print(f"  {'op':6} {'bits':>10} {'count':>10}  variant")
        for op in OPS:
            for bits in sizes.get(op, []):
                count = max(1, args.words // (bits // 32))
                try:
                    v = ctx.selected_variant(op, bits, count)
                except MidintError as e:
                    v = f"({e.message})"
                print(f"  {op:6} {bits:>10} {count:>10}  {v}")
        if args.variants:
            print("\nvariants:")
            for name in midint.variants():
                if name.endswith("_" + ctx.backend):
                    print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
