"""Expressions step by step (runtime/expr_steps.c: one library call per step of the program, where no fused kernel
serves a size): forced at small sizes by the test hook MIDINT_TEST_EXPR_STEPS for every generated expression, and
chosen without it above the largest fused size, each against GMP (build/tests/check_expr)."""

import subprocess

import pytest

from conftest import BACKENDS, BUILD, assert_all_ok, driver_env, largest_bits, read_variants, require_backend
from test_expr import STEPS, run, step_cases

MEASURE = BUILD / "tuning" / "measure"


def expressions(backend):
    """name -> generated sizes of each expression on `backend` that has a step path (not the modular ones, E mod m:
    fused only, tests/test_expr_mod.py)."""
    from test_expr_mod import modular_names
    modular = modular_names() if (BUILD / "tests/check_expr").exists() else set()
    out = {}
    for v in read_variants():
        if v["backend"] == backend and v["op"].startswith("expr_") and v["op"][len("expr_"):] not in modular:
            out.setdefault(v["op"][len("expr_"):], set()).add(v["bits"])
    return {name: sorted(sizes) for name, sizes in out.items()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_expression_step_by_step(backend):
    """Every generated expression through the step path (forced by the hook) against GMP, and the host path with a
    staging cap of a few instances: chunks on the pipeline's three streams share the step path's temporaries."""
    require_backend(backend)
    exprs = expressions(backend)
    if not exprs:
        pytest.skip(f"no expression is generated for {backend} (make gen EXPRS=...)")
    cases = [c for name, sizes in sorted(exprs.items()) for c in step_cases(name, sizes)]
    assert_all_ok(run(["--backend", backend], cases, env=STEPS), cases)
    chunked = [f"{name} {sizes[0]} 41 mixed 20 host none" for name, sizes in sorted(exprs.items())]
    chunked += [f"{name} {sizes[0]} 29 runs 21 async inplace" for name, sizes in sorted(exprs.items())]
    staging = 3 * 8 * 4 * max(s[0] for s in exprs.values()) // 32 * 4   # a few instances per chunk
    assert_all_ok(run(["--backend", backend, "--staging", str(staging)], chunked, env=STEPS), chunked)


def select(backend, commands, env=None):
    p = subprocess.run([str(MEASURE), "--backend", backend, "--tuning", "none"], input="\n".join(commands) + "\n",
                       capture_output=True, text=True, timeout=600, env=driver_env(**(env or {})))
    assert p.returncode == 0, p.stderr
    return {" ".join(ln.split()[1:4]): ln.split()[4] for ln in p.stdout.splitlines() if ln.startswith("select ")}


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_above_the_fused_sizes(backend):
    """Without the hook an expression runs its fused kernel up to its largest generated size and step by step above
    it, as far as its operations go (poly: mullo and add; the default SIZES generate its fused kernels up to 131072
    bits and the operations up to 2^27): selected as "steps" and right against GMP. On the CPU (PoCL) one instance
    at twice the fused size; on the GPU also a batch at the largest size."""
    require_backend(backend)
    exprs = expressions(backend)
    mullo = largest_bits(backend, "mullo")
    if "poly" not in exprs or mullo <= exprs["poly"][-1] or largest_bits(backend, "add") < mullo:
        pytest.skip(f"poly's fused sizes on {backend} reach as far as its operations (make gen SIZES=...)")
    fused = exprs["poly"][-1]
    above = min(2 * fused, mullo)
    sel = select(backend, [f"select expr_poly {b} {c} " for b, c in ((fused, 3), (above, 3), (mullo, 1),
                                                                        (mullo + 32, 1))])
    assert sel[f"expr_poly {fused} 3"] != "steps" and sel[f"expr_poly {fused} 3"].startswith("expr_poly_"), sel
    assert sel[f"expr_poly {above} 3"] == "steps" and sel[f"expr_poly {mullo} 1"] == "steps", sel
    assert sel[f"expr_poly {mullo + 32} 1"] == "none", sel
    cases = [f"poly {above} 1 mixed 1 host none", f"poly {above - 32} 2 random 2 device inplace"]
    if backend == "cuda":
        cases += [f"poly {mullo} 2 mixed 3 host none", f"poly {fused + 32} 5 edges 4 device none"]
    assert_all_ok(run(["--backend", backend], cases), cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_measure_chain_is_the_step_path(backend):
    """`measure`'s chain command (make bench: the formula as separate calls) times the library's step path, forced by
    the variant name "steps", and checks its outputs against GMP."""
    require_backend(backend)
    exprs = expressions(backend)
    if not exprs:
        pytest.skip(f"no expression is generated for {backend}")
    name, sizes = sorted(exprs.items())[0]
    p = subprocess.run([str(MEASURE), "--backend", backend, "--tuning", "none"],
                       input=f"chain expr_{name} {sizes[0]} 5 1\nselect expr_{name} {sizes[0]} 5\n", capture_output=True,
                       text=True, timeout=600, env=driver_env())
    lines = [ln.split() for ln in p.stdout.splitlines() if ln.startswith(("chain ", "select "))]
    assert lines[0][:6] == ["chain", f"expr_{name}", str(sizes[0]), "5", "separate-calls", "ok"] and lines[0][7] == "pass", \
        p.stdout
    assert lines[1][4] != "steps", p.stdout   # the forced "steps" was cleared after the chain
