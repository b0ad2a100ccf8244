"""Command line of the generator: `python3 -m generator --sizes 512,4096 --out generated`."""

import argparse
import sys
from pathlib import Path

from .plan import PlanError, parse_sizes, plan
from .render import render_all, write_tree
from .space import BACKENDS, DEFAULT_SIZES, OPS
from .variant import VariantNameError, parse_name


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m generator", description=__doc__)
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="comma-separated sizes in bits (multiples of 32); default 2^9..2^27 and 2^31")
    p.add_argument("--ops", default=",".join(OPS), help=f"operations to generate (default {','.join(OPS)})")
    p.add_argument("--out", default="generated", help="output folder (default generated)")
    p.add_argument("--keep-pruned", default="", metavar="NAMES",
                   help="comma-separated prune constraints to ignore (generates what they would remove)")
    p.add_argument("--list", action="store_true", help="print the variant names and write nothing")
    p.add_argument("--parse", metavar="NAME", help="print the fields of a variant name and exit")
    args = p.parse_args(argv)

    try:
        if args.parse:
            print(parse_name(args.parse))
            return 0
        sizes = parse_sizes(args.sizes)
        notes = []
        variants = plan(sizes, ops=[o for o in args.ops.split(",") if o], backends=BACKENDS,
                        keep_pruned=tuple(n for n in args.keep_pruned.split(",") if n), notes=notes)
    except (PlanError, VariantNameError) as e:
        print(f"generator: {e}", file=sys.stderr)
        return 2
    for note in dict.fromkeys(n.split(" (")[0] + n.split(")", 1)[1] for n in notes):
        print(f"generator: note: {note}", file=sys.stderr)
    if args.list:
        for v in variants:
            print(v.name)
        return 0
    files = render_all(variants, sizes)
    write_tree(Path(args.out), files)
    n_cuda = sum(v.backend == "cuda" for v in variants)
    print(f"generator: {len(variants)} variants ({n_cuda} CUDA, {len(variants) - n_cuda} OpenCL) "
          f"for sizes {','.join(map(str, sizes))} -> {args.out}/")
    return 0
