"""Fused expressions against GMP (build/tests/check_expr walks each expression's program in mpz), their API errors
(build/tests/expr_errors), and a test expression with every kind of step generated in a copy of the tree."""

import shutil
import subprocess

import pytest

from conftest import BACKENDS, BUILD, ROOT, assert_all_ok, driver_env, read_variants, require_backend
from generator.expr import load

CHECK_EXPR = BUILD / "tests" / "check_expr"
EXPR_ERRORS = BUILD / "tests" / "expr_errors"
MIX = ROOT / "tests" / "expressions" / "mix.expr"
PATTERNS = ("random", "max", "zero", "ones_plus_one", "zero_minus_one", "single_bits", "runs", "edges", "sparse")


def run(args, cases, env=None, tree=ROOT):
    return subprocess.run([str(tree / "build/tests/check_expr"), *args], input="\n".join(cases) + "\n",
                          capture_output=True, text=True, timeout=900, env=driver_env(**(env or {})))


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


@pytest.mark.parametrize("backend", BACKENDS)
def test_expression_variants(backend):
    """Every generated expression variant, forced, against GMP."""
    require_backend(backend)
    vs = expr_variants(backend)
    assert vs, "no expression variants generated"
    for v in vs:
        name = v["op"][len("expr_"):]
        cases = variant_cases(v, name)
        proc = run(["--backend", backend, "--variant", v["name"]], cases)
        assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_expression_dispatch_and_chunks(backend):
    """Without a forced variant (the default rule) and with a staging cap of a few instances, so the host path runs
    several chunks, synchronously and asynchronously (midint_expr_async on page-locked memory); sizes between the
    generated ones."""
    require_backend(backend)
    vs = expr_variants(backend)
    cases = []
    for op in sorted({v["op"] for v in vs}):
        sizes = sorted({v["bits"] for v in vs if v["op"] == op})
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


def test_mix_expression_in_a_tree_copy(tmp_path):
    """tests/expressions/mix.expr (subtraction, constants, full products, zero-extension, shared values, four outputs,
    two of twice the width), sums.expr (the sums-only kernel) and prods.expr (the owner family's fused and unfused
    sums; at 16384 bits the NTT family's rounds: three operands, four products, sums between) generated alone at
    three sizes in a copy of the tree,
    checked against GMP on OpenCL, and the API checks that need several outputs."""
    require_backend("opencl")
    tree = tmp_path / "tree"
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "generator", "templates",
                            "runtime", "tests/drivers", "tests/expressions", "expressions", "Makefile"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tree / f)
    for target in (["gen", "SIZES=512,2048,16384",
                    "EXPRS=tests/expressions/mix.expr,tests/expressions/sums.expr,tests/expressions/prods.expr",
                    "GENFLAGS=--ops expr_mix,expr_sums,expr_prods"],
                   ["NO_CUDA=1", "build/tests/check_expr", "build/tests/expr_errors"]):
        p = subprocess.run(["make", "-s", *target], cwd=tree, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    names = [ln.split()[0] for ln in (tree / "generated/variants.txt").read_text().splitlines()
             if ln.startswith(("expr_mix_", "expr_sums_", "expr_prods_")) and ln.split()[6] == "opencl"]
    assert {n.split("_")[1] for n in names} == {"mix", "sums", "prods"}
    assert any(n.startswith("expr_prods_2048_") and "_o" in n for n in names), "no owner variant of prods.expr"
    assert any(n.startswith("expr_prods_16384_") and "_p3b32" in n for n in names), "no NTT variant of prods.expr"
    for name in names:
        expr, bits, ipb = name.split("_")[1], int(name.split("_")[2]), int(name.split("_")[5][1:])
        v = {"bits": bits, "ipb": ipb}
        cases = variant_cases(v, expr)
        if expr == "sums" and bits > 1536:
            # sums.expr takes the sums-only kernel (every value in registers): instances of 3 and 2 threads of 16
            # words, so segments straddle warps (the scan across warps) or tile them (ballots alone)
            cases += ["sums 1536 45 mixed 30 host none", "sums 1504 13 edges 31 device inplace",
                      "sums 800 70 mixed 32 host none", "sums 1536 3 ones_plus_one 33 host none"]
        proc = run(["--backend", "opencl", "--variant", name], cases, tree=tree)
        assert_all_ok(proc, cases)
    check_errors(tree / "build/tests/expr_errors", "opencl", skipped_ok=set())
