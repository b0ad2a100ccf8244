/* context.h — internal: the context structure, the backend interface and error helpers. */
#ifndef MIDINT_CONTEXT_H
#define MIDINT_CONTEXT_H

#include "launch.h"
#include "midint.h"
#include "registry.h"

#define MIDINT_MSG_LEN 512
#define MIDINT_MAX_FORCED 64

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
    /* Enqueue variant v on `stream` (NULL: the context's own). */
    midint_status (*launch)(midint_context *ctx, const midint_variant *v, const midint_launch *l, void *stream);
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
} midint_backend_ops;

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
    void *ntt_table;                /* NTT twiddle tables, made at the first NTT launch (ntt_tables.c) */
    const midint_variant *forced[MIDINT_MAX_FORCED];
    size_t nforced;
    struct midint_tuning *tuning;   /* loaded tuned table, or NULL */
    const midint_variant *corrupt;  /* test hook MIDINT_TEST_CORRUPT: this variant's results are spoiled */
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

/* Read MIDINT_VARIANT into ctx->forced; MIDINT_ERR_UNKNOWN_VARIANT for a name not in the registry. */
midint_status midint_dispatch_init(midint_context *ctx);

/* Tuned tables (tuning.c): load at open from the environment or the default location; look up a call. */
void midint_tuning_init(midint_context *ctx);
void midint_tuning_free(struct midint_tuning *t);
const midint_variant *midint_tuning_lookup(const midint_context *ctx, midint_op op, uint32_t n, size_t count);

/* The device buffer of NTT twiddle tables, made and uploaded on first use; on failure the message is set. */
midint_status midint_ntt_table(midint_context *ctx, void **out);

/* The launch of v on these buffers at n words and `count` instances: geometry and arguments. */
void midint_plan_launch(const midint_variant *v, uint32_t n, uint64_t count, void *r, const void *a, const void *b,
                        void *aux, int vec, midint_launch *l);

#endif
