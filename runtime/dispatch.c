/* dispatch.c — which variant runs a call: forced by name, else the built-in default rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"

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
    /* Test hook for the tuner's tests: a variant named here returns a wrong word, as a broken kernel would. */
    const char *bad = getenv("MIDINT_TEST_CORRUPT");
    ctx->corrupt = bad && *bad ? midint_registry_find(bad) : NULL;
    /* Test hook "LOG,ROWS": grid NTT transforms of at least 2^LOG points, in rows of 2^ROWS (0: the default
     * split), so that every row and column kernel runs at sizes a CPU test can afford. */
    const char *split = getenv("MIDINT_TEST_NTT_SPLIT");
    if (split && *split && sscanf(split, "%u,%u", &ctx->test_ntt_log, &ctx->test_ntt_rows) != 2)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "MIDINT_TEST_NTT_SPLIT is '%.40s'; expected LOG,ROWS",
                           split);
    /* Test hook W: additions-only expressions over several blocks cut instances into tiles of W words (a multiple
     * of the variant's words per thread, at most its tile), so that CPU tests cross many tiles (plan.c). */
    const char *tw = getenv("MIDINT_TEST_TILE_WORDS");
    if (tw && *tw && (sscanf(tw, "%u", &ctx->test_tile_words) != 1 || ctx->test_tile_words == 0))
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "MIDINT_TEST_TILE_WORDS is '%.40s'; expected a positive "
                           "number of words", tw);
    /* Test hook: expressions run step by step as separate calls (expr_steps.c) at every size where they can, not
     * only above their fused kernels' sizes, so that CPU tests run the step path at sizes they afford. */
    const char *steps = getenv("MIDINT_TEST_EXPR_STEPS");
    ctx->test_expr_steps = steps && *steps && strcmp(steps, "0") != 0;
    /* Test hook N: chunk N (from 1) of every host call fails as a device failure would, mid-pipeline. */
    const char *fail = getenv("MIDINT_TEST_FAIL_CHUNK");
    ctx->test_fail_chunk = fail && *fail ? strtoull(fail, NULL, 10) : 0;
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
 * First the family: grid variants (an instance spread over many blocks) where no one-block variant serves the
 * size, and for small batches of large instances (grid_from_bits, grid_below_count). Then the algorithm: NTT
 * variants above an operation's crossover size, classical ones at or below it (when the device can run none
 * of the preferred kind, the other). Among those that serve the call, take the
 * variants of the smallest generated size (fewest idle threads), then the lowest cost below: distance (in
 * doublings) from the preferred words (NTT: elements) per thread and threads per block, a limb-type
 * preference, and the fraction of threads left idle at this size.
 * The preferences are data, set from measurements (docs/dispatch.md, tuning/RESULTS.md): for add/sub on
 * an H200 every variant with 16 words per thread ran within 1.5% of the best at each size 2^9..2^18 and
 * u32 limbs beat u64 at 2^18 bits; for the multiplications regions of 8 u64 limbs in 128-thread blocks
 * were fastest or within 8% at every size; NTT multiplication overtook classical at 4096 bits (mul) and
 * 8192 bits (mullo), with 16 elements per thread fastest or within 4%. */
typedef struct default_rule {
    double chunk_words;    /* preferred words per thread */
    double block;          /* preferred threads per block */
    double limb_words;     /* preferred limb (1: u32, 2: u64) */
    double w_chunk, w_block, w_limb, w_idle;
    uint32_t ntt_above_bits; /* NTT variants above this size, classical at or below; 0: never NTT */
    double ntt_q;            /* preferred transform elements per thread */
    double ntt_block, w_ntt_block; /* and the cost per doubling of threads per block beyond ntt_block */
    /* Grid variants (an instance over many blocks) serve where no one-block variant does, and from grid_from_bits
     * up also batches of fewer than grid_below_count instances (0: never), which one-block kernels would run on
     * a few SMs. Among them: preferred words (NTT: points) per thread and threads per tile block. */
    uint32_t grid_from_bits;
    uint64_t grid_below_count;
    double grid_q, grid_block;
    /* Register-resident variants (an instance on lanes of one warp) up to lanes_upto_bits (0: never) for batches
     * of at least lanes_from_count instances; among them the preferred words per lane and fewest lanes. */
    uint32_t lanes_upto_bits;
    uint64_t lanes_from_count;
    double lanes_q, lanes_min;
    uint32_t lanes_across; /* 1: prefer lanes across warps (_xL) where a size has them, 0: lanes of one warp, 2: the
                            * balanced low half (_oL) */
    /* Karatsuba levels preferred among the lanes variants (_kK); 0: the plain pipeline. 0 for every operation
     * until the _k1 variants are measured (the tuned table picks them where they win). */
    uint32_t lanes_karatsuba;
    /* And only for batches of fewer than this many instances (0: no bound): where the register-resident kernels win
     * by leaving out the block kernel's staging and scan rather than by their arithmetic (add and sub). */
    uint64_t lanes_below_count;
    /* A staged thread per instance (_t1) before every other lanes kind, where a size has one, for batches of at least
     * this many instances (0: never) and run-time sizes of at least 3/4 of its own (below, its words pass through
     * shared memory one by one) */
    uint64_t lanes_staged_from;
} default_rule;

