/* context.h — internal: the context structure, the backend interface and error helpers. */
#ifndef MIDINT_CONTEXT_H
#define MIDINT_CONTEXT_H

#include "launch.h"
#include "midint.h"
#include "registry.h"

#define MIDINT_MSG_LEN 512
#define MIDINT_MAX_FORCED 64
#define MIDINT_DISPATCH_MEMO 8

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
    /* The workspace is shared by the context's calls on any stream: before using it a call makes `stream`
     * wait for the last call that did (ws_wait), and marks its own end (ws_mark); ws_drain waits on the host,
     * before the workspace is freed. */
    midint_status (*ws_wait)(midint_context *ctx, void *stream);
    midint_status (*ws_mark)(midint_context *ctx, void *stream);
    midint_status (*ws_drain)(midint_context *ctx);
    /* Page-locked host memory (midint_host_alloc): the pointer, and a handle the backend needs to free it. */
    midint_status (*host_alloc)(midint_context *ctx, size_t bytes, void **ptr, void **handle);
    void (*host_free)(midint_context *ctx, void *ptr, void *handle);
} midint_backend_ops;

/* One block of midint_host_alloc memory, listed in its context so that it can be checked and freed at close. */
typedef struct midint_host_block {
    void *ptr, *handle;
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
    midint_staging_buf stage[4];    /* host path buffers for a, b, r, carry; grown on demand */
    midint_staging_buf expr_stage[MIDINT_EXPR_MAX_IO]; /* midint_expr's host path: its outputs, then inputs */
    midint_host_block *host_blocks; /* midint_host_alloc's blocks not yet freed */
    void *ntt_table;                /* NTT twiddle tables, made at the first NTT launch (ntt_tables.c) */
    midint_staging_buf ws, st;      /* the workspace of grid variants (plan.c): transforms, tile carry states */
    size_t workspace_cap;           /* midint_set_workspace_bytes */
    uint32_t test_ntt_log, test_ntt_rows; /* test hook MIDINT_TEST_NTT_SPLIT: transform length and row length */
    const midint_variant *forced[MIDINT_MAX_FORCED];
    size_t nforced;
    struct midint_tuning *tuning;   /* loaded tuned table, or NULL */
    const midint_variant *corrupt;  /* test hook MIDINT_TEST_CORRUPT: this variant's results are spoiled */
    midint_dispatch_memo memo[MIDINT_DISPATCH_MEMO]; /* cleared whenever forced variants or the table change */
    unsigned memo_next;
    uint32_t max_bits[MIDINT_OP_COUNT_];            /* midint_max_bits, worked out at open */
    char tuning_status[MIDINT_MSG_LEN];
    char msg[MIDINT_MSG_LEN];
};

/* Record a failure on ctx (may be NULL) and for this thread; returns `status`. */
midint_status midint_fail(midint_context *ctx, midint_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Whether the device of ctx can run v (threads per block, shared memory). */
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
} midint_plan;

/* Plan a call of v; MIDINT_ERR_OUT_OF_MEMORY when one instance needs more workspace than the cap. */
midint_status midint_plan_make(midint_context *ctx, const midint_variant *v, uint32_t n, size_t count, midint_plan *p);

/* Device bytes of workspace the plan uses. */
size_t midint_plan_workspace(const midint_plan *p);

/* Enqueue the plan on these buffers (aux: the carry output of add/sub, or NULL; tables: the NTT twiddle tables
 * of NTT variants; vec: 16-byte accesses are safe), growing the context's workspace first when needed. */
midint_status midint_plan_run(midint_context *ctx, const midint_plan *p, void *r, const void *a, const void *b,
                              void *aux, void *tables, int vec, void *stream);

/* Release the workspace (after the work that uses it is done). */
void midint_workspace_free(midint_context *ctx);

#endif
