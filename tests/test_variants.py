"""Every generated variant against GMP: random and adversarial inputs, runtime sizes, ragged counts, aliasing."""

import re
import sys

import pytest

from conftest import (BACKENDS, CI_TIER, ROOT, assert_all_ok, read_variants, require_backend, require_cases, run_driver,
                      skip_if_device_refuses)

sys.path.insert(0, str(ROOT))
from generator import grid_plan, mod_scratch  # noqa: E402
from generator.ops import BY_NAME, OPERATIONS  # noqa: E402
from generator.space import MOD_PRIVATE_MAX_BITS, family_of  # noqa: E402
from generator.variant import parse_name  # noqa: E402


def odd_moduli_only(v) -> bool:
    """Whether v's kernels take odd moduli only (OpFamily.odd_moduli): its cases' modulus objects are made odd."""
    fam = family_of(parse_name(v["name"]))
    return bool(fam and fam.odd_moduli)


# Per operation, from its row of the table (generator/ops.py): patterns for single instances, patterns that make a
# whole batch carry (or multiply with the largest partial-product carries), the in-place aliases it allows, the
# argument sets of its scalars (shift counts at every edge, and one per instance), and whether it is a product
# (quadratic cost: the large sizes get fewer cases).
def op_spec(row):
    first, second = ([p.name for p in row.inputs if p.width == "n"] + [None, None])[:2]
    r = row.result.name
    ruled = any(p.nonzero or p.odd for p in row.inputs)   # a divisor or modulus: not any value is valid
    aliases = [a for a, i in (("ra", first), ("rb", second)) if i and (r, i) in row.in_place]
    if len(aliases) == 2 and not ruled:
        aliases.append("rab")   # the result in both inputs' place, which then hold the same numbers
    if second and not ruled:
        aliases.append("ab")   # b the same buffer as a (a square; equal operands), where any value is valid
    args = [""]
    for s in row.scalars:
        if s.below_bits:
            args = [f"{s.name}={x}" for x in ("0", "1", "31", "32", "33", "max")]
            args += [f"{b.name}=each" for b in row.inputs if b.fallback == s.name]
        if s.width:   # a width in bits: one word, the width of the modulus, and the largest (or the modulus's + 64)
            args += [f"{s.name}={x}" for x in ("32", "1n", f"{s.max_per_n}n" if s.max_per_n else "1n+64")]
        if s.flag:
            args = [a + ("," if a else "") + f"{s.name}=1" for a in args] + args
    modular = row.modular
    return dict(patterns=row.patterns, chains=row.chains, aliases=tuple(aliases), args=tuple(args),
                product="(mul " in row.reference_text() and not modular, modular=modular,
                exponent=next((s.name for s in row.scalars if s.width and not s.max_per_n), None))


OPS = {row.name: op_spec(row) for row in OPERATIONS}


