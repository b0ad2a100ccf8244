"""Helpers for the Python package's tests (tests/test_python_*.py): import midint from the checkout (or the
installed one with MIDINT_PY_INSTALLED=1), open a context per backend, and the sizes to test for this build."""

import os
import sys

import pytest

from conftest import BACKENDS, ROOT, STEERING, TEST_ENV, read_variants, require_backend

if os.environ.get("MIDINT_PY_INSTALLED") != "1":
    sys.path.insert(0, str(ROOT / "python"))
# the context opens in this process: the unoptimised PoCL builds of TEST_ENV, no steering from the caller's shell
for _k, _v in TEST_ENV.items():
    os.environ.setdefault(_k, _v)
for _k in STEERING:
    os.environ.pop(_k, None)

np = pytest.importorskip("numpy", reason="the midint package needs NumPy (pip install numpy)")
import midint  # noqa: E402
from midint.reference import expected  # noqa: E402

from conftest import OPERATIONS, OPS_NAMES  # noqa: E402  (the table of operations, generator/ops.py)

# the generic tests pass an array for every input; operations that take a modulus object for the whole batch
# (mulmod_shared, powm_shared: midint.Modulus) have tests of their own (test_python_modarith.py, the shared modulus)
OPS = tuple(op.name for op in OPERATIONS if not any(b.modulus for b in op.buffers))
# the operations of a thread per instance (division, modular arithmetic): milliseconds an instance on PoCL at 1024
# bits (powm with a 1024-bit exponent ~10-50 ms), so the generic tests take them up to 1024 bits, few instances
MOD_OPS = {op.name for op in OPERATIONS if "modt" in op.families}
MOD_LIMIT_BITS = 1024


def open_context(backend):
    """A midint.Context on `backend`, or skip with the reason when the backend cannot run here."""
    require_backend(backend)
    return midint.Context(backend)


@pytest.fixture(scope="module", params=BACKENDS)
def ctx(request):
    """A context on each backend, one per test module (imported by the test_python_* modules)."""
    c = open_context(request.param)
    yield c
    c.close()


def sizes_for(backend, op, limit=None):
    """Sizes to test `op` at: the generated ones up to `limit` (the small, cheap ones on PoCL: 4096 bits, 1024 for
    MOD_OPS) and 96 bits (a size that no build generates, served by a larger kernel at run time); the smallest
    generated when all exceed it. Skips the test, saying so, where the build has no variant of op."""
    limit = limit or (MOD_LIMIT_BITS if op in MOD_OPS else 4096)
    gen = sorted({v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == op})
    if not gen:   # a build of some operations only (make gen GENFLAGS="--ops ...")
        pytest.skip(f"no {op} variant generated for {backend} in this build")
    if gen[-1] < 96:
        return gen
    return sorted({s for s in gen if s <= limit} | {96})


def batch_cap(op, bits):
    """How many instances a generic test batch of `op` holds at most: all of them (adversarial_pairs), 16 for
    MOD_OPS, 6 where an input is an exponent (an unbounded width scalar: powm) at 1024 bits and more."""
    if op not in MOD_OPS:
        return None
    exponent = any(p.width_scalar is not None and not midint.OPS[op].param(p.width_scalar).max_per_n
                   for p in midint.OPS[op].inputs)
    return 6 if exponent and bits >= 1024 else 16