static const default_rule default_rules[MIDINT_OP_COUNT_] = {
    /* add/sub: the grid from 2^19 bits at every count (H200, 2^27 words: 4.25 TB/s against 3.29 for the one-block
     * kernel, whose 1024 threads hold one instance per block; at 4 instances 10.2 against 11.0 us).
     * The register-resident add/sub (ADDSUB_LANES, _wL) for batches below 2048 instances up to 16384 bits: there the
     * tuner (H200, batches of 4 and 512) took it at every size, 1.06-1.31x the one-block kernel (4 to 16 words per lane;
     * 32768 bits: 1.04-1.07x); at 16384 instances it still won up to 4096 bits (1.18-1.44x) but not at
     * 8192 or 16384, and full batches run at the copy rate either way (within 1-3%), so the one-block kernel keeps
     * them. Among lanes variants 4 words per lane (the most lanes), any number of lanes. */
    [MIDINT_OP_ADD] = {16, 256, 1, 2.0, 1.0, 1.0, 4.0, 0, 0, 0, 0, 524288, UINT64_MAX, 8, 256, 16384, 0, 4, 1, 0, 0, 2048},
    [MIDINT_OP_SUB] = {16, 256, 1, 2.0, 1.0, 1.0, 4.0, 0, 0, 0, 0, 524288, UINT64_MAX, 8, 256, 16384, 0, 4, 1, 0, 0, 2048},
    /* multiplication: regions of 8 u64 limbs (Q = 8 for mul, 16 for mullo) in 128-thread blocks.
     * The crossover: H200, million instances/s, mul at 4096 bits: NTT 171.6, classical 128.3; mullo at 8192
     * bits: NTT 100.9, classical 86.2 (at 4096: classical 335, NTT 225). An NTT variant costs the same at
     * every size it serves while classical cost falls with the square of the size, so below the generated
     * size classical still wins down to 4096 sqrt(128.3/171.6) = 3542 bits (mul) and 8192 sqrt(86.2/100.9)
     * = 7572 bits (mullo). NTT: 16 elements per thread were fastest at every size but 131072 bits, where that
     * makes 512-thread blocks and 32 elements (256 threads) ran 14-17% faster; at 262144 bits the two are
     * within 3% (1024 and 512 threads).
     * Register-resident (lanes) variants, H200, 2^27 words, M instances/s against the best other family: mul
     * 11241 / 5784 / 1620 / 406 / 98 at 512..8192 bits (classical 5675 / 1798 / 482 / 128 / 33, NTT 172 at 4096
     * and 85 at 8192), NTT ahead at 16384 (38); mullo 21521 / 8285 / 2280 / 529 / 118 at 512..8192 (classical
     * 11707 / 3789 / 1241 / 335 / 86, NTT 113 at 8192), lanes across warps ahead of lanes of one warp from 2048
     * bits (2280 against 1993, 529 against 471). 16 words per lane were best everywhere but at 512 bits, where
     * one lane per instance ran at 71% (mul) and 95% (mullo) of two lanes of 8 words.
     * mullo's balanced low half (_oL: blocks summed by their owner warps, 32 instances a group) ran 19487 / 8548 /
     * 2484 / 758 / 207 at 512..8192 bits against the best other lanes mullo 21370 / 8197 / 2265 / 528 / 118 (H200,
     * 2^27 words), Q = 16 and one group per block best from 1024 bits: the rule prefers it (lanes_across 2) at every
     * size, 9% slow at 512 bits.
     * A staged thread per instance (_t1, operands and results through a transposition in shared memory; 512 bits
     * for both, 1024 for mullo) ran ahead of every other family where it exists (H200, 2^27 words, M instances/s):
     * mul 512 14518 against _w2's 11243, mullo 512 22440 against 21657, mullo 1024 9993 against _w2's 8278 and _o2's
     * 8187 (re-measured: 15575 and 9490 with the re-tuned table): the rule prefers it from 16384 instances
     * (lanes_staged_from; at 4 and 512 instances it ran 1.08-1.35x slower than the tuner's choice, at 16384 it was the
     * choice) and from 3/4 of its size (mullo at 992 bits 1.69x _w2's rate, at 544 bits 0.75x: its words staged one by
     * one). */
    [MIDINT_OP_MUL] = {16, 128, 2, 2.0, 1.0, 1.0, 4.0, 3520, 16, 256, 3.0, 65536, 16, 16, 256, 8192, 1, 16, 2, 0, 0, 0, 16384},
    [MIDINT_OP_MULLO] = {32, 128, 2, 2.0, 1.0, 1.0, 4.0, 7552, 16, 256, 3.0, 65536, 16, 16, 256, 8192, 1, 16, 2, 2, 0, 0, 16384},
};

