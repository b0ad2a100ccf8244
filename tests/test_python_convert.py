"""midint.ints_to_limbs / limbs_to_ints through each path (pure Python; the C extension midint._convert as built; its
builds for CPython's byte-array functions and for PEP 757's export API): against int.to_bytes / int.from_bytes and
each other at every digit and word boundary, the same errors with nothing written, NumPy and bool items, other
sequences, out= in place, and no leaked references, buffers or memory. No library or device needed."""

import collections
import importlib.util
import os
import random
import subprocess
import sys
import sysconfig
import tracemalloc
from pathlib import Path

import pytest

import python_support  # noqa: F401  (midint from the checkout, NumPy or skip)
from conftest import ROOT
from python_support import midint, np

from midint import convert

WIDTHS = (32, 64, 96, 512, 544, 4096, 65536)
PKG = Path(convert.__file__).parent   # the package under test: the checkout's, or the installed one
SOURCE = ROOT / "python" / "midint" / "_convert.c"
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _native_module():
    """midint._convert, or skip saying why it is missing. A built extension that does not import fails the test."""
    built = list(PKG.glob("_convert" + EXT_SUFFIX))
    try:
        from midint import _convert
    except ImportError as e:
        if built:
            raise AssertionError(f"{built[0]} is built but does not import: {e}") from e
        pytest.skip(f"midint._convert is not built for this Python ({sys.version.split()[0]}; `make pyext` builds it, "
                    f"given CPython's headers): {e}")
    return _convert


# Builds of the extension for the paths this CPython would not take by itself, each compiled once per session:
# "bytes" (CPython's byte-array functions, the path of a CPython before 3.14 whose digits it does not read) and
# "export" (PEP 757, the path of 3.14 and later; before 3.14 only with MIDINT_TEST_PEP757_HEADER naming a header that
# provides that API there, such as pythoncapi-compat's pythoncapi_compat.h).
VARIANTS = {"bytes": ["-DMIDINT_CONVERT_BYTES"], "export": ["-DMIDINT_CONVERT_EXPORT"]}
_variant_builds = {}


def _variant_module(name, tmp_dir):
    """midint._convert compiled as variant `name`, or skip saying why it cannot be here."""
    if name not in _variant_builds:
        _variant_builds[name] = _compile_variant(name, tmp_dir / name)
    if isinstance(_variant_builds[name], str):
        pytest.skip(_variant_builds[name])
    return _variant_builds[name]


def _compile_variant(name, tmp_dir):
    flags = list(VARIANTS[name])
    if sys.implementation.name != "cpython":
        return "the extension is for CPython"
    if sys.version_info >= (3, 14):
        return f"CPython {sys.version_info[0]}.{sys.version_info[1]} builds the export path itself (the native tests)"
    if name == "export":
        header = os.environ.get("MIDINT_TEST_PEP757_HEADER")
        if not header:
            return ("the PEP 757 export path needs CPython 3.14, or MIDINT_TEST_PEP757_HEADER naming a header that "
                    "provides its API before 3.14 (pythoncapi-compat's pythoncapi_compat.h)")
        flags += ["-include", header]
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").exists():
        return f"no Python.h in {include}: the {name} build of midint._convert cannot be compiled here"
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    tmp_dir.mkdir(parents=True, exist_ok=True)
    target = tmp_dir / ("_convert" + EXT_SUFFIX)
    cmd = [*cc, "-O1", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", *flags, f"-I{include}",
           str(SOURCE), "-o", str(target)]
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        return f"no C compiler ({cc[0]}) for the {name} build of midint._convert"
    except subprocess.CalledProcessError as e:
        raise AssertionError(f"the {name} build failed: {' '.join(cmd)}\n{e.stderr}") from e
    spec = importlib.util.spec_from_file_location("_convert", target)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.LAYOUT == name
    return mod


def _select(which, monkeypatch, tmp_path_factory):
    """The module for path `which` (None for pure Python), made the one convert.py uses for this test."""
    mod = None
    if which == "native":
        mod = _native_module()
    elif which != "pure":
        mod = _variant_module(which, tmp_path_factory.getbasetemp())
    monkeypatch.setattr(convert, "_native", mod)
    return mod


@pytest.fixture(params=["pure", "native", "bytes", "export"])
def path(request, monkeypatch, tmp_path_factory):
    """Which conversion path convert.py takes for the test (None: pure Python)."""
    return _select(request.param, monkeypatch, tmp_path_factory)


