"""Fused expressions against GMP (build/tests/check_expr walks each expression's program in mpz), their API errors
(build/tests/expr_errors), and a test expression with every kind of step generated in a copy of the tree."""

import re
import subprocess

import pytest

from conftest import (BACKENDS, BUILD, ROOT, assert_all_ok, assert_ok_but_refusals, device_refusal, driver_env,
                      read_variants, require_backend)
from generator.expr import load

CHECK_EXPR = BUILD / "tests" / "check_expr"
EXPR_ERRORS = BUILD / "tests" / "expr_errors"
MIX = ROOT / "tests" / "expressions" / "mix.expr"
PATTERNS = ("random", "max", "zero", "ones_plus_one", "zero_minus_one", "single_bits", "runs", "edges", "sparse")


def run(args, cases, env=None, tree=ROOT):
    return subprocess.run([str(tree / "build/tests/check_expr"), *args], input="\n".join(cases) + "\n",
                          capture_output=True, text=True, timeout=900, env=driver_env(**(env or {})))


def step_cases(name, sizes):
    """A generated size and one 32 bits below a generated size (the operations' word-by-word paths), counts 1, 3
    and 257 (1 and 3 beyond 8192 bits, which the CPU pays for), host and device, in place, every pattern, page-locked
    asynchronous calls."""
    small = sizes[0]
    odd = max([b for b in sizes if b <= 4096], default=small) - 32
    cases = [f"{name} {bits} {count} mixed {count} {api} none" for bits in (small, odd)
             for count in ((1, 3, 257) if bits <= 8192 else (1, 3)) for api in ("host", "device")]
    cases += [f"{name} {odd} 3 mixed 5 host inplace", f"{name} {small} 3 runs 6 device inplace",
              f"{name} {odd} 2 edges 7 async none", f"{name} {small} 3 mixed 8 async inplace"]
    cases += [f"{name} {small} 3 {p} {10 + i} {('host', 'device')[i % 2]} none" for i, p in enumerate(PATTERNS)]
    return cases


# The test hook that runs expressions step by step (runtime/expr_steps.c) wherever the operations serve the size.
STEPS = {"MIDINT_TEST_EXPR_STEPS": "1"}


def expr_variants(backend):
    return [v for v in read_variants() if v["backend"] == backend and v["op"].startswith("expr_")]


def variant_cases(v, name):
    """A variant's cases: its full size (vectorized path) with counts that do and do not fill a block, a size 32 bits
    below it (word by word, padded), every pattern, host and device, and in place."""
    bits, ipb = v["bits"], v["ipb"]
    cases = [f"{name} {bits} {ipb + 1} mixed 1 device none", f"{name} {bits} 1 max 2 host none",
             f"{name} {bits} 2 random 3 host inplace", f"{name} {bits} 3 edges 4 device inplace"]
    if bits > 32:
        cases += [f"{name} {bits - 32} {2 * ipb + 3} mixed 5 host none"]
    cases += [f"{name} {bits} 2 {p} {10 + i} host none" for i, p in enumerate(PATTERNS)]
    return cases


# Grid variants (EXPR_GRID: an instance over many blocks, `_gB`) share their kernels with the other sizes of their engine
# (the name without its size), as the grid add's (tests/test_variants.py): each engine runs the whole matrix once,
# through its largest variant of at most GRID_BITS[backend] bits, at that size; every other size gets one case at
# min(its size, GRID_BITS), and on the GPU one at its own size. The test hook MIDINT_TEST_TILE_WORDS then cuts
# instances into tiles of SMALL_TILES words (one thread's words; and a tile over two warps, with idle threads above
# it), so that carries cross hundreds of tiles and the fix-up's look-back passes several of its blocks at small sizes.
GRID_BITS = {"opencl": 1 << 20, "cuda": 1 << 23}
SMALL_TILES = (16, 40 * 16)
CHAINS = ("max", "ones_plus_one", "runs", "edges")   # carries through whole tiles (six: a = ones, b = 1 leaves 6 a tile)


def engine_of(v):
    return re.sub(r"^(expr_[a-z0-9]+)_\d+_", r"\1_", v["name"])


