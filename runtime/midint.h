/* midint.h — public C API of midint: batched arithmetic on big unsigned integers on GPUs. */
#ifndef MIDINT_H
#define MIDINT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CONVENTIONS
 *
 * Data.  An integer of `bits` bits (a multiple of 32) is bits/32 little-endian 32-bit words (GMP's limb
 * order, mpz_import/export with order -1; CGBN's cgbn_mem_t).  A batch of `count` integers is those arrays
 * back to back, so instance i starts at word i*bits/32.
 *
 * Semantics.  Each operation is a row of the table of operations (docs/operations.md); midint_ops.h documents each
 * one's parameters and its GMP reference.  add / sub compute r = a + b and r = a - b mod 2^bits for every instance.
 * When `carry` is not NULL it receives one uint32_t per instance: 1 where the addition carried out of bit bits-1 (or
 * the subtraction borrowed), else 0, like the return value of GMP's mpn_add_n / mpn_sub_n.
 * mul computes the full product, 2*bits bits (2*bits/32 words per instance in r, like mpn_mul_n); mullo the
 * low half, r = a * b mod 2^bits (bits/32 words; the multiplication of the paper and of CGBN); sqr the full square
 * a * a (2*bits bits, like mpn_sqr, each cross product computed once).  They are exact at every size: from a few
 * thousand bits up they run through number-theoretic transforms (docs/ntt.md), whose twiddle tables the first such
 * call on a context uploads (1057 KiB of device memory, kept until midint_close).
 * shl / shr shift every instance by `shift` bits (0 <= shift < bits), or instance i by shifts[i] when shifts is not
 * NULL (each below bits; the first that is not is named in the error, nothing written); bits shifted out are lost,
 * zeros come in.  and / or / xor / not are bitwise (not: 2^bits - 1 - a).  cmp writes one int32_t per instance:
 * -1, 0 or 1 as a < b, a == b or a > b (like mpn_cmp).
 * Division and modular arithmetic: divrem / mod divide a dividend of `abits` bits (a multiple of 32 up to 2*bits: a
 * product) by a divisor of `bits` bits (quotient of abits bits, remainder of bits; like mpz_tdiv_qr); mulmod
 * computes a*b mod m for any m >= 1; powm base^exp mod m for odd m, the exponent `ebits` bits wide whatever the
 * modulus's width; gcd; modinv a^-1 mod m with ok[i] = 1, or r = 0 and ok[i] = 0 where no inverse exists
 * (like mpz_invert).  A zero divisor or modulus, or an even powm modulus, is refused before anything is written,
 * naming the first such instance (device calls run a check kernel on their stream, wait for it and read back one
 * word: they return when the check is done).
 * A modulus shared by the whole batch is a midint_modulus object (midint_modulus_create, below), made once for one
 * size: mulmod_shared (any m >= 1) and powm_shared (odd m) take it in place of a buffer of moduli, and skip the
 * per-instance work that depends on m alone (an odd m: its Montgomery constants; no division per product; on CUDA
 * above 1024 bits mulmod_shared is mul then mod, as mulmod, the modulus copied to every instance).
 * Constant time: powm with secret = 1 has no branch and no memory address that depends on the exponent's bits (a
 * fixed 4-bit window over all ebits bits, every table entry read, masked final subtractions); its time depends on
 * ebits only.  secret = 0 is faster and not constant time.  No other operation promises constant time.
 *
 * Sizes.  Any `bits` that is a multiple of 32, from 32 up to midint_max_bits() for that operation, works; the
 * generated sizes (`make gen SIZES=`) choose speed, not what is legal.  With the default sizes that is 2^31 bits
 * for add, sub, cmp, the shifts and the bitwise operations, 2^27 bits (2^28-bit products) for mul, mullo and sqr, and
 * 8192 bits for the division and modular operations.
 *
 * Workspace.  Sizes beyond one thread block (and small batches of large instances) run as several kernels that
 * keep intermediate results in device memory the context owns: allocated by the first call that needs it,
 * grown when a call needs more, reused by later calls and freed by midint_close.  A call processes as many
 * instances per pass as the workspace cap allows (midint_set_workspace_bytes, default 4 GiB; one 2^27-bit product
 * needs 192 MiB, one of 2^29 bits 1.4 GiB); midint_workspace_size tells what a call would use.  Calls of one context on different streams
 * (queues) are ordered where they share the workspace.  midint_batch_gcd keeps its trees' device buffers for the
 * next call where they fit under the cap (an allocation and a free cost tens of microseconds each, and a free waits
 * for the device); lowering the cap below what the context holds frees them, as midint_close does.
 *
 * Aliasing.  An output may be exactly an input where the operation's row allows it (in place): for add, sub, mullo,
 * and, or and xor r may be the same buffer as a and/or b, for not r may be a, for the modular operations their results
 * may be their inputs of the same width (midint_ops.h lists the pairs); mul and sqr (r twice as long), the
 * shifts (an output word reads its neighbours) and cmp (a word per instance) never.  Any other overlap between an
 * output and another buffer is refused with MIDINT_ERR_OVERLAP; inputs may overlap each other freely.
 *
 * Errors.  Every call returns a midint_status.  On any failure detected before work starts (every
 * MIDINT_ERR_* except MIDINT_ERR_DEVICE, and MIDINT_ERR_OUT_OF_MEMORY when device memory runs out for a
 * workspace that passed the cap) no output is written.  A device failure in the middle of a
 * chunked host call (MIDINT_ERR_DEVICE) leaves r and carry written for a prefix of the batch: the message says
 * how many instances completed ("(K of N instances were completed)"); those are right, and the others are not
 * written, except that chunks already in flight on page-locked memory may have landed.  midint_last_error()
 * gives a sentence about the last failure.
 *
 * Threads.  A context may be used by one thread at a time; use one context per thread for concurrency.
 */