def shift_of(i, bits):
    """The count instance i of a test shifts by: the edges first (0, 1, 31, 32, 33, bits - 1), then others."""
    edges = [0, 1, 31, 32, 33, bits - 1, bits // 2]
    return edges[i] % bits if i < len(edges) else (i * 2654435761) % bits


def input_bits(op, bits):
    """Each input's width in bits in the tests' batches: bits, or for an input a width scalar sizes (divrem's
    dividend, powm's exponent) that scalar's default, default_per_n x bits (2 bits for a dividend)."""
    return [p.words(bits, default_widths(op, bits)) * 32 for p in midint.OPS[op].inputs]


def default_widths(op, bits):
    """{width scalar: default_per_n x bits} of an operation (abits = 2 bits, ebits = bits)."""
    return {p.name: p.default_per_n * bits for p in midint.OPS[op].widths}


def valid(op, ins):
    """The inputs (a list of lists of ints, one per input) made what the row's rules ask: no zero instance of a
    nonzero input (0 becomes 1), every instance of an odd input odd (bit 0 set)."""
    out = []
    for p, xs in zip(midint.OPS[op].inputs, ins):
        out.append([x | 1 if p.odd else (x or 1) if p.nonzero else x for x in xs])
    return out


def operands(op, bits, rng, pairs=None):
    """One test batch of `op` at `bits`: a list of values per input, valid by its rules. The first two inputs take
    the adversarial pairs (a, b); a third (a modulus) the pairs' a of the next instance; an input of a wider width
    scalar (a dividend of 2 bits) holds a pair's value in its top bits and random low bits in every other instance
    (dividends below and above the divisor)."""
    if pairs is None:
        pairs, cap = adversarial_pairs(bits, rng), batch_cap(op, bits)
        if cap is not None and len(pairs) > cap:   # the edges first, then random ones
            pairs = pairs[:cap - 3] + pairs[-3:]
    n, ins = len(pairs), []
    for k, (p, width) in enumerate(zip(midint.OPS[op].inputs, input_bits(op, bits))):
        xs = [pairs[i][k] if k < 2 else pairs[(i + 1) % n][0] for i in range(n)]
        if width > bits:
            xs = [x << (width - bits) | rng.getrandbits(width - bits) if i % 2 else x for i, x in enumerate(xs)]
        ins.append(xs)
    return valid(op, ins)


def call_args(op, ins, bits, count):
    """ctx.<op>'s positional inputs and keyword arguments for a test batch of `count` instances (`ins`: one operand
    per input, lists, arrays or wrappers that show only an array interface, so the caller counts them):
    per-instance counts (shift_of) for the scalars that take them, the flag outputs asked for."""
    spec = midint.OPS[op]
    kw = {p.fallback: [shift_of(i, bits) for i in range(count)] for p in spec.buffers if p.fallback}
    kw.update({"return_" + p.name: True for p in spec.outputs if p.optional})
    return tuple(ins), kw


def reference(op, values, bits, i=0):
    """Python's own integers through the operation's reference text for instance i (`values`: one int per input):
    every output's value, in the order ctx.<op> returns them with every flag asked for."""
    spec = midint.OPS[op]
    vals = dict(zip((p.name for p in spec.inputs), values))
    vals.update({p.name: shift_of(i, bits) for p in spec.buffers if p.fallback})
    got = expected(spec, vals, bits)
    return [got[p.name] for p in spec.outputs]


def result_shape(op, count, bits, scalars=None):
    """The result array's shape: (count, words) or (count,) for one word per instance; a width scalar's value from
    `scalars`, else its default."""
    p = midint.OPS[op].outputs[0]
    return (count, p.words(bits, scalars or default_widths(op, bits))) if p.is_number else (count,)


def adversarial_pairs(bits, rng):
    """(a, b) pairs where carries and borrows run through every word, at the extremes and at word edges, plus
    random ones (rng: random.Random)."""
    top = (1 << bits) - 1
    pairs = [(0, 0), (1, 1), (top, 1), (1, top), (top, top), (0, 1), (0, top), (top, 0), (1 << (bits - 1), 1 << (bits - 1)),
             (top - 1, 1), (top, top - 1)]
    for k in range(32, bits, 32 * max(1, bits // 32 // 6)):
        pairs += [((1 << k) - 1, 1), (1 << k, 1), (top >> k, top), (1 << k, (1 << k) - 1)]
    pairs += [(rng.getrandbits(bits), rng.getrandbits(bits)) for _ in range(6)]
    pairs += [(rng.getrandbits(rng.randrange(1, bits + 1)), rng.getrandbits(rng.randrange(1, bits + 1)))
              for _ in range(4)]
    return pairs
