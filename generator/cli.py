"""Command line of the generator: `python3 -m generator --sizes 512,4096 --out generated`."""

import argparse
import sys
from pathlib import Path

from . import expr_plan
from .expr import ExprError, load_all
from .plan import PlanError, parse_sizes, plan
from .render import render_all, write_tree
from .space import BACKENDS, DEFAULT_SIZES, OPS
from .variant import VariantNameError, parse_name

# the paper's two benchmarks, generated unless --exprs says otherwise
DEFAULT_EXPRS = ("expressions/six.expr", "expressions/poly.expr")
ROOT = Path(__file__).resolve().parent.parent


def expr_path(name: str) -> Path:
    """An expression file as given, or relative to the repository when it is not there (the defaults)."""
    p = Path(name)
    return p if p.exists() or p.is_absolute() or not (ROOT / p).exists() else ROOT / p


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m generator", description=__doc__)
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="comma-separated sizes in bits (multiples of 32); default 2^9..2^27 and 2^31")
    p.add_argument("--ops", default=None, help=f"operations to generate (default {','.join(OPS)} and every "
                   "expression's expr_NAME)")
    p.add_argument("--exprs", default=None, metavar="FILES",
                   help="comma-separated expression files (docs/expressions.md), each generated as operation expr_NAME; "
                   "default expressions/six.expr,expressions/poly.expr; empty for none")
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
        if args.exprs is None:   # the defaults; a partial copy of the tree without expressions/ generates none
            expr_files = [f for f in DEFAULT_EXPRS if expr_path(f).exists()]
            if len(expr_files) < len(DEFAULT_EXPRS):
                print(f"generator: note: {', '.join(sorted(set(DEFAULT_EXPRS) - set(expr_files)))} not found: "
                      "not generated", file=sys.stderr)
        else:
            expr_files = [f for f in args.exprs.split(",") if f]
        programs = load_all([expr_path(f) for f in expr_files])
        for prog, f in zip(programs, expr_files):
            prog.source = f
        expr_plan.PROGRAMS.clear()
        expr_plan.PROGRAMS.update({prog.op: prog for prog in programs})
        ops = [o for o in args.ops.split(",") if o] if args.ops is not None else list(OPS) + list(expr_plan.PROGRAMS)
        notes = []
        variants = plan(sizes, ops=ops, backends=BACKENDS,
                        keep_pruned=tuple(n for n in args.keep_pruned.split(",") if n), notes=notes,
                        default_sizes=sizes == list(DEFAULT_SIZES))
    except (PlanError, VariantNameError, ExprError) as e:
        print(f"generator: {e}", file=sys.stderr)
        return 2
    for note in dict.fromkeys(n.split(" (")[0] + n.split(")", 1)[1] for n in notes):
        print(f"generator: note: {note}", file=sys.stderr)
    if args.list:
        for v in variants:
            print(v.name)
        return 0
    files = render_all(variants, sizes, programs)
    write_tree(Path(args.out), files)
    n_cuda = sum(v.backend == "cuda" for v in variants)
    print(f"generator: {len(variants)} variants ({n_cuda} CUDA, {len(variants) - n_cuda} OpenCL) "
          f"for sizes {','.join(map(str, sizes))} -> {args.out}/")
    return 0