typedef enum midint_status {
    MIDINT_OK = 0,
    MIDINT_ERR_NULL_POINTER = 1,    /* a required pointer argument is NULL */
    MIDINT_ERR_INVALID_COUNT = 2,   /* count is 0 or too large for one call */
    MIDINT_ERR_INVALID_BITS = 3,    /* bits is 0 or not a multiple of 32 */
    MIDINT_ERR_BITS_TOO_LARGE = 4,  /* bits is above the largest size generated for this operation */
    MIDINT_ERR_UNKNOWN_BACKEND = 5, /* the backend value is not one of midint_backend */
    MIDINT_ERR_NO_BACKEND = 6,      /* the backend was not built in, or its runtime/driver is missing */
    MIDINT_ERR_NO_DEVICE = 7,       /* no device with that index for that backend */
    MIDINT_ERR_OVERLAP = 8,         /* r overlaps a, b or carry other than by being the same buffer */
    MIDINT_ERR_UNKNOWN_VARIANT = 9, /* a forced variant name is not in the registry or does not fit */
    MIDINT_ERR_OUT_OF_MEMORY = 10,  /* host or device memory allocation failed */
    MIDINT_ERR_DEVICE = 11,         /* the backend reported an error (launch, copy, build) */
    MIDINT_ERR_INVALID_ARGUMENT = 12 /* any other bad argument (the message says which) */
} midint_status;

typedef enum midint_backend {
    MIDINT_BACKEND_AUTO = 0,  /* CUDA when a CUDA device is present, else OpenCL */
    MIDINT_BACKEND_CUDA = 1,
    MIDINT_BACKEND_OPENCL = 2
} midint_backend;

typedef struct midint_context midint_context;
/* A modulus for a whole batch, on one context's device (midint_modulus_create). */
typedef struct midint_modulus midint_modulus;

/* ---- The operations: one table (generator/ops.py) makes their codes, functions and descriptors ----
 * midint_ops.h (generated by `make gen`, installed beside this header) holds enum midint_op (MIDINT_OP_ADD = 0, SUB,
 * MUL, MULLO, SQR, SHL, SHR, AND, OR, XOR, NOT, CMP, ..., MIDINT_OP_COUNT_) and, for every operation NAME,
 *   midint_NAME(ctx, count, bits, <its buffers and scalars>)                 host buffers, synchronous
 *   midint_NAME_async(ctx, count, bits, <its buffers and scalars>, stream)   page-locked host buffers
 *   midint_NAME_device(ctx, count, bits, <its buffers and scalars>, stream)  device buffers
 * with the operation's parameters in its row's order, each documented there. They are the same call as midint_run
 * (below) with the operation's buffers and scalars as arrays; midint_op_describe tells the same at run time. */

