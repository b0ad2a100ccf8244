"""divrem and mod of large numbers (runtime/bigdiv.c: Newton's reciprocal over the multi-kernel products) against GMP.

Above the division kernels' largest size (32768 bits) divrem and mod run as a sequence of library operations. The test
hook MIDINT_TEST_BIGDIV=B sends them there at every size and starts the iteration from at most B words, so that small
sizes run every kind of level (the top level's exact doubling, the guarded ones below, the base division) in CI's time;
the real sizes follow, from just above the kernels to 2^21 bits, with every modular pattern (divisors 2^k - 1, 2^k,
2^k + 1, the largest value; dividends below, at and above the divisor, d q + d - 1, d q, all-ones), one-word and
full-width quotients (abits from 32 to 2 bits), ragged counts, host, asynchronous and device calls, r in d's place."""

import re

import pytest

from conftest import BACKENDS, assert_all_ok, largest_bits, require_backend, run_driver
from python_support import midint

PATTERNS = ("random", "zero", "max", "one", "mersenne", "fermat", "pow2", "near", "multiple", "single_bits", "shared",
            "equal", "mixed")
KERNEL_MAX = 32768   # the division kernels' largest size (generator/space.py MOD_MAX_BITS)


def bigdiv_max(backend):
    """The largest divisor the large division serves in this build: mul's largest, the shifts' a third of theirs."""
    wide = min(largest_bits(backend, op) for op in ("shl", "shr", "add", "sub")) // 3 // 32 * 32
    return min(largest_bits(backend, "mul"), wide) if largest_bits(backend, "divrem") else 0


def sizes_upto(backend, sizes):
    top = bigdiv_max(backend)
    kept = [b for b in sizes if b <= top]
    if not kept:
        pytest.skip(f"the build's products and shifts serve no size of {sizes} on {backend} (make gen SIZES=...)")
    return kept


@pytest.mark.parametrize("base", (2, 5))
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_level_at_small_sizes(backend, base):
    """The hook at 64 .. 1600 bits: with a base of 2 words a 1600-bit divisor takes 6 levels."""
    require_backend(backend)
    cases = []
    for bits in sizes_upto(backend, (64, 96, 512, 1600)):
        for k, pattern in enumerate(PATTERNS):
            api = ("host", "device")[k % 2]
            for abits in (32, bits, bits + 32, 2 * bits):
                cases.append(f"divrem {bits} {1 + 16 * (k % 3)} {pattern} {k} {api} none abits={abits}")
            cases.append(f"mod {bits} 9 {pattern} {k + 50} {api} none")
        cases += [f"mod {bits} 5 near 71 device ra", f"mod {bits} 5 max 72 host ra abits={bits}"]
    proc = run_driver(["--backend", backend], cases, env={"MIDINT_TEST_BIGDIV": str(base)})
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_half_blocks_at_small_sizes(backend):
    """Quotients in blocks of half the divisor's words (MIDINT_TEST_HALF_FROM=2: every even divisor of 2 words or more;
    an odd one keeps whole blocks), with the levels' second products split too: divisors of 2 .. 128 words, even and
    odd, every pattern, quotients of one word to twice the divisor's, ragged counts, host and device, in place. The
    remainder's q D' takes two products of half the words where one of n words would run in pieces: from 17 words
    here (MIDINT_TEST_NTT_PIECE=16), one product below."""
    require_backend(backend)
    cases = []
    for bits in sizes_upto(backend, (64, 96, 512, 1600, 4096)):
        for k, pattern in enumerate(PATTERNS):
            api = ("host", "device")[k % 2]
            for abits in (32, bits - 32, bits + 32, 2 * bits):
                cases.append(f"divrem {bits} {1 + 6 * (k % 3)} {pattern} {k + 140} {api} none abits={max(abits, 32)}")
            cases.append(f"mod {bits} 5 {pattern} {k + 160} {api} none")
        cases += [f"mod {bits} 3 near 181 device ra", f"divrem {bits} 4 max 182 host none abits={2 * bits}"]
    env = {"MIDINT_TEST_BIGDIV": "2", "MIDINT_TEST_HALF_FROM": "2", "MIDINT_TEST_SPLIT_FROM": "1",
           "MIDINT_TEST_NTT_PIECE": "16"}
    proc = run_driver(["--backend", backend], cases, env=env)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_levels_with_products_of_their_own_length(backend):
    """A level's (U - 1) V on the NTT grid at its own length (w + h + 1 words) where mul would pad it to twice that:
    from 4096 words, reached here at small sizes by MIDINT_TEST_WRAP_FROM=1 (levels of w = 9, 17, 26, 50 ... words)."""
    require_backend(backend)
    cases = []
    for bits in sizes_upto(backend, (512, 1600, 4096)):
        for k, pattern in enumerate(("random", "max", "near", "mersenne", "pow2", "single_bits")):
            cases.append(f"divrem {bits} {1 + 4 * (k % 2)} {pattern} {k + 90} host none abits={(bits, 2 * bits)[k % 2]}")
        cases.append(f"mod {bits} 7 mixed 97 device none")
    proc = run_driver(["--backend", backend], cases, env={"MIDINT_TEST_BIGDIV": "2", "MIDINT_TEST_WRAP_FROM": "1"})
    assert_all_ok(proc, cases)


