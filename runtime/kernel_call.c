/* kernel_call.c — one operation's kernels on device buffers, dispatched and planned with no checks, copies of words
 * between rows of instances, and the binding of a call's buffers and scalars to kernel slots that ops.c's call path
 * shares (kernel_call.h). */
#include <string.h>

#include "backend.h"
#include "dispatch.h"
#include "kernel_call.h"
#include "plan.h"

void midint_bind(const midint_op_info *info, void *const *bufs, const unsigned *scalar, midint_launch *l)
{
    memset(l, 0, sizeof *l);
    for (unsigned i = 0; i < info->nparams; i++) {
        const midint_param_info *p = &info->params[i];
        unsigned s = p->slots;
        if (p->kind == MIDINT_PARAM_SCALAR) {
            if (s & MIDINT_SLOT_X0)
                l->x0 = scalar[i];
            if (s & MIDINT_SLOT_X1)
                l->x1 = scalar[i];
            continue;
        }
        void *b = bufs[i];
        if (s & MIDINT_SLOT_R)
            l->r = b;
        if (s & MIDINT_SLOT_A)
            l->a = b;
        if (s & MIDINT_SLOT_B)
            l->b = b;
        if (s & MIDINT_SLOT_AUX)
            l->aux = b;
        for (unsigned j = 0; j < MIDINT_EXPR_MAX_IO; j++)
            if (s & (MIDINT_SLOT_IO0 << j))
                l->io[j] = b;
    }
}

uint64_t midint_param_words(const midint_param_info *p, uint32_t n)
{
    return (uint64_t)p->words_per_n * n + p->words_fixed;
}

uint32_t midint_result_words(const midint_op_info *info, uint32_t n, const unsigned *scalar)
{
    for (unsigned i = 0; i < info->nparams; i++) {
        const midint_param_info *p = &info->params[i];
        if (p->slots & MIDINT_SLOT_R)
            return p->width_scalar >= 0 ? scalar[p->width_scalar] / 32u : (uint32_t)midint_param_words(p, n);
    }
    return n;
}

midint_status midint_kernel_call(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                                 const unsigned *scalars, void *stream)
{
    const midint_op_info *info = &midint_op_infos[op];
    void *bufs[MIDINT_PIPE_MAX] = {NULL};
    unsigned scalar[MIDINT_PIPE_MAX] = {0}, nb = 0, ns = 0;
    const uint32_t n = bits / 32u;
    for (unsigned i = 0; i < info->nparams && i < MIDINT_PIPE_MAX; i++) {
        if (info->params[i].kind == MIDINT_PARAM_SCALAR)
            scalar[i] = scalars[ns++];
        else
            bufs[i] = buffers[nb++];
    }
    const midint_variant *v = NULL;
    void *tables = NULL;
    midint_plan plan;
    midint_status st = midint_dispatch(ctx, op, n, count, 0, &v);
    if (st == MIDINT_OK && v->ntt_primes)
        st = midint_ntt_table(ctx, &tables);
    if (st == MIDINT_OK)
        st = midint_plan_make(ctx, v, n, midint_result_words(info, n, scalar), count, &plan);
    if (st != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", info->name, ctx->msg);
    int vec = n % 4 == 0; /* 16-byte accesses where every n-word buffer allows them */
    for (unsigned i = 0; i < info->nparams && vec; i++)
        if (bufs[i] && info->params[i].words_per_n)
            vec = ctx->ops->aligned16(bufs[i]);
    midint_launch l;
    midint_bind(info, bufs, scalar, &l);
    return midint_plan_run(ctx, &plan, &l, vec, stream);
}

midint_status midint_copy_words(midint_context *ctx, void *dst, size_t dw, size_t doff, const void *src, size_t sw,
                                size_t soff, size_t k, size_t rows, void *stream)
{
    return ctx->ops->copy_rect(ctx, dst, doff * 4, dw * 4, src, soff * 4, sw * 4, k * 4, rows, stream);
}