/* One parameter of an operation after (ctx, count, bits): an input or output buffer of `count` instances, or a
 * scalar for the whole call. */
typedef enum midint_param_kind {
    MIDINT_PARAM_INPUT = 0,
    MIDINT_PARAM_OUTPUT = 1,
    MIDINT_PARAM_SCALAR = 2,
    MIDINT_PARAM_MODULUS = 3   /* an input: one midint_modulus for the whole batch, the same pointer in every form */
} midint_param_kind;

/* The kernel parameters a parameter is bound to (midint_param_info.slots): the kernels see an operation's result as r,
 * its inputs as a and b, a flag output as aux, scalars as x0 and x1, an expression's buffers as io0..io7 (outputs,
 * then inputs). The result of an operation is the output in slot r. */
#define MIDINT_SLOT_R 1u
#define MIDINT_SLOT_A 2u
#define MIDINT_SLOT_B 4u
#define MIDINT_SLOT_AUX 8u
#define MIDINT_SLOT_X0 16u
#define MIDINT_SLOT_X1 32u
#define MIDINT_SLOT_IO0 64u /* io j: MIDINT_SLOT_IO0 << j */

/* What a parameter's values must be (midint_param_info.rules), checked before anything is written: a buffer's every
 * instance not zero (a divisor), odd (a Montgomery modulus); a scalar that is a buffer's width in bits (a positive
 * multiple of 32, at most max_per_n * bits when max_per_n is not 0, else at most MIDINT_MAX_WIDTH_BITS), or a flag
 * (0 or 1). */
#define MIDINT_RULE_NONZERO 1u
#define MIDINT_RULE_ODD 2u
#define MIDINT_RULE_WIDTH 4u
#define MIDINT_RULE_FLAG 8u
#define MIDINT_MAX_WIDTH_BITS (1u << 26)

typedef struct midint_param_info {
    const char *name;          /* "r", "a", "carry", "shift" */
    midint_param_kind kind;
    unsigned words_per_n;      /* buffers: an instance holds words_per_n * bits/32 + words_fixed 32-bit words */
    unsigned words_fixed;
    unsigned optional;         /* buffers: may be NULL (an output is then not computed; an input, see fallback) */
    int fallback;              /* an optional input: the index of the scalar that serves every instance when it is
                                * NULL; -1 otherwise */
    unsigned below_bits;       /* the scalar, or every word of the buffer, must be below bits (a shift count) */
    unsigned is_signed;        /* buffer words are int32_t */
    unsigned in_place;         /* an output: bit j is set when it may be exactly parameter j's buffer */
    unsigned slots;            /* the kernel parameters it is bound to (MIDINT_SLOT_*) */
    int width_scalar;          /* a buffer whose instances are that scalar's value / 32 words (a dividend of abits bits,
                                * an exponent of ebits bits; words_per_n and words_fixed are 0); -1 otherwise */
    unsigned rules;            /* MIDINT_RULE_*: what its values must be */
    unsigned max_per_n;        /* a width scalar: at most max_per_n * bits (0: MIDINT_MAX_WIDTH_BITS only) */
    unsigned default_per_n;    /* a width scalar: the tests' and benchmarks' choice, default_per_n * bits */
} midint_param_info;

typedef struct midint_op_info {
    const char *name;                 /* as in variant names: "add", "sqr", "cmp" */
    int op;                           /* its midint_op code */
    unsigned nparams;
    const midint_param_info *params;  /* in the order of its functions' parameters after bits */
    const char *reference;            /* what the tests compute with GMP, e.g. "r=(add a b);carry=(shr (add a b) W)"
                                       * (docs/operations.md); NULL for a fused expression */
    const char *summary;
} midint_op_info;

#include "midint_ops.h"

/* Open a context on `device` (0-based index among the backend's devices; for OpenCL, devices of all
 * platforms in platform order).  With MIDINT_BACKEND_AUTO the device index applies to the backend chosen.
 * On failure *ctx is set to NULL and midint_last_error(NULL) says why. */
midint_status midint_open(midint_context **ctx, midint_backend backend, int device);