# a block's estimate is at most the quotient and below it by less than the reciprocal's error (89 units) + 5 (a short
# block's one less included), and after the correction counted from the remainder's top words at most one single
# subtraction remains (docs/operations.md; runtime/bigdiv.c's block)
ESTIMATE_BOUND = 94
CORRECTION_LINE = re.compile(r"midint bigdiv: correction (\d+) at most, (\d+) single")
# the ways of the iteration and the blocks, by their hooks: levels whose second product is split (levels of
# h = 2^k + 1 words take a product of 2^k words and the xmul helper's rows), quotients in blocks of half the divisor
WAYS = {"plain": {}, "split": {"MIDINT_TEST_SPLIT_FROM": "1"}, "half": {"MIDINT_TEST_HALF_FROM": "2"},
        "half in pieces": {"MIDINT_TEST_HALF_FROM": "2", "MIDINT_TEST_NTT_PIECE": "16"}}


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_estimates_within_their_bound(backend, way):
    """Exact results alone would not show a reciprocal a few units off (more single subtractions make up for it): the
    trace (MIDINT_TRACE_BIGDIV=1) gives each block's largest correction and its single subtractions, held here to the
    bounds, every way."""
    require_backend(backend)
    cases = []
    for bits in sizes_upto(backend, (512, 1600, 4096)):
        for k, pattern in enumerate(("random", "max", "near", "mersenne", "fermat", "pow2", "single_bits", "mixed")):
            cases.append(f"divrem {bits} {1 + 4 * (k % 2)} {pattern} {k + 130} host none abits={2 * bits}")
        cases.append(f"mod {bits} 7 mixed 139 device none")
    env = {"MIDINT_TEST_BIGDIV": "2", "MIDINT_TRACE_BIGDIV": "1", **WAYS[way]}
    proc = run_driver(["--backend", backend], cases, env=env)
    assert_all_ok(proc, cases)
    found = [(int(c), int(s)) for c, s in CORRECTION_LINE.findall(proc.stderr)]
    assert len(found) >= len(cases), proc.stderr[-2000:]
    assert max(c for c, _ in found) <= ESTIMATE_BOUND and max(s for _, s in found) <= 1, found


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeated_shapes_replay_the_reciprocal(backend):
    """A division of a shape seen before launches its reciprocal as recorded (runtime/replay.c): six divisions of each
    shape over other divisors and dividends (the first runs as it is, the workspace settles, the next is recorded, the
    rest replay it), two shapes interleaved (keys apart: other instance counts), divrem and mod, host and device calls,
    each against GMP; then the same with recording off (MIDINT_TEST_NO_REPLAY=1). A backend that records (CUDA) says
    so on stderr (MIDINT_TRACE_REPLAY=1); one that does not (OpenCL) runs it all as it comes, so there (CI) the
    smaller size alone, once."""
    require_backend(backend)
    records = backend == "cuda"
    cases = []
    for bits in sizes_upto(backend, (1600, 1 << 16) if records else (1600,)):
        for k, pattern in enumerate(("random", "max", "near", "mersenne", "pow2", "single_bits")):
            cases.append(f"divrem {bits} 3 {pattern} {k + 110} {('host', 'device')[k % 2]} none abits={2 * bits}")
            cases.append(f"mod {bits} 2 {pattern} {k + 120} device none")
    env = {"MIDINT_TEST_BIGDIV": "5", "MIDINT_TRACE_REPLAY": "1"}
    proc = run_driver(["--backend", backend], cases, env=env)
    assert_all_ok(proc, cases)
    assert "not recorded" not in proc.stderr, proc.stderr[-2000:]
    assert ("midint replay: launched" in proc.stderr) == records, proc.stderr[-2000:]
    if not records:
        return
    proc = run_driver(["--backend", backend], cases, env={**env, "MIDINT_TEST_NO_REPLAY": "1"})
    assert_all_ok(proc, cases)
    assert "midint replay: seen" not in proc.stderr and "midint replay: launched" not in proc.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_sizes_against_gmp(backend):
    """Just above the kernels (33 words more and a size no power of two), then 2^16 .. 2^21 bits (the issue's range
    for CPU tests): every pattern near the kernels, the edges further up, dividends of one and two widths."""
    require_backend(backend)
    cases = []
    for bits in sizes_upto(backend, (KERNEL_MAX + 32, 3 * KERNEL_MAX // 2)):
        for k, pattern in enumerate(PATTERNS):
            ab = (bits, 2 * bits)[k % 2]
            cases.append(f"{('divrem', 'mod')[k % 3 == 2]} {bits} {1 + k % 3} {pattern} {k} device none abits={ab}")
    for bits in sizes_upto(backend, (1 << 16, 1 << 17, 1 << 19)):
        for k, pattern in enumerate(("random", "max", "near", "multiple", "mersenne", "pow2")):
            cases.append(f"divrem {bits} 1 {pattern} {k + 20} device none abits={(bits, 2 * bits)[k % 2]}")
    for bits in sizes_upto(backend, (1 << 21,)):
        cases += [f"divrem {bits} 1 near 41 device none", f"mod {bits} 1 random 42 device none abits={bits + 32}"]
    proc = run_driver(["--backend", backend], cases)
    assert_all_ok(proc, cases)
    # asynchronous calls from page-locked memory in chunks of a few instances each, through the host path's slots
    cases = [f"mod {bits} 37 mixed 43 async none" for bits in sizes_upto(backend, (KERNEL_MAX + 32,))]
    proc = run_driver(["--backend", backend, "--pinned", "--staging", "1048576"], cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_call_around_it(backend, monkeypatch):
    """What a user sees: the larger max_bits, "newton" as the selected variant, the workspace it needs, a zero
    divisor refused naming the instance with nothing written, and a cap too small for one instance refused up front
    with the bytes it needs; a cap that holds one instance's temporaries runs the batch a pass at a time."""
    require_backend(backend)
    bits = sizes_upto(backend, (1 << 16,))[0]
    monkeypatch.delenv("MIDINT_TEST_BIGDIV", raising=False)
    with midint.Context(backend) as ctx:
        assert ctx.max_bits("divrem") == ctx.max_bits("mod") == bigdiv_max(backend)
        assert ctx.selected_variant("divrem", bits, 3) == ctx.selected_variant("mod", bits, 1) == "newton"
        assert ctx.selected_variant("mod", KERNEL_MAX, 1) != "newton"
        assert ctx.workspace_size("divrem", bits, 3) > 3 * 30 * bits // 8
        a = [(1 << (2 * bits - 1)) + 12345, 7 << bits, 99]
        d = [(1 << (bits - 1)) | 5, 0, 3]
        with pytest.raises(midint.MidintValueError, match=r"d\[1\] is zero"):
            ctx.divrem(a, d, bits=bits)
        d[1] = 1 << 100
        q, r = ctx.divrem(a, d, bits=bits)
        assert (q, r) == ([x // y for x, y in zip(a, d)], [x % y for x, y in zip(a, d)])
        ctx.set_workspace_bytes(1 << 20)   # room for one instance's temporaries: three passes
        assert ctx.mod(a, d, bits=bits) == r
        ctx.set_workspace_bytes(1 << 16)   # not even one: refused before anything runs, saying what it needs
        with pytest.raises(midint.MidintMemoryError, match="needs [0-9]+ bytes"):
            ctx.mod(a, d, bits=bits)
