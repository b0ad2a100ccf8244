"""Modular expressions (E mod m, docs/expressions.md: the thread-per-instance family expr_mod) against GMP: the
generated ones (expressions/mac.expr by default) forced variant by variant on each backend, tests/expressions/modp.expr
generated alone in a copy of the tree (OpenCL), the refusals of even and zero moduli, and the generator's choices."""

import subprocess

import pytest

from conftest import BACKENDS, BUILD, ROOT, assert_all_ok, device_refusal, read_variants, require_backend
from generator import expr_plan
from generator.expr import parse
from generator.plan import PlanError, plan
from generator.space import EXPR_LANES, EXPR_MOD, failed_constraint, families_for
from generator.variant import Variant
from test_expr import run

PATTERNS = ("random", "max", "zero", "ones_plus_one", "single_bits", "runs", "edges", "sparse")


def modular_names(tree=ROOT):
    """The generated expressions with modular steps (check_expr --list: their programs hold redm)."""
    listing = subprocess.run([str(tree / "build/tests/check_expr"), "--list"], capture_output=True, text=True,
                             check=True).stdout
    return {ln.split()[0] for ln in listing.splitlines() if " redm " in ln}


def mod_cases(name, bits, ipb=128):
    """Counts of 1, a few (every modulus shape: they cycle by instance, check_expr's expr_odd_moduli), one past a
    block and two; the full size and one 32 bits below (zero-padded); every pattern; host, asynchronous and device;
    in place; an even and a zero modulus refused naming the instance, outputs untouched, on each path."""
    low = bits - 32 if bits > 32 else bits
    cases = [f"{name} {bits} 1 random 1 host none", f"{name} {bits} 7 mixed 2 device none",
             f"{name} {bits} {ipb + 1} mixed 3 host none", f"{name} {low} {2 * ipb + 3} mixed 4 device none",
             f"{name} {low} 13 edges 5 async none", f"{name} {bits} 9 mixed 6 host inplace",
             f"{name} {bits} 6 runs 7 device inplace"]
    cases += [f"{name} {bits} 12 {p} {10 + i} {('host', 'device')[i % 2]} none" for i, p in enumerate(PATTERNS)]
    cases += [f"{name} {bits} 9 mixed {s} {api} evenmod" for s, api in ((20, "host"), (21, "device"), (22, "async"),
                                                                         (23, "host"))]
    return cases


@pytest.mark.parametrize("backend", BACKENDS)
def test_modular_expression_variants(backend):
    """Every generated variant of a modular expression, forced, against GMP; above its largest size the call is
    refused, saying that modular steps have no step-by-step path."""
    require_backend(backend)
    names = modular_names() if (BUILD / "tests/check_expr").exists() else set()
    vs = [v for v in read_variants() if v["backend"] == backend and v["op"][len("expr_"):] in names]
    if not vs:
        pytest.skip("no modular expression was generated (make gen EXPRS=...,expressions/mac.expr)")
    for v in vs:
        name = v["op"][len("expr_"):]
        assert "_w1_" in v["name"] and v["q"] == v["bits"] // 32, v["name"]   # the thread per instance
        cases = mod_cases(name, v["bits"], v["ipb"])
        proc = run(["--backend", backend, "--variant", v["name"]], cases)
        if not device_refusal(proc):
            assert_all_ok(proc, cases)
    for name in names:
        top = max(v["bits"] for v in vs if v["op"] == "expr_" + name)
        cases = [f"{name} {top} 37 mixed 30 host none", f"{name} {top} 5 mixed 31 async inplace"]
        assert_all_ok(run(["--backend", backend, "--staging", str(4 * 4 * top // 32 * 8)], cases), cases)
        proc = run(["--backend", backend], [f"{name} {top + 32} 1 random 1 host none"])
        assert "no step-by-step path" in proc.stdout, proc.stdout
        # the test hook forcing the step path leaves a modular expression on its fused kernel (it has no steps)
        cases = [f"{name} {top} 3 mixed 32 device none"]
        assert_all_ok(run(["--backend", backend], cases, env={"MIDINT_TEST_EXPR_STEPS": "1"}), cases)


def test_modp_expression_in_a_tree_copy(expressions_tree):
    """tests/expressions/modp.expr (two moduli, a residue reused by plain steps and by the other modulus's region, a
    difference going negative, a constant in a region, three outputs) generated with the other test expressions in
    conftest's copy of the tree (at 512 and 2048 bits; the larger sizes are past its family's), checked against GMP
    on OpenCL."""
    tree = expressions_tree
    rows = [ln.split() for ln in (tree / "generated/variants.txt").read_text().splitlines()
            if ln.startswith("expr_modp_") and ln.split()[6] == "opencl"]
    assert [r[0] for r in rows] == ["expr_modp_512_u32_q16_i128_w1_opencl", "expr_modp_2048_u32_q64_i128_w1_opencl"]
    for r in rows:
        cases = mod_cases("modp", int(r[2]))
        assert_all_ok(run(["--backend", "opencl", "--variant", r[0]], cases, tree=tree), cases)


def programs(**texts):
    expr_plan.PROGRAMS.clear()
    for name, text in texts.items():
        p = parse(text, f"{name}.expr")
        expr_plan.PROGRAMS[p.op] = p


def test_generator_families_for_modular_programs():
    """A modular program gets the thread per instance alone (one variant per size, up to 8192 bits); the other
    expression families refuse it by a constraint that says so; a size beyond, or a full product beside the regions, is
    refused naming the constraints."""
    programs(mac="input a, b, c, m\noutput r = (a*b + c) mod m\n",
             wide="input a, m\noutput r = a * a mod m\noutput w = sqrw(a)\n",
             plain="input a, b\noutput r = a * b\n")
    try:
        assert families_for("expr_mac")[0] is EXPR_MOD and EXPR_MOD not in families_for("expr_plain")
        names = [v.name for v in plan([256, 1024, 8192], ops=["expr_mac"], backends=("cuda",))]
        assert names == ["expr_mac_256_u32_q8_i128_w1_cuda", "expr_mac_1024_u32_q32_i128_w1_cuda",
                         "expr_mac_8192_u32_q256_i128_w1_cuda"]
        lanes = Variant("expr_mac", 512, "u32", 8, 16, "cuda", lanes=2)
        assert failed_constraint(lanes).name == "expr_not_modular" and EXPR_LANES.name == "expr_lanes"
        with pytest.raises(PlanError, match="expr_mod_max_bits.*expr_not_modular"):
            plan([16384], ops=["expr_mac"], backends=("cuda",))
        with pytest.raises(PlanError, match="expr_mod_ops"):
            plan([1024], ops=["expr_wide"], backends=("cuda",))
    finally:
        expr_plan.PROGRAMS.clear()