def grid_engines(backend):
    """engine -> the variant that runs its matrix (the largest of at most GRID_BITS, else the smallest)."""
    out = {}
    for v in sorted((v for v in expr_variants(backend) if v["grid"] != "-"), key=lambda v: v["bits"]):
        if engine_of(v) not in out or v["bits"] <= GRID_BITS[backend]:
            out[engine_of(v)] = v
    return out


def grid_cases(v, name, full_matrix):
    """A grid variant's cases: at its own size on the GPU; the whole matrix for its engine's chosen variant, else one."""
    top, tile = min(v["bits"], GRID_BITS[v["backend"]]), int(v["grid"]) * v["q"]
    cases = []
    if v["backend"] == "cuda" and v["bits"] > top:
        cases += [f"{name} {v['bits']} 1 ones_plus_one 1 host none", f"{name} {v['bits'] - 32} 1 random 2 device inplace"]
    if not full_matrix:
        return cases + [f"{name} {top} 2 mixed 3 host none"]
    odd = min(top // 2 + 32 * 37, top - 64)   # not a power of two, not a multiple of the tile
    cases += [f"{name} {bits} {count} mixed {count} host none" for bits in sorted({top, top - 32, odd}) for count in (1, 3)]
    cases += [f"{name} {top} 2 {p} {10 + i} host none" for i, p in enumerate(PATTERNS + CHAINS[:1])]
    cases += [f"{name} {odd} 2 mixed 30 device none", f"{name} {odd} 3 mixed 31 host inplace",
              f"{name} {top} 2 runs 32 device inplace"]
    # instances of three tiles and a bit, so that fix-up blocks (one thread per tile) start inside instances
    three = min(32 * (3 * tile + 96), top)
    cases += [f"{name} {three} {int(v['grid']) // 2 + 3} {p} {40 + i} host none" for i, p in enumerate(CHAINS[1:2])]
    return cases


def outputs_of(name, tree=ROOT):
    """How many outputs expression `name` has (check_expr --list: "NAME inputs ... outputs r:1 ... program ...")."""
    listing = subprocess.run([str(tree / "build/tests/check_expr"), "--list"], capture_output=True, text=True,
                             check=True).stdout
    line = next(ln for ln in listing.splitlines() if ln.split()[0] == name)
    return len(line.split(" outputs ")[1].split(" program ")[0].split())


def small_tile_cases(v, name, tile):
    """Cases for MIDINT_TEST_TILE_WORDS=tile: instances of more than two fix-up blocks of tiles (where the CPU affords
    it), instances of three tiles side by side past a fix-up block, every chain pattern, in place."""
    long_bits = min(32 * tile * (2 * int(v["grid"]) + 3), GRID_BITS[v["backend"]], v["bits"])
    few, count = 32 * (2 * tile + 16), int(v["grid"]) // 3 + 3   # 3 tiles each: fix-up blocks start inside instances
    return ([f"{name} {long_bits} 2 {p} {50 + i} host none" for i, p in enumerate(CHAINS + ("random",))]
            + [f"{name} {few} {count} {p} {60 + i} host none" for i, p in enumerate(CHAINS)]
            + [f"{name} {long_bits - 32} 3 mixed 70 device inplace"])


def test_shipped_expressions_are_generated_and_listed():
    """make gen's default generates six and poly; the registry holds the programs the generator parsed."""
    assert CHECK_EXPR.exists(), "run `make` first"
    ops = {v["op"] for v in read_variants()}
    assert {"expr_six", "expr_poly"} <= ops, "the default EXPRS (six and poly) were not generated"
    listing = subprocess.run([str(CHECK_EXPR), "--list"], capture_output=True, text=True, check=True).stdout
    got = {line.split()[0]: line for line in listing.splitlines()}
    for f in ("six", "poly"):
        p = load(ROOT / "expressions" / f"{f}.expr")
        assert got[f].endswith(f"program {p.text()}"), got[f]
        assert " outputs r:1 " in got[f] and " inputs a b " in got[f]


def forcing(cases, v):
    """`cases` with check_expr's variant field forcing variant v, so that many variants' cases go to one process (a
    process and its OpenCL context cost about 50 ms on PoCL, half a second on Intel's CPU runtime)."""
    return [f"{c} {v['name']}" for c in cases]


@pytest.mark.parametrize("backend", BACKENDS)
def test_expression_variants(backend):
    """Every generated expression variant, forced, against GMP; one the device refuses (device_refusal) fails only
    its own cases, with the refusal."""
    require_backend(backend)
    vs = expr_variants(backend)
    assert vs, "no expression variants generated"
    engines = grid_engines(backend)
    cases = []
    for v in vs:
        name = v["op"][len("expr_"):]
        if v["grid"] != "-":
            cases += forcing(grid_cases(v, name, engines[engine_of(v)]["name"] == v["name"]), v)
        else:
            cases += forcing(variant_cases(v, name), v)
    assert_ok_but_refusals(run(["--backend", backend], cases), cases)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tile", SMALL_TILES)
def test_expression_grid_small_tiles(backend, tile):
    """Each expression grid engine with tiles of `tile` words (test hook MIDINT_TEST_TILE_WORDS), against GMP."""
    require_backend(backend)
    engines = grid_engines(backend)
    if not engines:
        pytest.skip(f"no expression grid variants generated for {backend} (additions-only expressions from "
                    "131072 bits)")
    for v in engines.values():
        cases = small_tile_cases(v, v["op"][len("expr_"):], tile)
        proc = run(["--backend", backend, "--variant", v["name"]], cases, env={"MIDINT_TEST_TILE_WORDS": str(tile)})
        if device_refusal(proc):
            continue
        assert_all_ok(proc, cases)
        # a workspace of two instances' tile functions (a word per tile and output): passes of two instances
        bits = int(small_tile_cases(v, "x", tile)[0].split()[1])
        per = 4 * -(-bits // 32 // tile) * outputs_of(v["op"][len("expr_"):])
        cases = [f"{v['op'][5:]} {bits} 5 {p} {80 + i} {api} none" for i, (p, api) in
                 enumerate((("ones_plus_one", "host"), ("mixed", "device"), ("runs", "device")))]
        proc = run(["--backend", backend, "--variant", v["name"], "--workspace", str(2 * per)], cases,
                   env={"MIDINT_TEST_TILE_WORDS": str(tile)})
        assert_all_ok(proc, cases)
    bad = run(["--backend", backend, "--variant", v["name"]], [f"{v['op'][5:]} {v['bits']} 1 mixed 1 host none"],
              env={"MIDINT_TEST_TILE_WORDS": "24"})
    assert "MIDINT_TEST_TILE_WORDS is 24" in bad.stdout and "a multiple of 16" in bad.stdout, bad.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_expression_dispatch_and_chunks(backend):
    """Without a forced variant (the default rule) and with a staging cap of a few instances, so the host path runs
    several chunks, synchronously and asynchronously (midint_expr_async on page-locked memory); sizes between the
    generated ones."""
    require_backend(backend)
    vs = expr_variants(backend)
    cases = []
    for op in sorted({v["op"] for v in vs}):
        # the grid variants' sizes up to GRID_BITS (2^27 bits on a CPU would take minutes)
        sizes = sorted({v["bits"] for v in vs if v["op"] == op})
        sizes = [b for b in sizes if b <= GRID_BITS[backend]] or sizes[:1]
        name = op[len("expr_"):]
        cases += [f"{name} {sizes[-1]} 37 mixed 7 host none", f"{name} {max(32, sizes[0] - 64)} 9 mixed 8 host inplace",
                  f"{name} {sizes[-1]} 23 mixed 9 async none", f"{name} {sizes[0]} 11 runs 10 async inplace"]
    proc = run(["--backend", backend, "--staging", str(6 * 4 * 4 * 8192 // 32 * 4)], cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_expression_api_errors(backend):
    require_backend(backend)
    check_errors(EXPR_ERRORS, backend, skipped_ok={"overlap_outputs", "same_outputs", "wide_output_in_place_refused",
                                                   "device_same_outputs", "device_buffer_too_small",
                                                   "forced_variant_too_small", "null_input"})


def check_errors(driver, backend, skipped_ok):
    names = subprocess.run([str(driver), "--list"], capture_output=True, text=True, check=True).stdout.split()
    assert len(names) >= 25
    p = subprocess.run([str(driver), "--backend", backend], capture_output=True, text=True, timeout=600,
                       env=driver_env())
    lines = p.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    bad_skips = [ln for ln in lines if ln.startswith("skip") and ln.split()[1].rstrip(":") not in skipped_ok]
    assert not bad_skips, "\n".join(bad_skips)
    reported = {ln.split()[1].rstrip(":") for ln in lines}
    assert reported == set(names), f"unreported checks: {set(names) - reported}"
    assert p.returncode == 0, p.stderr


def test_mix_expression_in_a_tree_copy(expressions_tree):
    """tests/expressions/mix.expr (subtraction, constants, full products, zero-extension, shared values, four outputs,
    two of twice the width), sums.expr (the sums-only kernel), prods.expr (the owner family's fused and unfused
    sums; at 16384 bits the NTT family's rounds: three operands, four products, sums between) and adds.expr
    (additions alone: the linear kernels, one-block and over several blocks, with several summed outputs, a large
    coefficient and an output that is an input) generated alone (with the operations, for the step path) in a copy
    of the tree,
    checked against GMP on OpenCL, and the API checks that need several outputs (conftest's expressions_tree, shared
    with test_expr_mod.py's modp)."""
    tree = expressions_tree
    rows = [ln.split() for ln in (tree / "generated/variants.txt").read_text().splitlines()
            if ln.startswith(("expr_mix_", "expr_sums_", "expr_prods_", "expr_adds_")) and ln.split()[6] == "opencl"]
    names = [r[0] for r in rows if r[11] == "-"]
    assert {n.split("_")[1] for n in names} == {"mix", "sums", "prods", "adds"}
    assert any(n.startswith("expr_prods_2048_") and "_o" in n for n in names), "no owner variant of prods.expr"
    assert any(n.startswith("expr_prods_16384_") and "_p3b32" in n for n in names), "no NTT variant of prods.expr"
    grid = [dict(name=r[0], op=r[1], bits=int(r[2]), q=int(r[4]), backend=r[6], grid=r[11]) for r in rows if r[11] != "-"]
    assert {(v["op"], v["bits"]) for v in grid} == {("expr_adds", 131072)}, grid
    for v in grid:   # adds.expr over several blocks: the whole matrix, and small tiles
        cases = grid_cases(v, "adds", True)
        assert_all_ok(run(["--backend", "opencl", "--variant", v["name"]], cases, tree=tree), cases)
        cases = small_tile_cases(v, "adds", 16)
        assert_all_ok(run(["--backend", "opencl", "--variant", v["name"]], cases, env={"MIDINT_TEST_TILE_WORDS": "16"},
                          tree=tree), cases)
    cases = []   # every one-block variant's, in one process
    for name in names:
        expr, bits, ipb = name.split("_")[1], int(name.split("_")[2]), int(name.split("_")[5][1:])
        v = {"name": name, "bits": bits, "ipb": ipb}
        own = variant_cases(v, expr)
        if expr == "sums" and bits > 1536:
            # sums.expr takes the sums-only kernel (every value in registers): instances of 3 and 2 threads of 16
            # words, so segments straddle warps (the scan across warps) or tile them (ballots alone)
            own += ["sums 1536 45 mixed 30 host none", "sums 1504 13 edges 31 device inplace",
                    "sums 800 70 mixed 32 host none", "sums 1536 3 ones_plus_one 33 host none"]
        cases += forcing(own, v)
    assert_all_ok(run(["--backend", "opencl"], cases, tree=tree), cases)
    # step by step (runtime/expr_steps.c): mix (full products, zero-extension, constants, four outputs), adds (an
    # output that is an input) and sums (output a: in place, output r overwrites a's buffer, so a is copied aside
    # first) forced by the hook at their fused sizes; and without it at 16384 bits, where mix has no fused kernel
    # (the NTT family takes no full products) but add (at twice the size), sub, mul and mullo run
    cases = [c for name in ("mix", "adds", "sums") for c in step_cases(name, [512, 2048])]
    assert_all_ok(run(["--backend", "opencl"], cases, env=STEPS, tree=tree), cases)
    cases = ["mix 16384 2 mixed 80 host none", "mix 16352 3 edges 81 device inplace"]
    assert_all_ok(run(["--backend", "opencl"], cases, tree=tree), cases)
    check_errors(tree / "build/tests/expr_errors", "opencl", skipped_ok=set())
