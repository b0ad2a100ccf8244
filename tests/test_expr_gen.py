"""Generating fused expressions (pure Python): the size range as a constraint, names, the slot layout, CLI errors."""

import subprocess
import sys

from conftest import ROOT
from generator import expr_plan
from generator.expr import load
from generator.plan import plan
from generator.variant import parse_name


def register(*names):
    expr_plan.PROGRAMS.clear()
    for n in names:
        p = load(ROOT / "expressions" / f"{n}.expr")
        expr_plan.PROGRAMS[p.op] = p


def test_size_range_is_a_constraint_row():
    register("six", "poly")
    notes = []
    vs = plan([512, 16384, 1 << 18], ops=["expr_six", "expr_poly"], backends=["opencl"], notes=notes)
    sizes = {(v.op, v.bits) for v in vs}
    assert {("expr_six", 512), ("expr_six", 16384), ("expr_six", 1 << 18), ("expr_poly", 512)} <= sizes
    # above 8192 bits only the NTT family has products, and at 2^18 bits not even it fits one block
    assert all(v.ntt is not None for v in vs if v.op == "expr_poly" and v.bits > 8192)
    assert ("expr_poly", 16384) in sizes and ("expr_poly", 1 << 18) not in sizes
    assert any("expr_poly" in n and "262144" in n and "shared_memory" in n and "expr_product_max_bits" in n
               for n in notes), notes
    for v in vs:
        assert parse_name(v.name) == v
        assert v.name.startswith(v.op + "_")


def test_products_use_u64_regions_of_8_limbs():
    register("poly")
    vs = plan([2048, 8192], ops=["expr_poly"], backends=["cuda"])
    shared = [v for v in vs if v.lanes is None]     # the shared-memory family; EXPR_LANES: tests/test_expr_lanes_plan.py
    assert shared and all(v.limb == "u64" and v.q == 16 for v in shared)   # mullo regions of Q/2 = 8 limbs
    assert {v.bits for v in vs if v.lanes is not None} == {2048, 8192}


def test_slots_follow_lifetimes():
    register("six", "poly")
    six = expr_plan.layout("expr_six", 128, 16, 1)
    assert len(six.slots) == 3 and six.ov == 0     # a, b and two live intermediates at most, no products
    assert six.outputs[0][0] == 0 and [j for j, _ in six.inputs] == [1, 2]   # io: outputs, then inputs
    poly = expr_plan.layout("expr_poly", 128, 32, 2)
    assert poly.ov == 4 * 128 * 2 and poly.slots[0][0] == poly.ov
    # a step never writes a slot another live value holds
    prog = expr_plan.program("expr_poly")
    nin, last, holder = len(prog.inputs), prog.last_uses(), {}
    for j, slot in poly.inputs:
        holder[slot] = j - len(prog.outputs)
    for i, s in enumerate(poly.steps):
        v = holder.get(s.dst)
        assert v is None or last[v] <= i, f"step {i} overwrites value {v}, read later"
        holder[s.dst] = nin + i


