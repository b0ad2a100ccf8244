"""The operations as data: one row per operation, from which everything else that names an operation is derived.

The public header's enum and per-operation functions (generated/midint_ops.h), the descriptors the runtime checks and
binds calls by (generated/ops_table.c), the registry's op codes, the families that generate each operation's kernels
(generator/space.py), Python's operation list (read back from the library at run time), the test drivers' GMP
reference (the `reference` text, evaluated by tests/drivers/reference.c and tests/op_reference.py), the tests'
patterns, and the tuner's and benchmarks' lists all come from OPERATIONS. A new operation is a row here plus, when no
existing family computes it, a kernel template and a family in space.py (DEVELOPERS.md, "Adding an operation").
"""

from dataclasses import dataclass

# Kernel parameters an operand or scalar can be bound to (templates/lib_abi.j2, runtime/launch.h): the runtime puts
# each buffer of a call into the slots its row names, so kernels see r, a, b and aux whatever the C order is.
BUFFER_SLOTS = ("r", "a", "b", "aux")
SCALAR_SLOTS = ("x0", "x1")
# Width codes: words per instance as (per_n, fixed): per_n * bits/32 + fixed.
WIDTHS = {"n": (1, 0), "2n": (2, 0), "1": (0, 1)}
# A buffer's width may instead name one of its operation's width scalars: its instances are that scalar's value in bits
# (a dividend of abits bits, an exponent of ebits bits), a positive multiple of 32 the runtime checks.


@dataclass(frozen=True)
class Buffer:
    """An input or output buffer of `count` instances. `width`: "n" (bits/32 words), "2n" (a full product), "1" (one
    32-bit word per instance: flags, per-instance counts, comparison results). `optional`: may be NULL (an output is
    then not computed; an input is replaced by the scalar `fallback` for every instance). `below_bits`: every value
    is a count below `bits` (checked before anything is written). `signed`: the words are int32_t."""

    name: str
    output: bool
    width: str = "n"
    slots: tuple = ()
    optional: bool = False
    fallback: str | None = None
    below_bits: bool = False
    signed: bool = False
    nonzero: bool = False
    odd: bool = False
    modulus: bool = False
    doc: str = ""

    @property
    def words(self) -> tuple:
        """(per_n, fixed) words per instance; (0, 0) for a width a scalar gives (`scalar_width`)."""
        return WIDTHS.get(self.width, (0, 0))

    @property
    def scalar_width(self) -> bool:
        return self.width not in WIDTHS

    @property
    def ctype(self) -> str:
        return "int32_t" if self.signed else "uint32_t"


def Modulus(name, slot="aux", odd=False, doc="") -> Buffer:
    """A modulus for the whole batch: a precomputed `midint_modulus` object (midint_modulus_create) of the call's bits,
    the same for host, asynchronous and device calls. Its kernel slot sees the object's device words (m, R mod m,
    R^2 mod m, -m^-1 mod 2^32; runtime/modulus.h), not count instances; it is never copied per call. `odd`: the call
    needs an odd modulus (checked on the object when the call is made)."""
    return Buffer(name, False, "n", (slot,), nonzero=True, odd=odd, modulus=True, doc=doc)


def Out(name, width="n", slot="r", **kw) -> Buffer:
    return Buffer(name, True, width, (slot,), **kw)


def In(name, width="n", slot="a", slots=None, **kw) -> Buffer:
    return Buffer(name, False, width, tuple(slots) if slots else (slot,), **kw)


@dataclass(frozen=True)
class Scalar:
    """A value for the whole call (C type unsigned), passed to kernels in `slot`. `width`: the scalar is a buffer's
    width in bits (a positive multiple of 32, at most `max_per_n` x bits where that is not 0), `default_per_n` x bits
    where tests and benchmarks choose it. `flag`: 0 or 1."""

    name: str
    slot: str = "x0"
    below_bits: bool = False
    width: bool = False
    max_per_n: int = 0
    default_per_n: int = 1
    flag: bool = False
    doc: str = ""


