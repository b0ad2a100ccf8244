/* context.h — internal: the context structure, the backend interface and error helpers. */
#ifndef MIDINT_CONTEXT_H
#define MIDINT_CONTEXT_H

#include "launch.h"
#include "midint.h"
#include "registry.h"

#define MIDINT_MSG_LEN 512
#define MIDINT_MAX_FORCED 64
#define MIDINT_DISPATCH_MEMO 8
#define MIDINT_STEPS_SLOTS 24 /* temporaries of an expression step by step: values alive at once, at most */

/* The largest size an expression runs on a context: through a fused kernel, and as separate calls, one per step
 * (0: not at all). */
typedef struct midint_expr_limits {
    uint32_t fused, steps;
} midint_expr_limits;

/* What a backend does; one static instance per backend compiled in (backends.c lists them). */
typedef struct midint_backend_ops {
    midint_backend id;
    const char *name;
    /* Open device `device`: fill ctx->be, ctx->device_name and the limits; on failure set the message. */
    midint_status (*open)(midint_context *ctx, int device);
    void (*close)(midint_context *ctx);
    /* Device buffers are opaque handles: a device pointer on CUDA, a cl_mem on OpenCL. */
    midint_status (*alloc)(midint_context *ctx, size_t bytes, void **buf);
    void (*free)(midint_context *ctx, void *buf);
    midint_status (*upload)(midint_context *ctx, void *buf, const void *host, size_t bytes);
    midint_status (*download)(midint_context *ctx, void *host, const void *buf, size_t bytes);
    /* Enqueue kernel k on `stream` (NULL: the context's own). */
    midint_status (*launch)(midint_context *ctx, const midint_kernel *k, const midint_launch *l, void *stream);
    midint_status (*synchronize)(midint_context *ctx, void *stream);
    /* 1 when a device-buffer handle allows 16-byte accesses. */
    int (*aligned16)(const void *buf);
    /* Size in bytes of a device buffer, where the handle knows it (OpenCL); NULL where it cannot (CUDA). */
    size_t (*buffer_bytes)(midint_context *ctx, const void *buf);
    /* Enqueue a device-to-device copy from the start of src to the start of dst. */
    midint_status (*copy)(midint_context *ctx, void *dst, const void *src, size_t bytes, void *stream);
    /* Time what is enqueued on `stream` between begin and end, in milliseconds. */
    midint_status (*timer_begin)(midint_context *ctx, void *stream);
    midint_status (*timer_end)(midint_context *ctx, void *stream, double *ms);
    /* Page-locked host memory (midint_host_alloc): the pointer, and a handle the backend needs to free it. */
    midint_status (*host_alloc)(midint_context *ctx, size_t bytes, void **ptr, void **handle);
    void (*host_free)(midint_context *ctx, void *ptr, void *handle);
    /* Whether host memory [p, p + bytes) is page-locked for the device by someone else (CUDA: cudaHostAlloc or
     * cudaHostRegister memory); midint_host_alloc's blocks are known to the context. NULL: never. */
    int (*host_locked)(midint_context *ctx, const void *p, size_t bytes);
    /* The pipelined host path (host_path.c). Stream i < MIDINT_PIPE_SLOTS of the context's own, made at first use. */
    midint_status (*pipe_stream)(midint_context *ctx, unsigned i, void **stream);
    /* A handle for bytes [offset, offset + bytes) of a device buffer, usable wherever a buffer is (offset a
     * multiple of ctx->sub_align); released with sub_release before the buffer is freed. */
    midint_status (*sub_buffer)(midint_context *ctx, void *buf, size_t offset, size_t bytes, void **out);
    void (*sub_release)(midint_context *ctx, void *sub);
    /* Enqueue a copy between host memory and bytes [offset, offset + bytes) of a device buffer on `stream`; the
     * host memory must stay as it is (input) or untouched (output) until the copy is done. */
    midint_status (*upload_async)(midint_context *ctx, void *buf, size_t offset, const void *host, size_t bytes,
                                  void *stream);
    midint_status (*download_async)(midint_context *ctx, void *host, const void *buf, size_t offset, size_t bytes,
                                    void *stream);
    /* Fence i < MIDINT_FENCES marks what `stream` has enqueued so far (fence_mark); a stream (fence_wait) or the
     * host (fence_sync) waits for the last mark; a fence never marked is passed at once. The host path's slots
     * use them, and the workspace: it is shared by the context's calls on any stream, so before using it a call
     * makes its stream wait for the last call that did and marks its own end (MIDINT_FENCE_WS; the host waits on
     * it before the workspace is freed). */
    midint_status (*fence_mark)(midint_context *ctx, unsigned i, void *stream);
    midint_status (*fence_wait)(midint_context *ctx, void *stream, unsigned i);
    midint_status (*fence_sync)(midint_context *ctx, unsigned i);
    /* The device address through which kernels read and write host_alloc memory `host` in place (CUDA: the mapped
     * alias of page-locked memory), or NULL. host_path.c adds byte offsets to it, so a backend whose buffer handles
     * are not addresses leaves this NULL. Small host calls run on it with no copy to the device. */
    void *(*host_alias)(midint_context *ctx, void *host, void *handle);
    /* Enqueue a fill of bytes [0, bytes) of a device buffer (bytes a multiple of 4) with the 32-bit word `value`, and
     * a copy of `rows` rows of `row_bytes` bytes from src (row r at r * src_pitch) to dst (row r at r * dst_pitch).
     * Expressions step by step (expr_steps.c) make zero-extensions and constants from them, with no kernel. */
    midint_status (*fill)(midint_context *ctx, void *buf, uint32_t value, size_t bytes, void *stream);
    midint_status (*copy_rect)(midint_context *ctx, void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                               size_t row_bytes, size_t rows, void *stream);
    /* 0 when a kernel of v cannot run its block on this device, which some backends know only once the kernel is
     * built (OpenCL: a kernel's work-group limit falls with its registers); dispatch then picks another. NULL:
     * midint_variant_fits says it all. */
    int (*kernels_run)(midint_context *ctx, const midint_variant *v);
} midint_backend_ops;

