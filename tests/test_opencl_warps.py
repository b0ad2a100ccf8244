"""OpenCL warp primitives: the spelling a build gets (local memory, sub-group shuffles, NVIDIA's PTX), and every
kernel family that passes words between lanes run against GMP on an OpenCL implementation that has sub-groups."""

import os
from pathlib import Path

import pytest

from conftest import assert_all_ok, assert_ok_but_refusals, read_variants, refusal_in, require_backend, run_driver
from test_expr import expr_variants, forcing, variant_cases
from test_expr import run as run_expr
from test_variants import cases_for

# An OpenCL implementation whose warp primitives the runtime can use, as the path of its ICD library, and the spelling
# to force on it (MIDINT_TEST_WARPS, default "subgroups"): one with cl_khr_subgroup_shuffle and _ballot (.ci/run
# installs Intel's CPU runtime from PyPI, tools/install-subgroup-opencl.sh), or NVIDIA's (libnvidia-opencl.so.1,
# "ptx") on a GPU machine. Without it these tests skip. A forced spelling is never replaced by local memory: a probe
# or a build that fails makes every call fail, so these tests cannot pass through the local-memory spelling.
SUBGROUP_ICD = os.environ.get("MIDINT_TEST_SUBGROUP_ICD", "")
FORCED = os.environ.get("MIDINT_TEST_WARPS", "subgroups")