@dataclass(frozen=True)
class Operation:
    """One operation. `params`: its buffers and scalars in the order of the C functions' arguments (after ctx, count,
    bits). `in_place`: (output, input) pairs where the output may be exactly that input's buffer. `reference`:
    (output, expression) pairs, what the tests compute with GMP (expression language: tests/drivers/reference.c; every
    output is reduced mod 2^(its width in bits)). `families`: the names of the space.py families that generate its
    kernels; `borrows`: {family name: op} where the family's kernel for this operation is that op's kernel, shared
    (sqr's transforms are mul's, which see a == b). `word`: a word-wise operation's C expression over u32 x (a's
    word) and y (b's word), for the map family's kernel (None: the template spells the operation, as the shifts).
    `patterns`/`chains`: the test drivers' input patterns for single instances and whole batches (tests/drivers/
    cases.c). `rule`: the default rule's row (generator/default_rules.py). `bench`: "bytes" (GB/s over the bytes read
    and written) or "instances" (million instances per second)."""

    name: str
    code: int
    params: tuple
    summary: str
    families: tuple
    rule: str
    patterns: tuple
    chains: tuple
    bench: str = "bytes"
    in_place: tuple = ()
    reference: tuple = ()
    borrows: tuple = ()
    word: str | None = None

    @property
    def buffers(self) -> tuple:
        return tuple(p for p in self.params if isinstance(p, Buffer))

    @property
    def inputs(self) -> tuple:
        return tuple(p for p in self.buffers if not p.output)

    @property
    def outputs(self) -> tuple:
        return tuple(p for p in self.buffers if p.output)

    @property
    def scalars(self) -> tuple:
        return tuple(p for p in self.params if isinstance(p, Scalar))

    @property
    def result(self) -> Buffer:
        """The output in slot r (its width is the plan's result width)."""
        return next(b for b in self.outputs if "r" in b.slots)

    @property
    def modular(self) -> bool:
        """Division and modular arithmetic: the reference divides, reduces, exponentiates, takes gcds or inverses
        (their inputs are divisors, moduli and exponents, not any numbers: tests/drivers/cases_mod.c's shapes, which
        decides the same by the same functions, op_is_modular)."""
        return any(f"({f} " in self.reference_text() for f in MODULAR_FUNCTIONS)

    def reference_text(self) -> str:
        return ";".join(f"{out}={expr}" for out, expr in self.reference)

    def borrowed(self, family: str) -> str | None:
        return dict(self.borrows).get(family)


# Shifts are not in place: an output word reads its neighbours' inputs, which other threads write (the map kernel runs
# over the whole batch at once, not instance by instance through shared memory).

# Test patterns (tests/drivers/cases.c): for sums, carries and borrows through every word; for products, the
# largest partial-product carries; for bitwise operations, every bit pattern at word edges; for comparisons,
# operands that differ in one word only, at either end.
ADD_PATTERNS = ("random", "zero", "max", "ones_plus_one", "zero_minus_one", "complement", "single_bits", "runs",
                "equal", "edges", "breaks")
ADD_CHAINS = ("ones_plus_one", "zero_minus_one", "runs", "complement")
MUL_PATTERNS = ("random", "zero", "max", "one", "single_bits", "mersenne", "complement", "runs", "sparse", "edges")
MUL_CHAINS = ("max", "mersenne", "runs")
BIT_PATTERNS = ("random", "zero", "max", "single_bits", "runs", "equal", "complement", "sparse", "edges")
BIT_CHAINS = ("max", "runs", "edges")
CMP_PATTERNS = ("random", "zero", "max", "equal", "differ", "complement", "single_bits", "one", "edges", "runs")
CMP_CHAINS = ("equal", "differ", "zero")

# Modular operations (tests/drivers/cases_mod.c): every input of an instance from one shape, the modulus or divisor
# first (1, 3, 2^k - 1, 2^k, 2^k + 1, the largest value; made odd where it must be), the other inputs relative to it
# (below, equal to and just above it, d q + d - 1, d q, all-ones, zero, sharing a large factor with it or with each
# other), exponents of every bit width and the edges 0, 1, 2, all-ones.
MODULAR_FUNCTIONS = ("div", "mod", "powm", "gcd", "invert")   # of the reference language
MOD_PATTERNS = ("random", "zero", "max", "one", "mersenne", "fermat", "pow2", "near", "multiple", "single_bits",
                "shared", "equal", "exponents")
MOD_CHAINS = ("max", "near", "shared")

ADDSUB_FAMILIES = ("addsub", "addsub_grid", "addsub_lanes")
MUL_FAMILIES = ("mul", "ntt", "ntt_grid", "lanes", "lanes_k")
SHIFT_SUMMARY = "{verb} by shift bits (0 <= shift < bits) for every instance, or by shifts[i] when shifts is not NULL"


def _binary(name, code, word, summary) -> Operation:
    return Operation(name, code, (Out("r"), In("a"), In("b", slot="b")), summary, ("map",), "map", BIT_PATTERNS,
                     BIT_CHAINS, in_place=(("r", "a"), ("r", "b")), reference=(("r", f"({name} a b)"),), word=word)


