"""Modular expressions (E mod m, docs/expressions.md: the thread-per-instance family expr_mod) against GMP: the
generated ones (expressions/mac.expr by default) forced variant by variant on each backend, tests/expressions/modp.expr
generated alone in a copy of the tree (OpenCL), the refusals of even and zero moduli, the generator's choices, and the
planner's two modes (generator/expr_mod_plan.py: which mode each modulus gets at each size, the operations each makes,
and every mode run in a Python simulator of the kernel's operations against expr.evaluate)."""

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
    difference going negative, a constant in a region, three outputs; m in plain residues, p in Montgomery form at 512
    bits and plain at 2048: test_plan_modp_modes) generated with the other test expressions in
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


# ---- the two modes (generator/expr_mod_plan.py): which each modulus gets, and the operations they make ----

MAC = "input a, b, c, m\noutput r = (a*b + c) mod m\n"


def chain(k):
    """a^(k+1) mod m: k products of one entering value"""
    return "input a, m\noutput r = " + " * ".join(["a"] * (k + 1)) + " mod m\n"


def simulate(plan, prog, inputs, n):
    """The plan's operations on Python integers, as kernel_expr_mod.j2 runs them, checking every operand's bound (a
    Montgomery operand below m, a product's below 2^(32N), a sum within its slot's words, a division's dividend within
    its function's words), every slot's width, and that no result takes its modulus's slot (the kernel's functions
    write the result while they still read the modulus: a 2048-bit crt_h wrote zeros on CUDA when mulmod's remainder
    overwrote the modulus it was dividing by); returns output name -> value."""
    B, R = 32 * n, 1 << (32 * n)
    slots = {}

    def put(s, x):
        assert 0 <= x < 1 << (32 * plan.slot_words[s]), (s, x)
        slots[s] = x

    for io, s in plan.loads:
        put(s, inputs[prog.inputs[io - len(prog.outputs)]])
    rinv = {m: pow(R, -1, inputs[prog.inputs[m]]) for m, _s in plan.moduli}
    for o in plan.ops:
        a = [slots[s] for s in o.args]
        m = a[-1] if o.mod >= 0 else None
        k = o.kind
        assert o.mod < 0 or o.dst != o.args[-1], (k, o.dst, o.args)
        if k in ("redm", "mulm", "leave", "addm", "subm"):
            assert o.mod in rinv and all(x < m for x in a[1 if k == "redm" else 0:-1]) and a[0] < R, (k, a)
        if k == "redm":
            put(o.dst, a[0] * R % m)
        elif k == "mulm":
            put(o.dst, a[0] * a[1] * rinv[o.mod] % m)
        elif k == "leave":
            put(o.dst, a[0] * rinv[o.mod] % m)
        elif k in ("addm", "addmod", "subm", "submod"):
            assert a[0] < m and a[1] < m, (k, a)
            put(o.dst, (a[0] + a[1] if k.startswith("add") else a[0] - a[1]) % m)
        elif k in ("mulmod", "mulw"):
            assert a[0] < R and a[1] < R, (k, a)
            put(o.dst, a[0] * a[1] % m if k == "mulmod" else a[0] * a[1])
        elif k in ("wadd", "wsub"):
            assert a[0] < 1 << (32 * o.words[1]) and (k == "wsub" and a[1] < m or a[1] < 1 << (32 * o.words[2]))
            x = a[0] + a[1] if k == "wadd" else a[0] + m - a[1]
            assert x < 1 << (32 * o.words[0]), (k, x)
            put(o.dst, x)
        elif k == "reduce":
            assert o.words[1] in (n, n + 1, 2 * n + 1) and a[0] < 1 << (32 * o.words[1])
            put(o.dst, a[0] % m)
        else:
            x = {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mullo": lambda: a[0] * a[1],
                 "const": lambda: o.value}[k]()
            put(o.dst, x % (1 << B))
    return {name: slots[s] for _io, s, name in plan.stores}


def odd_moduli(n, rng):
    B = 32 * n
    return [x for x in (1, 3, (1 << 33) - 1, (1 << B) - 1, (1 << (B - 1)) + 1, rng.getrandbits(B) | 1,
                        rng.getrandbits(40) | 1) if x < 1 << B]


MODP = (ROOT / "tests/expressions/modp.expr").read_text()
LONG = ("input a, b, c, m\n"
        "output r = (a*b + b*c + c*a + a*a + b*b + c*c + a*b*c - a - b - c + 7) mod m\n"
        "output s = ((a - b) * (b - c) - (a*b - c) * (a + b + c)) mod m\n")