/* The pipelined host path: chunk i runs on slot i mod MIDINT_PIPE_SLOTS (its own stream, device buffers and
 * page-locked staging), so the copy in of one chunk, the kernels of another and the copy out of a third overlap.
 * Fences 0 .. MIDINT_PIPE_SLOTS - 1 mark each slot's last chunk; MIDINT_FENCE_FORK the caller's stream at the
 * start of an asynchronous call; MIDINT_FENCE_WS the last use of the workspace. */
#define MIDINT_PIPE_SLOTS 3
#define MIDINT_FENCE_FORK MIDINT_PIPE_SLOTS
#define MIDINT_FENCE_WS (MIDINT_PIPE_SLOTS + 1)
#define MIDINT_FENCES (MIDINT_PIPE_SLOTS + 2)

/* Operands of one call through the pipeline at most (an expression's outputs and inputs). */
#define MIDINT_PIPE_MAX 8

/* One slot of the pipeline. Device memory is two buffers (inputs, outputs) with a sub-buffer per operand; the
 * page-locked staging holds the same layout (inputs then outputs) for operands in pageable memory. */
typedef struct midint_pipe_slot {
    void *dev[2];                   /* device buffers: inputs, outputs */
    size_t dev_bytes[2];
    void *sub[MIDINT_PIPE_MAX];     /* sub-buffers of the operands, made for `layout` */
    size_t layout[MIDINT_PIPE_MAX * 2]; /* offset and bytes of each operand in its buffer */
    void *host, *host_handle;       /* page-locked staging (inputs bytes, then outputs bytes) */
    size_t host_bytes;
    void *host_dev;                 /* the staging's device alias (backend host_alias), or NULL */
} midint_pipe_slot;

