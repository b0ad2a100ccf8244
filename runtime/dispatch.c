/* dispatch.c — which variant runs a call: forced by name, else the built-in default rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

/* ---- level 1: variants forced by name (midint_force_variant, or MIDINT_VARIANT) ---- */

static midint_status force_one(midint_context *ctx, const char *name, size_t len, int from_env)
{
    char buf[128];
    if (len == 0)
        return MIDINT_OK;
    if (len >= sizeof buf)
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "forced variant name '%.*s...' is too long", 40, name);
    if (len == 5 && strncmp(name, "steps", 5) == 0) { /* every expression step by step where it can (expr.c) */
        ctx->forced_steps = 1;
        return MIDINT_OK;
    }
    memcpy(buf, name, len);
    buf[len] = '\0';
    const midint_variant *v = midint_registry_find(buf);
    if (!v)
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "%s: variant '%s' is not in the registry (see "
                           "generated/variants.txt)", from_env ? "MIDINT_VARIANT" : "midint_force_variant", buf);
    if (v->backend != ctx->ops->id) {
        if (from_env) /* the environment is process-wide: names for the other backend are for other contexts */
            return MIDINT_OK;
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "midint_force_variant: '%s' is not a %s variant", buf,
                           ctx->ops->name);
    }
    if (!midint_variant_fits(ctx, v))
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "variant '%s' needs %u threads and %u bytes of shared "
                           "memory per block; this device allows %u and %u", buf, v->block, v->shared_bytes,
                           ctx->max_block, ctx->max_shared);
    midint_dispatch_forget(ctx);
    if (!from_env) /* the API keeps one forced variant per operation */
        for (size_t i = 0; i < ctx->nforced; i++)
            if (ctx->forced[i]->op == v->op)
                ctx->forced[i--] = ctx->forced[--ctx->nforced];
    if (ctx->nforced == MIDINT_MAX_FORCED)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "more than %d forced variants", MIDINT_MAX_FORCED);
    ctx->forced[ctx->nforced++] = v;
    return MIDINT_OK;
}

midint_status midint_dispatch_init(midint_context *ctx)
{
    const char *env = getenv("MIDINT_VARIANT");
    while (env && *env) {
        size_t len = strcspn(env, ", ");
        midint_status st = force_one(ctx, env, len, 1);
        if (st != MIDINT_OK)
            return st;
        env += len + (env[len] != '\0');
    }
    return MIDINT_OK;
}

midint_status midint_force_variant(midint_context *ctx, const char *name)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_force_variant: ctx is NULL");
    if (!name || !*name) {
        ctx->nforced = 0;
        ctx->forced_steps = 0;
        midint_dispatch_forget(ctx);
        return MIDINT_OK;
    }
    return force_one(ctx, name, strlen(name), 0);
}

/* ---- level 2: the tuned table for this device (tuning.c) ---- */

/* ---- level 3: the default rule ----
 * First the kind of variant: grid variants (an instance spread over many blocks) where no one-block variant serves the
 * size, and for small batches of large instances; register-resident (lanes) ones for the sizes and batches the row
 * names; NTT variants above an operation's crossover size, classical ones at or below it (when the device can run
 * none of the preferred kind, the others in turn). Among those that serve the call, the variants of the smallest
 * generated size (fewest idle threads), then the lowest cost below. The rows are data (generated/ops_table.c, from
 * generator/default_rules.py, which says what each field means and which measurements set it). */
typedef midint_default_rule default_rule;

static const default_rule *rule_of(midint_op op)
{
    return &midint_default_rules[(unsigned)op < MIDINT_OP_COUNT_ ? midint_op_rule[op] : midint_expr_rule];
}

