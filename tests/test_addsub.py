"""Every generated add/sub variant against GMP: random and adversarial inputs, runtime sizes, ragged counts."""

import pytest

from conftest import BACKENDS, assert_all_ok, read_variants, require_backend, run_driver

PATTERNS = ("random", "zero", "max", "ones_plus_one", "zero_minus_one", "complement", "single_bits", "runs",
            "equal")
# patterns that make every instance of a large batch carry or borrow all the way (or nearly)
CHAIN_PATTERNS = ("ones_plus_one", "zero_minus_one", "runs", "complement")


def launch_shape(v, bits):
    """Threads per instance and instances per block the runtime uses for `bits` (runtime/registry.c)."""
    chunk = v["q"] * v["limb_words"]
    ti = -(-(bits // 32) // chunk)
    return ti, v["block"] // ti


def sizes_for(v):
    """The full size, one word less (padded, unaligned), half (more instances per block) and half plus a word."""
    m = v["bits"]
    return sorted(b for b in {m, m - 32, m // 2, m // 2 + 32} if 32 <= b <= m and b % 32 == 0)


def cases_for(v):
    op, m = v["op"], v["bits"]
    cases, seed = [], 1
    for bits in sizes_for(v):
        _ti, ipb = launch_shape(v, bits)
        for count in sorted({1, ipb - 1, 3 * ipb + 1} - {0}):
            cases.append(f"{op} {bits} {count} mixed {seed} host none")
            seed += 1
    for p in PATTERNS:
        cases.append(f"{op} {m} 1 {p} {seed} host none")
        seed += 1
    _ti, ipb = launch_shape(v, m)
    for p in CHAIN_PATTERNS:
        cases.append(f"{op} {m} {3 * ipb + 1} {p} {seed} host none")
        seed += 1
    # device buffers, and r aliasing a or b, on both the aligned and the padded path
    for bits in {m, max(32, m - 32)}:
        _ti, ipb = launch_shape(v, bits)
        for api, alias in (("device", "none"), ("host", "ra"), ("host", "rb"), ("device", "rab")):
            cases.append(f"{op} {bits} {ipb + 1} mixed {seed} {api} {alias}")
            seed += 1
    return cases


VARIANTS = [v for v in read_variants() if v["op"] in ("add", "sub")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_variants_were_generated(backend):
    assert [v for v in VARIANTS if v["backend"] == backend], "no add/sub variants: run `make gen`"


@pytest.mark.parametrize("v", VARIANTS, ids=[v["name"] for v in VARIANTS])
def test_variant_against_gmp(v):
    require_backend(v["backend"])
    cases = cases_for(v)
    proc = run_driver(["--backend", v["backend"], "--variant", v["name"]], cases)
    assert_all_ok(proc, cases)
