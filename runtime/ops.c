/* ops.c — the batched operations: argument checks and dispatch, the device path, and the API entry points (the host
 * path's pipeline is host_path.c). */
#include <stdint.h>

#include "ops.h"

const midint_op_desc midint_op_descs[MIDINT_OP_COUNT_] = {
    [MIDINT_OP_ADD] = {"carry", 1, 1},
    [MIDINT_OP_SUB] = {"borrow", 1, 1},
    [MIDINT_OP_MUL] = {NULL, 2, 0},
    [MIDINT_OP_MULLO] = {NULL, 1, 1},
};

int midint_ranges_overlap(const void *p, size_t pn, const void *q, size_t qn)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return x < y + qn && y < x + pn;
}

/* Checks common to both paths; nothing has been touched when this fails. `fn` names the API function. */
/* The checks of count and bits (ctx is not NULL). */
static midint_status check_shape(midint_context *ctx, const midint_call *c, const char *fn)
{
    const midint_op_desc *d = &midint_op_descs[c->op];
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

static midint_status check_call(midint_context *ctx, const midint_call *c, const char *fn, int device_handles)
{
    const midint_op_desc *d = &midint_op_descs[c->op];
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
        if (midint_ranges_overlap(c->r, r_bytes, x, in_bytes) && !(d->in_place && c->r == x))
            return midint_fail(ctx, MIDINT_ERR_OVERLAP, d->in_place
                               ? "%s: r overlaps %s without being the same buffer (only exact in-place use is supported)"
                               : "%s: r overlaps %s (the full product cannot be computed in place)", fn, k ? "b" : "a");
    }
    if (c->aux && (midint_ranges_overlap(c->aux, aux_bytes, c->r, r_bytes) ||
                   midint_ranges_overlap(c->aux, aux_bytes, c->a, in_bytes) ||
                   midint_ranges_overlap(c->aux, aux_bytes, c->b, in_bytes)))
        return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps r, a or b", fn, d->aux_name);
    return MIDINT_OK;
}

/* MIDINT_TEST_CORRUPT: flip a bit of the first result word of the planted variant (device buffer r). */
midint_status midint_spoil_if_planted(midint_context *ctx, const midint_variant *v, void *r, void *stream)
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

midint_status midint_begin_call(midint_context *ctx, const midint_call *c, const char *fn, int device_handles,
                                midint_plan *plan, void **tables)
{
    const midint_variant *v = NULL;
    *tables = NULL;
    midint_status st = check_call(ctx, c, fn, device_handles);
    if (st != MIDINT_OK)
        return st;
    if ((st = midint_dispatch(ctx, c->op, c->bits / 32, c->count, &v)) != MIDINT_OK ||
        (st = midint_plan_make(ctx, v, c->bits / 32, device_handles ? c->count : midint_host_chunk(ctx, c),
                               plan)) != MIDINT_OK ||
        (v->ntt_primes && (st = midint_ntt_table(ctx, tables)) != MIDINT_OK))
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    return MIDINT_OK;
}

static midint_status run_device(midint_context *ctx, const midint_call *c, void *stream, const char *fn)
{
    midint_plan plan;
    void *tables = NULL;
    midint_status st = midint_begin_call(ctx, c, fn, 1, &plan, &tables);
    if (st != MIDINT_OK)
        return st;
    int vec = c->bits / 32 % 4 == 0 && ctx->ops->aligned16(c->r) && ctx->ops->aligned16(c->a) &&
              ctx->ops->aligned16(c->b);
    if ((st = midint_plan_run(ctx, &plan, c->r, c->a, c->b, c->aux, tables, vec, stream)) != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
    return midint_spoil_if_planted(ctx, plan.v, c->r, stream);
}

#define HOST_OP(fn, opcode, auxname)                                                                            \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b, uint32_t *auxname)                                                      \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, auxname};                                                       \
        return midint_host_run(ctx, &c, 0, NULL, #fn);                                                                          \
    }
#define DEVICE_OP(fn, opcode, auxname)                                                                          \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a, const void *b,   \
                     void *auxname, void *stream)                                                               \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, auxname};                                                       \
        return run_device(ctx, &c, stream, #fn);                                                                \
    }

#define ASYNC_OP(fn, opcode, auxname)                                                                           \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b, uint32_t *auxname, void *stream)                                        \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, auxname};                                                \
        return midint_host_run(ctx, &c, 1, stream, #fn);                                                        \
    }

HOST_OP(midint_add, MIDINT_OP_ADD, carry)
HOST_OP(midint_sub, MIDINT_OP_SUB, borrow)
ASYNC_OP(midint_add_async, MIDINT_OP_ADD, carry)
ASYNC_OP(midint_sub_async, MIDINT_OP_SUB, borrow)
DEVICE_OP(midint_add_device, MIDINT_OP_ADD, carry)
DEVICE_OP(midint_sub_device, MIDINT_OP_SUB, borrow)

/* The multiplications have no per-instance output beside r. */
#define HOST_MUL(fn, opcode)                                                                                    \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b)                                                                         \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, NULL};                                                          \
        return midint_host_run(ctx, &c, 0, NULL, #fn);                                                                          \
    }
#define DEVICE_MUL(fn, opcode)                                                                                  \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, void *r, const void *a, const void *b,   \
                     void *stream)                                                                              \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, NULL};                                                          \
        return run_device(ctx, &c, stream, #fn);                                                                \
    }

#define ASYNC_MUL(fn, opcode)                                                                                   \
    midint_status fn(midint_context *ctx, size_t count, unsigned bits, uint32_t *r, const uint32_t *a,          \
                     const uint32_t *b, void *stream)                                                           \
    {                                                                                                           \
        midint_call c = {opcode, count, bits, r, a, b, NULL};                                                   \
        return midint_host_run(ctx, &c, 1, stream, #fn);                                                        \
    }

HOST_MUL(midint_mul, MIDINT_OP_MUL)
HOST_MUL(midint_mullo, MIDINT_OP_MULLO)
ASYNC_MUL(midint_mul_async, MIDINT_OP_MUL)
ASYNC_MUL(midint_mullo_async, MIDINT_OP_MULLO)
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
    midint_call c = {op, count, bits, NULL, NULL, NULL, NULL};
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
