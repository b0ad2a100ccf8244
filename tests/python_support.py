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

from conftest import OPS_NAMES  # noqa: E402  (the table of operations, generator/ops.py)

OPS = OPS_NAMES


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


def sizes_for(backend, op, limit=4096):
    """Sizes to test `op` at: the generated ones up to `limit` (the small, cheap ones on PoCL) and 96 bits (a size
    that no build generates, served by a larger kernel at run time); the smallest generated when all exceed it."""
    gen = sorted({v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == op})
    if not gen or gen[-1] < 96:
        return gen
    return sorted({s for s in gen if s <= limit} | {96})


def shift_of(i, bits):
    """The count instance i of a test shifts by: the edges first (0, 1, 31, 32, 33, bits - 1), then others."""
    edges = [0, 1, 31, 32, 33, bits - 1, bits // 2]
    return edges[i] % bits if i < len(edges) else (i * 2654435761) % bits


def call_args(op, a, b, bits):
    """ctx.<op>'s positional inputs (a, or a and b) and keyword arguments for a test batch: per-instance counts
    (shift_of) for the scalars that take them, the flag outputs asked for."""
    spec = midint.OPS[op]
    ins = (a, b)[:len(spec.inputs)]
    kw = {p.fallback: [shift_of(i, bits) for i in range(len(a))] for p in spec.buffers if p.fallback}
    kw.update({"return_" + p.name: True for p in spec.outputs if p.optional})
    return ins, kw


def reference(op, a, b, bits, i=0):
    """Python's own integers through the operation's reference text: (result, flag or None) for instance i."""
    spec = midint.OPS[op]
    values = dict(zip((p.name for p in spec.inputs), (a, b)))
    values.update({p.name: shift_of(i, bits) for p in spec.buffers if p.fallback})
    got = expected(spec, values, bits)
    flags = [got[p.name] for p in spec.outputs[1:] if p.optional]
    return got[spec.outputs[0].name], flags[0] if flags else None


def result_shape(op, count, bits):
    """The result array's shape: (count, words) or (count,) for one word per instance."""
    p = midint.OPS[op].outputs[0]
    return (count, p.words(bits)) if p.words_per_n else (count,)


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
