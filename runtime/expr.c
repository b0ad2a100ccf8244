/* expr.c — fused expressions by name: listing them, their own argument checks (the name, the numbers of outputs and
 * inputs), then the one call path of the operations (ops.c) with the expression's descriptor (outputs, then inputs). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dispatch.h"
#include "expr_steps.h"
#include "ops.h"

size_t midint_expr_count(void)
{
    return midint_exprs_count;
}

const midint_expr_desc *midint_expr_info(size_t i)
{
    return i < midint_exprs_count ? &midint_exprs[i] : NULL;
}

const midint_expr_desc *midint_expr_find(const char *name)
{
    for (size_t i = 0; name && i < midint_exprs_count; i++)
        if (strcmp(midint_exprs[i].name, name) == 0)
            return &midint_exprs[i];
    return NULL;
}

static midint_op op_of(const midint_expr_desc *d)
{
    return (midint_op)(MIDINT_OP_EXPR0 + (unsigned)(d - midint_exprs));
}

unsigned midint_expr_max_bits(const midint_context *ctx, const char *name)
{
    const midint_expr_desc *d = midint_expr_find(name);
    if (!ctx || !d)
        return 0;
    /* the step-by-step size is a cache the context fills at first need: logically const */
    midint_expr_limits l = midint_expr_limits_of((midint_context *)ctx, (size_t)(d - midint_exprs));
    return l.fused > l.steps ? l.fused : l.steps;
}

/* What only an expression call checks (ctx, the name, the numbers of outputs and inputs, the two arrays), then its
 * buffers in the descriptor's order, outputs first, into the path of every operation. */
static midint_status expr_call(midint_context *ctx, const char *fn, const char *name, size_t count, unsigned bits,
                               size_t nout, void *const *outs, size_t nin, const void *const *ins, midint_mode mode,
                               void *stream)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (!name)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: name is NULL", fn);
    const midint_expr_desc *d = midint_expr_find(name);
    if (!d) {
        char known[256] = "";
        for (size_t i = 0; i < midint_exprs_count; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", midint_exprs[i].name);
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: no expression named '%.64s' was generated (generated: "
                           "%s; make gen EXPRS=...)", fn, name, midint_exprs_count ? known : "none");
    }
    if (nout != d->noutputs || nin != d->ninputs)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: expression '%s' has %u output%s and %u input%s; the "
                           "call gives %zu and %zu", fn, d->name, d->noutputs, d->noutputs == 1 ? "" : "s", d->ninputs,
                           d->ninputs == 1 ? "" : "s", nout, nin);
    if (!outs || !ins)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, !outs ? "outputs" : "inputs");
    void *bufs[MIDINT_EXPR_MAX_IO];
    for (size_t i = 0; i < nout + nin && i < MIDINT_EXPR_MAX_IO; i++)
        bufs[i] = i < nout ? outs[i] : (void *)ins[i - nout];
    return midint_op_entry(ctx, op_of(d), count, bits, bufs, NULL, mode, stream, fn);
}

midint_status midint_expr(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                          void *const *outputs, size_t ninputs, const void *const *inputs)
{
    return expr_call(ctx, "midint_expr", name, count, bits, noutputs, outputs, ninputs, inputs, MIDINT_MODE_HOST, NULL);
}

midint_status midint_expr_async(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                void *const *outputs, size_t ninputs, const void *const *inputs, void *stream)
{
    return expr_call(ctx, "midint_expr_async", name, count, bits, noutputs, outputs, ninputs, inputs,
                     MIDINT_MODE_ASYNC, stream);
}

midint_status midint_expr_device(midint_context *ctx, const char *name, size_t count, unsigned bits, size_t noutputs,
                                 void *const *outputs, size_t ninputs, const void *const *inputs, void *stream)
{
    return expr_call(ctx, "midint_expr_device", name, count, bits, noutputs, outputs, ninputs, inputs,
                     MIDINT_MODE_DEVICE, stream);
}

const char *midint_expr_selected_variant(midint_context *ctx, const char *name, unsigned bits, size_t count)
{
    const midint_expr_desc *d = midint_expr_find(name);
    const midint_variant *v = NULL;
    if (!ctx || !d) {
        midint_fail(ctx, ctx ? MIDINT_ERR_INVALID_ARGUMENT : MIDINT_ERR_NULL_POINTER,
                    "midint_expr_selected_variant: %s", ctx ? "no such expression" : "ctx is NULL");
        return NULL;
    }
    if (count == 0 || bits == 0 || bits % 32) {
        midint_fail(ctx, count ? MIDINT_ERR_INVALID_BITS : MIDINT_ERR_INVALID_COUNT, "midint_expr_selected_variant: "
                    "count %zu, bits %u: count must be positive and bits a positive multiple of 32", count, bits);
        return NULL;
    }
    if (midint_expr_uses_steps(ctx, (size_t)(d - midint_exprs), bits))
        return "steps";
    return midint_dispatch(ctx, op_of(d), bits / 32, count, 0, &v) == MIDINT_OK ? v->name : NULL;
}
