"""Shared pytest fixtures: repository paths, the generated variant list and backend availability."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
CHECK_BATCH = BUILD / "tests" / "check_batch"
VARIANTS_TXT = ROOT / "generated" / "variants.txt"
BACKENDS = ("opencl", "cuda")
# CI's tier of the tests (MIDINT_TEST_TIER=ci, set by .ci/run, whose CPU run of OpenCL must stay short): tests whose
# CPU time is large take smaller sizes or reduced cases there (tests/test_variants.py says which)
CI_TIER = os.environ.get("MIDINT_TEST_TIER") == "ci"
sys.path.insert(0, str(ROOT))
from generator.ops import OPERATIONS  # noqa: E402  (the table of operations: every test's list of them)

OPS_NAMES = tuple(op.name for op in OPERATIONS)


def read_variants():
    """The generated variant list as dicts (see generated/variants.txt's header for the columns)."""
    if not VARIANTS_TXT.exists():
        return []
    cols = ("name", "op", "bits", "limb", "q", "ipb", "backend", "block", "shared_bytes", "ntt", "ti", "grid", "lanes")
    out = []
    for line in VARIANTS_TXT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            row = dict(zip(cols, line.split()))
            for k in ("bits", "q", "ipb", "block", "shared_bytes", "ti"):
                row[k] = int(row[k])
            row["limb_words"] = 2 if row["limb"] == "u64" else 1
            out.append(row)
    return out


def largest_bits(backend, op):
    """The largest size generated for (backend, op), 0 if none: what the build serves (`make gen SIZES=...`)."""
    return max((v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == op), default=0)


def served(cases, backend):
    """The check_batch cases ("op bits ...") whose size the generated variants of `backend` serve; a test with
    sizes that only the default SIZES generate keeps what the user's own SIZES can run."""
    return [c for c in cases if int(c.split()[1]) <= largest_bits(backend, c.split()[0])]


def require_cases(cases, backend):
    """served(cases), or skip the test with the reason when the generated sizes serve none of them."""
    kept = served(cases, backend)
    if not kept:
        pytest.skip(f"the generated sizes ({', '.join(f'{op} up to {largest_bits(backend, op)}' for op in OPS_NAMES)} "
                    f"bits on {backend}) serve none of this test's cases; the default SIZES do")
    return kept


_probe_cache = {}


def probe(backend):
    """(exit code, message) of `check_batch --probe` for a backend, asked once per session:
    0 available, 3 unavailable here, anything else a broken build."""
    if backend not in _probe_cache:
        if not CHECK_BATCH.exists():
            _probe_cache[backend] = (-1, f"{CHECK_BATCH} is missing: run `make` first")
        else:
            p = subprocess.run([str(CHECK_BATCH), "--backend", backend, "--probe"], capture_output=True, text=True,
                               timeout=120, env=driver_env())
            _probe_cache[backend] = (p.returncode, p.stdout.strip() or p.stderr.strip())
    return _probe_cache[backend]


def available(backend):
    return probe(backend)[0] == 0


def require_backend(backend):
    """Skip, with the reason visible in the report, when `backend` cannot run here; fail when the probe breaks."""
    rc, why = probe(backend)
    if rc == 3:
        pytest.skip(f"{backend} backend unavailable here: {why}")
    if rc != 0:
        pytest.fail(f"check_batch --probe for {backend} exited {rc}: {why}")
    return why


# PoCL spends up to a minute optimizing one large multiplication kernel; the CPU tests check results, not
# speed, so they build OpenCL programs unoptimized (test_opencl_optimized_build covers the optimized build).
TEST_ENV = {"MIDINT_OPENCL_OPTIONS": os.environ.get("MIDINT_OPENCL_OPTIONS", "-cl-opt-disable")}


# Variables that steer dispatch; a test sets the ones it means, the caller's shell never leaks in.
STEERING = ("MIDINT_VARIANT", "MIDINT_TUNING", "MIDINT_TUNING_DIR", "MIDINT_TEST_CORRUPT", "MIDINT_TEST_EXPR_STEPS",
            "MIDINT_OPENCL_WARPS", "MIDINT_TEST_PROBE_FAIL", "MIDINT_TEST_KERNEL_WG", "MIDINT_TEST_COMPOSED",
            "MIDINT_TEST_BIGDIV", "MIDINT_TEST_NTT_PIECE", "MIDINT_TEST_NTT_SPLIT", "MIDINT_TEST_WRAP_FROM",
            "MIDINT_TEST_SPLIT_FROM", "MIDINT_TEST_HALF_FROM", "MIDINT_TEST_GCD_PART", "MIDINT_TEST_DEVICE_BYTES")


def driver_env(**extra):
    """The environment for a driver or tool: the caller's, less its steering variables, plus TEST_ENV and `extra`."""
    base = {k: v for k, v in os.environ.items() if k not in STEERING}
    return {**base, **TEST_ENV, **extra}


def run_driver(args, cases, env=None, timeout=900):
    """Run check_batch with `cases` (lines) on stdin; returns the CompletedProcess."""
    assert CHECK_BATCH.exists(), f"{CHECK_BATCH} is missing: run `make` first"
    full_env = driver_env(**(env or {}))
    return subprocess.run([str(CHECK_BATCH), *args], input="\n".join(cases) + "\n", capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def device_refusal(proc):
    """The runtime's message when the device cannot run a forced variant (its block or local memory, e.g. NVIDIA's
    OpenCL: 48 KiB), else None. CUDA and PoCL run every variant."""
    return refusal_in(proc.stdout + proc.stderr)


def refusal_in(text):
    """device_refusal's message in `text`, else None."""
    for line in text.splitlines():
        if "bytes of shared memory per block; this device allows" in line or "work-items per group; the device " \
                "allows" in line:
            return line.strip()[:200]
    return None


def skip_if_device_refuses(proc):
    why = device_refusal(proc)
    if why:
        pytest.skip(f"the device cannot run this variant: {why}")


def results_ok(proc, cases, refusals):
    """Every case reported ok, one line each, and the driver's exit status to match; with `refusals`, a FAIL line that
    carries device_refusal's message (a variant this device cannot run) counts as that case's result. Returns those."""
    lines = proc.stdout.splitlines()
    refused = [ln for ln in lines if ln.startswith("FAIL") and refusals and refusal_in(ln)]
    fails = [ln for ln in lines if ln.startswith("FAIL") and ln not in refused]
    assert not fails, f"{len(fails)} of {len(cases)} cases failed:\n" + "\n".join(fails[:20])
    assert proc.returncode == (1 if refused else 0), f"driver exit {proc.returncode}: {proc.stderr.strip()}"
    oks = [ln for ln in lines if ln.startswith("ok ")]
    assert len(oks) + len(refused) == len(cases), f"expected {len(cases)} results, got {len(oks) + len(refused)}: " \
        f"{proc.stderr.strip()}"
    return refused


def assert_ok_but_refusals(proc, cases):
    """Cases of several variants in one process (the drivers' variant per case): every case ok but those of a variant
    the device refuses, with the refusal; returns those."""
    return results_ok(proc, cases, refusals=True)


def assert_all_ok(proc, cases):
    """Every case reported ok, one line each, and the driver exited 0."""
    results_ok(proc, cases, refusals=False)


# The test expressions (tests/expressions) generated alone, with the operations their step path needs, and built
# without CUDA in one copy of the tree for the whole session: test_expr.py and test_expr_mod.py check them there (a
# build costs CI minutes). Sizes: 512 and 2048 (the one-block, lanes and owner families; modp's thread per
# instance), 16384 (the NTT family; mix beyond its fused sizes) and 131072 (adds over several blocks).
TEST_EXPRESSIONS = ("mix", "sums", "prods", "adds", "modp")


@pytest.fixture(scope="session")
def expressions_tree(tmp_path_factory):
    import shutil
    require_backend("opencl")
    tree = tmp_path_factory.mktemp("expressions") / "tree"
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "generator", "templates",
                            "runtime", "tests/drivers", "tests/expressions", "expressions", "Makefile"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tree / f)
    exprs = ",".join(f"tests/expressions/{e}.expr" for e in TEST_EXPRESSIONS)
    ops = ",".join([f"expr_{e}" for e in TEST_EXPRESSIONS] + ["add", "sub", "mul", "mullo"])
    for target in (["gen", "SIZES=512,2048,16384,131072", f"EXPRS={exprs}", f"GENFLAGS=--ops {ops}"],
                   ["NO_CUDA=1", "build/tests/check_expr", "build/tests/expr_errors"]):
        p = subprocess.run(["make", "-s", *target], cwd=tree, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return tree