static double default_cost(const default_rule *rule, const midint_variant *v, uint32_t n, size_t count)
{
    if (v->plan != MIDINT_PLAN_ONE_BLOCK) /* grid families: their tile kernels' words per thread and block */
        return rule->w_chunk * fabs(log2(v->q / rule->grid_q)) + rule->w_block * fabs(log2(v->grid / rule->grid_block));
    if (v->lanes && v->across == 3 && rule->lanes_staged_from && count >= rule->lanes_staged_from &&
        4u * 32u * (uint64_t)n >= 3u * v->bits)
        return -1.0; /* ahead of every other lanes variant */
    if (v->lanes)
        return rule->w_chunk * fabs(log2(v->q / rule->lanes_q)) + 2.0 * rule->w_chunk * (v->lanes < rule->lanes_min) +
               rule->w_block * (v->across != rule->lanes_across) +
               8.0 * rule->w_chunk * (v->karatsuba != rule->lanes_karatsuba);
    uint32_t ti = midint_variant_threads_per_instance(v, n);
    double idle = (double)(v->block - (v->block / ti) * ti) / v->block;
    /* and the share of each thread's words past the instance (padding): 16 words a thread on an 8-word instance do
     * half the work they are scheduled for (H200, cmp at 256 bits: 1075 GB/s through Q = 16 against 4.2 TB/s) */
    double pad = 1.0 - (double)n / ((double)ti * v->q * v->limb_words);
    if (v->ntt_primes) /* an NTT variant's block holds as few instances as fill it (the generator's choice) */
        return rule->w_chunk * fabs(log2(v->q / rule->ntt_q)) +
               rule->w_ntt_block * fmax(0.0, log2(v->block / rule->ntt_block)) + rule->w_idle * idle;
    double chunk = v->q * v->limb_words;
    return rule->w_chunk * fabs(log2(chunk / rule->chunk_words)) + rule->w_block * fabs(log2(v->block / rule->block)) +
           rule->w_limb * (v->limb_words != rule->limb_words) + rule->w_idle * (idle + pad);
}

/* What the default rule chooses between before it compares costs. */
typedef enum variant_kind { KIND_CLASSICAL, KIND_NTT, KIND_GRID, KIND_LANES } variant_kind;

static variant_kind kind_of(const midint_variant *v)
{
    return v->plan != MIDINT_PLAN_ONE_BLOCK ? KIND_GRID : v->lanes ? KIND_LANES : v->ntt_primes ? KIND_NTT
                                                                                                : KIND_CLASSICAL;
}

/* Whether v leaves a call of n words with these moduli traits to the operation's other variants. F52 only at v's own
 * size: the thread per instance takes its radix-2^52 branch at a call of its kernel's words alone
 * (kernel_mod_shared.j2), so a call of fewer words keeps the lanes. */
static int refuses(const midint_variant *v, unsigned moduli, uint32_t n)
{
    unsigned r = v->refuses_moduli & moduli;
    if (v->bits != 32u * n)
        r &= ~MIDINT_MODULI_F52;
    return r != 0;
}

/* The default rule's choice among the variants of one kind, or NULL. */
static const midint_variant *default_choice(midint_context *ctx, midint_op op, uint32_t n, size_t count,
                                            unsigned moduli, variant_kind kind)
{
    const midint_variant *best = NULL;
    double best_cost = 0;
    for (size_t i = 0; i < midint_registry_size; i++) {
        const midint_variant *v = &midint_registry[i];
        if (!midint_variant_serves(v, op, ctx->ops->id, n) || !midint_variant_fits(ctx, v) || kind_of(v) != kind ||
            refuses(v, moduli, n))
            continue;
        double cost = default_cost(rule_of(op), v, n, count);
        if (!best || v->bits < best->bits || (v->bits == best->bits && cost < best_cost)) {
            best = v;
            best_cost = cost;
        }
    }
    return best;
}

void midint_dispatch_forget(midint_context *ctx)
{
    memset(ctx->memo, 0, sizeof ctx->memo);
    midint_replay_invalidate(ctx, "dispatch changed"); /* a recording holds the variants of the old choices */
}

static midint_status dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, unsigned moduli,
                              const midint_variant **out);

static int is_forced(const midint_context *ctx, const midint_variant *v)
{
    for (size_t i = 0; i < ctx->nforced; i++)
        if (ctx->forced[i] == v)
            return 1;
    return 0;
}

_Static_assert((MIDINT_DISPATCH_MEMO & (MIDINT_DISPATCH_MEMO - 1)) == 0, "the memo's slots: a power of two");

/* The memo slot of a call's shape: a multiplicative hash of its fields. */
static unsigned memo_slot(midint_op op, uint32_t n, size_t count, unsigned moduli)
{
    uint64_t h = ((uint64_t)n << 20) ^ ((uint64_t)count << 7) ^ ((uint64_t)op << 2) ^ (uint64_t)moduli;
    h *= 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) & (MIDINT_DISPATCH_MEMO - 1u);
}