def _shift(name, code, verb) -> Operation:
    return Operation(
        name, code,
        (Out("r"), In("a"), Scalar("shift", "x0", below_bits=True, doc="bits to shift every instance by"),
         In("shifts", "1", slot="b", optional=True, fallback="shift", below_bits=True,
            doc="per instance: bits to shift instance i by (NULL: shift for every instance)")),
        f"r = a {'<<' if name == 'shl' else '>>'} s mod 2^bits: " + SHIFT_SUMMARY.format(verb=verb),
        ("map",), "map", BIT_PATTERNS, BIT_CHAINS, reference=(("r", f"({name} a shifts)"),))


OPERATIONS = (
    Operation("add", 0, (Out("r"), In("a"), In("b", slot="b"),
                         Out("carry", "1", slot="aux", optional=True, doc="1 where the sum carried out of bit bits-1")),
              "r = a + b mod 2^bits; carry[i] = 1 where the sum carried out (like mpn_add_n)",
              ADDSUB_FAMILIES, "addsub", ADD_PATTERNS, ADD_CHAINS, in_place=(("r", "a"), ("r", "b")),
              reference=(("r", "(add a b)"), ("carry", "(shr (add a b) W)"))),
    Operation("sub", 1, (Out("r"), In("a"), In("b", slot="b"),
                         Out("borrow", "1", slot="aux", optional=True, doc="1 where a < b")),
              "r = a - b mod 2^bits; borrow[i] = 1 where a < b (like mpn_sub_n)",
              ADDSUB_FAMILIES, "addsub", ADD_PATTERNS, ADD_CHAINS, in_place=(("r", "a"), ("r", "b")),
              reference=(("r", "(sub a b)"), ("borrow", "(lt a b)"))),
    Operation("mul", 2, (Out("r", "2n"), In("a"), In("b", slot="b")),
              "r = a * b, the full product: 2 bits bits (2 bits/32 words per instance; like mpn_mul_n)",
              MUL_FAMILIES, "mul", MUL_PATTERNS, MUL_CHAINS, bench="instances", reference=(("r", "(mul a b)"),)),
    Operation("mullo", 3, (Out("r"), In("a"), In("b", slot="b")),
              "r = a * b mod 2^bits, the low half (CGBN's mul)",
              MUL_FAMILIES + ("lanes_owner",), "mullo", MUL_PATTERNS, MUL_CHAINS, bench="instances",
              in_place=(("r", "a"), ("r", "b")), reference=(("r", "(mul a b)"),)),
    # a square: its own register-resident kernels (each cross product once, 512-8192 bits); and b bound to a, so that
    # a kernel borrowed from mul computes a * a where those win (the lanes pipelines for small batches, the transforms,
    # whose a == b test takes their square path; the grid NTT's engine is mul's and mullo's already)
    Operation("sqr", 4, (Out("r", "2n"), In("a", slots=("a", "b"))),
              "r = a * a, the full square: 2 bits bits (2 bits/32 words per instance; like mpn_sqr)",
              ("sqr_thread", "sqr_owner", "mul", "ntt", "ntt_grid", "lanes", "lanes_k"), "sqr", MUL_PATTERNS,
              MUL_CHAINS, bench="instances",
              reference=(("r", "(mul a a)"),), borrows=(("ntt", "mul"), ("lanes", "mul"), ("lanes_k", "mul"))),
    _shift("shl", 5, "shifted left"),
    _shift("shr", 6, "shifted right"),
    _binary("and", 7, "x & y", "r = a AND b (bitwise)"),
    _binary("or", 8, "x | y", "r = a OR b (bitwise)"),
    _binary("xor", 9, "x ^ y", "r = a XOR b (bitwise)"),
    Operation("not", 10, (Out("r"), In("a")), "r = NOT a, the complement within bits bits: 2^bits - 1 - a",
              ("map",), "map", BIT_PATTERNS, BIT_CHAINS, in_place=(("r", "a"),), reference=(("r", "(not a)"),),
              word="~x"),
    Operation("cmp", 11, (Out("r", "1", signed=True, doc="-1, 0 or 1: the sign of a - b"), In("a"), In("b", slot="b")),
              "r[i] = -1, 0 or 1 as a < b, a == b or a > b (like mpn_cmp)",
              ADDSUB_FAMILIES, "addsub", CMP_PATTERNS, CMP_CHAINS, reference=(("r", "(cmp a b)"),)),
    # division and modular arithmetic (templates/kernel_mod_thread.j2, lib_modarith.j2): a thread per instance
    Operation("divrem", 12,
              (Out("q", "abits", slot="r", doc="the quotient floor(a / d), abits bits"),
               Out("rem", slot="aux", doc="the remainder a mod d"),
               In("a", "abits", doc="the dividend, abits bits"),
               In("d", slot="b", nonzero=True, doc="the divisor, not zero"),
               Scalar("abits", "x0", width=True, max_per_n=2, default_per_n=2,
                      doc="the dividend's and the quotient's width in bits: a multiple of 32, at most 2 bits")),
              "q = floor(a / d), rem = a mod d for a dividend of abits bits (bits or 2 bits: a product) and a divisor "
              "of bits bits (like mpz_tdiv_qr)",
              ("modt", "modld"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("q", "a"), ("rem", "d")), reference=(("q", "(div a d)"), ("rem", "(mod a d)"))),
    Operation("mod", 13,
              (Out("r"), In("a", "abits", doc="the dividend, abits bits"),
               In("d", slot="b", nonzero=True, doc="the divisor, not zero"),
               Scalar("abits", "x0", width=True, max_per_n=2, default_per_n=2,
                      doc="the dividend's width in bits: a multiple of 32, at most 2 bits")),
              "r = a mod d for a dividend of abits bits and a divisor of bits bits (like mpz_tdiv_r)",
              ("modt", "modld"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "d"),), reference=(("r", "(mod a d)"),)),
    Operation("mulmod", 14,
              (Out("r"), In("a"), In("b", slot="b"), In("m", slot="aux", nonzero=True, doc="the modulus, not zero")),
              "r = a b mod m for any modulus m >= 1, odd or even; a and b may exceed m",
              ("modt",), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "a"), ("r", "b"), ("r", "m")), reference=(("r", "(mod (mul a b) m)"),)),
    Operation("powm", 15,
              (Out("r"), In("base"), In("exp", "ebits", slot="b", doc="the exponent, ebits bits"),
               In("m", slot="aux", odd=True, doc="the modulus, odd"),
               Scalar("ebits", "x0", width=True, doc="the exponent's width in bits: a positive multiple of 32"),
               Scalar("secret", "x1", flag=True,
                      doc="1: the exponent is secret: a fixed-window schedule whose branches and memory addresses do "
                          "not depend on the exponent's bits (constant time in the exponent); 0: faster, leading zero "
                          "windows skipped and the window table indexed by the exponent's bits")),
              "r = base^exp mod m for an odd modulus m (like mpz_powm; m = 1 gives 0, exp = 0 gives 1 mod m)",
              ("modl1", "modt", "modl"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "base"), ("r", "m")), reference=(("r", "(powm base exp m)"),)),
    Operation("gcd", 16, (Out("r"), In("a"), In("b", slot="b")),
              "r = gcd(a, b) (gcd(a, 0) = a, gcd(0, 0) = 0; like mpz_gcd)",
              ("modt", "modlg"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "a"), ("r", "b")), reference=(("r", "(gcd a b)"),)),
    Operation("modinv", 17,
              (Out("r"), Out("ok", "1", slot="aux", optional=True, doc="1 where the inverse exists, else 0 (r is 0)"),
               In("a"), In("m", slot="b", nonzero=True, doc="the modulus, not zero")),
              "r = a^-1 mod m where gcd(a, m) = 1, else r = 0 and ok[i] = 0 (like mpz_invert; m = 1 gives 0, ok 1)",
              ("modt", "modlg"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "a"), ("r", "m")), reference=(("r", "(invert a m)"), ("ok", "(invertible a m)"))),
    # a modulus shared by the whole batch (templates/kernel_mod_shared.j2 over lib_modshared.j2): a midint_modulus
    # object made once (ECC and ZK fields, one RSA key over many messages), Barrett's mu and Montgomery's R mod m,
    # R^2 mod m and -m^-1 computed when it is made, so that no instance divides (docs/operations.md)
    Operation("mulmod_shared", 18,
              (Out("r"), In("a"), In("b", slot="b"),
               Modulus("m", doc="the modulus, m >= 1")),
              "r = a b mod m for one modulus m >= 1 of the whole batch (odd or even; a and b may exceed m)",
              ("mods", "modlm"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "a"), ("r", "b")), reference=(("r", "(mod (mul a b) m)"),)),
    Operation("powm_shared", 19,
              (Out("r"), In("base"), In("exp", "ebits", slot="b", doc="the exponent, ebits bits"),
               Modulus("m", odd=True, doc="the modulus"),
               Scalar("ebits", "x0", width=True, doc="the exponent's width in bits: a positive multiple of 32"),
               Scalar("secret", "x1", flag=True,
                      doc="1: constant time in the exponent (powm's fixed-window schedule); 0: faster")),
              "r = base^exp mod m for one odd modulus m of the whole batch (like powm; m = 1 gives 0)",
              ("modl1", "mods", "modl"), "mod", MOD_PATTERNS, MOD_CHAINS, bench="instances",
              in_place=(("r", "base"),), reference=(("r", "(powm base exp m)"),)),
)