def icd_env(**extra):
    """The drivers' environment with the sub-group implementation as the only OpenCL platform."""
    if not SUBGROUP_ICD:
        pytest.skip("no OpenCL implementation with sub-groups here: set MIDINT_TEST_SUBGROUP_ICD to its ICD library "
                    "(tools/install-subgroup-opencl.sh installs one)")
    lib = Path(SUBGROUP_ICD)
    assert lib.exists(), f"MIDINT_TEST_SUBGROUP_ICD={SUBGROUP_ICD} does not exist"
    paths = [str(lib.parent)] + [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    return {"OCL_ICD_FILENAMES": str(lib), "OCL_ICD_VENDORS": str(lib.parent / "no-vendors"),
            "LD_LIBRARY_PATH": ":".join(paths), **extra}


def subgroup_env():
    return icd_env(MIDINT_OPENCL_WARPS=FORCED)


def spelling(env=None):
    """What `check_batch --probe` reports for the OpenCL context's warps."""
    proc = run_driver(["--backend", "opencl", "--probe"], [], env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = proc.stdout.strip()
    assert "; warps: " in line, line
    return line.rsplit("; warps: ", 1)[1]


ONE = ["mullo 1024 3 mixed 1 host none"]


def test_probe_names_the_warp_spelling():
    """The default OpenCL device reports its spelling (a CPU device keeps local memory unless asked);
    MIDINT_OPENCL_WARPS=local forces local memory."""
    require_backend("opencl")
    assert spelling() in ("local", "subgroups", "ptx")
    assert spelling({"MIDINT_OPENCL_WARPS": "local"}) == "local"


def test_forced_spelling_the_device_lacks_fails_clearly():
    """A spelling the device does not offer is an error saying so, nothing built (a CPU compiler given PTX computed
    garbage, or aborted)."""
    require_backend("opencl")
    own = spelling()
    for forced in ("subgroups", "ptx"):
        if forced == own:
            continue
        proc = run_driver(["--backend", "opencl"], ONE, env={"MIDINT_OPENCL_WARPS": forced})
        if "ok " in proc.stdout:
            continue   # this device offers the spelling too (checked against GMP like any other case)
        assert proc.returncode != 0
        assert f"MIDINT_OPENCL_WARPS={forced}: the device does not offer it" in proc.stdout, proc.stdout


def test_subgroup_device_passes_the_probe():
    """The forced spelling passes the probe on the sub-group implementation and computes; a probe that fails (the
    test hook) makes the forced spelling an error with the probe's reason, not wrong results."""
    env = subgroup_env()
    assert spelling(env) == FORCED
    proc = run_driver(["--backend", "opencl"], ONE, env=env)
    assert_all_ok(proc, ONE)
    proc = run_driver(["--backend", "opencl"], ONE, env={**env, "MIDINT_TEST_PROBE_FAIL": "1"})
    assert proc.returncode != 0
    assert f"MIDINT_OPENCL_WARPS={FORCED}: the probe kernel's shuffles, ballot or warp barrier gave wrong values" \
        in proc.stdout, proc.stdout


def family(v):
    """The kernel family of a variant line: its name's shape without size and tuning numbers."""
    if v["lanes"] != "-":
        kind = next((p[0] for p in v["name"].split("_")[4:] if p[:1] in "wxotk" and p[1:].isdigit()), "?")
        karatsuba = "_k" in v["name"]
        return (v["op"], "lanes", kind, karatsuba)
    if v["ntt"] != "-":
        return (v["op"], "ntt", v["grid"] != "-")
    return (v["op"], "classical", v["grid"] != "-")


def smallest_per(variants, key):
    """The smallest variant (by size, then name) of each value of key(v)."""
    out, seen = [], set()
    for v in sorted(variants, key=lambda v: (v["bits"], v["name"])):
        if key(v) not in seen:
            out.append(v)
            seen.add(key(v))
    return out


def picked(variants):
    """Every variant whose lanes share a warp (both spellings are in its source), and the smallest variant of each
    other family (they exchange words only through the block scans of lib_carry.j2)."""
    return smallest_per(variants, lambda v: v["name"] if family(v)[1] == "lanes" else family(v))


OPENCL_VARIANTS = picked([v for v in read_variants() if v["backend"] == "opencl" and v["op"] in
                          ("add", "sub", "mul", "mullo") and (v["grid"] == "-" or v["bits"] <= 1 << 20)])


def kind_of(v):
    """"op-kind": the kind of a lanes variant's kernel (w, x, o, t), else its family (classical, ntt)."""
    f = family(v)
    return f"{v['op']}-{f[2] if f[1] == 'lanes' else f[1]}"


@pytest.mark.parametrize("kind", sorted({kind_of(v) for v in OPENCL_VARIANTS}))
def test_variant_with_subgroups(kind):
    """The variant matrix of test_variants.py (patterns, sizes below the variant's, ragged counts, in place) through
    the sub-group build, each variant forced by its cases' variant field: one process a kind of kernel (a process per
    variant cost about half a second more on Intel's CPU runtime)."""
    env = subgroup_env()
    cases = []
    for v in (v for v in OPENCL_VARIANTS if kind_of(v) == kind):
        own = cases_for(v) if v["grid"] == "-" else [f"{v['op']} {v['bits']} 2 mixed 1 host none",
                                                      f"{v['op']} {v['bits'] - 32} 3 runs 2 device none"]
        cases += [f"{c} variant={v['name']}" for c in own]
    refused = assert_ok_but_refusals(run_driver(["--backend", "opencl"], cases, env=env), cases)
    if len(refused) == len(cases):
        pytest.skip(f"the device cannot run these variants: {refusal_in(refused[0])}")


def one_per_exchange(variants):
    """The smallest variant of each family and lane count: the sub-group build changes only how an instance's lanes
    exchange words, which the kernel kind and the lanes per instance decide (more words a lane repeat the same
    exchanges; test_expr.py runs every variant through the emulation)."""
    return smallest_per(variants, lambda v: (family(v), v["lanes"]))


def test_expression_variants_with_subgroups():
    """One one-block expression variant of each family and lane count through the sub-group build, against GMP."""
    env = subgroup_env()
    vs = one_per_exchange([v for v in expr_variants("opencl") if v["grid"] == "-"])
    assert vs
    cases = [c for v in vs for c in forcing(variant_cases(v, v["op"][len("expr_"):]), v)]
    assert_ok_but_refusals(run_expr(["--backend", "opencl"], cases, env=env), cases)