/* Release the context and everything it allocated.  NULL is allowed. */
void midint_close(midint_context *ctx);

/* A modulus shared by a batch: m (bits/32 words at m_host, bits a positive multiple of 32 that the context's
 * mulmod_shared serves) is checked (m >= 1), uploaded with what the kernels need precomputed (Barrett's floor(R^2 / m);
 * for odd m -m^-1 mod 2^32, R mod m and R^2 mod m; R = 2^bits; docs/operations.md), and *mod set.  Calls take it at exactly these
 * bits.  On failure *mod is NULL and nothing stays allocated.  The object belongs to ctx: free it before
 * midint_close, and only after the calls that use it have completed (asynchronous ones: midint_synchronize). */
midint_status midint_modulus_create(midint_context *ctx, midint_modulus **mod, unsigned bits, const uint32_t *m_host);
/* Its size in bits (0 for NULL) and whether m is odd (powm_shared needs an odd one). */
unsigned midint_modulus_bits(const midint_modulus *mod);
int midint_modulus_is_odd(const midint_modulus *mod);
/* Release it; NULL is allowed. */
void midint_modulus_free(midint_modulus *mod);

/* The message for the last failure on ctx (or, with ctx NULL, the last failure of this thread,
 * including a failed midint_open).  Never NULL; "" when nothing failed. */
const char *midint_last_error(const midint_context *ctx);

/* The operation's name as in variant names ("add", "sub", "mul", "mullo", ...); NULL for an unknown value. */
const char *midint_op_name(midint_op op);

/* The number of operations (MIDINT_OP_COUNT_), an operation's descriptor (NULL for an unknown code), and the
 * operation named `name` (NULL when there is none). */
size_t midint_op_count(void);
const midint_op_info *midint_op_describe(midint_op op);
const midint_op_info *midint_op_find(const char *name);

/* Any operation through one call: `buffers` holds its buffer parameters in its descriptor's order (inputs cast to
 * void *; NULL for an optional one left out), `scalars` its scalar parameters likewise (NULL when it has none).
 * midint_run works on host buffers (synchronous), midint_run_async on page-locked host buffers (enqueued on
 * `stream`), midint_run_device on device buffers (enqueued on `stream`), exactly as the operation's own functions. */
midint_status midint_run(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                         const unsigned *scalars);
midint_status midint_run_async(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                               const unsigned *scalars, void *stream);
midint_status midint_run_device(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                                const unsigned *scalars, void *stream);

/* A fixed name for a status code, e.g. "MIDINT_ERR_OVERLAP". */
const char *midint_status_name(midint_status status);

/* The backend in use (CUDA or OpenCL) and a human-readable device name. */
midint_backend midint_context_backend(const midint_context *ctx);
const char *midint_device_name(const midint_context *ctx);

/* Largest `bits` an operation accepts on this context (0 when none is generated for its backend, or the device
 * turned every variant that serves it down). */
unsigned midint_max_bits(const midint_context *ctx, midint_op op);

/* ---- Host, asynchronous and device calls (the operations' own functions, midint_ops.h, and midint_run*) ----
 * Host buffers: the library copies to the device in chunks and back; the call returns when the outputs are complete.
 * Asynchronous host calls: the same on host memory that is page-locked: from midint_host_alloc on this context, or
 * (CUDA) the caller's own cudaHostAlloc / cudaMallocHost / cudaHostRegister memory; any other operand is refused with
 * MIDINT_ERR_INVALID_ARGUMENT before anything is enqueued.  The copies and kernels run after the work enqueued on
 * `stream` so far (a cudaStream_t or cl_command_queue as for the device calls; NULL: the context's own), and
 * `stream` waits for them, so midint_synchronize(ctx, stream) (or anything ordered after `stream`) sees the outputs
 * complete.  Until then the inputs must not be written, the outputs not read or written, and none of them freed;
 * the context must stay open.  A synchronous host call of the context first waits for its earlier asynchronous
 * ones.  Per-instance counts (shifts) are checked when the call is made.
 * Device buffers: enqueue only; the call returns before the work finishes.  CUDA context: the buffers are device
 * pointers and `stream` is a cudaStream_t (NULL: the context's own stream, which is ordered with the legacy default
 * stream: work enqueued there before the call runs first, and work enqueued there after it waits for it).  OpenCL
 * context: the buffers are cl_mem buffers created on midint_opencl_context(ctx), data at offset 0, and `stream` is a
 * cl_command_queue on that context (NULL: the context's own queue).  A device call with per-instance counts
 * (shifts) first waits for `stream` and reads the counts back to check them, so it does not return before the work
 * enqueued on `stream` before it is done. */

