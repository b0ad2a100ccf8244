"""Dispatch and the host path: default rule at every size, chunked host copies, forcing through MIDINT_VARIANT."""

import subprocess

import pytest

from conftest import (BACKENDS, BUILD, CI_TIER, OPERATIONS, assert_all_ok, driver_env, read_variants, require_backend,
                      require_cases, run_driver)
from generator.default_rules import UNBOUNDED, rule_for

MEASURE = BUILD / "tuning" / "measure"


def sizes(backend):
    return sorted({v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == "add"})


# Sizes the CPU run of OpenCL affords (the GPU's tests run larger ones).
EVERY_SIZE_CAP = {"opencl": 1 << 21, "cuda": 1 << 25}
if CI_TIER:   # CI's tier (tests/test_variants.py): half the CPU's time
    EVERY_SIZE_CAP["opencl"] = 1 << 20


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_rule_every_size(backend):
    """Without a forced variant every multiple of 32 works, between generated sizes too (up to a cap)."""
    require_backend(backend)
    gen = [s for s in sizes(backend) if s <= EVERY_SIZE_CAP[backend]]
    bits = sorted({32, 64, 96, 480, *gen, *(s + 32 for s in gen[:-1]), *(s - 32 for s in gen if s > 32)})
    cases = [f"{op} {b} 5 mixed {i} host none" for i, b in enumerate(bits) for op in ("add", "sub", "mul", "mullo")]
    proc = run_driver(["--backend", backend], cases)
    assert_all_ok(proc, cases)


# The host path's staging cap (midint_set_staging_bytes) covers its MIDINT_PIPE_SLOTS slots (runtime/context.h).
PIPE_SLOTS = 3