@pytest.fixture(params=["native", "bytes", "export"])
def ext(request, monkeypatch, tmp_path_factory):
    """An extension module, also the one convert.py uses for the test."""
    return _select(request.param, monkeypatch, tmp_path_factory)


def want_limbs(values, bits):
    return np.frombuffer(b"".join(int(v).to_bytes(bits // 8, "little") for v in values), "<u4").reshape(-1, bits // 32)


def edge_values(bits, rng):
    """0, 1, all ones, single bits, both sides of every 30-bit digit and 32-bit word boundary up to bits, random
    values of random lengths and of full width."""
    step = 1 if bits <= 4096 else 61   # at 65536 bits, every 61st single bit (~1000 values of 8 KiB)
    vals = {0, 1, (1 << bits) - 1}
    vals.update(1 << k for k in range(0, bits, step))
    vals.add(1 << (bits - 1))
    for unit in (30, 32):
        for k in range(1, bits // unit + 1):
            vals.update(((1 << unit * k) - 1, (1 << unit * k) - 2))
            if unit * k < bits:
                vals.update((1 << unit * k, (1 << unit * k) + 1))
    vals.update(rng.getrandbits(rng.randrange(1, bits + 1)) for _ in range(100))
    vals.update(rng.getrandbits(bits) for _ in range(100))
    out = sorted(vals)
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("bits", WIDTHS)
def test_against_int_bytes(path, bits):
    vals = edge_values(bits, random.Random(bits))
    arr = midint.ints_to_limbs(vals, bits)
    assert arr.dtype == np.uint32 and arr.shape == (len(vals), bits // 32) and not arr.flags.writeable
    assert np.array_equal(arr, want_limbs(vals, bits))
    back = midint.limbs_to_ints(arr)
    assert back == vals
    # normalized ints: CPython's own view of them (bit_length reads the top digit) and exact type int
    assert all(type(v) is int and v.bit_length() == w.bit_length() and hash(v) == hash(w) for v, w in zip(back, vals))


@pytest.mark.parametrize("bits", WIDTHS)
def test_rows_against_from_bytes(path, bits):
    """limbs_to_ints on raw rows: random words, rows of zeros, short values in wide rows, a top word alone."""
    rng = np.random.default_rng(bits)
    w = bits // 32
    rows = rng.integers(0, 1 << 32, (40, w), dtype=np.uint32)
    rows[0] = 0
    rows[1, 1:] = 0
    rows[2, 2:] = 0                       # at most 64 bits
    rows[3, :-1] = 0                      # the top word only
    rows[4, w // 2:] = 0
    rows[5] = 0xFFFFFFFF
    for i in range(6, 40):                # random lengths
        rows[i, rng.integers(0, w + 1):] = 0
    got = midint.limbs_to_ints(rows)
    want = [int.from_bytes(r.tobytes(), "little") for r in rows]
    assert got == want
    assert all(type(v) is int and v.bit_length() == x.bit_length() for v, x in zip(got, want))


def test_paths_agree(ext, monkeypatch):
    """This extension path and the pure path give the same arrays and ints on the same random inputs."""
    rng = random.Random(3)
    for bits in (64, 544, 2048):
        vals = [rng.getrandbits(rng.randrange(0, bits + 1)) for _ in range(500)]
        rows = np.random.default_rng(bits).integers(0, 1 << 32, (50, bits // 32), dtype=np.uint32)
        got = midint.ints_to_limbs(vals, bits), midint.limbs_to_ints(rows)
        monkeypatch.setattr(convert, "_native", None)
        want = midint.ints_to_limbs(vals, bits), midint.limbs_to_ints(rows)
        monkeypatch.setattr(convert, "_native", ext)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_empty(path):
    for bits in (32, 512):
        a = midint.ints_to_limbs([], bits)
        assert a.shape == (0, bits // 32) and a.dtype == np.uint32
        assert midint.limbs_to_ints(a) == []
    assert midint.limbs_to_ints(np.empty((3, 0), np.uint32)) == [0, 0, 0]
    assert midint.limbs_to_ints(np.empty((0, 0), np.uint32)) == []


def test_numpy_and_bool_items(path):
    vals = [np.uint64(2**64 - 1), np.int32(7), 5, np.uint8(0), True, False, np.int64(2**40)]
    got = midint.ints_to_limbs(vals, 96)
    assert np.array_equal(got, want_limbs([int(v) for v in vals], 96))
    assert midint.ints_to_limbs([True, 2, False], 32).tolist() == [[1], [2], [0]]
    # an int subclass is taken by its value
    Flag = __import__("enum").IntEnum("Flag", {"A": 3, "B": 2**40})
    assert midint.ints_to_limbs([Flag.B, Flag.A], 64).tolist() == [[0, 256], [3, 0]]


def test_sequences(path):
    vals = [3, 2**70, 0, 2**96 - 1]
    want = want_limbs(vals, 96)
    for seq in (vals, tuple(vals), (v for v in vals), iter(vals), collections.deque(vals),
                np.array(vals, dtype=object)):
        assert np.array_equal(midint.ints_to_limbs(seq, 96), want), type(seq)
    assert np.array_equal(midint.ints_to_limbs(range(4), 96), want_limbs(range(4), 96))
    assert midint.ints_to_limbs(np.arange(4, dtype=np.uint64), 64).tolist() == [[0, 0], [1, 0], [2, 0], [3, 0]]
    # limbs_to_ints copies what is not a C-contiguous aligned uint32 array
    arr = midint.ints_to_limbs(vals, 96)
    wide = np.zeros((8, 3), np.uint32)
    wide[::2] = arr
    assert midint.limbs_to_ints(wide[::2]) == vals
    assert midint.limbs_to_ints(arr.astype(np.uint64)) == vals
    assert midint.limbs_to_ints(arr.tolist()) == vals


BAD = [
    # (values, bits, exception, message)
    ([1, 2, -3, 4], 64, ValueError, "a[2] is negative (-3); midint's integers are unsigned"),
    ([1, 2**64, 3], 64, ValueError, "a[1] has 65 bits, more than bits=64 (not truncated: reduce it mod 2^64"),
    ([0, 1, 2**544], 544, ValueError, "a[2] has 545 bits, more than bits=544"),
    ([2**4096 - 1, -(2**4000)], 4096, ValueError, "a[1] is negative"),
    ([1, 2.0], 32, TypeError, "a[1] is a float, not an int"),
    (["7"], 32, TypeError, "a[0] is a str, not an int"),
    ([1, None], 32, TypeError, "a[1] is a NoneType, not an int"),
    ([np.float64(1)], 32, TypeError, "a[0] is a float64, not an int"),
    ([np.int64(-1)], 32, ValueError, "a[0] is negative (-1)"),
    ([5, np.uint64(2**63)], 32, ValueError, "a[1] has 64 bits, more than bits=32"),
    ([-1, 2**99], 64, ValueError, "a[0] is negative"),           # the first bad item is named
    ([2**99, -1], 64, ValueError, "a[0] has 100 bits"),
]


@pytest.mark.parametrize("values, bits, exc, message", BAD)
def test_errors_and_nothing_written(path, values, bits, exc, message):
    with pytest.raises(exc) as e:
        midint.ints_to_limbs(values, bits)
    assert message in str(e.value) and isinstance(e.value, midint.MidintError)
    pure = convert._native
    convert._native = None
    try:
        with pytest.raises(exc) as p:
            midint.ints_to_limbs(values, bits)
    finally:
        convert._native = pure
    assert str(e.value) == str(p.value)   # the pure path's message, whichever path ran
    out = np.full((len(values), bits // 32), 0xA5A5A5A5, np.uint32)
    with pytest.raises(exc) as o:
        midint.ints_to_limbs(values, bits, "x", out=out)
    assert str(o.value) == str(p.value).replace("a[", "x[")
    assert (out == 0xA5A5A5A5).all()      # out= untouched: every item is checked before one is written


def test_name_and_bits_checks(path):
    with pytest.raises(ValueError, match=r"m\[0\] is negative"):
        midint.ints_to_limbs([-1], 32, "m")
    for bits in (0, 33, -32):
        with pytest.raises(ValueError, match="not a positive multiple of 32"):
            midint.ints_to_limbs([1], bits)
    with pytest.raises(ValueError, match="2-D"):
        midint.limbs_to_ints(np.zeros(4, np.uint32))


def test_out_in_place(path):
    vals = [2**511 + 5, 0, 7]
    out = np.full((3, 16), 9, np.uint32)
    got = midint.ints_to_limbs(vals, 512, out=out)
    assert got is out and out.flags.writeable and np.array_equal(out, want_limbs(vals, 512))
    # NumPy items through out= (the pure checks convert them, then the rows are written)
    assert midint.ints_to_limbs([np.uint32(4), 1, 2], 512, out=out) is out and midint.limbs_to_ints(out) == [4, 1, 2]
    for bad, exc, what in ((np.zeros((3, 16), np.int64), TypeError, "dtype int64"),
                           ([[0] * 16] * 3, TypeError, "a list"),
                           (np.zeros((3, 15), np.uint32), ValueError, r"shape \(3, 15\)"),
                           (np.zeros((4, 16), np.uint32), ValueError, r"need \(3, 16\)"),
                           (np.zeros((3, 32), np.uint32)[:, ::2], ValueError, "C-contiguous"),
                           (np.zeros((3, 16), np.uint32).view(), ValueError, "read-only")):
        if what == "read-only":
            bad.flags.writeable = False
        with pytest.raises(exc, match=what):
            midint.ints_to_limbs(vals, 512, out=bad)


def test_env_forces_pure_path():
    code = "import midint.convert as c; print(c._native is None, c.PATH)"
    env = {"PYTHONPATH": str(PKG.parent), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env={**env, "MIDINT_PURE_PYTHON": "1"}, capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("True pure Python (MIDINT_PURE_PYTHON is set)"), out
    out = subprocess.run([sys.executable, "-c", code], env={**env, "MIDINT_PURE_PYTHON": "0"}, capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("False C extension") or "not available" in out, out


# ---- the extension's own calls: argument checks, references, buffers, memory ----

def test_ext_arguments(ext):
    out = bytearray(8)
    assert ext.ints_to_limbs([1, 2], out, 1) == -1 and out == bytes([1, 0, 0, 0, 2, 0, 0, 0])
    with pytest.raises(ValueError, match="holds 8 bytes"):
        ext.ints_to_limbs([1, 2, 3], out, 1)
    with pytest.raises(ValueError, match="words=0"):
        ext.ints_to_limbs([], bytearray(), 0)
    with pytest.raises(ValueError, match="words=-1"):
        ext.limbs_to_ints(b"", -1)
    with pytest.raises(BufferError):
        ext.ints_to_limbs([1], b"\0\0\0\0", 1)          # read-only
    with pytest.raises(TypeError, match="sequence"):
        ext.ints_to_limbs(5, bytearray(4), 1)
    with pytest.raises(ValueError, match="aligned"):
        ext.ints_to_limbs([1], memoryview(bytearray(9))[1:5], 1)
    with pytest.raises(ValueError, match="aligned"):
        ext.limbs_to_ints(memoryview(np.zeros(3, np.uint32)).cast("B")[1:9], 1)
    with pytest.raises(ValueError, match="whole number of rows"):
        ext.limbs_to_ints(bytes(12), 2)
    assert ext.limbs_to_ints(bytes(8), 2) == [0]
    # the index of the first refused item, out untouched (check_first) or written up to it (one pass)
    out = bytearray(b"\xee" * 12)
    assert ext.ints_to_limbs([1, 2, -3], out, 1) == 2 and out == b"\xee" * 12
    assert ext.ints_to_limbs([1, 2, -3], out, 1, False) == 2 and out[:8] == bytes([1, 0, 0, 0, 2, 0, 0, 0])
    assert ext.ints_to_limbs([1, 2**32], out[:8], 1) == 1
    assert ext.ints_to_limbs([1, np.int64(2)], bytearray(8), 1) == 1   # NumPy integers: handed back


@pytest.mark.parametrize("bits", (64, 96, 544, 4096))
def test_ext_threads(ext, bits):
    """Rows shared between threads (as many as asked, more than rows, one per row) give the same ints and limbs as
    one thread, and a refusal names the first refused item whichever thread met it."""
    rng = random.Random(bits + 7)
    vals = edge_values(bits, rng)[:150] + [0, 1, 2**64 - 1, 2**64]   # rows of at most 64 bits: CPython's own ints
    vals = [v % (1 << bits) for v in vals]
    want = want_limbs(vals, bits)
    words = bits // 32
    for threads in (1, 2, 3, 7, len(vals), len(vals) + 5, 64, 1000):
        out = np.empty_like(want)
        assert ext.ints_to_limbs(vals, out, words, True, threads) == -1 and (out == want).all(), threads
        out = np.empty_like(want)
        assert ext.ints_to_limbs(vals, out, words, False, threads) == -1 and (out == want).all(), threads
        assert ext.limbs_to_ints(want, words, threads) == vals, threads
        assert ext.limbs_to_ints(want[:1], words, threads) == vals[:1]
        assert ext.limbs_to_ints(want[:0], words, threads) == []
        assert ext.ints_to_limbs([], bytearray(), words, True, threads) == -1
        assert ext.widest_bits(vals, threads) == (max(v.bit_length() for v in vals), -1)
        assert ext.widest_bits([], threads) == (0, -1) and ext.widest_bits([0] * 9, threads) == (0, -1)
        # refused items in the last rows and in the first third: the first is named, a caller's out untouched
        for bad_at in ((len(vals) - 1,), (len(vals) - 2, 5), (0, len(vals) - 1)):
            bad = list(vals)
            for i in bad_at:
                bad[i] = -1 if i % 2 else 1 << bits
            out = np.full_like(want, 0xEEEEEEEE)
            assert ext.ints_to_limbs(bad, out, words, True, threads) == min(bad_at)
            assert (out == 0xEEEEEEEE).all()
            assert ext.ints_to_limbs(bad, np.empty_like(want), words, False, threads) == min(bad_at)
            negative = [i for i in bad_at if i % 2]   # widest_bits refuses only the negative ones
            assert ext.widest_bits(bad, threads) == ((0, min(negative)) if negative else (bits + 1, -1))


@pytest.mark.parametrize("bits", (64, 96, 544, 4096))
def test_ext_reserved_ints(ext, bits):
    """limbs_to_ints into ints made ahead (reserve_ints, the digit layouts): the same ints, each reservation taken
    once and only for its rows and width; the other layouts have no reserve_ints and refuse one."""
    rng = random.Random(bits + 3)
    vals = [v % (1 << bits) for v in edge_values(bits, rng)[:120] + [0, 1, 2**64 - 1, 2**64]]
    want = want_limbs(vals, bits)
    words = bits // 32
    if not hasattr(ext, "reserve_ints"):
        with pytest.raises(ValueError, match="one by one"):
            ext.limbs_to_ints(want, words, 1, object())
        return
    for threads in (1, 3):
        res = ext.reserve_ints(len(vals), words)
        got = ext.limbs_to_ints(want, words, threads, res)
        assert got == vals and all(type(v) is int for v in got)
        big = [i for i, v in enumerate(vals) if v.bit_length() > 64]
        assert (big or bits == 64) and [sys.getrefcount(got[i]) for i in big] == [2] * len(big)   # the list's alone
        assert [v.bit_length() for v in got] == [v.bit_length() for v in vals]   # shrunk to their digits
        with pytest.raises(ValueError, match="already taken"):
            ext.limbs_to_ints(want, words, threads, res)
    for count, w in ((len(vals) - 1, words), (len(vals), words - 1)):   # other rows, or narrower ints
        with pytest.raises(ValueError, match="reserved ints"):
            ext.limbs_to_ints(want, words, 1, ext.reserve_ints(count, w))
    with pytest.raises(ValueError, match="PyCapsule"):
        ext.limbs_to_ints(want, words, 1, object())
    assert ext.limbs_to_ints(want[:0], words, 1, ext.reserve_ints(0, words)) == []
    with pytest.raises(ValueError, match="count=-1"):
        ext.reserve_ints(-1, words)
    tracemalloc.start()   # a reservation dropped unused, or used, gives its memory back
    try:
        ext.limbs_to_ints(want, words, 2, ext.reserve_ints(len(vals), words))
        ext.reserve_ints(len(vals), words)
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            ext.limbs_to_ints(want, words, 2, ext.reserve_ints(len(vals), words))
            ext.reserve_ints(len(vals), words)
        assert tracemalloc.get_traced_memory()[0] - before < 4096
    finally:
        tracemalloc.stop()


def test_threads_through_convert(path, monkeypatch):
    """convert.py's own calls with the rows split between threads after a few words each."""
    monkeypatch.setattr(convert, "_THREADS", 5)
    monkeypatch.setattr(convert, "_WORDS_PER_THREAD", 8)
    assert convert._threads(100, 4) == 5 and convert._threads(3, 4) == 1 and convert._threads(0, 4) == 1
    rng = random.Random(11)
    for bits in (96, 544):
        vals = edge_values(bits, rng)[:200]
        arr = midint.ints_to_limbs(vals, bits)
        assert (arr == want_limbs(vals, bits)).all()
        assert midint.limbs_to_ints(arr) == vals
        with pytest.raises(ValueError, match=r"a\[150\] is negative"):
            midint.ints_to_limbs(vals[:150] + [-1] + vals[150:], bits)


def test_widest_bits(path, monkeypatch):
    """convert.widest_bits: the largest bit length, refusals named as ints_to_limbs names them."""
    monkeypatch.setattr(convert, "_WORDS_PER_THREAD", 1)
    rng = random.Random(5)
    for bits in (32, 544, 4096):
        vals = edge_values(bits, rng)
        assert convert.widest_bits(vals) == bits
        assert convert.widest_bits(tuple(vals[:-1]) + (1 << (bits + 40),)) == bits + 41
        assert convert.widest_bits(iter(vals)) == bits
    assert convert.widest_bits([]) == 0 and convert.widest_bits([0, 0]) == 0
    assert convert.widest_bits([np.uint32(7), 2**70, True]) == 71   # NumPy integers and bools by their value
    with pytest.raises(ValueError, match=r"moduli\[2\] is negative"):
        convert.widest_bits([1, 2**200, -5, "x"], "moduli")
    with pytest.raises(TypeError, match=r"a\[1\] is a str"):
        convert.widest_bits([1, "x", -5])


def test_env_threads():
    code = "import midint.convert as c; print(c._THREADS)"
    env = {"PYTHONPATH": str(PKG.parent), "PATH": "/usr/bin:/bin"}
    run = lambda value: subprocess.run([sys.executable, "-c", code], env={**env, "MIDINT_CONVERT_THREADS": value},
                                       capture_output=True, text=True)
    assert run("3").stdout.strip() == "3"
    assert 1 <= int(run("").stdout.strip()) <= 8
    for value, message in (("0", "at least 1 thread"), ("two", "not a whole number")):
        out = run(value)
        assert out.returncode != 0 and message in out.stderr, out.stderr


def test_ext_references_and_buffers(ext):
    """Every reference and buffer taken is given back, on success and on refusal."""
    big, small = 2**300 + 1, 12345
    vals = [big, small, big]
    before = sys.getrefcount(big), sys.getrefcount(small), sys.getrefcount(vals)
    out = bytearray(3 * 40)
    for _ in range(100):
        assert ext.ints_to_limbs(vals, out, 10) == -1
        assert ext.ints_to_limbs(vals + [-1], bytearray(4 * 40), 10) == 3
        assert ext.ints_to_limbs(tuple(vals), out, 10, False) == -1
    assert (sys.getrefcount(big), sys.getrefcount(small), sys.getrefcount(vals)) == before
    out.extend(b"1234")   # a bytearray with a buffer still exported cannot grow (BufferError)
    del out[-4:]
    rows = ext.limbs_to_ints(out, 10)
    counts = [sys.getrefcount(rows[i]) for i in (0, 2)]   # held by the list alone (and getrefcount's argument)
    assert rows == vals and counts == [2, 2]
    out.extend(b"1234")
    with pytest.raises(ValueError):
        ext.limbs_to_ints(out, 10)   # 124 bytes: not whole rows
    out.extend(b"5678")


@pytest.mark.parametrize("bits", (96, 544, 4096))
def test_ext_memory_stable(ext, bits):
    """Converting the same batch again and again leaves Python's heap as it was (tracemalloc counts every int,
    list and array the conversions allocate)."""
    rng = random.Random(bits)
    vals = [rng.getrandbits(bits) for _ in range(300)]
    arr = midint.ints_to_limbs([v * v for v in vals], 2 * bits)

    def once():
        a = midint.ints_to_limbs(vals, bits)
        out = np.empty_like(a)
        midint.ints_to_limbs(vals, bits, out=out)
        try:
            midint.ints_to_limbs(vals + [-1], bits)
        except ValueError:
            pass
        return midint.limbs_to_ints(a), midint.limbs_to_ints(arr)

    once()
    tracemalloc.start()
    try:
        once()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(50):
            once()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown < 4096, f"{grown} bytes more after 50 rounds"
