"""The workspace the modular functions use where their arrays live in global memory (lib_modarith.j2's scratch mode).

Above space.MOD_PRIVATE_MAX_BITS a thread per instance cannot keep its arrays in private memory: CUDA reserves a
thread's stack for every thread the device can hold (132 SMs x 2048 threads on an H100), so powm's ~31 N words at
32768 bits (124 KB) would reserve 33 GB. There each function takes a pointer `ws` into its instance's region of the
context's workspace (runtime/plan.c) and carves its arrays from it: its own arrays first, then its callees' region
at ws + own. A function's words are its own plus the largest of its callees'; a kernel's are its own arrays plus
the one library function it calls. The templates carve the same arrays; tests/test_modarith_lib.py runs every
function in scratch mode with exactly words(fn, N) words under AddressSanitizer, and kernel_mod_thread.j2 refuses
to render where its carving exceeds kernel_words.
"""

# function -> ((a, b): its own arrays, a N + b words; the functions it calls that take ws)
FUNCTIONS = {
    "ma_montmul": ((2, 2), ()),                     # t (N + 2), dif (N)
    "ma_powm_ct": ((1, 0), ("ma_montmul",)),        # sel (N)
    "ma_powm_fast": ((0, 0), ("ma_montmul",)),
    "divrem": ((3, 1), ()),                         # vn (N), un (2N + 1)
    "mulmod": ((4, 0), ("divrem",)),                # t (2N), q (2N)
    "ma_mont_consts": ((4, 0), ("divrem", "mulmod")),   # x (2N), q (2N)
    "powm": ((18, 0), ("ma_mont_consts", "ma_montmul", "ma_powm_ct", "ma_powm_fast")),  # tab 16N, acc, x
    "gcd": ((1, 0), ()),                            # x (N)
    "ma_inv_odd": ((3, 0), ()),                     # x, y, u
    "modinv": ((7, 0), ("divrem", "ma_inv_odd")),   # x (2N), q (2N), ar, y, t
    "ms_mulmod_barrett": ((4, 4), ()),              # t (2N), h (N + 3), lo (N + 1)
    "ms_mulmod": ((1, 0), ("ma_montmul",)),         # x (N)
    "ms_powm": ((17, 0), ("ma_montmul", "ma_powm_ct", "ma_powm_fast")),  # tab 16N, acc
}

# the divisions' arrays: x (2N), d, q (2N), rm; mod makes the quotient too (divrem's function), and drops it
_DIVISION = ((("x", 2, 0), ("d", 1, 0), ("q", 2, 0), ("rm", 1, 0)), ("divrem",))

# kernel operation -> its own arrays in carving order, (name, a, b) for a N + b words each (the templates declare them
# from this list: kernel_mod_thread.j2, kernel_mod_shared.j2), and the library functions it may call
KERNEL_ARRAYS = {
    "divrem": _DIVISION,
    "mod": _DIVISION,
    "mulmod": ((("x", 1, 0), ("y", 1, 0), ("o", 1, 0), ("m", 1, 0)), ("mulmod",)),
    "powm": ((("x", 1, 0), ("m", 1, 0), ("o", 1, 0)), ("powm",)),
    "gcd": ((("x", 1, 0), ("y", 1, 0), ("o", 1, 0)), ("gcd",)),
    "modinv": ((("x", 1, 0), ("y", 1, 0), ("o", 1, 0)), ("modinv",)),
    # x, m, o, then the constants each branch reads (the modulus object's: R^2 mod m, Barrett's mu of N + 1 words)
    "mulmod_shared": ((("x", 1, 0), ("m", 1, 0), ("o", 1, 0), ("y", 1, 0), ("mu", 1, 1), ("r2", 1, 0)),
                      ("ms_mulmod_barrett", "ms_mulmod", "mulmod")),
    "powm_shared": ((("x", 1, 0), ("m", 1, 0), ("o", 1, 0), ("r1", 1, 0), ("r2", 1, 0)), ("ms_powm", "powm")),
}

# kernel operation -> ((a, b): the kernel's own arrays, a N + b words; the library functions it may call)
KERNELS = {op: ((sum(a for _, a, _ in arrays), sum(b for _, _, b in arrays)), calls)
           for op, (arrays, calls) in KERNEL_ARRAYS.items()}


def kernel_arrays(op: str, n: int) -> list:
    """op's kernel arrays at N = n words: [(name, words)] in carving order."""
    return [(name, a * n + b) for name, a, b in KERNEL_ARRAYS[op][0]]


def own(table: dict, name: str, n: int) -> int:
    (a, b), _ = table[name]
    return a * n + b


def words(fn: str, n: int) -> int:
    """Workspace words of library function fn at N = n words: its own arrays and its deepest callee's."""
    return own(FUNCTIONS, fn, n) + max((words(c, n) for c in FUNCTIONS[fn][1]), default=0)


def kernel_words(op: str, n: int) -> int:
    """Workspace words per instance of op's kernel at N = n words."""
    return own(KERNELS, op, n) + max(words(c, n) for c in KERNELS[op][1])