def chunk_of(case, staging):
    """Instances per chunk of a host call under a staging cap (runtime/host_path.c: the cap over the slots): every
    buffer check_batch passes (the row's inputs of n words, its outputs, the optional inputs its args give)."""
    op, bits, count = case.split()[:3]
    args = case.split()[7:]
    n = int(bits) // 32
    row = next(o for o in OPERATIONS if o.name == op)
    given = [b for b in row.buffers if not b.optional or b.output or any(a.startswith(b.name + "=") for a in args)]
    per = sum(4 * (b.words[0] * n + b.words[1]) for b in given)
    return max(1, min(int(count), staging // PIPE_SLOTS // per))


# Host calls cut into many chunks by small staging caps: one instance per chunk, and a few instances per chunk
# with a short last one; in place across chunk boundaries; the NTT and the grid chunk by chunk.
CHUNK_CASES = {
    4096: ["add 2048 1000 mixed 7 host none", "sub 4064 333 mixed 8 host ra", "add 512 99 runs 9 host rb",
           "mul 1024 77 mixed 10 host none", "mullo 992 55 mixed 11 host rab",
           "mul 8192 9 mixed 12 host none", "mullo 16352 7 mixed 13 host ra",
           # the table's other operations: a square, per-instance counts (an input of a word per instance: the
           # outputs' staging follows them aligned), a word per instance out, a bitwise one in place
           "sqr 2048 40 mixed 24 host none", "shl 4064 60 mixed 25 host none shifts=each",
           "cmp 1024 99 differ 26 host none", "xor 2048 80 mixed 27 host ra"],
    40000: ["add 1024 101 ones_plus_one 14 host ra", "sub 2048 50 zero_minus_one 15 host rb",
            "mul 512 100 mixed 16 host none", "mullo 2048 23 max 17 host rab"],
}


@pytest.mark.parametrize("api", ["host", "async"])
@pytest.mark.parametrize("pinned", [False, True], ids=["pageable", "pinned"])
@pytest.mark.parametrize("staging", sorted(CHUNK_CASES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_host_path_in_chunks(backend, staging, pinned, api):
    """Small staging caps split the batch into many chunks over the pipeline's slots; results must not shift, from
    pageable memory or from midint_host_alloc's, synchronous or asynchronous (then midint_synchronize)."""
    require_backend(backend)
    if api == "async" and not pinned:
        pytest.skip("asynchronous host calls need page-locked memory (the refusal is in test_api_errors)")
    cases = require_cases([c.replace(" host ", f" {api} ") for c in CHUNK_CASES[staging]], backend)
    proc = run_driver(["--backend", backend, "--staging", str(staging)] + (["--pinned"] if pinned else []), cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_host_path_large_chunks_on_threads(backend):
    """The default staging on a batch of several chunks of megabytes: the pageable copies run on host threads."""
    require_backend(backend)
    cases = require_cases(["add 4096 20000 mixed 18 host none", "mullo 4096 12000 mixed 19 host ra"], backend)
    proc = run_driver(["--backend", backend], cases, env={"MIDINT_HOST_THREADS": "4"})
    assert_all_ok(proc, cases)


SMALL_CALLS = ["add 4096 1 mixed 30 host ra", "mullo 4096 1 max 31 host rab", "mul 2048 7 mixed 32 host none",
               "sub 512 33 runs 33 host none", "mul 65536 2 mixed 34 host none", "add 262144 1 runs 35 host rb"]


@pytest.mark.parametrize("direct", ["0", "1048576"], ids=["copied", "direct"])
@pytest.mark.parametrize("pinned", [False, True], ids=["pageable", "pinned"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_small_host_calls_direct_and_copied(backend, pinned, direct):
    """Small synchronous host calls run on the mapped staging where the backend allows (CUDA; MIDINT_DIRECT_BYTES
    sets the limit), else through device copies: both ways exact, in place too, and a planted failure reports that
    nothing was completed."""
    require_backend(backend)
    cases = require_cases(SMALL_CALLS, backend)
    env = {"MIDINT_DIRECT_BYTES": direct}
    proc = run_driver(["--backend", backend] + (["--pinned"] if pinned else []), cases, env=env)
    assert_all_ok(proc, cases)
    proc = run_driver(["--backend", backend, "--expect-completed", "0"] + (["--pinned"] if pinned else []), cases[:2],
                      env=dict(env, MIDINT_TEST_FAIL_CHUNK="1"))
    assert_all_ok(proc, cases[:2])


@pytest.mark.parametrize("pinned", [False, True], ids=["pageable", "pinned"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_host_path_device_failure_reports_prefix(backend, pinned):
    """A device failure planted in chunk 3 of a pipelined call (MIDINT_TEST_FAIL_CHUNK): MIDINT_ERR_DEVICE, the
    message names the completed prefix (chunks 1 and 2), those results are right and later ones unwritten."""
    require_backend(backend)
    staging = 12000
    for case in require_cases(["add 2048 60 mixed 20 host none", "mul 1024 40 mixed 21 host none",
                               "mullo 2048 30 runs 22 host none", "shr 2048 90 mixed 23 host none shifts=each",
                               "cmp 2048 90 differ 24 host none"], backend):
        chunk = chunk_of(case, staging)
        assert int(case.split()[2]) > 3 * chunk
        proc = run_driver(["--backend", backend, "--staging", str(staging), "--expect-completed", str(2 * chunk)]
                          + (["--pinned"] if pinned else []), [case], env={"MIDINT_TEST_FAIL_CHUNK": "3"})
        assert_all_ok(proc, [case])


# Workspace caps that let a grid call hold only one or two instances at a time, so a batch runs in passes
# (runtime/plan.c): a 2^20-bit mul needs 6 transform planes of 2^16 words (1.5 MiB) per instance, a 2^19-bit
# mullo half that, and a 2^21-bit add only its tile states (32 tiles of 4 bytes).
WORKSPACE_PASSES = {
    1_700_000: ["mul 1048576 3 mixed 21 host none", "mullo 524288 5 ones_plus_one 22 device none",
                "mullo 524288 4 max 23 host ra"],
    256: ["add 2097152 5 ones_plus_one 24 host none", "sub 2097120 3 mixed 25 device none",
          "add 1048576 7 runs 26 host rb"],
}


@pytest.mark.parametrize("cap", sorted(WORKSPACE_PASSES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_grid_batch_in_workspace_passes(backend, cap):
    """A workspace cap below the batch's need runs it a few instances per pass; results must not shift."""
    require_backend(backend)
    cases = require_cases(WORKSPACE_PASSES[cap], backend)
    proc = run_driver(["--backend", backend, "--workspace", str(cap)], cases)
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
def test_environment_forces_variant(backend):
    require_backend(backend)
    small = min((v for v in read_variants() if v["backend"] == backend and v["op"] == "add"),
                key=lambda v: v["bits"])
    # honoured: the forced variant runs what it can serve ...
    ok_case = [f"add {small['bits']} 3 mixed 1 host none"]
    assert_all_ok(run_driver(["--backend", backend], ok_case, env={"MIDINT_VARIANT": small["name"]}), ok_case)
    # ... and refuses, rather than silently replacing it, what it cannot (where a larger size is generated)
    larger = min((v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == "add"
                  and v["bits"] > small["bits"]), default=None)
    if larger is not None:
        proc = run_driver(["--backend", backend], [f"add {larger} 3 mixed 1 host none"],
                          env={"MIDINT_VARIANT": small["name"]})
        assert proc.returncode == 1 and "MIDINT_ERR_UNKNOWN_VARIANT" in proc.stdout, proc.stdout
    # an unknown name stops the context from opening, with the name in the message
    proc = run_driver(["--backend", backend], ["add 64 1 random 1 host none"],
                      env={"MIDINT_VARIANT": "add_512_u64_q3_i1_" + backend})
    assert proc.returncode == 2 and "add_512_u64_q3_i1_" in proc.stderr, proc.stderr


# The default rule's algorithm switch (generator/default_rules.py, read by runtime/dispatch.c): register-resident
# (lanes) variants up to these sizes, else NTT above these sizes, classical at or below; for every operation whose
# row names the three families.
PRODUCTS = [op.name for op in OPERATIONS if {"lanes", "ntt", "mul"} <= set(op.families)]
LANES_UPTO_BITS = {op: rule_for(op).lanes_upto_bits for op in PRODUCTS}
NTT_ABOVE_BITS = {op: rule_for(op).ntt_above_bits for op in PRODUCTS}


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_rule_switches_algorithm(backend):
    """Lanes variants up to their measured limit, then classical up to the NTT crossover, NTT above it (each
    where a variant of the kind serves the size)."""
    require_backend(backend)
    variants = [v for v in read_variants() if v["backend"] == backend and v["grid"] == "-"]
    kinds = {v["name"]: "lanes" if v["lanes"] != "-" else "ntt" if v["ntt"] != "-" else "classical"
             for v in variants}
    sizes = {kind: {(v["op"], v["bits"]) for v in variants if kinds[v["name"]] == kind}
             for kind in ("lanes", "ntt", "classical")}

    def serves(kind, op, bits):
        return any(o == op and b >= bits for o, b in sizes[kind])

    questions = []
    for op, above in NTT_ABOVE_BITS.items():
        upto = LANES_UPTO_BITS[op]
        for bits in sorted({512, 544, 1024, 2048, upto, upto + 32, above, above + 32, 4096, 8192, 16384, 262144}):
            want = ("lanes" if bits <= upto and serves("lanes", op, bits) else
                    "ntt" if bits > above and serves("ntt", op, bits) or not serves("classical", op, bits) else
                    "classical")
            if any(v["op"] == op and v["bits"] >= bits for v in variants):   # else only the grid serves
                questions.append((op, bits, want))
    p = subprocess.run([str(MEASURE), "--backend", backend, "--tuning", "none"], capture_output=True, text=True,
                       input="".join(f"select {op} {bits} 1000\n" for op, bits, _ in questions), timeout=300,
                       env=driver_env())
    answers = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("select ")]
    assert len(answers) == len(questions), p.stdout + p.stderr
    for (op, bits, want), ans in zip(questions, answers):
        assert kinds.get(ans[4]) == want, f"{op} {bits} bits: default rule chose {ans[4]}, want a {want} variant"
        # the Karatsuba lanes variants (_k1) are left to the tuned table until measured (lanes_karatsuba 0)
        assert "_k1_" not in ans[4], f"{op} {bits} bits: default rule chose {ans[4]}, a Karatsuba variant"


# The default rule's family switch (generator/default_rules.py): grid variants (an instance over many blocks) from
# these sizes for batches below these counts, and wherever no one-block variant serves the size; for every operation
# with both kinds of family.
GRID_FROM = {op.name: (rule_for(op.name).grid_from_bits,
                       float("inf") if rule_for(op.name).grid_below_count == UNBOUNDED else rule_for(op.name).grid_below_count)
             for op in OPERATIONS if {"addsub_grid", "ntt_grid"} & set(op.families) and
             {"addsub", "mul", "ntt"} & set(op.families)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_rule_chooses_grid(backend):
    require_backend(backend)
    variants = [v for v in read_variants() if v["backend"] == backend]
    grid_names = {v["name"] for v in variants if v["grid"] != "-"}
    questions = []
    for op, (from_bits, below_count) in GRID_FROM.items():
        one_block_max = max(v["bits"] for v in variants if v["op"] == op and v["grid"] == "-")
        grid_max = max((v["bits"] for v in variants if v["op"] == op and v["grid"] != "-"), default=0)
        for bits in (from_bits // 2, from_bits - 32, from_bits, one_block_max, one_block_max + 32, grid_max):
            if 0 < bits <= max(one_block_max, grid_max):
                for count in (1, 15, 16, 1000):
                    grid = bits > one_block_max or (bits >= from_bits and count < below_count)
                    questions.append((op, bits, count, grid))
    p = subprocess.run([str(MEASURE), "--backend", backend, "--tuning", "none"], capture_output=True, text=True,
                       input="".join(f"select {op} {bits} {count}\n" for op, bits, count, _ in questions),
                       timeout=300, env=driver_env())
    answers = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("select ")]
    assert len(answers) == len(questions), p.stdout + p.stderr
    for (op, bits, count, want_grid), ans in zip(questions, answers):
        assert (ans[4] in grid_names) == want_grid, f"{op} {bits} bits x {count}: default rule chose {ans[4]}"


def test_opencl_dispatch_leaves_out_kernels_the_device_refuses():
    """An OpenCL kernel may allow fewer work-items than its block once built (its registers: NVIDIA's OpenCL refused
    512-item expression kernels): dispatch then picks another variant. The hook MIDINT_TEST_KERNEL_WG makes every
    kernel allow at most that many: a call succeeds exactly when a variant of at most that block serves its size
    (a grid variant's block is its largest kernel's), and fails with a clear error otherwise."""
    require_backend("opencl")
    vs = [v for v in read_variants() if v["backend"] == "opencl"]
    for cap in (64, 128):
        cases, expect_ok, bigger = [], [], 0
        for i, op in enumerate(("add", "mul", "mullo")):
            sizes = sorted({v["bits"] for v in vs if v["op"] == op})
            for bits in (sizes[0], sizes[len(sizes) // 2]):
                serving = [v for v in vs if v["op"] == op and v["bits"] >= bits]
                cases.append(f"{op} {bits} 3 mixed {i} host none")
                expect_ok.append(any(v["block"] <= cap for v in serving))
                bigger += expect_ok[-1] and any(v["block"] > cap for v in serving)
        assert bigger, "no case where a variant must be left out"
        proc = run_driver(["--backend", "opencl"], cases, env={"MIDINT_TEST_KERNEL_WG": str(cap)})
        lines = proc.stdout.splitlines()
        assert len(lines) == len(cases), proc.stdout + proc.stderr
        for case, ok, line in zip(cases, expect_ok, lines):
            op, bits = case.split()[:2]
            if ok:
                assert line == f"ok {case}", f"MIDINT_TEST_KERNEL_WG={cap}: {line}"
            else:   # the reason names a kernel the device turned down
                assert line.startswith(f"FAIL {case}: MIDINT_ERR_BITS_TOO_LARGE: midint_{op}: no opencl {op} variant "
                                       f"serves {bits} bits on this device (the last it turned down: OpenCL: "), line
                assert f"work-items per group; the device allows {cap} for it" in line, line


def test_opencl_grid_products_fit_256_work_items():
    """Every kernel of the OpenCL grid NTT allows at most 256 work-items (grid_plan.MAX_GROUP_ITEMS: NVIDIA's OpenCL
    allowed 256 for the 2048-point column pass, which had 512, and the whole engine was turned down, so products
    stopped at the one-block sizes): with MIDINT_TEST_KERNEL_WG=256 each grid variant of mul, mullo and sqr, forced,
    builds every kernel and multiplies at its smallest size."""
    require_backend("opencl")
    grid = [v for v in read_variants() if v["backend"] == "opencl" and v["ntt"] != "-" and v["grid"] != "-"
            and v["op"] in ("mul", "mullo", "sqr")]
    if not grid:
        pytest.skip("no OpenCL grid NTT variant of mul, mullo or sqr in this build")
    for op in ("mul", "mullo", "sqr"):
        ours = sorted((v for v in grid if v["op"] == op), key=lambda v: v["bits"])
        if not ours:
            continue
        v = ours[0]
        assert v["block"] <= 256, v["name"]
        case = f"{op} {v['bits']} 2 mixed 0 host none"
        proc = run_driver(["--backend", "opencl", "--variant", v["name"]], [case], env={"MIDINT_TEST_KERNEL_WG": "256"})
        assert proc.stdout.splitlines() == [f"ok {case}"], proc.stdout + proc.stderr