BY_NAME = {op.name: op for op in OPERATIONS}


class OpTableError(ValueError):
    """A row that breaks the table's rules (found when the generator starts, before anything is written)."""


def check(ops=OPERATIONS) -> None:
    """The rules every row keeps: codes 0, 1, ... in order (they are the C enum); unique names that are C identifiers;
    parameter names unique; the slots known and each used once; every output with a reference; in-place pairs naming
    an output and an input of the same width; fallbacks naming a scalar; the kernel's result r present."""
    for i, op in enumerate(ops):
        where = f"operation {op.name!r}"
        if op.code != i:
            raise OpTableError(f"{where}: code {op.code}, expected {i} (codes are the rows' positions)")
        if not op.name.isidentifier() or op.name.startswith("expr") or not op.name.islower():
            raise OpTableError(f"{where}: the name must be a lower-case C identifier not starting with 'expr'")
        names = [p.name for p in op.params]
        if len(set(names)) != len(names) or {"ctx", "count", "bits", "stream"} & set(names):
            raise OpTableError(f"{where}: parameter names must be unique and not ctx, count, bits or stream")
        slots = [s for b in op.buffers for s in b.slots] + [s.slot for s in op.scalars]
        if len(set(slots)) != len(slots) or not set(slots) <= set(BUFFER_SLOTS + SCALAR_SLOTS):
            raise OpTableError(f"{where}: slots {slots} must be distinct, of {BUFFER_SLOTS + SCALAR_SLOTS}")
        if not any("r" in b.slots and b.output for b in op.buffers):
            raise OpTableError(f"{where}: an output must be bound to slot r (the kernels' result)")
        refs = dict(op.reference)
        for b in op.buffers:
            widths = {x.name for x in op.scalars if x.width}
            if b.width not in WIDTHS and b.width not in widths:
                raise OpTableError(f"{where}: {b.name}: width {b.width!r}, not one of {', '.join(WIDTHS)} or a width "
                                   "scalar of the operation")
            if (b.nonzero or b.odd) and (b.output or b.width != "n"):
                raise OpTableError(f"{where}: {b.name}: nonzero and odd belong to inputs of n words")
            if b.output and b.name not in refs:
                raise OpTableError(f"{where}: output {b.name} has no reference")
            if b.fallback is not None and (b.output or not b.optional or b.fallback not in
                                           {s.name for s in op.scalars}):
                raise OpTableError(f"{where}: {b.name}: a fallback belongs to an optional input and names a scalar")
        for out, inp in op.in_place:
            o, i = (next((b for b in op.buffers if b.name == n), None) for n in (out, inp))
            if o is None or i is None or not o.output or i.output or o.width != i.width:
                raise OpTableError(f"{where}: in place ({out}, {inp}) must pair an output and an input of one width")
        if set(refs) - {b.name for b in op.outputs}:
            raise OpTableError(f"{where}: references for unknown outputs {sorted(set(refs) - set(names))}")
        if any(b.modulus and (b.output or b.optional) for b in op.buffers):
            raise OpTableError(f"{where}: a modulus object is an input, never optional")
        if op.bench not in ("bytes", "instances"):
            raise OpTableError(f"{where}: bench {op.bench!r}: 'bytes' or 'instances'")


def c_enum(op: Operation) -> str:
    return f"MIDINT_OP_{op.name.upper()}"


def c_params(op: Operation, device: bool) -> str:
    """The operation's C parameters after ctx, count, bits: host buffers as uint32_t (int32_t) pointers, device
    buffers as void pointers, scalars as unsigned, a modulus object as a midint_modulus pointer in every form."""
    out = []
    for p in op.params:
        if isinstance(p, Scalar):
            out.append(f"unsigned {p.name}")
        elif p.modulus:
            out.append(f"const midint_modulus *{p.name}")
        elif device:
            out.append(f"{'void' if p.output else 'const void'} *{p.name}")
        else:
            out.append(f"{'' if p.output else 'const '}{p.ctype} *{p.name}")
    return ", ".join(out)
