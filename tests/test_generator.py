"""The generator: its space and constraints, their messages, name <-> fields round trip, what `make gen` writes."""

import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from generator.ops import OPERATIONS  # noqa: E402
from generator.plan import PlanError, parse_sizes, plan, variants_for  # noqa: E402
from generator import grid_plan, ntt_plan  # noqa: E402
from generator.render import c_string, kernel_variant, render_all  # noqa: E402
from generator.space import (ALL_CONSTRAINTS, MAX_BLOCK_THREADS, MAX_SHARED_BYTES, failed_constraint,  # noqa: E402
                             family_of, shared_bytes)
from generator.variant import Variant, VariantNameError, format_name, parse_name  # noqa: E402


def gen(*args, out):
    return subprocess.run([sys.executable, "-m", "generator", "--out", str(out), *args], cwd=ROOT,
                          capture_output=True, text=True)


# ---- names ----

@pytest.mark.parametrize("v", plan([512, 96, 262144]), ids=lambda v: v.name)
def test_name_round_trip(v):
    assert parse_name(v.name) == v
    assert format_name(parse_name(v.name)) == v.name


def test_name_with_ntt_field_round_trips():
    v = Variant(op="mul", bits=65536, limb="u32", q=4, ipb=1, backend="cuda", ntt=(2, 16))
    assert v.name == "mul_65536_u32_q4_i1_p2b16_cuda"
    assert parse_name(v.name) == v


@pytest.mark.parametrize("bad", ["", "add_4096_u64_q4_cuda", "add_4096_u48_q4_i1_cuda", "add_4096_u64_q4_i1_vulkan",
                                 "add_0_u64_q4_i1_cuda", "add_4096_u64_q0_i1_cuda", "add_4096_u64_q4_i1_cuda_x"])
def test_bad_names_are_refused(bad):
    with pytest.raises(VariantNameError, match="not a variant name"):
        parse_name(bad)


# ---- the space and its constraints ----

def test_every_generated_variant_satisfies_every_constraint():
    for v in plan([32, 96, 512, 1000 * 32, 1 << 18]):
        assert failed_constraint(v) is None or failed_constraint(v).kind == "prune", v.name
        assert v.block <= MAX_BLOCK_THREADS and v.block % 32 == 0
        assert shared_bytes(v) <= MAX_SHARED_BYTES
        if v.grid is None:   # the padded length covers the instance (grid variants spread it over blocks)
            assert v.threads_per_instance * v.chunk_words >= v.words


@pytest.mark.parametrize("field,value,constraint", [
    ("q", 32, "chunk_registers"),
    ("ipb", 1024, "block_max"),
    ("ipb", 0, "q_positive"),
    ("limb", "u16", "known_limb"),
    ("bits", 100, "bits_multiple_of_32"),
])
def test_each_constraint_names_itself(field, value, constraint):
    base = dict(op="add", bits=4096, limb="u64", q=4, ipb=1, backend="cuda")
    base[field] = value
    c = failed_constraint(Variant(**base))
    assert c is not None and c.name == constraint


@pytest.mark.parametrize("fields,constraint", [
    (dict(op="mul", bits=8192, q=16, ipb=2, ntt=(2, 32)), "ntt_bound"),
    (dict(op="mul", bits=512, q=32, ipb=1, ntt=(3, 32)), "ntt_two_passes"),
    (dict(op="mul", bits=4096, q=32, ipb=2, ntt=(3, 32)), "ntt_whole_warps"),
    (dict(op="mullo", bits=4096, q=2, ipb=1, ntt=(3, 32)), "ntt_sum_words"),
    (dict(op="mul", bits=8192, q=16, ipb=1, ntt=(2, 16)), "ntt_32bit_digits"),
    (dict(op="mul", bits=8192, q=16, ipb=1, ntt=(3, 16)), "ntt_fewest_primes"),
    (dict(op="mul", bits=2048, q=16, ipb=8, ntt=(3, 32)), "ntt_min_bits"),
    (dict(op="add", bits=8192, q=16, ipb=2, ntt=(3, 32)), "known_op"),
])
def test_each_ntt_constraint_names_itself(fields, constraint):
    c = failed_constraint(Variant(limb="u32", backend="cuda", **fields))
    assert c is not None and c.name == constraint, c