/* Host memory for the host calls: page-locked (pinned) where the backend allows it (CUDA: cudaHostAlloc; OpenCL:
 * memory the implementation allocates for a buffer, mapped), so the library's copies between it and the device
 * skip the driver's staging of pageable memory. Use it as r, a, b or carry of any host call,
 * and as ordinary memory. It belongs to the context: free it with midint_host_free (NULL is allowed; a pointer
 * not from midint_host_alloc on this context is refused with MIDINT_ERR_INVALID_ARGUMENT); midint_close frees
 * what is left, after which the memory must not be used. Page-locked memory is a scarce system resource:
 * allocate it for the batches being processed, not for everything. */
midint_status midint_host_alloc(midint_context *ctx, size_t bytes, void **ptr);
midint_status midint_host_free(midint_context *ctx, void *ptr);

/* Device buffers without writing CUDA or OpenCL code: a device pointer on CUDA, a cl_mem on OpenCL, usable
 * with the *_device calls.  Reads and writes are synchronous and cover `bytes` from the buffer's start. */
midint_status midint_buffer_alloc(midint_context *ctx, size_t bytes, void **buf);
void midint_buffer_free(midint_context *ctx, void *buf);
midint_status midint_buffer_write(midint_context *ctx, void *buf, const void *host, size_t bytes);
midint_status midint_buffer_read(midint_context *ctx, void *host, const void *buf, size_t bytes);

/* Enqueue a device-to-device copy of `bytes` from the start of src to the start of dst (both device buffers). */
midint_status midint_buffer_copy(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream);

/* Benchmarking: call enqueue(arg) once to warm up, then `reps` times, each timed with the backend's own
 * events (CUDA events on `stream`; on OpenCL the wall clock around a finished queue), and report the median
 * in milliseconds.  enqueue returns MIDINT_OK or the status that stops the measurement. */
midint_status midint_time(midint_context *ctx, void *stream, int reps, midint_status (*enqueue)(void *arg),
                          void *arg, double *median_ms);

/* Wait until all work enqueued by midint on `stream` (as above) is done. */
midint_status midint_synchronize(midint_context *ctx, void *stream);

/* OpenCL contexts: the cl_context, cl_device_id and cl_command_queue midint uses (NULL for CUDA). */
void *midint_opencl_context(const midint_context *ctx);
void *midint_opencl_device(const midint_context *ctx);
void *midint_opencl_queue(const midint_context *ctx);
/* How this OpenCL context's kernels exchange words between the lanes of a warp: "subgroups" (the device's
 * cl_khr_subgroup_shuffle and _ballot), "ptx" (NVIDIA's warp instructions) or "local" (local memory and barriers:
 * OpenCL 1.2 alone, CPU devices, or MIDINT_OPENCL_WARPS=local); NULL for other contexts.  Chosen at the first
 * kernel build, after a probe kernel checked the device's primitives (docs/kernels.md, "OpenCL warp primitives").
 * A spelling forced through MIDINT_OPENCL_WARPS is named even where the device lacks it; calls then fail saying why. */
const char *midint_opencl_warps(const midint_context *ctx);

/* ---- Variants and dispatch ----
 * Each operation picks a variant: one forced by name (midint_force_variant, or the environment variable
 * MIDINT_VARIANT holding a comma-separated list of names), else the tuned table for this device, else the
 * built-in default rule (docs/dispatch.md).  A forced variant applies to the calls whose operation, backend
 * and size it can serve.
 *
 * Tuned tables (docs/tuning.md) are made by `make tune`.  midint_open loads one from MIDINT_TUNING (a file),
 * else <device>.tune from MIDINT_TUNING_DIR, <libdir>/../share/midint (installed) or <libdir>/../tuning/tables
 * (a build tree), and falls back to the default rule when there is none or it does not match this device and
 * registry. */

