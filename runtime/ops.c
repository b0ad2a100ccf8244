/* ops.c — the batched operations: argument checks, then the host path (copy, chunk) or the device path. */
#include <stdint.h>

#include "context.h"

/* One descriptor per operation: its name, its buffers and what aliasing it allows, shared by both paths. */
typedef struct op_desc {
    const char *aux_name;    /* the per-instance output beside r, or NULL */
    uint32_t r_words_per_n;  /* result words per operand word (2 for a full product) */
    int in_place;            /* r may be exactly a or b: each block reads its inputs before writing r */
} op_desc;

static const op_desc op_descs[MIDINT_OP_COUNT_] = {
    [MIDINT_OP_ADD] = {"carry", 1, 1},
    [MIDINT_OP_SUB] = {"borrow", 1, 1},
    [MIDINT_OP_MUL] = {NULL, 2, 0},
    [MIDINT_OP_MULLO] = {NULL, 1, 1},
};

typedef struct call {
    midint_op op;
    size_t count;
    unsigned bits;
    void *r;
    const void *a, *b;
    void *aux;
} call;

static int ranges_overlap(const void *p, size_t pn, const void *q, size_t qn)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return x < y + qn && y < x + pn;
}

/* Checks common to both paths; nothing has been touched when this fails. `fn` names the API function. */
/* The checks of count and bits (ctx is not NULL). */
static midint_status check_shape(midint_context *ctx, const call *c, const char *fn)
{
    const op_desc *d = &op_descs[c->op];
    if (c->count == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count is 0 (a batch holds at least one instance)", fn);
    if (c->bits == 0 || c->bits % 32)
        return midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "%s: bits is %u; it must be a positive multiple of 32",
                           fn, c->bits);
    unsigned max = midint_max_bits(ctx, c->op);
    if (c->bits > max)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest %s size generated for "
                           "the %s backend is %u (make gen SIZES=...)", fn, c->bits, midint_op_name(c->op),
                           ctx->ops->name, max);
    size_t n = c->bits / 32;
    if (c->count > SIZE_MAX / 4 / n / d->r_words_per_n || c->count > (size_t)UINT32_MAX * 1024u)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count %zu is too large", fn, c->count);
    return MIDINT_OK;
}

static midint_status check_call(midint_context *ctx, const call *c, const char *fn, int device_handles)
{
    const op_desc *d = &op_descs[c->op];
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (!c->r || !c->a || !c->b)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, !c->r ? "r" : !c->a ? "a" : "b");
    midint_status st = check_shape(ctx, c, fn);
    if (st != MIDINT_OK)
        return st;
    size_t n = c->bits / 32;
    size_t in_bytes = c->count * n * 4, r_bytes = in_bytes * d->r_words_per_n, aux_bytes = c->count * 4;
    if (device_handles && ctx->ops->buffer_bytes) {
        /* buffer objects know their size: a batch that does not fit is refused rather than overrun */
        const void *bufs[4] = {c->r, c->a, c->b, c->aux};
        const size_t need[4] = {r_bytes, in_bytes, in_bytes, aux_bytes};
        const char *names[4] = {"r", "a", "b", d->aux_name};
        for (int k = 0; k < 4; k++) {
            size_t have = bufs[k] ? ctx->ops->buffer_bytes(ctx, bufs[k]) : need[k];
            if (have < need[k])
                return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s holds %zu bytes; %zu instances of %u "
                                   "bits need %zu", fn, names[k], have, c->count, c->bits, need[k]);
        }
    }
    if (device_handles && ctx->ops->id == MIDINT_BACKEND_OPENCL) {
        /* cl_mem handles: only identity is visible; the same buffer as r is in-place, as aux it is overlap */
        if (!d->in_place && (c->r == c->a || c->r == c->b))
            return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: r is the same buffer as %s; %s cannot work in place",
                               fn, c->r == c->a ? "a" : "b", midint_op_name(c->op));
        if (c->aux && (c->aux == c->r || c->aux == c->a || c->aux == c->b))
            return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s is the same buffer as an operand", fn, d->aux_name);
        return MIDINT_OK;
    }
    for (int k = 0; k < 2; k++) {
        const void *x = k ? c->b : c->a;
        if (ranges_overlap(c->r, r_bytes, x, in_bytes) && !(d->in_place && c->r == x))
            return midint_fail(ctx, MIDINT_ERR_OVERLAP, d->in_place
                               ? "%s: r overlaps %s without being the same buffer (only exact in-place use is supported)"
                               : "%s: r overlaps %s (the full product cannot be computed in place)", fn, k ? "b" : "a");
    }
    if (c->aux && (ranges_overlap(c->aux, aux_bytes, c->r, r_bytes) || ranges_overlap(c->aux, aux_bytes, c->a,
                   in_bytes) || ranges_overlap(c->aux, aux_bytes, c->b, in_bytes)))
        return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps r, a or b", fn, d->aux_name);
    return MIDINT_OK;
}

