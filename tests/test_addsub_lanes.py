"""Add/sub in registers (ADDSUB_LANES, templates/kernel_addsub_lanes.j2): its shapes as the space generates them, and
carries that cross lanes and stop at every kind of lane boundary, against GMP (the variant matrix covers the rest)."""

import subprocess
import sys

import pytest

from conftest import BACKENDS, ROOT, assert_all_ok, driver_env, read_variants, require_backend, run_driver

sys.path.insert(0, str(ROOT))
from generator import plan, space  # noqa: E402
from generator.default_rules import rule_for  # noqa: E402
from generator.ops import BY_NAME, OPERATIONS  # noqa: E402


@pytest.mark.parametrize("bits", [512, 1024, 2048, 4096, 8192, 16384, 32768])
def test_shapes(bits):
    """L lanes x Q words is the instance exactly, every Q of the family that fits on 1..32 lanes, 128-thread blocks;
    the one-block ADDSUB variants of the size are all still there beside them."""
    words = bits // 32
    for op in [o.name for o in LANES_OPS]:
        got = plan.variants_for(op, bits, "cuda")
        lanes = [v for v in got if v.lanes is not None]
        want = {q: words // q for q in space.ADDSUB_LANES.qs if words % q == 0 and 1 <= words // q <= 32}
        assert {v.q: v.lanes for v in lanes} == want
        assert all(v.block == 128 and v.ipb * v.lanes == 128 and not v.across for v in lanes)
        assert all(v.name.split("_")[-2] == f"w{v.lanes}" for v in lanes)
        alone = [v for v in got if v.lanes is None]
        assert alone and all(space.family_of(v) in (space.ADDSUB, space.ADDSUB_GRID) for v in alone)


def test_own_fallback():
    """Where every ADDSUB variant is pruned (256 bits: fewer than 8 words a thread), its least-pruned ones are still
    generated beside the lanes variants, which do not replace them."""
    got = plan.variants_for("add", 256, "opencl")
    assert any(v.lanes is None for v in got) and any(v.lanes is not None for v in got)


LANES_OPS = [op for op in OPERATIONS if "addsub_lanes" in op.families]   # add, sub, cmp (the table's rows)
VARIANTS = [v for v in read_variants() if v["op"] in {op.name for op in LANES_OPS} and v["lanes"] != "-"]


def boundary_cases(v):
    """Sizes at, just below and just above the lane boundaries (word n, which takes the carry out, at the top or the
    bottom of a lane), with a carry (borrow) through every word below n, and mixed instances; counts of one, and
    of a block and a half (instances of two blocks, the last block ragged)."""
    q, lanes, per_block = v["q"], v["ti"], v["block"] // v["ti"]
    ks = sorted({1, 2, lanes // 2, lanes - 1, lanes} - {0})
    sizes = sorted({32 * (k * q + d) for k in ks for d in (-1, 0, 1) if 1 <= k * q + d <= lanes * q})
    cases, seed = [], 1
    for bits in sizes:
        for pattern, count in (("ones_plus_one", per_block + per_block // 2 + 1), ("zero_minus_one", 1),
                               ("mixed", per_block + 3)):
            cases.append(f"{v['op']} {bits} {count} {pattern} {seed} host none")
            seed += 1
    in_place = ("r", "a") in BY_NAME[v["op"]].in_place   # else (cmp) a and b one buffer: equal operands
    cases.append(f"{v['op']} {v['bits']} {per_block + 1} max {seed} device {'rab' if in_place else 'ab'}")
    return cases


@pytest.mark.parametrize("v", VARIANTS, ids=[v["name"] for v in VARIANTS])
def test_lane_boundaries(v):
    require_backend(v["backend"])
    cases = boundary_cases(v)
    proc = run_driver(["--backend", v["backend"], "--variant", v["name"]], cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_rule_takes_lanes_for_small_batches(backend):
    """Without a tuned table add, sub and cmp take the lanes family for batches below lanes_below_count instances up to
    lanes_upto_bits, and the one-block kernel otherwise (generator/default_rules.py, read by runtime/dispatch.c)."""
    require_backend(backend)
    sizes = sorted({v["bits"] for v in VARIANTS if v["backend"] == backend})
    lanes_names = {v["name"] for v in VARIANTS}
    questions = [(op.name, bits, count) for op in LANES_OPS for size in sizes for bits in (size, size - 32)
                 for count in (1, 64, 4096, 1 << 20)]
    p = subprocess.run([str(ROOT / "build" / "tuning" / "measure"), "--backend", backend, "--tuning", "none"],
                       capture_output=True, text=True, timeout=300, env=driver_env(),
                       input="".join(f"select {op} {bits} {count}\n" for op, bits, count in questions))
    answers = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("select ")]
    assert len(answers) == len(questions), p.stdout + p.stderr
    for (op, bits, count), ans in zip(questions, answers):
        rule = rule_for(op)
        want = count < rule.lanes_below_count and bits <= rule.lanes_upto_bits
        assert (ans[4] in lanes_names) == want, f"{op} {bits} bits x {count}: default rule chose {ans[4]}"
