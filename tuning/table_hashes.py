"""The generated tree's registry hash and per-(op, bits) candidate-set hashes, as the library built from it has them.

Computed from generated/variants.txt and the expressions generated/EXPRS names, with the generator's own functions
(generator/hashes.py), so that a tuned table written or upgraded without a GPU names what the library will check.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from generator.cli import DEFAULT_EXPRS  # noqa: E402
from generator.expr import ExprError, load_all  # noqa: E402
from generator.hashes import candidate_sets, registry_hash  # noqa: E402


class HashError(Exception):
    """The generated tree cannot be read back (missing, or an expression file gone or changed into an error)."""


def _expr_file(name: str) -> Path:
    """`make gen` runs in the repository root, so a relative name is relative to it."""
    p = Path(name)
    return p if p.is_absolute() or not (ROOT / p).exists() else ROOT / p


def generated_hashes(gen_dir: Path = ROOT / "generated"):
    """(registry hash, {(op, bits): candidate-set hash}) of the tree in gen_dir."""
    listing = Path(gen_dir) / "variants.txt"
    if not listing.exists():
        raise HashError(f"{listing} is missing: run make gen")
    lines = [ln + "\n" for ln in listing.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    named = Path(gen_dir) / "EXPRS"
    if named.exists():
        files = [f for f in named.read_text().strip().split(",") if f]
    else:   # a tree generated before EXPRS was recorded: the generator's defaults
        files = [f for f in DEFAULT_EXPRS if _expr_file(f).exists()]
    try:
        programs = load_all([_expr_file(f) for f in files])
    except ExprError as e:
        raise HashError(f"the expressions of {gen_dir} cannot be read back: {e}") from None
    exprs = {p.op: (p.name, p.text()) for p in programs}
    return registry_hash(lines, exprs), candidate_sets(lines, exprs)
