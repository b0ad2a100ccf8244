/* registry.c — lookups over the generated tables (operations, variants, candidate sets), and what of them this
 * context's device runs (the largest sizes, the variants that fit). */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

const char *midint_op_name(midint_op op)
{
    if ((unsigned)op >= MIDINT_OP_COUNT_ && (unsigned)op - MIDINT_OP_EXPR0 < midint_exprs_count)
        return midint_expr_op_names[op - MIDINT_OP_EXPR0]; /* expressions' internal op codes: "expr_NAME" */
    return (unsigned)op < MIDINT_OP_COUNT_ ? midint_op_infos[op].name : NULL;
}

int midint_op_from_name(const char *name, midint_op *op)
{
    for (unsigned i = 0; i < MIDINT_OP_EXPR0 + midint_exprs_count; i++)
        if (strcmp(name, midint_op_name((midint_op)i)) == 0) {
            *op = (midint_op)i;
            return 1;
        }
    return 0;
}

const midint_variant *midint_registry_find(const char *name)
{
    for (size_t i = 0; i < midint_registry_size; i++)
        if (strcmp(midint_registry[i].name, name) == 0)
            return &midint_registry[i];
    return NULL;
}

const char *midint_candidate_set_hash(midint_op op, uint32_t bits)
{
    size_t lo = 0, hi = midint_candidate_set_count; /* binary search: the generator sorts by (op, bits) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const midint_candidate_set *c = &midint_candidate_sets[mid];
        if (c->op == op && c->bits == bits)
            return c->hash;
        if (c->op < op || (c->op == op && c->bits < bits))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

uint32_t midint_variant_threads_per_instance(const midint_variant *v, uint32_t n)
{
    if (v->plan != MIDINT_PLAN_ONE_BLOCK) /* spread over as many blocks as the size needs */
        return v->block;
    if (v->lanes) /* the lanes hold a fixed number of words: shorter instances are zero-padded; _oL: 2 blocks a warp */
        return v->across == 2 ? v->lanes / 2 : v->lanes;
    if (v->ntt_primes) /* the transform length is fixed: a block is always its ipb instances, shorter ones zero-padded */
        return v->block / v->ipb;
    uint32_t chunk = v->q * v->limb_words;
    return (n + chunk - 1) / chunk;
}

int midint_variant_serves(const midint_variant *v, midint_op op, midint_backend backend, uint32_t n)
{
    return v->op == op && v->backend == backend && n >= 1 && n <= v->bits / 32;
}

size_t midint_variant_count(void)
{
    return midint_registry_size;
}

const char *midint_variant_name(size_t i)
{
    return i < midint_registry_size ? midint_registry[i].name : NULL;
}

const char *midint_registry_id(void)
{
    return midint_registry_hash;
}

midint_status midint_find_max_bits(midint_context *ctx)
{
    if (!ctx->expr_limits && !(ctx->expr_limits = calloc(midint_exprs_count + 1, sizeof *ctx->expr_limits)))
        return midint_fail(NULL, MIDINT_ERR_OUT_OF_MEMORY, "midint_open: out of host memory");
    memset(ctx->max_bits, 0, sizeof ctx->max_bits);
    memset(ctx->expr_limits, 0, (midint_exprs_count + 1) * sizeof *ctx->expr_limits);
    ctx->mulmod_fdiv_count = 0;
    const unsigned fdiv_room = sizeof ctx->mulmod_fdiv / sizeof ctx->mulmod_fdiv[0];
    for (size_t i = 0; i < midint_registry_size; i++) {
        const midint_variant *v = &midint_registry[i];
        if (v->backend != ctx->ops->id || !midint_variant_fits(ctx, v))
            continue;
        if (v->op == MIDINT_OP_MULMOD && v->fdiv && ctx->mulmod_fdiv_count < fdiv_room) {
            ctx->mulmod_fdiv[ctx->mulmod_fdiv_count][0] = v->bits;
            ctx->mulmod_fdiv[ctx->mulmod_fdiv_count++][1] = v->fdiv;
        }
        uint32_t *max = (unsigned)v->op < MIDINT_OP_COUNT_ ? &ctx->max_bits[v->op]
                        : (unsigned)v->op - MIDINT_OP_EXPR0 < midint_exprs_count
                            ? &ctx->expr_limits[v->op - MIDINT_OP_EXPR0].fused
                            : NULL;
        if (max && v->bits > *max)
            *max = v->bits;
    }
    memcpy(ctx->kernel_max_bits, ctx->max_bits, sizeof ctx->max_bits);
    /* divrem and mod past their kernels (bigdiv.c): divisors up to mul's largest size, the shifts and sums reaching
     * three times it (the normalised dividend), where the runtime's six helper kernels are built and the division
     * kernels reach 3 words (the iteration's base, at least 2 words, divides by one word more) */
    unsigned big = 0;
    if (midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_LZ) &&
        midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_CMUL) &&
        midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_SMUL) &&
        midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_PLACE) &&
        midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_XMUL) &&
        midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_PICK) && ctx->max_bits[MIDINT_OP_DIVREM] >= 96) {
        big = ctx->max_bits[MIDINT_OP_MUL];
        const midint_op wide[] = {MIDINT_OP_SHL, MIDINT_OP_SHR, MIDINT_OP_ADD, MIDINT_OP_SUB};
        for (unsigned i = 0; i < sizeof wide / sizeof wide[0]; i++)
            if (ctx->max_bits[wide[i]] / 3u / 32u * 32u < big)
                big = ctx->max_bits[wide[i]] / 3u / 32u * 32u;
    }
    ctx->bigdiv_max_bits = big;
    const midint_op divs[] = {MIDINT_OP_DIVREM, MIDINT_OP_MOD};
    for (unsigned i = 0; i < 2; i++)
        if (big > ctx->max_bits[divs[i]])
            ctx->max_bits[divs[i]] = big;
    ctx->expr_steps_known = 0; /* the step-by-step sizes follow the operations' (expr_steps.c, at first need) */
    return MIDINT_OK;
}

const midint_kernel *midint_runtime_kernel(midint_backend backend, midint_role role)
{
    for (size_t j = 0; j < midint_kernel_count; j++)
        if (midint_kernels[j].role == role && midint_kernels[j].backend == backend)
            return &midint_kernels[j];
    return NULL;
}

int midint_variant_fits(const midint_context *ctx, const midint_variant *v)
{
    if (ctx->refused && ctx->refused[v - midint_registry])
        return 0;
    return v->block <= ctx->max_block && v->shared_bytes <= ctx->max_shared;
}

unsigned midint_max_bits(const midint_context *ctx, midint_op op)
{
    return ctx && ctx->ops && (unsigned)op < MIDINT_OP_COUNT_ ? ctx->max_bits[op] : 0;
}
