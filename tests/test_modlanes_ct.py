"""powm on several lanes (lib_modlanes.j2, the modl family) in constant-time mode: the rendered ml_powm_ct scanned from
the exponent for branches, subscripts and addresses that depend on it (test_modarith_lib's taint scan), and the
scan's own failure checks on sources that break the rule."""

import sys
from pathlib import Path

import jinja2
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from generator import lanes_plan, space  # noqa: E402
from test_modarith_lib import parse_functions, taint_scan  # noqa: E402

SHAPES = ((4, 2), (8, 4), (8, 1), (16, 1))   # (Q words per lane, L lanes); one lane shuffles nothing


def render(q, lanes):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")), undefined=jinja2.StrictUndefined)
    src = ('{% import "lib_modlanes.j2" as ml %}'
           '{{ ml.define("t", q, lanes, masks, rows) }}')
    return env.from_string(src).render(q=q, lanes=lanes, masks=lanes_plan.segment_masks(lanes),
                                       rows=lanes_plan.lanes_chains(q, False))


@pytest.mark.parametrize("q,lanes", SHAPES)
def test_powm_ct_lanes_static(q, lanes):
    """ml_powm_ct with its exponent e secret: the nibble, the selected entry, the product's operand and, through the
    calls, ml_montmul and ml_sub_if carry the taint; none of it may reach a branch, a subscript, an address or a
    division."""
    funcs = parse_functions(render(q, lanes))
    bad, visited = taint_scan(funcs, "ml_powm_ct_t", {"e"})
    assert not bad, "\n".join(bad)
    assert {"ml_powm_ct_t", "ml_montmul_t", "ml_sub_if_t"} <= visited


@pytest.mark.parametrize("mutation", (
    # the fast path's direct read of the window's entry
    ("Sel[j] |= tab[k * 8u + j] & keep;", "Sel[j] |= tab[nib * 8u + j] & keep;"),
    # a branch on the window
    ("const u32 keep = ((d | (0u - d)) >> 31) - 1u;", "const u32 keep = d ? 0u : 0xffffffffu;"),
    # the final subtraction taken by a branch on the accumulator's comparison
    ("R[j] = (D[j] & sub) | (X[j] & ~sub);", "R[j] = sub ? D[j] : X[j];"),
))
def test_powm_ct_lanes_scan_catches(mutation):
    """The scan fails on a source that reads the table by the window, branches on it, or selects the subtraction with
    a branch: it would catch those in the template."""
    src = render(8, 4)
    old, new = mutation
    assert old in src
    bad, _visited = taint_scan(parse_functions(src.replace(old, new)), "ml_powm_ct_t", {"e"})
    assert bad


# (q words, L lanes) of powm's FP64 products (lib_modlanes_f52.j2): 512 .. 4096 bits at 16 words a lane, 256 at 8 on
# one lane, 1536 and 3072 at 12
F52_SHAPES = ((16, 1), (16, 2), (16, 4), (16, 8), (8, 1), (12, 4), (12, 8))


def render_f52(lanes, q=16, rolls=None, sqr_rolls=None):
    """lib_modlanes_f52 at L lanes of q words (space.mod_lanes_f52_limbs(q) limbs a lane), its products' and squarings'
    turns space's for q unless given."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")), undefined=jinja2.StrictUndefined)
    src = '{% import "lib_modlanes_f52.j2" as mf %}{{ mf.define("t", q, limbs, lanes, rolls, sqr_rolls) }}'
    return env.from_string(src).render(
        lanes=lanes, q=q, limbs=space.mod_lanes_f52_limbs(q),
        rolls=space.MOD_LANES_F52_ROLLS[q] if rolls is None else rolls,
        sqr_rolls=space.MOD_LANES_F52_SQR_ROLLS.get((q, lanes), 0) if sqr_rolls is None else sqr_rolls)


@pytest.mark.parametrize("q,lanes", F52_SHAPES)
@pytest.mark.parametrize("turns", ("space", "none"))
def test_powm_ct_f52_static(q, lanes, turns):
    """mf_powm_ct (the FP64 products' windows) with e secret: the selected entry, the operand and, through the call,
    mf_montmul and mf_montsqr carry the taint (their reduction factors, columns, carries and the lanes' carry rounds);
    none of it may reach a branch, a subscript, an address or a division. Both orders: the turns space gives q, and
    none (every row unrolled)."""
    funcs = parse_functions(render_f52(lanes, q) if turns == "space" else render_f52(lanes, q, 1, 0))
    bad, visited = taint_scan(funcs, "mf_powm_ct_t", {"e"})
    assert not bad, "\n".join(bad)
    assert {"mf_powm_ct_t", "mf_montmul_t", "mf_montsqr_t"} <= visited


@pytest.mark.parametrize("mutation", (
    # the fast path's direct read of the window's entry
    ("(u64)__double_as_longlong(tab[k * 10u + j]) & keep", "(u64)__double_as_longlong(tab[nib * 10u + j]) & keep"),
    # the lanes' carries until none is left (a ballot loop: its trip count depends on the values)
    ("for (u32 round = 0; round < 3u; round++) {", "for (u32 round = 0; round < 3u && carry; round++) {"),
    # the column's carry kept by a branch on lane 0's value
    ("c0 = carry & (0u - (u64)(lane == 0u));", "c0 = carry ? carry : 0u;"),
))
def test_powm_ct_f52_scan_catches(mutation):
    """The scan fails on an FP64 powm that reads the table by the window, loops over the lanes' carries while any is
    left, or keeps a carry by a branch on it."""
    src = render_f52(4)
    old, new = mutation
    assert old in src
    bad, _visited = taint_scan(parse_functions(src.replace(old, new)), "mf_powm_ct_t", {"e"})
    assert bad