/* Load the tuned table at `path` (NULL: drop the loaded one).  A table made for another device or another
 * registry, or a malformed one (the message gives the line), is refused: MIDINT_ERR_INVALID_ARGUMENT, and the
 * table in use before stays in use. */
midint_status midint_load_tuning(midint_context *ctx, const char *path);

/* What dispatch uses: "default rule", "tuned table PATH (N entries)", or why a table was refused at open. */
const char *midint_tuning_status(const midint_context *ctx);

/* Force `name` for its operation on this context; NULL or "" clears the forced variant of every operation.
 * MIDINT_ERR_UNKNOWN_VARIANT when the name is not in the registry or not of this context's backend.  The name
 * "steps" runs every expression step by step, as separate calls, at the sizes their operations serve (EXPRESSIONS). */
midint_status midint_force_variant(midint_context *ctx, const char *name);

/* The name of the variant that a call (op, bits, count) would use now, or NULL with the reason in
 * midint_last_error(ctx). For an operation taking a modulus object: the choice for an odd modulus (an even one may go
 * to another variant: mulmod_shared's lanes take odd moduli only; midint_selected_variant_modulus tells for one).
 * "mul+mod" where mulmod runs as two calls, mul into a product of 2 bits per instance (device memory under the
 * workspace cap, midint_workspace_size) and mod of it (CUDA, 1024-32768 bits, unless a mulmod variant is forced);
 * mulmod_shared likewise from 1056 bits, its modulus copied to every instance for mod (bits more per instance). */
const char *midint_selected_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count);

/* As midint_selected_variant, for a call taking the modulus object `mod`: its parity picks among the variants (NULL:
 * as midint_selected_variant, the choice for an odd modulus; an object of another context: NULL, as the calls refuse
 * it). */
const char *midint_selected_variant_modulus(midint_context *ctx, midint_op op, unsigned bits, size_t count,
                                            const midint_modulus *mod);

/* The registry's hash (tuned tables name the registry they were made against). */
const char *midint_registry_id(void);

/* Number of generated variants, and the name of the i-th (NULL past the end). */
size_t midint_variant_count(void);
const char *midint_variant_name(size_t i);

/* Upper bound on the device memory a host call uses for its chunks (the three slots of its pipeline together;
 * when operands are in pageable memory, page-locked host staging of the same size too); smaller values make more,
 * smaller chunks.  Default 1 GiB; at least one instance per chunk is always used. */
midint_status midint_set_staging_bytes(midint_context *ctx, size_t bytes);

/* ---- Workspace (see CONVENTIONS) ---- */

/* The device workspace, in bytes, that a device call of `op` on `count` instances of `bits` bits would use now
 * (the same dispatch and checks as the call; a host call uses at most as much): 0 for one-block variants. */
midint_status midint_workspace_size(midint_context *ctx, midint_op op, unsigned bits, size_t count, size_t *bytes);

/* Cap on the workspace (default 4 GiB): calls run as many instances per pass as fit under it, and a call of which
 * one instance needs more fails with MIDINT_ERR_OUT_OF_MEMORY, naming the size it needs, before writing
 * anything.  A held workspace larger than the new cap is freed. */
midint_status midint_set_workspace_bytes(midint_context *ctx, size_t bytes);

/* ---- Batch GCD (docs/batch_gcd.md) ---- */

/* For `count` moduli of `bits` bits each (host memory, count * bits/32 words, every one nonzero; pad narrower moduli
 * with zero words): g[i] = gcd(moduli[i], the product of all the others), bits/32 words each: 1 where moduli[i]
 * shares no factor with the rest, a shared prime where two RSA moduli share one, moduli[i] itself where it shares
 * both (or is repeated).  Bernstein's product and remainder trees on the device.  A batch whose product (the count
 * rounded up to a power of two) is past what the context multiplies and divides, or whose trees would not fit the
 * device's free memory, runs in up to 16 parts, each a power of two of moduli, the other parts' products taken in
 * at each part's root; past that, or with moduli wider than gcd takes, MIDINT_ERR_BITS_TOO_LARGE (or
 * MIDINT_ERR_OUT_OF_MEMORY, with the bytes needed) says so before anything runs.  Synchronous. */
