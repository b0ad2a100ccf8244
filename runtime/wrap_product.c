/* wrap_product.c — products modulo B^L - 1 on the NTT grid: the cyclic convolution of L points with nothing padded,
 * so that a product longer than L words folds its top onto its bottom (wrap_product.h; docs/ntt.md "Wrapped
 * products"). Half the transform length of the full product, for callers that need only words the fold leaves. */
#include "wrap_product.h"

#include "dispatch.h"
#include "plan.h"

static int has_role(const midint_variant *v, midint_role role)
{
    for (uint32_t i = 0; i < v->nkernels; i++)
        if (midint_kernels[v->kernel + i].role == role)
            return 1;
    return 0;
}

/* The NTT grid engine of mul on this backend that runs here and has the whole-column kernels (every size of an
 * engine shares its kernels, so any of its variants plans any length). Kept in the context: searched again only
 * where the device has since turned the kept one down (midint_variant_fits then says no). */
static const midint_variant *engine(midint_context *ctx)
{
    if (ctx->wrap_searched && (!ctx->wrap_engine || midint_variant_fits(ctx, ctx->wrap_engine)))
        return ctx->wrap_engine;
    ctx->wrap_searched = 1;
    ctx->wrap_engine = NULL;
    for (size_t i = 0; i < midint_variant_count(); i++) {
        const midint_variant *v = &midint_registry[i];
        if (v->op == MIDINT_OP_MUL && v->plan == MIDINT_PLAN_NTT_GRID && v->backend == ctx->ops->id &&
            midint_variant_fits(ctx, v) && has_role(v, MIDINT_ROLE_COLS_WRAP))
            return ctx->wrap_engine = v;
    }
    return NULL;
}

int midint_wrap_product_applies(midint_context *ctx, uint32_t rn)
{
    return rn >= 2 && rn <= (1u << midint_ntt_grid.log_max) && engine(ctx) != NULL;
}

midint_status midint_wrap_product(midint_context *ctx, size_t count, uint32_t n, uint32_t nb, uint32_t rn, void *r,
                                  const void *a, const void *b, void *stream)
{
    const midint_variant *v = engine(ctx);
    if (!v)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "wrapped product: no NTT grid engine runs here");
    midint_plan p;
    midint_status st = midint_plan_make_wrap(ctx, v, n, nb, rn, count, &p);
    if (st != MIDINT_OK)
        return st;
    midint_launch l = {0};
    l.r = r;
    l.a = a;
    l.b = b;
    return midint_plan_run(ctx, &p, &l, 0, stream);
}