/* Grow one host-path buffer to `bytes` (contents are not kept). */
static midint_status grow(midint_context *ctx, midint_staging_buf *s, size_t bytes)
{
    if (bytes <= s->bytes)
        return MIDINT_OK;
    void *p = NULL;
    midint_status st = ctx->ops->alloc(ctx, bytes, &p);
    if (st != MIDINT_OK)
        return st;
    if (s->buf)
        ctx->ops->free(ctx, s->buf);
    s->buf = p;
    s->bytes = bytes;
    return MIDINT_OK;
}

/* MIDINT_TEST_CORRUPT: flip a bit of the first result word of the planted variant (device buffer r). */
static midint_status spoil_if_planted(midint_context *ctx, const midint_variant *v, void *r, void *stream)
{
    uint32_t w;
    midint_status st;
    if (v != ctx->corrupt)
        return MIDINT_OK;
    if ((st = ctx->ops->synchronize(ctx, stream)) != MIDINT_OK || (st = ctx->ops->download(ctx, &w, r, 4)) != MIDINT_OK)
        return st;
    w ^= 1u;
    return ctx->ops->upload(ctx, r, &w, 4);
}

/* Instances per chunk of the host path: the device copies of a, b and r stay within the staging cap (at least
 * one instance). */
static size_t host_chunk(const midint_context *ctx, const call *c)
{
    size_t per = (size_t)(c->bits / 32) * 4 * (2 + op_descs[c->op].r_words_per_n);
    size_t chunk = ctx->staging_bytes / per;
    return chunk == 0 ? 1 : chunk > c->count ? c->count : chunk;
}

/* What both paths do first: check the arguments, choose the variant, plan it (for the whole batch on device
 * buffers, for one chunk of the host path), and make what its kernels read besides the operands: NTT kernels
 * take the twiddle tables in the aux argument (the multiplications have no carry). */
static midint_status begin_call(midint_context *ctx, const call *c, const char *fn, int device_handles,
                                midint_plan *plan, void **tables)
{
    const midint_variant *v = NULL;
    *tables = NULL;
    midint_status st = check_call(ctx, c, fn, device_handles);
    if (st != MIDINT_OK)
        return st;
    if ((st = midint_dispatch(ctx, c->op, c->bits / 32, c->count, &v)) != MIDINT_OK ||
        (st = midint_plan_make(ctx, v, c->bits / 32, device_handles ? c->count : host_chunk(ctx, c), plan)) !=
            MIDINT_OK ||
        (v->ntt_primes && (st = midint_ntt_table(ctx, tables)) != MIDINT_OK))
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    return MIDINT_OK;
}

static midint_status run_host(midint_context *ctx, const call *c, const char *fn)
{
    const op_desc *d = &op_descs[c->op];
    midint_plan plan;
    void *tables = NULL;
    midint_status st = begin_call(ctx, c, fn, 0, &plan, &tables);
    if (st != MIDINT_OK)
        return st;
    size_t chunk = plan.count;
    uint32_t n = c->bits / 32;
    size_t in_bytes = chunk * n * 4;
    if ((st = grow(ctx, &ctx->stage[0], in_bytes)) != MIDINT_OK || (st = grow(ctx, &ctx->stage[1], in_bytes)) != MIDINT_OK ||
        (st = grow(ctx, &ctx->stage[2], in_bytes * d->r_words_per_n)) != MIDINT_OK ||
        (c->aux && (st = grow(ctx, &ctx->stage[3], chunk * 4)) != MIDINT_OK))
        return midint_fail(ctx, st, "%s: allocating staging for %zu instances: %s", fn, chunk, ctx->msg);

    const midint_backend_ops *ops = ctx->ops;
    void *da = ctx->stage[0].buf, *db = ctx->stage[1].buf, *dr = ctx->stage[2].buf, *dc = ctx->stage[3].buf;
    for (size_t done = 0; done < c->count; done += chunk) {
        size_t m = c->count - done < chunk ? c->count - done : chunk;
        size_t off = done * n, bytes = m * n * 4;
        plan.count = m;
        if (plan.group > m)
            plan.group = m;
        /* r is written only after the chunk's inputs were read, so in-place host calls are safe */
        if ((st = ops->upload(ctx, da, (const uint32_t *)c->a + off, bytes)) != MIDINT_OK ||
            (st = ops->upload(ctx, db, (const uint32_t *)c->b + off, bytes)) != MIDINT_OK ||
            (st = midint_plan_run(ctx, &plan, dr, da, db, c->aux ? dc : NULL, tables, n % 4 == 0, NULL)) != MIDINT_OK ||
            (st = spoil_if_planted(ctx, plan.v, dr, NULL)) != MIDINT_OK ||
            (st = ops->download(ctx, (uint32_t *)c->r + off * d->r_words_per_n, dr, bytes * d->r_words_per_n)) !=
                MIDINT_OK ||
            (c->aux && (st = ops->download(ctx, (uint32_t *)c->aux + done, dc, m * 4)) != MIDINT_OK))
            return midint_fail(ctx, st, "%s: %s (%zu of %zu instances were completed)", fn, ctx->msg, done,
                               c->count);
    }
    return MIDINT_OK;
}