# One Karatsuba level over the lanes pipeline (_k1): generated at 2048..8192 bits on lanes of one warp, at least 4
@pytest.mark.parametrize("v", [v for v in plan([1024, 2048, 4096, 8192, 16384]) if v.karatsuba],
                         ids=lambda v: v.name)
def test_karatsuba_names_round_trip(v):
    assert parse_name(v.name) == v and v.name.endswith(f"_k1_{v.backend}")
    assert 2048 <= v.bits <= 8192 and v.lanes >= 4 and not v.across and v.lanes * v.q == v.words


def test_karatsuba_is_generated_for_every_operation_that_names_it_and_both_backends():
    got = {(v.op, v.backend) for v in plan([2048, 4096, 8192]) if v.karatsuba}
    assert got == {(op.name, b) for op in OPERATIONS if "lanes_k" in op.families for b in ("cuda", "opencl")}


@pytest.mark.parametrize("fields,constraint", [
    (dict(bits=2048, q=16, ipb=2, lanes=4, karatsuba=2), "lanes_k_levels"),
    (dict(bits=512, q=8, ipb=64, lanes=2, karatsuba=1), "lanes_k_shape"),
    (dict(bits=4096, q=16, ipb=32, lanes=8, across=True, karatsuba=1), "lanes_k_shape"),
    (dict(bits=2048, q=8, ipb=32, lanes=8, karatsuba=1), "multi_instance_block"),
    (dict(bits=1024, q=8, ipb=32, lanes=4, karatsuba=1), "lanes_k_bits"),
    (dict(bits=2048, q=4, ipb=8, lanes=16, karatsuba=1), "lanes_k_min_q"),
])
def test_each_karatsuba_constraint_names_itself(fields, constraint):
    c = failed_constraint(Variant(op="mul", limb="u32", backend="cuda", **fields))
    assert c is not None and c.name == constraint


# The balanced low half (_oL): mullo only, L/2 warps per group of 32 instances, 512..8192 bits
@pytest.mark.parametrize("v", [v for v in plan([512, 1024, 2048, 4096, 8192, 16384]) if v.owner],
                         ids=lambda v: v.name)
def test_owner_names_round_trip(v):
    owners = {op.name for op in OPERATIONS if {"lanes_owner", "sqr_owner"} & set(op.families)}   # mullo, sqr
    assert parse_name(v.name) == v and f"_o{v.lanes}_" in v.name and v.op in owners
    assert 1024 <= v.bits <= 8192 and v.lanes * v.q == v.words and v.block == v.ipb * v.lanes // 2


@pytest.mark.parametrize("fields,constraint", [
    (dict(op="mul", bits=4096, q=16, ipb=32, lanes=8, owner=True), "known_op"),
    (dict(op="mullo", bits=512, q=16, ipb=32, lanes=1, owner=True), "owner_shape"),
    (dict(op="mullo", bits=512, q=8, ipb=64, lanes=2, owner=True), "owner_min_bits"),
    (dict(op="mullo", bits=4096, q=16, ipb=16, lanes=8, owner=True), "owner_shape"),
    (dict(op="mullo", bits=4096, q=32, ipb=32, lanes=4, owner=True), "lanes_registers"),
])
def test_each_owner_constraint_names_itself(fields, constraint):
    c = failed_constraint(Variant(limb="u32", backend="cuda", **fields))
    assert c is not None and c.name == constraint, c


# A staged thread per instance (_t1): the lanes family on one lane, loads and stores through shared memory
@pytest.mark.parametrize("v", [v for v in plan([512, 1024, 2048]) if v.staged], ids=lambda v: v.name)
def test_staged_names_round_trip(v):
    assert parse_name(v.name) == v and v.name.split("_")[-2] == "t1" and v.lanes == 1
    # the lanes family's staged thread holds the instance in Q words; the square's (sqr_thread) loops over its blocks
    assert v.q == v.words if family_of(v).name == "lanes" else v.words % v.q == 0