def launch_shape(v, bits):
    """Threads per instance and instances per block the runtime uses for `bits` (runtime/registry.c)."""
    if v["ntt"] != "-" or v["lanes"] != "-":   # a fixed shape: shorter inputs are zero-padded
        return v["ti"], v["block"] // v["ti"]
    chunk = v["q"] * v["limb_words"]
    ti = -(-(bits // 32) // chunk)
    return ti, v["block"] // ti


def sizes_for(v, huge=False):
    """The full size, one word less (padded, unaligned), half (more instances per block) and half plus a word (huge:
    three quarters plus a word instead of half, a size no build generates)."""
    m = v["bits"]
    sizes = {m, m - 32, 3 * m // 4 + 32, m // 2 + 32} if huge else {m, m - 32, m // 2, m // 2 + 32}
    return sorted(b for b in sizes if 32 <= b <= m and b % 32 == 0)


# A thread per instance of division and modular arithmetic costs words^2 (powm: words^2 x exponent bits): above
# MOD_FULL_WORDS a variant gets a few instances per case, and powm's exponents MOD_SHORT_EXP bits where the case
# does not choose the width (every width case still runs, on one instance), so the CPU run of OpenCL stays short.
# An instance on several lanes (the modl family) is heavy at every size on OpenCL: its shuffles emulated through local
# memory are two work-group barriers each, and PoCL ran the full matrix of one 1024-bit variant for minutes.
MOD_FULL_WORDS = 32
MOD_LANES_ARG_BITS = 256
MOD_SHORT_EXP = "64"
# Lanes variants wider than MOD_LANES_CPU_FULL lanes run the same template with more lanes (masks and trip counts):
# on the CPU they get the sizes, counts, device and in-place cases but MOD_LANES_CPU_PATTERNS and the first chain and
# two scalar edges only (PoCL: powm at 4096 bits, 16 lanes, took 30-100 s for the whole matrix); the narrowest lanes
# variant gets the whole matrix there, and every lanes variant gets it on CUDA.
MOD_LANES_CPU_FULL = 4
MOD_LANES_CPU_PATTERNS = ("zero", "max", "one", "mersenne", "exponents")
# Above MOD_PRIVATE_MAX_BITS (16384 and 32768 bits: a thread per instance, its arrays in the workspace) a variant is
# huge: at most MOD_HUGE_COUNT instances per case, exponents of MOD_HUGE_EXP bits, the exponent's width edges (one
# word, the modulus's width, wider) at MOD_HUGE_EXP_WIDTHS bits instead (a 32768-bit exponent is 41K Montgomery
# products of 2 M multiply-adds each in one thread: minutes, on the GPU too), and a fifth size at three quarters
# plus a word (12320 bits through the 16384-bit kernel), so the padded sizes between the generated ones are checked.
MOD_HUGE_COUNT = 2
MOD_HUGE_EXP = "32"
# On CUDA a huge case is one GPU thread walking its instance through global memory alone (powm at 32768 bits with a
# 32-bit exponent: about 20 s a case on an H100), so a huge CUDA variant keeps one mixed case per size, the
# MOD_HUGE_GPU_PATTERNS cases and one on device buffers; PoCL (a CPU core per instance) runs the whole tier in CI.
MOD_HUGE_GPU_PATTERNS = ("max", "one")
MOD_HUGE_EXP_WIDTHS = {"1n": "64", "1n+64": "96"}

# A multiplication costs words^2 per instance. Past FULL_SIZE_BUDGET word products per instance a variant
# gets only a few instances at its full size (whole-number patterns, the padded size); its other cases run
# at SMALL_BITS through the same kernel (run-time length, more instances per block), so the CPU run of the
# largest sizes stays short.
FULL_SIZE_BUDGET = 1 << 20
SMALL_BITS = 16384


def cases_for(v):
    op, m, spec = v["op"], v["bits"], OPS[v["op"]]
    cases, seed = [], 1

    lanes_cpu = spec["modular"] and v["lanes"] not in ("-", "1") and v["backend"] == "opencl"
    lanes_wide_cpu = lanes_cpu and int(v["lanes"]) > MOD_LANES_CPU_FULL
    heavy = spec["modular"] and (m // 32 > MOD_FULL_WORDS or lanes_cpu)
    huge = spec["modular"] and m > MOD_PRIVATE_MAX_BITS

    def add(bits, count, pattern, api="host", alias="none", args=None):
        nonlocal seed
        arg = spec["args"][seed % len(spec["args"])] if args is None else args
        if heavy:
            count = min(count, 1 if args is not None else MOD_HUGE_COUNT if huge else 5)
            if args is None and spec["exponent"]:
                arg = f"{spec['exponent']}={MOD_HUGE_EXP if huge else MOD_SHORT_EXP}"
        if huge and spec["exponent"]:   # every exponent short (its default width is the modulus's)
            key = spec["exponent"] + "="
            parts = [a for a in arg.split(",") if a]
            arg = ",".join([key + MOD_HUGE_EXP_WIDTHS.get(a[len(key):], a[len(key):]) if a.startswith(key) else a
                            for a in parts] + ([] if any(a.startswith(key) for a in parts) else [key + MOD_HUGE_EXP]))
        cases.append(f"{op} {bits} {count} {pattern} {seed} {api} {alias} {arg}".rstrip())
        seed += 1

    # (an NTT kernel's cost does not depend on the run-time size: it runs every case at its own size)
    big = spec["product"] and v["ntt"] == "-" and (m // 32) ** 2 > FULL_SIZE_BUDGET
    if big:
        add(m, 2, "mixed")
        add(m, 1, "max")
        add(m - 32, 1, "mixed")
        m = SMALL_BITS
    for bits in sizes_for(dict(v, bits=m), huge):
        _ti, ipb = launch_shape(v, bits)
        counts = {1, ipb - 1, 3 * ipb + 1} - {0}
        cap = MOD_HUGE_COUNT if huge else 5
        for count in sorted({min(c, cap) for c in counts} if heavy else counts):   # heavy: add() caps counts
            add(bits, count, "mixed")
    for p in spec["patterns"]:
        if not lanes_wide_cpu or p in MOD_LANES_CPU_PATTERNS:
            add(m, 1, p)
    _ti, ipb = launch_shape(v, m)
    for p in spec["chains"][:1] if lanes_wide_cpu else spec["chains"]:
        add(m, 3 * ipb + 1, p)
    # every scalar edge and per-instance counts, on a full batch
    for arg in spec["args"][1:3] if lanes_wide_cpu else spec["args"][1:]:
        # (several lanes on the CPU: at MOD_LANES_ARG_BITS, which keeps width edges of n words short)
        add(MOD_LANES_ARG_BITS if lanes_cpu else m, ipb + 2, "mixed", args=arg)
    # device buffers and in-place use, on both the aligned and the padded path
    for bits in {m, max(32, m - 32)}:
        _ti, ipb = launch_shape(v, bits)
        add(bits, ipb + 1, "mixed", api="device")
        if v["backend"] == "cuda" and bits == m:   # buffers 4 bytes past their allocation: no 16-byte accesses
            add(bits, ipb + 1, "mixed", api="device4")
        for alias in spec["aliases"]:
            add(bits, ipb + 1, "mixed", api="device" if alias in ("rab", "ab") else "host", alias=alias)
    if huge and v["backend"] == "cuda":
        return reduced(cases, MOD_HUGE_GPU_PATTERNS)
    if CI_TIER and (m // 32 > MOD_FULL_WORDS and spec["modular"] or lanes_wide_cpu or
                    v["name"] not in SMALLEST_OF_FAMILY):
        return reduced(cases, REDUCED_PATTERNS)
    return cases


def reduced(cases, patterns):
    """The first mixed case of each size, the cases of `patterns` and the first on device buffers."""
    fields = [c.split() for c in cases]
    first = {}
    for f, c in zip(fields, cases):
        if f[3] == "mixed" and f[5] == "host" and f[6] == "none":
            first.setdefault(f[1], c)
    return (list(first.values()) + [c for f, c in zip(fields, cases) if f[3] in patterns] +
            [c for f, c in zip(fields, cases) if f[5] == "device"][:1])


def passes_cases(v):
    """A huge modular variant keeps its arrays in the workspace, and a call runs in passes of as many instances as the
    cap holds: under a cap of two instances' words, 3 instances (passes of 2 and 1, the second from inst0 = 2), host
    and device, at the full size and one word less. (cases, the cap in bytes), or None for other variants."""
    spec = OPS[v["op"]]
    if not (spec["modular"] and v["grid"] == "-" and v["lanes"] in ("-", "1") and v["bits"] > MOD_PRIVATE_MAX_BITS):
        return None
    arg = f" {spec['exponent']}={MOD_HUGE_EXP}" if spec["exponent"] else ""
    m = v["bits"]
    cases = [f"{v['op']} {m} 3 mixed 901 host none{arg}", f"{v['op']} {m - 32} 3 near 902 device none{arg}"]
    return cases, 2 * 4 * mod_scratch.kernel_words(v["op"], m // 32)


# Grid variants (an instance over many blocks) share their kernels with the other sizes of their engine (the name
# without its size): each engine gets the whole matrix once, through its largest variant of at most
# GRID_BITS[backend] bits (the CPU run of OpenCL affords a million bits), at that size; every other size gets one
# case at its size up to GRID_BITS, and above it at a small run-time size. On the GPU every variant also runs at its own size (up to 2^30 bits of
# multiplication and 2^31 of addition). Counts of 1, 2 and 3 instances, sizes that are not powers of two, in place.
GRID_BITS = {"opencl": 1 << 21, "cuda": 1 << 23}
if CI_TIER:   # CI's tier (below): the matrix at 2^20 bits, half the CPU's time
    GRID_BITS["opencl"] = 1 << 20
GRID_WORDS_LONG = {"opencl": 1 << 21, "cuda": 1 << 26}   # the longest add/sub instance of the matrix


def engine_of(v):
    return re.sub(r"^(\w+?)_\d+_", r"\1_", v["name"])


def grid_cases(v, full_matrix):
    op, spec = v["op"], OPS[v["op"]]
    top = min(v["bits"], GRID_BITS[v["backend"]])
    cases, seed = [], 1

    def add(bits, count, pattern, api="host", alias="none", args=None):
        nonlocal seed
        arg = spec["args"][seed % len(spec["args"])] if args is None else args
        cases.append(f"{op} {bits} {count} {pattern} {seed} {api} {alias} {arg}".rstrip())
        seed += 1

    if v["backend"] == "cuda" and v["bits"] > top:   # the variant's own size, on the GPU
        add(v["bits"], 1, spec["chains"][0])
        add(v["bits"] - 32, 1, "random", api="device")
    if not full_matrix:
        # above GRID_BITS the engine's matrix variant has run these kernels at GRID_BITS already: a larger size adds
        # only its dispatch entry, checked at a small run-time size (2^30-bit products would repeat 2^21-bit ones)
        add(top if v["bits"] <= GRID_BITS[v["backend"]] else min(top, 65536 + 32 * 37), 2, "mixed")
        return cases
    odd = min(top // 2 + 32 * 37, top - 64)   # not a power of two, not a multiple of the tile
    for bits in sorted(b for b in {top, top - 32, odd, 65536 + 96} if b <= top):
        for count in (1, 2, 3):
            add(bits, count, "mixed")
    for p in spec["patterns"]:
        add(top, 1, p)
    for p in spec["chains"]:
        add(top, 3, p)
    for arg in spec["args"][1:]:
        add(odd, 3, "mixed", args=arg)
    add(odd, 2, "mixed", api="device")
    for alias in spec["aliases"]:
        add(odd, 2, "mixed", api="device" if alias in ("rab", "ab") else "host", alias=alias)
    # Carries between tiles found by looking back past a block of the fix-up kernel (one thread per tile, `grid`
    # tiles per block): instances of three tiles, so blocks start inside instances, whose results pass a carry
    # through whole tiles (all ones + 1; for products, (2^n - 1)^2 has a long run of ones); and, where the CPU
    # affords it, one instance of more than two blocks of tiles. Tiles: grid x Q words (add/sub) or grid x 8
    # (the CRT kernel's, generator/grid_plan.py).
    add(min(32 * (2 * tile_words(v) + 96), v["bits"]), int(v["grid"]) // 2 + 3, chain_pattern(v))
    return cases


def tile_words(v):
    return int(v["grid"]) * (8 if v["ntt"] != "-" else v["q"])   # the grid NTT's carries are its CRT kernel's tiles


def chain_pattern(v):
    return OPS[v["op"]]["chains"][0]


def carries_between_tiles(v):
    """Grid variants whose fix-up kernel carries between tiles (the add/sub family, cmp's borrows)."""
    return "addsub_grid" in BY_NAME[v["op"]].families and v["ntt"] == "-"


def long_bits(v):
    """An instance of more than two fix-up blocks of tiles, where the CPU affords it (else None)."""
    bits = 32 * (2 * int(v["grid"]) * tile_words(v) + 96)
    return bits if carries_between_tiles(v) and bits <= 32 * GRID_WORDS_LONG[v["backend"]] else None


VARIANTS = [v for v in read_variants() if v["op"] in OPS]

# CI's tier (MIDINT_TEST_TIER=ci, set by .ci/run, whose CPU run of OpenCL must stay short): a one-block variant runs
# the whole matrix where it is the smallest size of its family (its name without the size: the same template and
# parameters), unless it is a modular one past MOD_FULL_WORDS words or on more than MOD_LANES_CPU_FULL lanes. The others
# keep the reduced set (the first mixed case of each size, REDUCED_PATTERNS, one case on device buffers): each still
# meets GMP at its own and padded sizes, while the matrix's patterns, counts and aliases run through the same template
# at the smaller sizes. Without the variable (a developer's `make test`, the GPU sessions) every variant runs it all.
REDUCED_PATTERNS = ("max", "one", "zero")
SMALLEST_OF_FAMILY = set()
_seen = set()
for _v in sorted(VARIANTS, key=lambda v: (v["bits"], v["name"])):
    if engine_of(_v) not in _seen:
        _seen.add(engine_of(_v))
        SMALLEST_OF_FAMILY.add(_v["name"])
MATRIX_OF_ENGINE = {}   # (engine, op) -> the variant that runs the whole matrix
LONG_OF_ENGINE = {}     # (engine, op) -> the smallest variant that serves long_bits
for _v in sorted((v for v in VARIANTS if v["grid"] != "-"), key=lambda v: v["bits"]):
    _key = (engine_of(_v), _v["op"])
    if _key not in MATRIX_OF_ENGINE or _v["bits"] <= GRID_BITS[_v["backend"]]:
        MATRIX_OF_ENGINE[_key] = _v["name"]
    if _key not in LONG_OF_ENGINE and long_bits(_v) and _v["bits"] >= long_bits(_v):
        LONG_OF_ENGINE[_key] = _v["name"]


@pytest.mark.parametrize("case", ["add 4096 33 mixed 1 host none", "mullo 512 9 mixed 2 host none"])
def test_opencl_optimized_build(case):
    """The kernels as users get them on OpenCL: built with the compiler's optimizations."""
    require_backend("opencl")
    cases = require_cases([case], "opencl")
    proc = run_driver(["--backend", "opencl"], cases, env={"MIDINT_OPENCL_OPTIONS": ""})
    assert_all_ok(proc, cases)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_variants_were_generated(backend, op):
    assert [v for v in VARIANTS if v["backend"] == backend and v["op"] == op], f"no {op} variants: run `make gen`"


@pytest.mark.parametrize("v", VARIANTS, ids=[v["name"] for v in VARIANTS])
def test_variant_against_gmp(v):
    require_backend(v["backend"])
    if v["grid"] != "-":
        key = (engine_of(v), v["op"])
        cases = grid_cases(v, MATRIX_OF_ENGINE[key] == v["name"])
        if LONG_OF_ENGINE.get(key) == v["name"]:
            cases.append(f"{v['op']} {long_bits(v)} 1 {chain_pattern(v)} 99 host none")
    else:
        cases = cases_for(v)
    odd = ["--odd-moduli"] if odd_moduli_only(v) else []
    proc = run_driver(["--backend", v["backend"], "--variant", v["name"]] + odd, cases)
    skip_if_device_refuses(proc)
    assert_all_ok(proc, cases)
    passes = passes_cases(v)
    if passes:
        proc = run_driver(["--backend", v["backend"], "--variant", v["name"], "--workspace", str(passes[1])] + odd,
                          passes[0])
        assert_all_ok(proc, passes[0])


ODD_ONLY = [v for v in VARIANTS if odd_moduli_only(v)]


@pytest.mark.parametrize("v", ODD_ONLY, ids=[v["name"] for v in ODD_ONLY])
def test_even_moduli_go_to_other_variants(v):
    """A variant of odd moduli only is the default choice for odd ones; the call path sends even moduli (pow2,
    single_bits, and the random pattern's about half) to the operation's other variants, still exact."""
    require_backend(v["backend"])
    cases = [f"{v['op']} {v['bits']} {n} {p} {s} host none" for n, p, s in ((3, "pow2", 1), (2, "single_bits", 2),
                                                                           (5, "random", 3), (2, "mixed", 4))]
    proc = run_driver(["--backend", v["backend"]], cases)
    skip_if_device_refuses(proc)
    assert_all_ok(proc, cases)


# Sizes between the generated ones above MOD_PRIVATE_MAX_BITS, through the default dispatch (no variant forced): the
# smallest generated size at or above each serves it, zero-padded (issue 24: every multiple of 32 up to 32768 bits).
MOD_BETWEEN_BITS = (8224, 12320, 16416, 24608, 32736)


@pytest.mark.parametrize("backend", BACKENDS)
def test_modular_sizes_between(backend):
    require_backend(backend)
    cases = []
    for row in OPERATIONS:
        spec = OPS[row.name]
        if spec["modular"]:
            arg = f" {spec['exponent']}={MOD_HUGE_EXP}" if spec["exponent"] else ""
            cases += [f"{row.name} {b} 2 mixed {k + 1} host none{arg}" for k, b in enumerate(MOD_BETWEEN_BITS)]
    cases = require_cases(cases, backend)
    proc = run_driver(["--backend", backend], cases)
    assert_all_ok(proc, cases)


# The grid NTT runs one row kernel and one column-pair kernel per call, chosen by the transform length; at the
# sizes a test affords only the shortest are used. MIDINT_TEST_NTT_SPLIT ("LOG,ROWS": a transform of 2^LOG
# points in rows of 2^ROWS) makes every row and column kernel of the engine run on small operands (the
# zero-padded transform is still an exact cyclic convolution): row logs ROW_LOGS and column logs COL_LOGS of
# generator/grid_plan.py, paired so the longest transform stays small.
GRID_SPLITS = [(18 - c, c) for c in grid_plan.COL_LOGS] + [(6, 11)]   # (rows, columns), logs
NTT_GRID_ENGINES = sorted({(v["backend"], engine_of(v), v["op"]): v["name"] for v in sorted(
    (v for v in VARIANTS if v["grid"] != "-" and v["ntt"] != "-"), key=lambda v: -v["bits"])}.items())


def test_grid_splits_cover_every_kernel():
    assert {r for r, _ in GRID_SPLITS} == set(grid_plan.ROW_LOGS)
    assert {c for _, c in GRID_SPLITS} == set(grid_plan.COL_LOGS)


@pytest.mark.parametrize("rows,cols", GRID_SPLITS, ids=[f"r{r}c{c}" for r, c in GRID_SPLITS])
@pytest.mark.parametrize("key,name", NTT_GRID_ENGINES, ids=[n for _, n in NTT_GRID_ENGINES])
def test_grid_ntt_every_split(key, name, rows, cols):
    backend, _, op = key
    require_backend(backend)
    top = min(65536, next(v["bits"] for v in VARIANTS if v["name"] == name))   # the transform is padded anyway
    cases = [f"{op} {top - 96} 2 mixed 1 host none", f"{op} {top} 1 max 2 device none"]
    proc = run_driver(["--backend", backend, "--variant", name], cases,
                      env={"MIDINT_TEST_NTT_SPLIT": f"{rows + cols},{rows}"})
    skip_if_device_refuses(proc)
    assert_all_ok(proc, cases)