/* Host copies over the context's threads (host_copy.c): one segment per contiguous range. */
typedef struct midint_copy_seg {
    void *dst;
    const void *src;
    size_t bytes;
} midint_copy_seg;
void midint_host_copy(midint_context *ctx, const midint_copy_seg *segs, unsigned nseg);
void midint_host_copy_stop(midint_context *ctx);

/* One block of midint_host_alloc memory, listed in its context so that it can be checked and freed at close. */
typedef struct midint_host_block {
    void *ptr, *handle;
    size_t bytes;
    struct midint_host_block *next;
} midint_host_block;

/* A remembered dispatch decision: repeated calls of one shape skip the registry walk (a few microseconds). */
typedef struct midint_dispatch_memo {
    midint_op op;
    uint32_t n;
    size_t count;
    const midint_variant *v;  /* NULL: an empty slot */
} midint_dispatch_memo;

/* A device buffer of the host path and its capacity. */
typedef struct midint_staging_buf {
    void *buf;
    size_t bytes;
} midint_staging_buf;

/* Backends compiled into this library, in MIDINT_BACKEND_AUTO's order of preference. */
extern const midint_backend_ops *const midint_backends[];
extern const size_t midint_backend_count;
const midint_backend_ops *midint_backend_find(midint_backend id);

struct midint_context {
    const midint_backend_ops *ops;
    void *be;                       /* the backend's own state */
    int device;
    char device_name[256];
    uint32_t max_block;             /* threads per block the device allows */
    uint32_t max_shared;            /* dynamic shared memory per block it allows (after opt-in) */
    size_t staging_bytes;           /* cap on the host path's device buffers */
    size_t direct_bytes;            /* host calls of at most this many bytes run on mapped staging (host_path.c) */
    midint_pipe_slot pipe[MIDINT_PIPE_SLOTS]; /* the host path's slots, grown on demand */
    size_t sub_align;               /* offsets of sub-buffers are multiples of this (bytes) */
    int async_pending;              /* an asynchronous host call may still be running on the pipeline */
    struct midint_copy_pool *copy_pool; /* host_copy.c, started at the first large pageable copy */
    int copy_pool_tried;
    size_t test_fail_chunk;         /* test hook MIDINT_TEST_FAIL_CHUNK: this chunk (from 1) of a host call fails */
    midint_host_block *host_blocks; /* midint_host_alloc's blocks not yet freed */
    void *ntt_table;                /* NTT twiddle tables, made at the first NTT launch (ntt_tables.c) */
    midint_staging_buf ws, st;      /* the workspace of grid variants (plan.c): transforms, tile carry states */
    size_t workspace_cap;           /* midint_set_workspace_bytes */
    uint32_t test_ntt_log, test_ntt_rows; /* test hook MIDINT_TEST_NTT_SPLIT: transform length and row length */
    uint32_t test_tile_words;       /* test hook MIDINT_TEST_TILE_WORDS: expression grid tiles of this many words */
    int test_expr_steps;            /* test hook MIDINT_TEST_EXPR_STEPS: expressions step by step wherever they can */
    int forced_steps;               /* midint_force_variant(ctx, "steps"): the same, until the forced names are cleared */
    midint_staging_buf steps_tmp[MIDINT_STEPS_SLOTS + 1]; /* expr_steps.c: values' slots, then the constants' column */
    const midint_variant *forced[MIDINT_MAX_FORCED];
    size_t nforced;
    struct midint_tuning *tuning;   /* loaded tuned table, or NULL */
    const midint_variant *corrupt;  /* test hook MIDINT_TEST_CORRUPT: this variant's results are spoiled */
    unsigned char *refused;         /* per registry entry: its kernels were turned down by the device (kernels_run) */
    char refusal[MIDINT_MSG_LEN];   /* why the last one was: said when no variant is left for a call */
    midint_dispatch_memo memo[MIDINT_DISPATCH_MEMO]; /* cleared whenever forced variants or the table change */
    unsigned memo_next;
    uint32_t max_bits[MIDINT_OP_COUNT_];            /* midint_max_bits, worked out at open */
    midint_expr_limits *expr_limits; /* per expression: the largest sizes it runs here (expr.c) */
    char tuning_status[MIDINT_MSG_LEN];
    char msg[MIDINT_MSG_LEN];
};