def test_staged_thread_serves_mullo_1024_and_32_words_need_it():
    names = {v.name for v in plan([1024])}
    assert "mullo_1024_u32_q32_i128_t1_cuda" in names and "mullo_1024_u32_q32_i128_w1_cuda" not in names


@pytest.mark.parametrize("fields,constraint", [
    (dict(op="mullo", bits=1024, q=16, ipb=64, lanes=2, staged=True), "lanes_staged_shape"),
    (dict(op="mullo", bits=1024, q=32, ipb=128, lanes=1), "lanes_thread_q32"),
    (dict(op="mul", bits=1024, q=32, ipb=128, lanes=1, staged=True), "lanes_registers"),
])
def test_each_staged_constraint_names_itself(fields, constraint):
    c = failed_constraint(Variant(limb="u32", backend="cuda", **fields))
    assert c is not None and c.name == constraint, c


def test_keep_pruned_is_checked():
    with pytest.raises(PlanError, match="not a prune constraint"):
        plan([8192], keep_pruned=("ntt_bound",))
    names = {v.name for v in plan([8192], ops=["mul"], backends=["cuda"], keep_pruned=("ntt_32bit_digits",))}
    assert any("_p2b16_" in n for n in names) and not any("_p2b16_" in n for n in
                                                           (v.name for v in plan([8192], ops=["mul"])))


def test_constraints_have_unique_names_and_rules():
    names = [c.name for c in ALL_CONSTRAINTS]
    assert len(names) == len(set(names))
    assert all(c.rule for c in ALL_CONSTRAINTS)


def test_prune_never_empties_a_legal_size():
    # 32 bits: every candidate fails the prune rules, yet the size still gets its legal variants
    assert variants_for("add", 32, "opencl")


# ---- SIZES ----

@pytest.mark.parametrize("text,message", [
    ("100", "bits_multiple_of_32"),
    ("0", "bits_multiple_of_32"),
    ("-64", "bits_multiple_of_32"),
    ("abc", "not an integer"),
    ("", "SIZES is empty"),
])
def test_bad_sizes_are_refused(text, message):
    with pytest.raises(PlanError, match=message):
        parse_sizes(text)


def test_too_large_names_the_constraints():
    with pytest.raises(PlanError, match=r"no mul variant fits.*block_max.*ntt_bound"):
        plan([1 << 31], ops=["mul"])


def test_size_above_one_operations_largest_is_left_out_with_a_note():
    notes = []
    names = [v.name for v in plan([1 << 31], notes=notes)]
    beyond = {op.name for op in OPERATIONS if {"addsub_grid", "map"} & set(op.families)}   # 2^31-bit families
    assert names and {n.split("_")[0] for n in names} == beyond
    assert any(n.startswith("mul ") and "ntt_bound" in n for n in notes), notes
    with pytest.raises(PlanError, match="no mul variant fits"):
        plan([1 << 31], ops=["mul", "mullo"])


def test_sizes_above_the_generator_limit_are_refused():
    with pytest.raises(PlanError, match="above the generator's limit"):
        parse_sizes(str((1 << 31) + 32))


def test_sizes_sorted_and_deduplicated():
    assert parse_sizes("4096, 512,4096") == [512, 4096]


def test_cli_refuses_with_message_and_writes_nothing(tmp_path):
    out = tmp_path / "gen"
    p = gen("--sizes", "512,100", out=out)
    assert p.returncode == 2 and "bits_multiple_of_32" in p.stderr
    assert not out.exists()


def test_cli_too_large(tmp_path):
    p = gen("--sizes", str(1 << 31), "--ops", "mul,mullo", out=tmp_path / "g")
    assert p.returncode == 2 and "too large" in p.stderr and "ntt_bound" in p.stderr