# 40 products summed: past 2N + 1 words, so the planner reduces the running sum on the way
SUM40 = "input a, b, m\noutput r = (" + " + ".join(["a*b"] * 40) + ") mod m\n"


# RSA's CRT step (expressions/crt_h.expr): the modulus dies at the last product, whose result must not take its slot
CRTH = "input m1, m2, p, qinv\noutput h = (qinv * (m1 - m2)) mod p\n"


@pytest.mark.parametrize("text", (MAC, MODP, LONG, SUM40, chain(3), chain(9), CRTH),
                         ids=("mac", "modp", "long", "sum40", "pow4", "pow10", "crth"))
def test_plan_modes_against_evaluate(text):
    """Every mode of every modulus (chosen, all plain, all Montgomery) at 1, 2, 8 and 33 words runs the program's
    semantics (expr.evaluate) in the simulator, on inputs at, above and below the moduli."""
    from generator.expr import evaluate
    from generator.expr_mod_plan import plan as mod_plan
    import random
    prog = parse(text, "t.expr")
    rng = random.Random(text)
    for n in (1, 2, 8, 33):
        B = 32 * n
        for force in (None, "plain", "mont"):
            pl = mod_plan(prog, n, None if force is None else {m: force for m in prog.moduli()})
            for mod in odd_moduli(n, rng):
                for _ in range(4):
                    vals = {x: rng.choice([0, 1, mod - 1, mod, mod + 1, (1 << B) - 1, rng.getrandbits(B)]) % (1 << B)
                            for x in prog.inputs}
                    for m in prog.moduli():
                        vals[prog.inputs[m]] = mod if rng.random() < 0.7 else rng.choice(odd_moduli(n, rng))
                    assert simulate(pl, prog, vals, n) == evaluate(prog, vals, B), (n, force, vals)


def test_plan_mac_is_one_product_one_sum_one_division():
    """mac at every size: plain residues, the full product into 2N + 1 words, c added, one division of 2N + 1 words
    (no Montgomery constants, no conversions); the model's reason names both counts."""
    from generator.expr_mod_plan import plan as mod_plan
    prog = parse(MAC, "mac.expr")
    for n in (8, 32, 128, 256):
        pl = mod_plan(prog, n)
        assert [c.mode for c in pl.modes] == ["plain"] and pl.moduli == () and not pl.leaves
        assert [(o.kind, o.words) for o in pl.ops] == [("mulw", (2 * n + 1, n, n, n)),
                                                       ("wadd", (2 * n + 1, 2 * n + 1, n, n)),
                                                       ("reduce", (n, 2 * n + 1, n))]
        c = pl.modes[0]
        assert c.plain_cost * 3 < c.mont_cost and "plain" in c.why() and str(c.mont_cost) in c.why()


def test_plan_threshold_of_a_power_chain():
    """One value entering, k products, one leaving: Montgomery from k = 5 at 256 bits, 7 at 512, 12 at 1024, 22 at
    2048, 42 at 4096, 83 at 8192 (docs/expressions.md's table); below, plain residues, a mulmod per product."""
    from generator.expr_mod_plan import plan as mod_plan
    for n, k in ((8, 5), (16, 7), (32, 12), (64, 22), (128, 42), (256, 83)):
        below, at = mod_plan(parse(chain(k - 1), "c.expr"), n), mod_plan(parse(chain(k), "c.expr"), n)
        assert below.modes[0].mode == "plain" and at.modes[0].mode == "mont", (n, k)
        assert [o.kind for o in below.ops] == ["mulmod"] * (k - 1)
        assert [o.kind for o in at.ops] == ["redm"] + ["mulm"] * k + ["leave"] and at.moduli == ((1, 1),)


def test_plan_modp_modes():
    """modp: m in plain residues at every size (t = a b mod m reduced: it is a product's operand, a subtrahend and read
    outside; t t + c - 3 a kept exact in 2N + 1 words, one division); p in Montgomery form up to 512 bits (eleven
    factors of one residue), plain from 1024; the test tree's 512 and 2048 bits check both."""
    from generator.expr_mod_plan import plan as mod_plan
    prog = parse(MODP, "modp.expr")
    m, p = prog.inputs.index("m"), prog.inputs.index("p")
    for n, pm in ((8, "mont"), (16, "mont"), (32, "plain"), (64, "plain"), (256, "plain")):
        pl = mod_plan(prog, n)
        assert (pl.mode_of(m), pl.mode_of(p)) == ("plain", pm), n
        assert [o.kind for o in pl.ops if o.mod == m] == ["mulmod", "mulw", "wadd", "mulmod", "wsub", "reduce", "wsub",
                                                          "reduce"]
        assert pl.moduli == (((p, pl.loads[-1][1]),) if pm == "mont" else ())