def test_cli_reports_expression_errors(tmp_path):
    bad = tmp_path / "bad.expr"
    bad.write_text("input a\noutput r = a + q\n")
    p = subprocess.run([sys.executable, "-m", "generator", "--sizes", "512", "--exprs", str(bad), "--list"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2 and f"{bad}:2:16: unknown name 'q'" in p.stderr
    p = subprocess.run([sys.executable, "-m", "generator", "--sizes", "512", "--exprs", "", "--list"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0 and "expr_" not in p.stdout
    p = subprocess.run([sys.executable, "-m", "generator", "--sizes", "512,16384,262144", "--list"], cwd=ROOT,
                       capture_output=True, text=True)
    assert "expr_six_16384_" in p.stdout and "expr_poly_512_" in p.stdout and "expr_poly_16384_" in p.stdout
    assert "expr_poly_262144" not in p.stdout
    assert "expr_poly" in p.stderr and "expr_product_max_bits" in p.stderr


def test_sums_only_programs_keep_their_values_in_registers():
    """expr_plan.in_registers: six (additions only) keeps its values in registers, products and double widths keep
    the slots; the live values bound the words a thread holds."""
    register("six", "poly")
    p = load(ROOT / "tests" / "expressions" / "mix.expr")
    expr_plan.PROGRAMS[p.op] = p
    assert expr_plan.live_values(expr_plan.program("expr_six")) == 4    # b, t3, t4 and t5 as it is made
    assert expr_plan.in_registers("expr_six", 16) and expr_plan.layout("expr_six", 128, 16, 1).registers
    assert not expr_plan.in_registers("expr_six", 64)                   # 4 x 64 words: too many registers
    assert not expr_plan.in_registers("expr_poly", 16) and not expr_plan.in_registers("expr_mix", 16)


def test_additions_only_run_over_several_blocks():
    """EXPR_GRID: six (additions alone) gets grid variants from 2^17 to 2^27 bits, one engine per block size shared by
    every size; poly (products) gets none, with the constraint named; below 2^17 bits none."""
    from generator import grid_plan
    register("six", "poly")
    notes = []
    vs = plan([65536, 1 << 17, 1 << 18, 1 << 27], ops=["expr_six", "expr_poly"], backends=["cuda"], notes=notes)
    grid = [v for v in vs if v.grid is not None]
    assert {v.bits for v in grid} == {1 << 17, 1 << 18, 1 << 27} and all(v.op == "expr_six" for v in grid)
    assert {v.grid for v in grid} == {256, 512} and all(v.q == 16 and v.limb == "u32" for v in grid)
    assert {grid_plan.engine(v) for v in grid} == {"expr_six_grid_u32_q16_g256_cuda", "expr_six_grid_u32_q16_g512_cuda"}
    assert all(grid_plan.plan_kind(v) == "expr_grid" for v in grid)
    assert any("expr_poly" in n and str(1 << 27) in n and "expr_grid_linear" in n for n in notes), notes
    for v in grid:
        assert parse_name(v.name) == v
        tile, fix = grid_plan.kernels(v)
        assert (tile.role, tile.template, tile.span) == ("expr", "kernel_expr_tile.j2", v.grid * 16)
        assert (fix.role, fix.span) == ("fixup", tile.span) and tile.span < 1 << 16   # x1 packs words | output << 16
        assert grid_plan.tile_resident(v, expr_plan.tile_plan(v.op, v.grid, 16)) == 65536 // (64 * v.grid)
    from generator.space import EXPR_GRID, failed_constraint
    from generator.variant import Variant
    poly = Variant("expr_poly", 1 << 18, "u32", 16, 1, "cuda", grid=256)
    assert failed_constraint(poly).name == "expr_grid_linear"
    assert failed_constraint(Variant("expr_six", 65536, "u32", 16, 1, "cuda", grid=256)).name == "expr_grid_min_bits"
    assert failed_constraint(Variant("expr_six", 1 << 28, "u32", 16, 1, "cuda", grid=256)).name == "expr_grid_max_bits"
    # the refusal of modular steps (E mod m) first, as in every expression family, then linearity
    assert [c.name for c in EXPR_GRID.constraints[:2]] == ["expr_not_modular", "expr_grid_linear"]


def test_tile_plan_stages_what_the_outputs_need():
    """adds.expr: three inputs staged, four outputs (three summed, one an input), 3 slots of a padded tile."""
    p = load(ROOT / "tests" / "expressions" / "adds.expr")
    expr_plan.PROGRAMS[p.op] = p
    tp = expr_plan.tile_plan(p.op, 256, 16)
    assert [i for _j, i in tp.inputs] == [0, 1, 2] and [j for j, _i in tp.inputs] == [4, 5, 6]
    assert [v for _j, v, _n in tp.outputs] == [17, 18, 2, 5] and len(tp.linear) == 3
    assert tp.slot_words == 4096 + 128 and tp.words == 3 * tp.slot_words + 64
    register("poly")
    assert expr_plan.tile_plan("expr_poly", 256, 16) is None