def test_cli_writes_registry_kernels_and_list(tmp_path):
    out = tmp_path / "gen"
    assert gen("--sizes", "512,4096", out=out).returncode == 0
    listing = [ln.split()[0] for ln in (out / "variants.txt").read_text().splitlines() if not ln.startswith("#")]
    assert listing and all(parse_name(n).bits in (512, 4096) for n in listing)
    registry = (out / "registry.c").read_text()
    assert all(f'"{n}"' in registry for n in listing)
    for n in listing:
        v = parse_name(n)
        kv = kernel_variant(v)   # a borrowed kernel (sqr's transforms and lanes are mul's) is rendered under its name
        if v.grid is not None:   # a grid engine's kernels serve every size: one program, a unit per role
            eng = grid_plan.engine(kv)
            assert (out / "opencl" / f"{eng}.cl").exists() if v.backend == "opencl" else \
                any(f"midint_cuda_launch_{eng}_" in u.read_text() for u in (out / "cuda").glob(f"{eng}_*.cu"))
        elif v.backend == "opencl":
            assert (out / "opencl" / f"{kv.name}.cl").exists()
        else:
            assert f"midint_cuda_launch_{kv.name}(" in (out / "cuda" / f"{kv.op}_{kv.bits}.cu").read_text()
    # a second request replaces the first: no stale kernels stay behind
    assert gen("--sizes", "1024", out=out).returncode == 0
    assert not list((out / "cuda").glob("*_512.cu"))
    assert not list((out / "opencl").glob("*_512_*.cl"))


def test_registry_hash_follows_the_variant_list():
    h1 = render_all(plan([512]), [512])["registry.c"]
    h2 = render_all(plan([512, 1024]), [512, 1024])["registry.c"]
    get = lambda text: text.split('midint_registry_hash[] = "')[1].split('"')[0]  # noqa: E731
    assert get(h1) != get(h2) and len(get(h1)) == 16


def test_c_string_escapes():
    assert c_string('a"b\\c\n') == '"a\\"b\\\\c\\n"'


@pytest.mark.parametrize("backend", ["cuda", "opencl"])
def test_grid_ntt_kernels_fit_the_backends_group_cap(backend):
    """Every kernel of a grid NTT engine (mul, mullo, sqr above the one-block sizes, up to 2^27 bits) has at most
    grid_plan.MAX_GROUP_ITEMS[backend] work-items, since the engine runs only if all of them fit: on OpenCL 256, so
    the 2048-point column pass (the transforms of 2^22 and 2^23 points) goes two columns to a block and the 1024-point
    one four, where CUDA keeps eight (32-byte rows: 1024 and 512 threads); the other passes keep their shape on both."""
    cap = grid_plan.MAX_GROUP_ITEMS[backend]
    for op in ("mul", "mullo", "sqr"):
        grid = [v for v in variants_for(op, 1 << 27, backend) if v.ntt and v.grid]
        assert grid, (op, backend)
        for v in grid:
            ks = grid_plan.kernels(v)
            assert max(k.block for k in ks) <= cap, (v.name, [(k.role, k.log_length, k.block) for k in ks])
            cols = {k.log_length: k for k in ks if k.role == "cols"}
            assert (cols[11].span, cols[10].span) == ((2, 4) if backend == "opencl" else (8, 8)), v.name
            assert cols[11].block == cols[11].span * 2048 // v.q


@pytest.mark.parametrize("backend", ["cuda", "opencl"])
def test_rows_mac_holds_a_row_buffer_per_output(backend):
    """The pieces' row pass (docs/ntt.md "Pieces") sums `outputs` consecutive outputs per block, each in a row buffer
    of its own: at least one output, shared memory for max(2, outputs) padded rows per row of the block (the runtime
    divides the output count by it), and on OpenCL within the 48 KiB of local memory NVIDIA's OpenCL allows."""
    for v in [v for v in variants_for("mul", 1 << 27, backend) if v.ntt and v.grid]:
        for k in (k for k in grid_plan.kernels(v) if k.role == "rows_mac"):
            assert k.outputs == grid_plan.MAC_OUTPUTS[backend] >= 1, (v.name, k)
            assert k.shared_words >= k.span * max(2, k.outputs) * ntt_plan.padded(1 << k.log_length), (v.name, k)
            if backend == "opencl":
                assert grid_plan.shared_bytes(k, backend) <= 48 * 1024, (v.name, k.log_length)
        assert all(k.outputs == 0 for k in grid_plan.kernels(v) if k.role != "rows_mac"), v.name