static midint_status run_device(midint_context *ctx, const call *c, void *stream, const char *fn)
{
    midint_plan plan;
    void *tables = NULL;
    midint_status st = begin_call(ctx, c, fn, 1, &plan, &tables);
    if (st != MIDINT_OK)
        return st;
    int vec = c->bits / 32 % 4 == 0 && ctx->ops->aligned16(c->r) && ctx->ops->aligned16(c->a) &&
              ctx->ops->aligned16(c->b);
    if ((st = midint_plan_run(ctx, &plan, c->r, c->a, c->b, c->aux, tables, vec, stream)) != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    return spoil_if_planted(ctx, plan.v, c->r, stream);
}

#define HOST_OP(fn, opcode, auxname)                                                                            \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b, uint32_t *auxname)                                                      \
    {                                                                                                           \
        call c = {opcode, count, bits, r, a, b, auxname};                                                       \
        return run_host(ctx, &c, #fn);                                                                          \
    }
#define DEVICE_OP(fn, opcode, auxname)                                                                          \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a, const void *b,   \
                     void *auxname, void *stream)                                                               \
    {                                                                                                           \
        call c = {opcode, count, bits, r, a, b, auxname};                                                       \
        return run_device(ctx, &c, stream, #fn);                                                                \
    }

HOST_OP(midint_add, MIDINT_OP_ADD, carry)
HOST_OP(midint_sub, MIDINT_OP_SUB, borrow)
DEVICE_OP(midint_add_device, MIDINT_OP_ADD, carry)
DEVICE_OP(midint_sub_device, MIDINT_OP_SUB, borrow)

/* The multiplications have no per-instance output beside r. */
#define HOST_MUL(fn, opcode)                                                                                    \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b)                                                                         \
    {                                                                                                           \
        call c = {opcode, count, bits, r, a, b, NULL};                                                          \
        return run_host(ctx, &c, #fn);                                                                          \
    }
#define DEVICE_MUL(fn, opcode)                                                                                  \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a, const void *b,   \
                     void *stream)                                                                              \
    {                                                                                                           \
        call c = {opcode, count, bits, r, a, b, NULL};                                                          \
        return run_device(ctx, &c, stream, #fn);                                                                \
    }

HOST_MUL(midint_mul, MIDINT_OP_MUL)
HOST_MUL(midint_mullo, MIDINT_OP_MULLO)
DEVICE_MUL(midint_mul_device, MIDINT_OP_MUL)
DEVICE_MUL(midint_mullo_device, MIDINT_OP_MULLO)

midint_status midint_synchronize(midint_context *ctx, void *stream)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_synchronize: ctx is NULL");
    return ctx->ops->synchronize(ctx, stream);
}

midint_status midint_workspace_size(midint_context *ctx, midint_op op, unsigned bits, size_t count, size_t *bytes)
{
    if (!ctx || !bytes)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "midint_workspace_size: %s is NULL", ctx ? "bytes" : "ctx");
    if ((unsigned)op >= MIDINT_OP_COUNT_)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_workspace_size: unknown operation %d", (int)op);
    call c = {op, count, bits, NULL, NULL, NULL, NULL};
    const char *fn = "midint_workspace_size";
    midint_status st = check_shape(ctx, &c, fn);
    const midint_variant *v = NULL;
    midint_plan plan;
    if (st == MIDINT_OK && ((st = midint_dispatch(ctx, op, bits / 32, count, &v)) != MIDINT_OK ||
                            (st = midint_plan_make(ctx, v, bits / 32, count, &plan)) != MIDINT_OK))
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    if (st == MIDINT_OK)
        *bytes = midint_plan_workspace(&plan);
    return st;
}

midint_status midint_set_workspace_bytes(midint_context *ctx, size_t bytes)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_set_workspace_bytes: ctx is NULL");
    if (bytes == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "midint_set_workspace_bytes: bytes must be positive");
    ctx->workspace_cap = bytes;
    if (ctx->ws.bytes + ctx->st.bytes > bytes)
        midint_workspace_free(ctx);
    return MIDINT_OK;
}