/* Record a failure on ctx (may be NULL) and for this thread; returns `status`. */
midint_status midint_fail(midint_context *ctx, midint_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The largest size each operation and each expression runs on this device (max_bits, expr_limits): at open, and
 * again when the device turns a variant down. */
midint_status midint_find_max_bits(midint_context *ctx);

/* Whether the device of ctx can run v (threads per block, shared memory, and not turned down once built). */
int midint_variant_fits(const midint_context *ctx, const midint_variant *v);

/* Choose the variant for a call of n words and `count` instances; on failure the message is set. */
midint_status midint_dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count,
                              const midint_variant **out);

/* Forget remembered dispatch decisions (the forced variants or the tuned table changed). */
void midint_dispatch_forget(midint_context *ctx);

/* Read MIDINT_VARIANT into ctx->forced; MIDINT_ERR_UNKNOWN_VARIANT for a name not in the registry. */
midint_status midint_dispatch_init(midint_context *ctx);

/* Tuned tables (tuning.c): load at open from the environment or the default location; look up a call. */
void midint_tuning_init(midint_context *ctx);
void midint_tuning_free(struct midint_tuning *t);
const midint_variant *midint_tuning_lookup(const midint_context *ctx, midint_op op, uint32_t n, size_t count);

/* The device buffer of NTT twiddle tables, made and uploaded on first use; on failure the message is set. */
midint_status midint_ntt_table(midint_context *ctx, void **out);

/* How one call runs (plan.c): the variant's launches for n words and `count` instances, and the workspace they
 * share. A grid variant runs `group` instances per pass; each pass launches its kernels in order. */
typedef struct midint_plan {
    const midint_variant *v;
    uint32_t n, rn;           /* words per operand, per result */
    size_t count, group;      /* instances of the call, per pass */
    uint64_t ws_words, st_words; /* workspace per instance: transform planes, tile states */
    uint32_t log_length, log_rows; /* NTT grid: log2 of the transform length and of its rows */
    uint32_t tile_words, outputs;  /* expr grid: words per tile (the test hook may shorten it), outputs (st per tile) */
} midint_plan;

/* Plan a call of v; MIDINT_ERR_OUT_OF_MEMORY when one instance needs more workspace than the cap. */
midint_status midint_plan_make(midint_context *ctx, const midint_variant *v, uint32_t n, size_t count, midint_plan *p);

/* Device bytes of workspace the plan uses. */
size_t midint_plan_workspace(const midint_plan *p);

/* Enqueue the plan on these buffers (aux: the carry output of add/sub, or NULL; tables: the NTT twiddle tables
 * of NTT variants; vec: 16-byte accesses are safe), growing the context's workspace first when needed. */
midint_status midint_plan_run(midint_context *ctx, const midint_plan *p, void *r, const void *a, const void *b,
                              void *aux, void *tables, int vec, void *stream);

/* Enqueue an expression's grid plan (MIDINT_PLAN_EXPR_GRID) on its buffers io (outputs, then inputs: the kernel's
 * order), growing the context's workspace first when needed. */
midint_status midint_plan_run_expr(midint_context *ctx, const midint_plan *p, void *const *io, size_t nio, int vec,
                                   void *stream);

/* Release the workspace (after the work that uses it is done). */
void midint_workspace_free(midint_context *ctx);

/* Expressions as separate calls, one per step of the program (expr_steps.c), where no fused kernel serves a size:
 * the largest size at which every step's operation is available (0: none), the evaluation on device buffers io
 * (outputs, then inputs; the call's arguments checked), and the release of its temporaries (at close). */
unsigned midint_expr_steps_max_bits(const midint_context *ctx, const midint_expr_desc *d);
midint_status midint_expr_steps_run(midint_context *ctx, const midint_expr_desc *d, unsigned bits, size_t count,
                                    void *const *io, void *stream);
void midint_expr_steps_free(midint_context *ctx);

#endif
