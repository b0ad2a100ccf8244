#!/usr/bin/env bash
# test-wheel.sh — build the midint wheel (make wheel), install it into a fresh virtual environment and use it there,
# away from the checkout: the import, `python -m midint.info`, the conversions (the C extension in a wheel tagged for
# this CPython, pure Python in a py3-none one), and every operation against Python's integers.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/midint-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
make --no-print-directory wheel WHEEL_DIR="$work/dist" > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; exit 1; }
wheel=$(ls "$work"/dist/midint-*.whl)
echo "test-wheel: built $(basename "$wheel")"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel"
cd "$work"   # nothing of the checkout on the path: the installed package and its own library
export MIDINT_OPENCL_OPTIONS="${MIDINT_OPENCL_OPTIONS:--cl-opt-disable}"
unset MIDINT_LIBRARY MIDINT_VARIANT MIDINT_TUNING MIDINT_TUNING_DIR MIDINT_PURE_PYTHON
"$work/venv/bin/python" -m midint.info
WHEEL_NAME=$(basename "$wheel") "$work/venv/bin/python" - <<'PY'
import os, random, sys
from pathlib import Path
import midint
from midint import convert

pkg = Path(midint.__file__).parent
assert midint.library_path() == str(pkg / "lib" / "libmidint.so"), midint.library_path()
assert str(pkg).startswith(sys.prefix), f"{pkg} is not in the virtual environment {sys.prefix}"
tables = sorted(p.name for p in (pkg / "share" / "midint").glob("*.tune"))
print("tuned tables carried:", ", ".join(tables) or "none")
print("conversions:", convert.PATH)
# a wheel tagged for this CPython carries the converter, and it must be the one in use; py3-none carries none
tagged = "-py3-none-" not in os.environ["WHEEL_NAME"]
assert (convert._native is not None) == tagged, (os.environ["WHEEL_NAME"], convert.PATH)
if tagged:
    assert Path(convert._native.__file__).parent == pkg, convert._native.__file__
xs = [0, 1, 2**4096 - 1, 2**4000 + 12345]
assert midint.limbs_to_ints(midint.ints_to_limbs(xs, 4096)) == xs
from midint.reference import expected

with midint.Context() as ctx:
    rng = random.Random(5)
    sizes = midint.generated_sizes(ctx.backend)
    for op, spec in midint.OPS.items():   # every operation the installed library has, against its reference
        if op not in sizes:   # a build of some operations only (make gen GENFLAGS="--ops ..."); CI's has them all
            continue
        bits = sizes[op][0]
        m = 1 << bits
        a = [0, 1, m - 1, m - 1] + [rng.getrandbits(bits) for _ in range(8)]
        b = [0, m - 1, 1, m - 1] + [rng.getrandbits(bits) for _ in range(8)]
        c = [m - 1, 3, 1, m - 2] + [rng.getrandbits(bits) for _ in range(8)]
        # scalars by their kind (a width: its default; a flag: 0; a count: 3), inputs valid by their rules
        scalars = {p.name: p.default_per_n * bits if p.width else 0 if p.flag else 3 for p in spec.scalars}

        def valid(p, x):
            x %= 1 << (32 * p.words(bits, scalars))
            return x | 1 if p.odd else max(x, 1) if p.nonzero else x

        cols = [[valid(p, x) for x in xs] for p, xs in zip(spec.inputs, (a, b, c))]
        # a modulus object for the batch (odd and full width: every operation taking one accepts it)
        mods = [ctx.modulus(rng.getrandbits(bits) | 1 | (1 << (bits - 1)), bits) for _p in spec.moduli]
        got = getattr(ctx, spec.method)(*cols, *mods, bits=bits, **scalars)
        got = got[0] if isinstance(got, tuple) else got
        names = [p.name for p in spec.inputs]
        fixed = {**{p.name: md.value for p, md in zip(spec.moduli, mods)}, **scalars}
        want = [expected(spec, {**dict(zip(names, xs)), **fixed}, bits)[spec.outputs[0].name]
                for xs in zip(*cols)]
        assert got == want, f"{op} {bits}: wrong result from the installed wheel"
        print(f"{op} {bits} bits on {ctx.backend}: ok")
PY
echo "test-wheel: ok in $(( $(date +%s) - start )) s"