midint_status midint_dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, unsigned moduli,
                              const midint_variant **out)
{
    moduli &= MIDINT_MODULI_EVEN | MIDINT_MODULI_F52;
    midint_dispatch_memo *m = &ctx->memo[memo_slot(op, n, count, moduli)];
    if (m->v && m->op == op && m->n == n && m->count == count && m->moduli == moduli) {
        *out = m->v;
        return MIDINT_OK;
    }
    midint_status st = dispatch(ctx, op, n, count, moduli, out);
    /* a chosen variant the device turns down once its kernels are built is left out, and the choice made again */
    while (st == MIDINT_OK && ctx->ops->kernels_run && !is_forced(ctx, *out) && !ctx->ops->kernels_run(ctx, *out)) {
        if (!ctx->refused && !(ctx->refused = calloc(midint_registry_size, 1)))
            return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "out of host memory");
        ctx->refused[*out - midint_registry] = 1;   /* midint_variant_fits now says no: each variant at most once */
        midint_replay_invalidate(ctx, "a variant refused");
        snprintf(ctx->refusal, sizeof ctx->refusal, "%s", ctx->msg);
        if ((st = midint_find_max_bits(ctx)) == MIDINT_OK)
            st = dispatch(ctx, op, n, count, moduli, out);
    }
    if (st == MIDINT_OK)
        *m = (midint_dispatch_memo){op, n, count, moduli, *out}; /* the slot's last shape */
    return st;
}

static midint_status dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, unsigned moduli,
                              const midint_variant **out)
{
    midint_backend be = ctx->ops->id;
    int any_forced = 0;
    for (size_t i = 0; i < ctx->nforced; i++) {
        const midint_variant *v = ctx->forced[i];
        if (v->op != op)
            continue;
        any_forced = 1;
        if (midint_variant_serves(v, op, be, n) && !(v->refuses_moduli & moduli & MIDINT_MODULI_EVEN)) {
            *out = v;
            return MIDINT_OK;
        }
    }
    if (any_forced)
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "no forced %s variant serves %u bits%s (a variant serves "
                           "sizes up to its own)", midint_op_name(op), 32u * n,
                           moduli & MIDINT_MODULI_EVEN ? " with an even modulus (some take odd ones only)" : "");
    const midint_variant *tuned = midint_tuning_lookup(ctx, op, n, count);
    if (tuned && !refuses(tuned, moduli, n)) {
        *out = tuned;
        return MIDINT_OK;
    }

    const default_rule *rule = rule_of(op);
    int want_ntt = rule->ntt_above_bits && 32u * (uint64_t)n > rule->ntt_above_bits;
    int want_grid = 32u * (uint64_t)n >= rule->grid_from_bits && count < rule->grid_below_count;
    int want_lanes = 32u * (uint64_t)n <= rule->lanes_upto_bits && count >= rule->lanes_from_count &&
                     (!rule->lanes_below_count || count < rule->lanes_below_count);
    /* every kind once, in order of preference: the wanted ones first, so whatever serves the size is found */
    variant_kind order[KIND_LANES + 1];
    int k = 0;
    if (want_grid)
        order[k++] = KIND_GRID;
    if (want_lanes)
        order[k++] = KIND_LANES;
    order[k++] = want_ntt ? KIND_NTT : KIND_CLASSICAL;
    order[k++] = want_ntt ? KIND_CLASSICAL : KIND_NTT;
    if (!want_grid)
        order[k++] = KIND_GRID;
    if (!want_lanes)
        order[k++] = KIND_LANES;
    const midint_variant *best = NULL;
    for (int i = 0; i < k && !best; i++)
        best = default_choice(ctx, op, n, count, moduli, order[i]);
    if (!best)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "no %s %s variant serves %u bits on this device%s%.300s%s",
                           ctx->ops->name, midint_op_name(op), 32u * n,
                           ctx->refusal[0] ? " (the last it turned down: " : "", ctx->refusal,
                           ctx->refusal[0] ? ")" : "");
    *out = best;
    return MIDINT_OK;
}

/* ---- mulmod composed (ops.c's run_composed runs it) ---- */

/* Where mulmod and mulmod_shared run as mul then mod, per backend and operation (bits, inclusive). CUDA, H100:
 * per-instance mulmod at 2^25 words an operand, the one kernel against the two, in tuning/RESULTS.md (fifteenth
 * session). CUDA, H200: mulmod_shared's own kernels above 1024 bits (a thread per instance; Montgomery's product on
 * integer lanes for odd moduli at 2048 and 4096 bits) ran 1.2 to 20 times slower than mul then mod (thirty-seventh
 * session: 1536 bits 23.7 against 4.5 ms, 2048 odd 4.96 / even 33.5 against 4.1, 4096 odd 9.8 / even 122 against
 * 7.0, 8192 246 against 12.4). OpenCL keeps the one kernel (its mod has no lanes form); tests reach the composition
 * there through the hook MIDINT_TEST_COMPOSED. */