midint_status midint_batch_gcd(midint_context *ctx, size_t count, unsigned bits, const uint32_t *moduli, uint32_t *g);

/* ---- Fused expressions (docs/expressions.md) ----
 * A formula over big integers given to the generator (`make gen EXPRS=...`; by default the paper's "six" and "poly")
 * runs as one kernel per call: its inputs read once, its intermediates on chip, its outputs written once.
 * Inputs are `bits` bits each (count * bits/32 words, as for the other operations); output j holds
 * output_words[j] * bits/32 words per instance: 1 for values mod 2^bits, 2 for full products.  An output of
 * one word per bits/32 may be exactly one of the inputs (in place); any other overlap between an output and an
 * input or another output is refused with MIDINT_ERR_OVERLAP.  Unknown names (MIDINT_ERR_INVALID_ARGUMENT), NULL
 * arrays or buffers, and sizes above midint_expr_max_bits (MIDINT_ERR_BITS_TOO_LARGE) are refused before anything
 * is written.  Dispatch, forced variants (expr_NAME_..._backend names) and tuned tables work as for the other
 * operations.
 * Step by step.  Above the largest size generated for an expression (and for expressions with no fused family at a
 * size, e.g. full products beyond 8192 bits) the call runs the expression's program as separate calls, one per
 * step (add/sub at the value's width, mullo, mul, and buffer fills and copies for zero-extension and constants),
 * on device temporaries the context keeps (grown as needed, freed by midint_close), the outputs written last: the
 * same results, one trip through memory per step.  midint_expr_selected_variant then says "steps", and
 * midint_force_variant(ctx, "steps") (or the test hook MIDINT_TEST_EXPR_STEPS=1) takes this path at every size it
 * serves. */

/* What an expression computes: its name, its inputs and outputs by name in call order, each output's words per
 * bits/32, and its program (the steps the kernel runs and the tests evaluate; docs/expressions.md). */
typedef struct midint_expr_desc {
    const char *name;               /* "poly" */
    unsigned ninputs, noutputs;
    const char *const *inputs;      /* ninputs names, the order of midint_expr's inputs */
    const char *const *outputs;     /* noutputs names, the order of its outputs */
    const unsigned *output_words;   /* per output: result words per operand word (1 or 2) */
    const char *program;            /* e.g. "add 1 0 1;add 1 2 2;out 3" */
} midint_expr_desc;

/* The number of generated expressions, and the i-th (NULL past the end) or the one named `name` (NULL if none). */
size_t midint_expr_count(void);
const midint_expr_desc *midint_expr_info(size_t i);
const midint_expr_desc *midint_expr_find(const char *name);

/* Largest `bits` the expression accepts on this context: its largest fused size, or above it the largest size at
 * which every step's operation runs (add/sub at twice the size for double-width values); 0 when it is unknown or
 * neither serves. */
unsigned midint_expr_max_bits(const midint_context *ctx, const char *name);

/* Evaluate expression `name` for `count` instances of `bits` bits: outputs[j] receives output j, inputs[i] is input
 * i; noutputs and ninputs must be the expression's (MIDINT_ERR_INVALID_ARGUMENT otherwise).  Host buffers, chunked
 * as the other host calls; returns when the outputs are complete. */
midint_status midint_expr(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                          void *const *outputs, size_t ninputs, const void *const *inputs);

/* The same on page-locked host buffers, asynchronously: as midint_add_async and the others (every buffer from
 * midint_host_alloc or, on CUDA, the caller's page-locked memory; enqueue only, after the work on `stream`). */
midint_status midint_expr_async(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                void *const *outputs, size_t ninputs, const void *const *inputs, void *stream);

/* The same on device buffers (device pointers on CUDA, cl_mem on OpenCL); enqueue only, on `stream` as for the
 * other *_device calls. */
midint_status midint_expr_device(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                 void *const *outputs, size_t ninputs, const void *const *inputs, void *stream);

/* The variant a call of expression `name` would use now, "steps" when it runs as separate calls (above), or NULL
 * with the reason in midint_last_error(ctx). */
const char *midint_expr_selected_variant(midint_context *ctx, const char *name, unsigned bits, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* MIDINT_H */