/* Fused expressions (op codes from MIDINT_OP_EXPR0): the shared-memory family keeps one region size and limb per
 * expression (constraint expr_region_size), so the rule weighs the block and idle threads. The register-resident
 * family (EXPR_LANES, _wL) first up to 4096 bits from 16 instances, as for mul and mullo; not yet measured, argued
 * per product: its products run mullo's _wL pipeline (Q^2 IMAD.WIDE per lane and step), plus per step Q shuffles
 * (lane s takes block s) and, beyond 2 lanes, about 4Q moves (the steps as a loop), at most +25% (Q = 8) and +12%
 * (Q = 16) beside the multiply-adds; mullo _wL ran 1.4-2.2x the classical mullo at 512-4096 bits (H200), which the
 * shared-memory family's products are (21521/11707, 8285/3789, 1993/1241, 471/335 M/s), with its barriers and
 * shared-memory traffic besides. At 8192 bits _wL mullo was not measured apart (the best lanes mullo, _xL, ran 118
 * against 86, 1.37x): too close to argue, the tuner decides. Among lanes variants w_chunk 0 leaves ties to the
 * registry's order, Q = 8 first (80 registers for poly against 154 at Q = 16).
 * The balanced low half's family (EXPR_OWNER, _oL, from 1024 bits) then ran poly 1.47 / 1.54 / 1.67 / 2.90x the
 * rule's choice at 1024 / 2048 / 4096 / 8192 bits for 2^20..2^25 words (H200, tune_poly), ahead from 16384 instances
 * (below 2048, _wL): the rule prefers it (lanes_across 2); programs it does not take keep _wL. At 8192 bits the rule
 * still takes the shared-memory family (lanes_upto_bits 4096: six's register family there is not measured), 2.9x
 * slower than _oL for poly: the tuned table covers it. Above 8192 bits products run as transforms (EXPR_NTT, the only
 * family with products there; generated with Q = 16 and 256-thread blocks, the fastest on the H200 at every size).
 * Additions-only expressions over several blocks (EXPR_GRID, _gB) from 2^18 bits at every count: six, H200, 2^27
 * words, counting 3 x operand bytes, ran 4.21 / 4.17 / 4.18 TB/s at 262144 / 524288 / 1048576 bits on 256-thread tiles
 * (4.15-4.17 on 512) against the one-block kernel's 3.80 / 3.30 / 2.14, and 4.20 against 4.29 at 131072; among them 16
 * words per thread (the only ones generated) and 256 threads. */
static const default_rule expr_rule = {16, 128, 2, 0.0, 1.0, 0.0, 4.0, 8192, 16, 256, 3.0, 262144, UINT64_MAX, 16, 256,
                                       4096, 16, 16, 2, 2, 0, 0, 0};

static const default_rule *rule_of(midint_op op)
{
    return (unsigned)op < MIDINT_OP_COUNT_ ? &default_rules[op] : &expr_rule;
}

static double default_cost(const default_rule *rule, const midint_variant *v, uint32_t n, size_t count)
{
    if (v->plan != MIDINT_PLAN_ONE_BLOCK) {
        const midint_kernel *tile = midint_variant_kernel(v, v->ntt_primes ? MIDINT_ROLE_CRT : v->plan ==
                                                          MIDINT_PLAN_EXPR_GRID ? MIDINT_ROLE_EXPR : MIDINT_ROLE_TILE, 0);
        return rule->w_chunk * fabs(log2(v->q / rule->grid_q)) + rule->w_block * fabs(log2(tile->block / rule->grid_block));
    }
    if (v->lanes && v->across == 3 && rule->lanes_staged_from && count >= rule->lanes_staged_from &&
        4u * 32u * (uint64_t)n >= 3u * v->bits)
        return -1.0; /* ahead of every other lanes variant */
    if (v->lanes)
        return rule->w_chunk * fabs(log2(v->q / rule->lanes_q)) + 2.0 * rule->w_chunk * (v->lanes < rule->lanes_min) +
               rule->w_block * (v->across != rule->lanes_across) +
               8.0 * rule->w_chunk * (v->karatsuba != rule->lanes_karatsuba);
    uint32_t ti = midint_variant_threads_per_instance(v, n);
    double idle = (double)(v->block - (v->block / ti) * ti) / v->block;
    if (v->ntt_primes) /* an NTT variant's block holds as few instances as fill it (the generator's choice) */
        return rule->w_chunk * fabs(log2(v->q / rule->ntt_q)) +
               rule->w_ntt_block * fmax(0.0, log2(v->block / rule->ntt_block)) + rule->w_idle * idle;
    double chunk = v->q * v->limb_words;
    return rule->w_chunk * fabs(log2(chunk / rule->chunk_words)) + rule->w_block * fabs(log2(v->block / rule->block)) +
           rule->w_limb * (v->limb_words != rule->limb_words) + rule->w_idle * idle;
}

