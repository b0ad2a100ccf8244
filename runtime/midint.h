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
 * Semantics.  add / sub compute r = a + b and r = a - b mod 2^bits for every instance.  When `carry` is not
 * NULL it receives one uint32_t per instance: 1 where the addition carried out of bit bits-1 (or the
 * subtraction borrowed), else 0, like the return value of GMP's mpn_add_n / mpn_sub_n.
 * mul computes the full product, 2*bits bits (2*bits/32 words per instance in r, like mpn_mul_n); mullo the
 * low half, r = a * b mod 2^bits (bits/32 words; the multiplication of the paper and of CGBN).  Both are exact
 * at every size: from a few thousand bits up they run through number-theoretic transforms (docs/ntt.md),
 * whose twiddle tables the first such call on a context uploads (1057 KiB of device memory, kept until
 * midint_close).
 *
 * Sizes.  Any `bits` that is a multiple of 32, from 32 up to midint_max_bits() for that operation, works; the
 * generated sizes (`make gen SIZES=`) choose speed, not what is legal.  With the default sizes that is 2^31 bits
 * for add and sub and 2^27 bits (2^28-bit products) for mul and mullo.
 *
 * Workspace.  Sizes beyond one thread block (and small batches of large instances) run as several kernels that
 * keep intermediate results in device memory the context owns: allocated by the first call that needs it,
 * grown when a call needs more, reused by later calls and freed by midint_close.  A call processes as many
 * instances per pass as the workspace cap allows (midint_set_workspace_bytes, default 1 GiB; one 2^27-bit product
 * needs 192 MiB); midint_workspace_size tells what a call would use.  Calls of one context on different streams
 * (queues) are ordered where they share the workspace.
 *
 * Aliasing.  For add, sub and mullo, r may be the same buffer as a and/or b (in place); for mul, whose r is
 * twice as long, r may not overlap a or b at all.  Any other overlap between r, a, b and carry is refused
 * with MIDINT_ERR_OVERLAP; a and b may overlap each other freely.
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

typedef enum midint_op {
    MIDINT_OP_ADD = 0,
    MIDINT_OP_SUB = 1,
    MIDINT_OP_MUL = 2,   /* full product */
    MIDINT_OP_MULLO = 3, /* low half */
    MIDINT_OP_COUNT_ /* number of operations; not an operation */
} midint_op;

typedef struct midint_context midint_context;

/* Open a context on `device` (0-based index among the backend's devices; for OpenCL, devices of all
 * platforms in platform order).  With MIDINT_BACKEND_AUTO the device index applies to the backend chosen.
 * On failure *ctx is set to NULL and midint_last_error(NULL) says why. */
midint_status midint_open(midint_context **ctx, midint_backend backend, int device);

/* Release the context and everything it allocated.  NULL is allowed. */
void midint_close(midint_context *ctx);

/* The message for the last failure on ctx (or, with ctx NULL, the last failure of this thread,
 * including a failed midint_open).  Never NULL; "" when nothing failed. */
const char *midint_last_error(const midint_context *ctx);

/* The operation's name as in variant names ("add", "sub", "mul", "mullo"); NULL for an unknown value. */
const char *midint_op_name(midint_op op);

/* A fixed name for a status code, e.g. "MIDINT_ERR_OVERLAP". */
const char *midint_status_name(midint_status status);

/* The backend in use (CUDA or OpenCL) and a human-readable device name. */
midint_backend midint_context_backend(const midint_context *ctx);
const char *midint_device_name(const midint_context *ctx);

/* Largest `bits` an operation accepts on this context (0 when none is generated for its backend). */
unsigned midint_max_bits(const midint_context *ctx, midint_op op);

/* ---- Host buffers: the library copies to the device in chunks and back; returns when r is complete. ---- */

midint_status midint_add(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                         const uint32_t *b, uint32_t *carry);
midint_status midint_sub(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                         const uint32_t *b, uint32_t *borrow);
/* r holds count * 2 * bits/32 words */
midint_status midint_mul(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                         const uint32_t *b);
midint_status midint_mullo(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                           const uint32_t *b);

/* ---- Host buffers, asynchronously: enqueue only; returns before the work finishes. ----
 * The same operations on host memory that is page-locked: from midint_host_alloc on this context, or (CUDA) the
 * caller's own cudaHostAlloc / cudaMallocHost / cudaHostRegister memory; any other operand is refused with
 * MIDINT_ERR_INVALID_ARGUMENT before anything is enqueued.  The copies and kernels run after the work enqueued on
 * `stream` so far (a cudaStream_t or cl_command_queue as for the device calls; NULL: the context's own), and
 * `stream` waits for them, so midint_synchronize(ctx, stream) (or anything ordered after `stream`) sees r
 * complete.  Until then a and b must not be written, r and carry not read or written, and none of them freed;
 * the context must stay open.  A synchronous host call of the context first waits for its earlier asynchronous
 * ones. */
midint_status midint_add_async(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                               const uint32_t *b, uint32_t *carry, void *stream);
midint_status midint_sub_async(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                               const uint32_t *b, uint32_t *borrow, void *stream);
midint_status midint_mul_async(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                               const uint32_t *b, void *stream);
midint_status midint_mullo_async(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,
                                 const uint32_t *b, void *stream);

/* ---- Device buffers: enqueue only; returns before the work finishes. ----
 * CUDA context: r, a, b, carry are device pointers and `stream` is a cudaStream_t (NULL: the context's own
 * stream, which is ordered with the legacy default stream: work enqueued there before the call runs first, and
 * work enqueued there after it waits for it).
 * OpenCL context: r, a, b, carry are cl_mem buffers created on midint_opencl_context(ctx), data at offset
 * 0, and `stream` is a cl_command_queue on that context (NULL: the context's own queue). */
midint_status midint_add_device(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                                const void *b, void *carry, void *stream);
midint_status midint_sub_device(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                                const void *b, void *borrow, void *stream);
midint_status midint_mul_device(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                                const void *b, void *stream);
midint_status midint_mullo_device(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                                  const void *b, void *stream);

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
 * midint_last_error(ctx). */
const char *midint_selected_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count);

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

/* Cap on the workspace (default 1 GiB): calls run as many instances per pass as fit under it, and a call of which
 * one instance needs more fails with MIDINT_ERR_OUT_OF_MEMORY, naming the size it needs, before writing
 * anything.  A held workspace larger than the new cap is freed. */
midint_status midint_set_workspace_bytes(midint_context *ctx, size_t bytes);

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