static const struct {
    midint_backend backend;
    midint_op op;
    unsigned min_bits, max_bits;
} COMPOSED[] = {
    {MIDINT_BACKEND_CUDA, MIDINT_OP_MULMOD, 1024, 32768},
    {MIDINT_BACKEND_CUDA, MIDINT_OP_MULMOD_SHARED, 1056, 32768},
};

size_t midint_composed_bytes(midint_op op, unsigned bits, size_t count)
{
    return (size_t)bits / 32u * (op == MIDINT_OP_MULMOD_SHARED ? 3u : 2u) * 4u * count;
}

/* A variant of op is forced: that one runs, never a composition. */
static int op_forced(const midint_context *ctx, midint_op op)
{
    for (size_t i = 0; i < ctx->nforced; i++)
        if (ctx->forced[i]->op == op)
            return 1;
    return 0;
}

unsigned midint_mulmod_fdiv_min_bits(const midint_context *ctx, unsigned bits)
{
    for (unsigned i = 0; i < ctx->mulmod_fdiv_count; i++)
        if (ctx->mulmod_fdiv[i][0] == bits)
            return ctx->mulmod_fdiv[i][1];
    return 0;
}

int midint_composed_applies(const midint_context *ctx, midint_op op, unsigned bits, size_t count, unsigned moduli)
{
    if ((op != MIDINT_OP_MULMOD && op != MIDINT_OP_MULMOD_SHARED) ||
        midint_composed_bytes(op, bits, count) > midint_workspace_cap(ctx) || ctx->max_bits[MIDINT_OP_MUL] < bits ||
        ctx->max_bits[MIDINT_OP_MOD] < bits || op_forced(ctx, op))
        return 0;
    if (ctx->hooks.composed)
        return 1;
    if (op == MIDINT_OP_MULMOD && !(moduli & MIDINT_MODULI_NARROW) && midint_mulmod_fdiv_min_bits(ctx, bits))
        return 0;   /* every modulus wide: the kernel's FP64 division beats mul then mod (H200, 2^22 instances
                     * of 1024 bits: 1.75 against 2.82 ms) */
    for (size_t i = 0; i < sizeof COMPOSED / sizeof COMPOSED[0]; i++)
        if (COMPOSED[i].backend == ctx->ops->id && COMPOSED[i].op == op && bits >= COMPOSED[i].min_bits &&
            bits <= COMPOSED[i].max_bits)
            return 1;
    return 0;
}

int midint_bigdiv_applies(const midint_context *ctx, midint_op op, unsigned bits, unsigned own_max)
{
    if ((op != MIDINT_OP_DIVREM && op != MIDINT_OP_MOD) || bits < 64 || bits > ctx->bigdiv_max_bits ||
        op_forced(ctx, op))
        return 0;
    return ctx->hooks.bigdiv_base || bits > own_max;
}

const char *midint_selected_variant_for(midint_context *ctx, midint_op op, unsigned bits, size_t count,
                                        unsigned moduli)
{
    if (!ctx) {
        midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_selected_variant: ctx is NULL");
        return NULL;
    }
    if (count == 0) {
        midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "midint_selected_variant: count is 0");
        return NULL;
    }
    if (bits == 0 || bits % 32) {
        midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "bits must be a positive multiple of 32 (got %u)", bits);
        return NULL;
    }
    if ((unsigned)op >= MIDINT_OP_COUNT_) {
        midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "unknown operation %d", (int)op);
        return NULL;
    }
    if (midint_composed_applies(ctx, op, bits, count, moduli))
        return MIDINT_COMPOSED_NAME;
    if (midint_bigdiv_applies(ctx, op, bits, ctx->kernel_max_bits[op]))
        return MIDINT_BIGDIV_NAME;
    const midint_variant *v = NULL;
    return midint_dispatch(ctx, op, bits / 32, count, moduli, &v) == MIDINT_OK ? v->name : NULL;
}

const char *midint_selected_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count)
{
    return midint_selected_variant_for(ctx, op, bits, count, 0);
}