/* What the default rule chooses between before it compares costs. */
typedef enum variant_kind { KIND_CLASSICAL, KIND_NTT, KIND_GRID, KIND_LANES } variant_kind;

static variant_kind kind_of(const midint_variant *v)
{
    return v->plan != MIDINT_PLAN_ONE_BLOCK ? KIND_GRID : v->lanes ? KIND_LANES : v->ntt_primes ? KIND_NTT
                                                                                                : KIND_CLASSICAL;
}

/* The default rule's choice among the variants of one kind, or NULL. */
static const midint_variant *default_choice(midint_context *ctx, midint_op op, uint32_t n, size_t count,
                                            variant_kind kind)
{
    const midint_variant *best = NULL;
    double best_cost = 0;
    for (size_t i = 0; i < midint_registry_size; i++) {
        const midint_variant *v = &midint_registry[i];
        if (!midint_variant_serves(v, op, ctx->ops->id, n) || !midint_variant_fits(ctx, v) || kind_of(v) != kind)
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
}

static midint_status dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, const midint_variant **out);

static int is_forced(const midint_context *ctx, const midint_variant *v)
{
    for (size_t i = 0; i < ctx->nforced; i++)
        if (ctx->forced[i] == v)
            return 1;
    return 0;
}

midint_status midint_dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count,
                              const midint_variant **out)
{
    for (unsigned i = 0; i < MIDINT_DISPATCH_MEMO; i++) {
        const midint_dispatch_memo *m = &ctx->memo[i];
        if (m->v && m->op == op && m->n == n && m->count == count) {
            *out = m->v;
            return MIDINT_OK;
        }
    }
    midint_status st = dispatch(ctx, op, n, count, out);
    /* a chosen variant the device turns down once its kernels are built is left out, and the choice made again */
    while (st == MIDINT_OK && ctx->ops->kernels_run && !is_forced(ctx, *out) && !ctx->ops->kernels_run(ctx, *out)) {
        if (!ctx->refused && !(ctx->refused = calloc(midint_registry_size, 1)))
            return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "out of host memory");
        ctx->refused[*out - midint_registry] = 1;   /* midint_variant_fits now says no: each variant at most once */
        snprintf(ctx->refusal, sizeof ctx->refusal, "%s", ctx->msg);
        if ((st = midint_find_max_bits(ctx)) == MIDINT_OK)
            st = dispatch(ctx, op, n, count, out);
    }
    if (st == MIDINT_OK) {
        ctx->memo[ctx->memo_next] = (midint_dispatch_memo){op, n, count, *out};
        ctx->memo_next = (ctx->memo_next + 1) % MIDINT_DISPATCH_MEMO;
    }
    return st;
}

static midint_status dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, const midint_variant **out)
{
    midint_backend be = ctx->ops->id;
    int any_forced = 0;
    for (size_t i = 0; i < ctx->nforced; i++) {
        const midint_variant *v = ctx->forced[i];
        if (v->op != op)
            continue;
        any_forced = 1;
        if (midint_variant_serves(v, op, be, n)) {
            *out = v;
            return MIDINT_OK;
        }
    }
    if (any_forced)
        return midint_fail(ctx, MIDINT_ERR_UNKNOWN_VARIANT, "no forced %s variant serves %u bits (a variant serves "
                           "sizes up to its own)", midint_op_name(op), 32u * n);
    const midint_variant *tuned = midint_tuning_lookup(ctx, op, n, count);
    if (tuned) {
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
        best = default_choice(ctx, op, n, count, order[i]);
    if (!best)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "no %s %s variant serves %u bits on this device%s%.300s%s",
                           ctx->ops->name, midint_op_name(op), 32u * n,
                           ctx->refusal[0] ? " (the last it turned down: " : "", ctx->refusal,
                           ctx->refusal[0] ? ")" : "");
    *out = best;
    return MIDINT_OK;
}

const char *midint_selected_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count)
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
    const midint_variant *v = NULL;
    return midint_dispatch(ctx, op, bits / 32, count, &v) == MIDINT_OK ? v->name : NULL;
}
