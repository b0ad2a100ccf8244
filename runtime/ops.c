/* ops.c — the one call path of every operation and expression: argument checks read from the call's descriptor (the
 * table of operations, generator/ops.py), dispatch, plan, and the device and host runs (the host's pipeline is
 * host_path.c); the generic public calls and the descriptors' accessors. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigdiv.h"
#include "dispatch.h"
#include "expr_steps.h"
#include "host_pipe.h"
#include "kernel_call.h"
#include "modulus.h"
#include "ops.h"
#include "plan.h"

/* Parameters of one call at most: an expression's eight buffers, an operation's buffers and scalars. */
#define MAX_PARAMS MIDINT_PIPE_MAX

/* How a call runs as other operations: mulmod as mul then mod, divrem and mod of large numbers (bigdiv.c). */
enum { COMPOSED_NONE = 0, COMPOSED_MULMOD = 1, COMPOSED_BIGDIV = 2 };

/* One call as the path sees it, checked. */
typedef struct call {
    const midint_op_info *info;
    midint_op op;
    int expr;                      /* the expression's index, or -1 for an operation */
    size_t count;
    unsigned bits;
    uint32_t n;
    void *buf[MAX_PARAMS];         /* per parameter: the caller's buffer (NULL: a scalar, or an optional one left
                                    * out) */
    unsigned scalar[MAX_PARAMS];   /* per parameter: a scalar's value */
    size_t bytes[MAX_PARAMS];      /* per buffer parameter: its bytes for the whole batch */
    midint_mode mode;
    const char *fn;
    unsigned moduli;               /* its modulus objects' MIDINT_MODULI_* traits (check_moduli) */
    uint64_t modulus_serial;       /* its modulus object's serial (check_moduli), 0 for none */
    int composed;                  /* runs as other operations (run_composed), no variant of its own: COMPOSED_* */
} call;

int midint_ranges_overlap(const void *p, size_t pn, const void *q, size_t qn)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return x < y + qn && y < x + pn;
}

const midint_op_info *midint_info_of(midint_op op)
{
    if ((unsigned)op < MIDINT_OP_COUNT_)
        return &midint_op_infos[op];
    if ((unsigned)op - MIDINT_OP_EXPR0 < midint_exprs_count)
        return &midint_expr_infos[op - MIDINT_OP_EXPR0];
    return NULL;
}

static int is_buffer(const midint_param_info *p)
{
    return p->kind != MIDINT_PARAM_SCALAR;
}

/* A buffer of count instances the caller gives (not a scalar, not a modulus object, whose device words the call binds
 * as they are: never copied, checked or overlapped per call). */
static int is_batch(const midint_param_info *p)
{
    return p->kind == MIDINT_PARAM_INPUT || p->kind == MIDINT_PARAM_OUTPUT;
}

/* Words per instance of parameter i in this call: from bits, or from the width scalar it names (abits, ebits). */
static uint64_t words_of(const call *c, unsigned i)
{
    const midint_param_info *p = &c->info->params[i];
    return p->width_scalar >= 0 ? c->scalar[p->width_scalar] / 32u : midint_param_words(p, c->n);
}

/* How parameter i is named in messages: its name, or for an expression "outputs[j] (r)" / "inputs[j] (a)", the
 * index in the array the caller gave. */
static const char *label(const call *c, unsigned i, char *buf, size_t len)
{
    const midint_param_info *p = &c->info->params[i];
    if (c->expr < 0)
        return p->name;
    unsigned nout = 0;
    while (nout < c->info->nparams && c->info->params[nout].kind == MIDINT_PARAM_OUTPUT)
        nout++;
    if (p->kind == MIDINT_PARAM_OUTPUT)
        snprintf(buf, len, "outputs[%u] (%s)", i, p->name);
    else
        snprintf(buf, len, "inputs[%u] (%s)", i - nout, p->name);
    return buf;
}

/* The largest size this context runs op at: an operation's (registry.c, at open), an expression's fused or steps. */
static unsigned max_bits_of(midint_context *ctx, const call *c)
{
    if (c->expr < 0)
        return ctx->max_bits[c->op];
    midint_expr_limits l = midint_expr_limits_of(ctx, (size_t)c->expr);
    return l.fused > l.steps ? l.fused : l.steps;
}

static midint_status check_bits(midint_context *ctx, const call *c)
{
    if (c->count == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count is 0 (a batch holds at least one instance)",
                           c->fn);
    if (c->bits == 0 || c->bits % 32)
        return midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "%s: bits is %u; it must be a positive multiple of 32", c->fn,
                           c->bits);
    unsigned max = max_bits_of(ctx, c);
    if (c->bits > max) {
        if (c->expr >= 0) {
            midint_expr_limits l = midint_expr_limits_of(ctx, (size_t)c->expr);
            if (midint_expr_modular(&midint_exprs[c->expr])) /* E mod m: fused kernels only */
                return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest size of expression "
                                   "'%s' on the %s backend is %u (its fused kernels' largest; its modular steps, E mod "
                                   "m, have no step-by-step path; make gen SIZES=...)", c->fn, c->bits, c->info->name,
                                   ctx->ops->name, max);
            return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest size of expression '%s' on "
                               "the %s backend is %u (fused kernels up to %u bits, then its steps as separate calls as "
                               "far as their operations go; make gen SIZES=...)", c->fn, c->bits, c->info->name,
                               ctx->ops->name, max, l.fused);
        }
        if (ctx->refusal[0]) /* the device turned variants down (dispatch.c): say which, not a size of 0 */
            return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: no %s %s variant serves %u bits on this device "
                               "(the last it turned down: %.300s)", c->fn, ctx->ops->name, c->info->name, c->bits,
                               ctx->refusal);
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest %s size generated for the %s "
                           "backend is %u (make gen SIZES=...)", c->fn, c->bits, c->info->name, ctx->ops->name, max);
    }
    uint64_t most = 1;
    for (unsigned i = 0; i < c->info->nparams; i++)
        if (is_buffer(&c->info->params[i]) && words_of(c, i) > most)
            most = words_of(c, i);
    if (c->count > SIZE_MAX / 4 / most || c->count > (size_t)UINT32_MAX * 1024u)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count %zu is too large", c->fn, c->count);
    return MIDINT_OK;
}

/* Outputs may not overlap any other buffer, except by being exactly an input their descriptor allows (in place: a
 * kernel reads an instance's inputs before it writes its outputs). Inputs may overlap each other freely. OpenCL
 * buffer handles show only identity. */
static midint_status check_overlaps(midint_context *ctx, const call *c, int identity_only)
{
    char b1[64], b2[64];
    for (unsigned j = 0; j < c->info->nparams; j++) {
        const midint_param_info *pj = &c->info->params[j];
        if (pj->kind != MIDINT_PARAM_OUTPUT || !c->buf[j])
            continue;
        for (unsigned i = 0; i < c->info->nparams; i++) {
            const midint_param_info *pi = &c->info->params[i];
            if (i == j || !is_batch(pi) || !c->buf[i] || (pi->kind == MIDINT_PARAM_OUTPUT && i < j))
                continue;
            int same = c->buf[i] == c->buf[j];
            int overlap = identity_only ? same : midint_ranges_overlap(c->buf[j], c->bytes[j], c->buf[i], c->bytes[i]);
            int allowed = same && (pj->in_place >> i & 1u);
            if (!overlap || allowed)
                continue;
            /* of two outputs, the narrower one is named first ("carry overlaps r"): it is the one placed wrongly */
            int flip = pi->kind == MIDINT_PARAM_OUTPUT && pi->words_per_n < pj->words_per_n;
            const char *on = label(c, flip ? i : j, b1, sizeof b1), *in = label(c, flip ? j : i, b2, sizeof b2);
            if (pj->in_place >> i & 1u) /* allowed exactly, not partly */
                return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps %s without being the same buffer (only "
                                   "exact in-place use is supported)", c->fn, on, in);
            if (pi->kind == MIDINT_PARAM_INPUT && pj->words_per_n > 1 && pi->words_per_n)
                return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps %s (%s: an output of twice the width "
                                   "cannot be written in place)", c->fn, on, in, c->info->name);
            if (pi->kind == MIDINT_PARAM_INPUT && pj->words_per_n && pi->words_per_n)
                return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps %s (%s cannot work in place%s)", c->fn,
                                   on, in, c->info->name, same ? "" : " on partly shared memory");
            return midint_fail(ctx, MIDINT_ERR_OVERLAP, "%s: %s overlaps %s%s", c->fn, on, in,
                               same ? " (it is the same buffer)" : "");
        }
    }
    return MIDINT_OK;
}

/* Scalars and per-instance counts that must be below bits (shift counts): the scalars, then the buffers' words, on
 * host memory now (the asynchronous calls: when the call is made), on device buffers after waiting for the stream.
 * Nothing has been written when this fails. */
static midint_status check_values(midint_context *ctx, const call *c, void *stream)
{
    char b1[64];
    for (unsigned i = 0; i < c->info->nparams; i++) {
        const midint_param_info *p = &c->info->params[i];
        if (!p->below_bits)
            continue;
        if (p->kind == MIDINT_PARAM_SCALAR) {
            int used = 1; /* a scalar that only falls back for a buffer given is not used */
            for (unsigned k = 0; k < c->info->nparams; k++)
                if (c->info->params[k].fallback == (int)i && c->buf[k])
                    used = 0;
            if (used && c->scalar[i] >= c->bits)
                return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is %u; it must be below bits (%u)", c->fn,
                                   p->name, c->scalar[i], c->bits);
            continue;
        }
        if (!c->buf[i] || p->words_per_n || p->words_fixed != 1)
            continue;
        const uint32_t *w = c->buf[i];
        uint32_t *copy = NULL;
        if (c->mode == MIDINT_MODE_DEVICE) {
            midint_status st;
            if (!(copy = malloc(c->bytes[i])))
                return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
            if ((st = ctx->ops->synchronize(ctx, stream)) != MIDINT_OK ||
                (st = ctx->ops->download(ctx, copy, c->buf[i], c->bytes[i])) != MIDINT_OK) {
                free(copy);
                return midint_fail(ctx, st, "%s: reading %s to check it: %s", c->fn, label(c, i, b1, sizeof b1),
                                   ctx->msg);
            }
            w = copy;
        }
        size_t bad = c->count;
        for (size_t k = 0; k < c->count && bad == c->count; k++)
            if (w[k] >= c->bits)
                bad = k;
        uint32_t value = bad < c->count ? w[bad] : 0;
        free(copy);
        if (bad < c->count)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT,
                               "%s: %s[%zu] is %u; every value must be below bits (%u)", c->fn,
                               label(c, i, b1, sizeof b1), bad, value, c->bits);
    }
    return MIDINT_OK;
}

/* Scalars with rules: widths in bits (a positive multiple of 32 within their bound) and flags. Before the buffers'
 * sizes, which the widths give. */
static midint_status check_scalars(midint_context *ctx, const call *c)
{
    for (unsigned i = 0; i < c->info->nparams; i++) {
        const midint_param_info *p = &c->info->params[i];
        unsigned v = c->scalar[i];
        if (p->kind != MIDINT_PARAM_SCALAR)
            continue;
        if (p->rules & MIDINT_RULE_WIDTH) {
            /* bounded by bits (a dividend of twice the divisor's), else by MIDINT_MAX_WIDTH_BITS (an exponent's) */
            uint64_t bound = p->max_per_n ? (uint64_t)p->max_per_n * c->bits : MIDINT_MAX_WIDTH_BITS;
            unsigned most = bound < UINT32_MAX ? (unsigned)bound : UINT32_MAX / 32u * 32u;
            if (v == 0 || v % 32 || v > most)
                return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is %u; it must be a positive multiple of "
                                   "32 and at most %u (%s)", c->fn, p->name, v, most,
                                   p->max_per_n == 2 ? "twice bits" : p->max_per_n ? "a multiple of bits"
                                                                                   : "MIDINT_MAX_WIDTH_BITS");
        }
        if ((p->rules & MIDINT_RULE_FLAG) && v > 1)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is %u; it must be 0 or 1", c->fn, p->name, v);
    }
    return MIDINT_OK;
}

/* The first instance of buffer i that breaks its rule (c->count when none): on host memory by a scan; on the
 * device by the check kernel (templates/kernel_check.j2), at most 2^31 instances per launch, each launch's answer one
 * word read back after waiting for the stream, so a device call moves 4 bytes to the host, not the buffer. Where
 * `narrow` is given, it is also set where some instance's top word has no bit from top_shift up (and left alone
 * otherwise): the device's answer then has a second word. */
static midint_status first_bad_instance(midint_context *ctx, const call *c, unsigned i, void *stream, size_t *bad,
                                        unsigned top_shift, int *narrow)
{
    const midint_param_info *p = &c->info->params[i];
    size_t words = (size_t)words_of(c, i);
    *bad = c->count;
    if (c->mode != MIDINT_MODE_DEVICE) {
        const uint32_t *w = c->buf[i];
        for (size_t k = 0; k < c->count && *bad == c->count; k++) {
            const uint32_t *x = w + k * words;
            uint32_t any = 0;
            for (size_t j = 0; j < words && !any; j++)
                any |= x[j];
            if (!any || ((p->rules & MIDINT_RULE_ODD) && !(x[0] & 1u)))
                *bad = k;
            if (narrow && !(x[words - 1] >> top_shift))
                *narrow = 1;
        }
        return MIDINT_OK;
    }
    const midint_kernel *k = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_CHECK);
    midint_status st = MIDINT_OK;
    if (!k)
        return midint_fail(ctx, MIDINT_ERR_DEVICE, "no check kernel for the %s backend (make gen)", ctx->ops->name);
    if (!ctx->check_flag && (st = ctx->ops->alloc(ctx, 8, &ctx->check_flag)) != MIDINT_OK)
        return st;
    const size_t step = (size_t)1 << 31;
    for (size_t first = 0; first < c->count && *bad == c->count && st == MIDINT_OK; first += step) {
        size_t m = c->count - first < step ? c->count - first : step;
        uint32_t flag[2] = {UINT32_MAX, 1u};   /* the first bad instance; 0 in the second where one is narrow */
        midint_launch l;
        memset(&l, 0, sizeof l);
        l.r = ctx->check_flag;
        l.a = c->buf[i];
        l.count = first + m;
        l.inst0 = first;
        l.n = (uint32_t)words;
        l.x0 = (p->rules & MIDINT_RULE_ODD ? 2u : 1u) | (narrow ? 4u : 0u);
        l.x1 = top_shift;
        l.grid = (m + k->block - 1) / k->block;
        /* the kernel runs on the call's stream, after the stream's writes to the buffer: no wait before it */
        if ((st = ctx->ops->upload(ctx, ctx->check_flag, flag, 8)) == MIDINT_OK &&
            (st = ctx->ops->launch(ctx, k, &l, stream)) == MIDINT_OK &&
            (st = ctx->ops->synchronize(ctx, stream)) == MIDINT_OK &&
            (st = ctx->ops->download(ctx, flag, ctx->check_flag, 8)) == MIDINT_OK) {
            if (flag[0] != UINT32_MAX)
                *bad = first + flag[0];
            if (narrow && !flag[1])
                *narrow = 1;
        }
    }
    return st;
}

/* Buffers whose every instance must be nonzero or odd (divisors, moduli). The message names the first bad instance;
 * nothing has been written. mulmod's moduli also give the call's MIDINT_MODULI_NARROW trait (dispatch.h), which
 * decides between its kernel and mul then mod. */
static midint_status check_instances(midint_context *ctx, call *c, void *stream)
{
    char b1[64];
    for (unsigned i = 0; i < c->info->nparams; i++) {
        const midint_param_info *p = &c->info->params[i];
        if (!is_batch(p) || !c->buf[i] || !(p->rules & (MIDINT_RULE_NONZERO | MIDINT_RULE_ODD)))
            continue;
        size_t bad;
        /* mulmod's moduli: which are below the least its kernel's FP64 division takes, 2^wide (its top word's
         * bits from top_shift up all zero) */
        unsigned wide = c->op == MIDINT_OP_MULMOD ? midint_mulmod_fdiv_min_bits(ctx, c->bits) : 0u;
        int narrow = 0;
        midint_status st = first_bad_instance(ctx, c, i, stream, &bad, wide ? wide - 32u * (c->n - 1u) : 0u,
                                              wide ? &narrow : NULL);
        if (narrow)
            c->moduli |= MIDINT_MODULI_NARROW;
        if (st != MIDINT_OK)
            return midint_fail(ctx, st, "%s: checking %s: %s", c->fn, label(c, i, b1, sizeof b1), ctx->msg);
        if (bad == c->count)
            continue;
        /* what the bad instance is (zero, or even): on the device, read just it */
        size_t words = (size_t)words_of(c, i);
        uint32_t any = 0, *x = malloc(words * 4);
        if (!x)
            return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
        if (c->mode == MIDINT_MODE_DEVICE) {
            if ((st = ctx->ops->download_async(ctx, x, c->buf[i], bad * words * 4, words * 4, stream)) != MIDINT_OK ||
                (st = ctx->ops->synchronize(ctx, stream)) != MIDINT_OK) {
                free(x);
                return midint_fail(ctx, st, "%s: reading %s: %s", c->fn, label(c, i, b1, sizeof b1), ctx->msg);
            }
        } else {
            memcpy(x, (const uint32_t *)c->buf[i] + bad * words, words * 4);
        }
        for (size_t j = 0; j < words; j++)
            any |= x[j];
        free(x);
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s[%zu] is %s; every %s must be %s", c->fn,
                           label(c, i, b1, sizeof b1), bad, any ? "even" : "zero", p->name,
                           p->rules & MIDINT_RULE_ODD ? "odd" : "nonzero");
    }
    return MIDINT_OK;
}

/* Modulus objects (midint_modulus_create): made on this context for exactly the call's bits, odd where the row says
 * (m >= 1 was checked when it was made). Each is then replaced by its device words, which the kernels read. */
static midint_status check_moduli(midint_context *ctx, call *c)
{
    int any = 0, all_f52 = 1;
    for (unsigned i = 0; i < c->info->nparams; i++) {
        const midint_param_info *p = &c->info->params[i];
        const midint_modulus *m = c->buf[i];
        if (p->kind != MIDINT_PARAM_MODULUS)
            continue;
        if (m->ctx != ctx)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s was made on another context", c->fn, p->name);
        if (m->bits != c->bits)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s was made for %u bits; this call has bits %u "
                               "(a modulus serves calls of its own size)", c->fn, p->name, m->bits, c->bits);
        if ((p->rules & MIDINT_RULE_ODD) && !m->odd)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s is even; %s needs an odd modulus", c->fn,
                               p->name, c->info->name);
        c->moduli |= m->odd ? 0u : MIDINT_MODULI_EVEN;
        any = 1;
        all_f52 &= m->f52;
        c->modulus_serial = m->serial;
        c->buf[i] = m->dev;
    }
    c->moduli |= any && all_f52 ? MIDINT_MODULI_F52 : 0u;
    return MIDINT_OK;
}

/* Check a call completely; nothing is touched when this fails. */
static midint_status check_call(midint_context *ctx, call *c, void *stream)
{
    char b1[64];
    const midint_op_info *d = c->info;
    for (unsigned i = 0; i < d->nparams; i++)
        if (is_buffer(&d->params[i]) && !c->buf[i] && !d->params[i].optional)
            return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", c->fn, label(c, i, b1, sizeof b1));
    /* bits first (the widths' bounds are multiples of it), then the scalars */
    midint_status st = check_bits(ctx, c);
    if (st != MIDINT_OK || (st = check_scalars(ctx, c)) != MIDINT_OK || (st = check_moduli(ctx, c)) != MIDINT_OK)
        return st;
    for (unsigned i = 0; i < d->nparams; i++)
        c->bytes[i] = is_batch(&d->params[i]) ? (size_t)(c->count * words_of(c, i) * 4) : 0;
    int device = c->mode == MIDINT_MODE_DEVICE;
    if (device && ctx->ops->buffer_bytes) /* buffer objects know their size: a batch that does not fit is refused */
        for (unsigned i = 0; i < d->nparams; i++) {
            if (!c->buf[i] || !is_batch(&d->params[i]))
                continue;
            size_t have = ctx->ops->buffer_bytes(ctx, c->buf[i]);
            if (have < c->bytes[i])
                return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s holds %zu bytes; %zu instances of %u bits "
                                   "need %zu", c->fn, label(c, i, b1, sizeof b1), have, c->count, c->bits, c->bytes[i]);
        }
    if ((st = check_overlaps(ctx, c, device && ctx->ops->id == MIDINT_BACKEND_OPENCL)) != MIDINT_OK ||
        (st = check_values(ctx, c, stream)) != MIDINT_OK)
        return st;
    return check_instances(ctx, c, stream);
}

/* ---- running a checked call ---- */

static int use_steps(midint_context *ctx, const call *c)
{
    return c->expr >= 0 && midint_expr_uses_steps(ctx, (size_t)c->expr, c->bits);
}

/* The first output's buffer among `bufs`: what the test hook MIDINT_TEST_CORRUPT spoils. */
static void *first_output(const call *c, void *const *bufs)
{
    for (unsigned i = 0; i < c->info->nparams; i++)
        if (c->info->params[i].kind == MIDINT_PARAM_OUTPUT && bufs[i])
            return bufs[i];
    return NULL;
}

/* The result's words per instance: those of the output in slot r (an expression's outputs are in io: n). */
static uint32_t result_words(const call *c)
{
    return midint_result_words(c->info, c->n, c->scalar);
}

/* MIDINT_TEST_CORRUPT: flip a bit of the first result word of the planted variant (device buffer r). */
static midint_status spoil_if_planted(midint_context *ctx, const midint_variant *v, void *r, void *stream)
{
    uint32_t w;
    midint_status st;
    if (v != ctx->hooks.corrupt || !r)
        return MIDINT_OK;
    if ((st = ctx->ops->synchronize(ctx, stream)) != MIDINT_OK || (st = ctx->ops->download(ctx, &w, r, 4)) != MIDINT_OK)
        return st;
    w ^= 1u;
    return ctx->ops->upload(ctx, r, &w, 4);
}

static midint_status dispatch_and_run(midint_context *ctx, call *c, void *stream);

/* The first `row` bytes of the modulus object `mod` (serial `serial`) into each of the first m instances of
 * composed_mods, in copies doubling from one instance (rows of one: OpenCL's overlap test within a buffer). None where
 * they are there from an earlier call of the same object with as many instances or more and the workspace's buffers
 * have not been grown or freed since (context.h; H200: the copies were 3-13% of a call). */
static midint_status copy_modulus(midint_context *ctx, uint64_t serial, void *mod, size_t row, size_t m, void *stream)
{
    void *const d = ctx->composed_mods.buf;
    if (ctx->composed_mods_epoch == ctx->replay_epoch && serial == ctx->composed_mods_serial &&
        m <= ctx->composed_mods_count)
        return MIDINT_OK;
    ctx->composed_mods_count = 0; /* until the copies are enqueued */
    midint_status st = ctx->ops->copy_rect(ctx, d, 0, row, mod, 0, row, row, 1, stream);
    for (size_t k = 1; st == MIDINT_OK && k < m; k *= 2) /* instances [k, 2k) from [0, k) */
        st = ctx->ops->copy_rect(ctx, d, k * row, row, d, 0, row, row, k < m - k ? k : m - k, stream);
    if (st == MIDINT_OK) {
        ctx->composed_mods_epoch = ctx->replay_epoch;
        ctx->composed_mods_serial = serial;
        ctx->composed_mods_count = m;
    }
    return st;
}

/* A checked call that runs as other operations: divrem and mod of large numbers (bigdiv.c, where
 * midint_bigdiv_applies), or mulmod and mulmod_shared as two calls where dispatch composes them
 * (midint_composed_applies): the full product (mul) into the context's composed_tmp, 2 n words per instance, then its
 * remainder (mod, a 2 bits dividend) into r. There the two operations' kernels (lanes) beat mulmod's thread per
 * instance, which holds a, b, the product and the quotient and runs out of registers. bufs: r, a, b, m; mulmod_shared's
 * m is its modulus object, copied to every instance of composed_mods for mod's per-instance divisors (copy_modulus).
 * The temporaries are shared by the host path's streams: one use at a time, under the workspace fence, which also
 * orders the copies before a later call's reads. */
static midint_status run_composed(midint_context *ctx, const call *c, size_t m, void *const *bufs, void *stream)
{
    const unsigned bits = c->bits;
    if (c->composed == COMPOSED_BIGDIV) /* the dividend's width: the row's one scalar */
        for (unsigned i = 0; i < c->info->nparams; i++)
            if (c->info->params[i].kind == MIDINT_PARAM_SCALAR)
                return midint_bigdiv_run(ctx, c->op, bits, c->scalar[i], m, bufs, stream);
    const int shared = c->op == MIDINT_OP_MULMOD_SHARED;
    const size_t row = (size_t)bits / 8u; /* one instance's modulus, bytes */
    midint_status st =
        midint_workspace_grow(ctx, &ctx->composed_tmp, midint_composed_bytes(MIDINT_OP_MULMOD, bits, m));
    if (st == MIDINT_OK && shared)
        st = midint_workspace_grow(ctx, &ctx->composed_mods, row * m);
    if (st == MIDINT_OK)
        st = ctx->ops->fence_wait(ctx, stream, MIDINT_FENCE_WS);
    void *const d = shared ? ctx->composed_mods.buf : bufs[3];
    if (st == MIDINT_OK && shared)
        st = copy_modulus(ctx, c->modulus_serial, bufs[3], row, m, stream);
    if (st != MIDINT_OK)
        return st;
    void *t = ctx->composed_tmp.buf;
    void *const mul[] = {t, bufs[1], bufs[2]}; /* t = a b: r may be a or b, both read here first */
    void *const mod[] = {bufs[0], t, d};       /* r = t mod m: r may be m (mod's own in-place case) */
    const unsigned abits[] = {2u * bits};
    if ((st = midint_op_inner(ctx, MIDINT_OP_MUL, m, bits, mul, NULL, stream)) == MIDINT_OK)
        st = midint_op_inner(ctx, MIDINT_OP_MOD, m, bits, mod, abits, stream);
    midint_status marked = ctx->ops->fence_mark(ctx, MIDINT_FENCE_WS, stream);
    return st != MIDINT_OK ? st : marked;
}

/* Enqueue `m` instances of the call on buffers `bufs` (device handles, one per parameter): the plan of v, or the
 * expression's steps, or the composed operation's two calls. */
static midint_status enqueue(midint_context *ctx, const call *c, const midint_variant *v, midint_plan *plan,
                             void *const *bufs, size_t m, int vec, void *stream)
{
    if (!v)
        return c->composed ? run_composed(ctx, c, m, bufs, stream)
                           : midint_expr_steps_run(ctx, &midint_exprs[c->expr], c->bits, m, bufs, stream);
    midint_launch l;
    midint_bind(c->info, bufs, c->scalar, &l);
    plan->count = m;
    if (plan->group > m)
        plan->group = m;
    midint_status st = midint_plan_run(ctx, plan, &l, vec, stream);
    return st != MIDINT_OK ? st : spoil_if_planted(ctx, v, first_output(c, bufs), stream);
}

/* Whether 16-byte accesses are safe: n a multiple of 4 and every buffer of n-word instances 16-byte aligned. */
static int vector_ok(midint_context *ctx, const call *c, void *const *bufs)
{
    int vec = c->n % 4 == 0;
    for (unsigned i = 0; i < c->info->nparams && vec; i++)
        if (bufs[i] && c->info->params[i].words_per_n)
            vec = ctx->ops->aligned16(bufs[i]);
    return vec;
}

static midint_status run_device(midint_context *ctx, const call *c, const midint_variant *v, void *stream)
{
    midint_plan plan;
    midint_status st = v ? midint_plan_make(ctx, v, c->n, result_words(c), c->count, &plan) : MIDINT_OK;
    if (st == MIDINT_OK)
        st = enqueue(ctx, c, v, &plan, c->buf, c->count, vector_ok(ctx, c, c->buf), stream);
    return st == MIDINT_OK ? st : midint_fail(ctx, st, "%s: %s", c->fn, ctx->msg);
}

/* The host path: the pipeline's job (inputs, then outputs: the buffers given), a chunk at a time. */
typedef struct host_run {
    const call *c;
    const midint_variant *v;
    midint_plan plan;
    unsigned param[MIDINT_PIPE_MAX];   /* the parameter of each pipeline operand */
    unsigned nops;                     /* pipeline operands */
} host_run;

static midint_status run_chunk(midint_context *ctx, void *arg, void *const *dev, size_t first, size_t m, void *stream)
{
    host_run *h = arg;
    void *bufs[MAX_PARAMS] = {NULL};
    (void)first;
    for (unsigned i = 0; i < h->c->info->nparams; i++) /* modulus objects: their device words, every chunk */
        if (h->c->info->params[i].kind == MIDINT_PARAM_MODULUS)
            bufs[i] = h->c->buf[i];
    for (unsigned k = 0; k < h->nops; k++)
        bufs[h->param[k]] = dev[k];
    return enqueue(ctx, h->c, h->v, &h->plan, bufs, m, h->c->n % 4 == 0, stream);
}

static midint_status run_host(midint_context *ctx, const call *c, const midint_variant *v, void *stream)
{
    char names[MIDINT_PIPE_MAX][64];
    host_run h = {c, v, {0}, {0}, 0};
    midint_pipe_job job = {.count = c->count, .run = run_chunk, .arg = &h};
    unsigned k = 0;
    for (int out = 0; out < 2; out++) /* the pipeline's order: inputs, then outputs */
        for (unsigned i = 0; i < c->info->nparams; i++) {
            const midint_param_info *p = &c->info->params[i];
            if (!c->buf[i] || !is_batch(p) || (p->kind == MIDINT_PARAM_OUTPUT) != out)
                continue;
            h.param[k] = i;
            job.user[k] = c->buf[i];
            job.unit[k] = c->bytes[i] / c->count;
            job.name[k] = label(c, i, names[k], sizeof names[k]);
            k++;
            *(out ? &job.nout : &job.nin) += 1;
        }
    h.nops = k;
    job.chunk = midint_pipe_chunk(ctx, &job);
    midint_status st = v ? midint_plan_make(ctx, v, c->n, result_words(c), job.chunk, &h.plan) : MIDINT_OK;
    if (st != MIDINT_OK)
        return midint_fail(ctx, st, "%s: %s", c->fn, ctx->msg);
    job.chunk = v ? h.plan.count : job.chunk; /* the plan was made for the pipeline's chunk */
    return midint_pipe_run(ctx, &job, c->mode == MIDINT_MODE_ASYNC, stream, c->fn);
}

/* Fill a call from its arguments (no checks yet). */
static int make_call(call *c, const midint_op_info *d, midint_op op, size_t count, unsigned bits, void *const *buffers,
                     const unsigned *scalars, midint_mode mode, const char *fn)
{
    memset(c, 0, sizeof *c);
    if (d->nparams > MAX_PARAMS)
        return 0;
    c->info = d;
    c->op = op;
    c->expr = (unsigned)op >= MIDINT_OP_COUNT_ ? (int)(op - MIDINT_OP_EXPR0) : -1;
    c->count = count;
    c->bits = bits;
    c->n = bits / 32;
    c->mode = mode;
    c->fn = fn;
    unsigned nb = 0, ns = 0;
    for (unsigned i = 0; i < d->nparams; i++) {
        if (is_buffer(&d->params[i]))
            c->buf[i] = buffers ? buffers[nb++] : NULL;
        else
            c->scalar[i] = scalars ? scalars[ns++] : 0;
    }
    return 1;
}

midint_status midint_op_entry(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                              const unsigned *scalars, midint_mode mode, void *stream, const char *fn)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    const midint_op_info *d = midint_info_of(op);
    if (!d)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: unknown operation %d (0 .. %d)", fn, (int)op,
                           MIDINT_OP_COUNT_ - 1);
    call c;
    if (!make_call(&c, d, op, count, bits, buffers, scalars, mode, fn))
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: %s has more than %d parameters", fn, d->name,
                           MAX_PARAMS);
    midint_status st = check_call(ctx, &c, stream);
    if (st != MIDINT_OK)
        return st;
    c.composed = midint_composed_applies(ctx, op, bits, count, c.moduli)            ? COMPOSED_MULMOD
                 : midint_bigdiv_applies(ctx, op, bits, ctx->kernel_max_bits[op]) ? COMPOSED_BIGDIV
                                                                                  : COMPOSED_NONE;
    return dispatch_and_run(ctx, &c, stream);
}

/* Dispatch a call (none for expressions step by step and composed operations) and run it. */
static midint_status dispatch_and_run(midint_context *ctx, call *c, void *stream)
{
    const midint_variant *v = NULL;
    void *tables = NULL; /* the twiddle tables of transform variants, made before anything is enqueued */
    midint_status st;
    if (!use_steps(ctx, c) && !c->composed &&
        ((st = midint_dispatch(ctx, c->op, c->n, c->count, c->moduli, &v)) != MIDINT_OK ||
         (v->ntt_primes && (st = midint_ntt_table(ctx, &tables)) != MIDINT_OK)))
        return midint_fail(ctx, st, "%s: %s", c->fn, ctx->msg);
    return c->mode == MIDINT_MODE_DEVICE ? run_device(ctx, c, v, stream) : run_host(ctx, c, v, stream);
}

/* A device call of op that a checked call makes (run_composed's parts, bigdiv.c's steps): dispatch and run, no
 * checks again. */
midint_status midint_op_inner(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                              const unsigned *scalars, void *stream)
{
    call c;
    const midint_op_info *d = &midint_op_infos[op];
    make_call(&c, d, op, count, bits, buffers, scalars, MIDINT_MODE_DEVICE, d->name);
    /* divrem and mod past their kernels (batch_gcd.c's remainder tree); never under the test hook alone, so that
     * the division's own base divrem is a kernel's */
    if (bits > ctx->kernel_max_bits[op] && midint_bigdiv_applies(ctx, op, bits, ctx->kernel_max_bits[op]))
        c.composed = COMPOSED_BIGDIV;
    return dispatch_and_run(ctx, &c, stream);
}

/* ---- the generic public calls and the descriptors ---- */

/* midint_run*: the messages name the operation's own function (midint_add_device: ...), the same call. */
static midint_status run_public(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                                const unsigned *scalars, midint_mode mode, void *stream, const char *fn)
{
    static const char *const suffix[] = {"", "_async", "_device"};
    char own[64];
    if ((unsigned)op >= MIDINT_OP_COUNT_) /* expressions go through midint_expr*, by name */
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: unknown operation %d (0 .. %d)", fn, (int)op,
                           MIDINT_OP_COUNT_ - 1);
    snprintf(own, sizeof own, "midint_%s%s", midint_op_infos[op].name, suffix[mode]);
    fn = own;
    if (ctx && !buffers)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: buffers is NULL", fn);
    for (unsigned i = 0; ctx && !scalars && i < midint_op_infos[op].nparams; i++)
        if (midint_op_infos[op].params[i].kind == MIDINT_PARAM_SCALAR)
            return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: scalars is NULL (%s takes %s)", fn,
                               midint_op_infos[op].name, midint_op_infos[op].params[i].name);
    return midint_op_entry(ctx, op, count, bits, buffers, scalars, mode, stream, fn);
}

midint_status midint_run(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                         const unsigned *scalars)
{
    return run_public(ctx, op, count, bits, buffers, scalars, MIDINT_MODE_HOST, NULL, "midint_run");
}

midint_status midint_run_async(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                               const unsigned *scalars, void *stream)
{
    return run_public(ctx, op, count, bits, buffers, scalars, MIDINT_MODE_ASYNC, stream, "midint_run_async");
}

midint_status midint_run_device(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                                const unsigned *scalars, void *stream)
{
    return run_public(ctx, op, count, bits, buffers, scalars, MIDINT_MODE_DEVICE, stream, "midint_run_device");
}

size_t midint_op_count(void)
{
    return MIDINT_OP_COUNT_;
}

const midint_op_info *midint_op_describe(midint_op op)
{
    return (unsigned)op < MIDINT_OP_COUNT_ ? &midint_op_infos[op] : NULL;
}

const midint_op_info *midint_op_find(const char *name)
{
    for (unsigned i = 0; name && i < MIDINT_OP_COUNT_; i++)
        if (strcmp(midint_op_infos[i].name, name) == 0)
            return &midint_op_infos[i];
    return NULL;
}

midint_status midint_synchronize(midint_context *ctx, void *stream)
{
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "midint_synchronize: ctx is NULL");
    return ctx->ops->synchronize(ctx, stream);
}

midint_status midint_workspace_size(midint_context *ctx, midint_op op, unsigned bits, size_t count, size_t *bytes)
{
    const char *fn = "midint_workspace_size";
    if (!ctx || !bytes)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, ctx ? "bytes" : "ctx");
    if ((unsigned)op >= MIDINT_OP_COUNT_)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: unknown operation %d", fn, (int)op);
    call c;
    make_call(&c, &midint_op_infos[op], op, count, bits, NULL, NULL, MIDINT_MODE_DEVICE, fn);
    midint_status st = check_bits(ctx, &c);
    /* the moduli unseen: as if one were narrow, the most the call may need */
    if (st == MIDINT_OK && midint_composed_applies(ctx, op, bits, count, MIDINT_MODULI_NARROW)) {
        *bytes = midint_composed_bytes(op, bits, count);   /* the product between the two parts (and the moduli) */
        return MIDINT_OK;
    }
    if (st == MIDINT_OK && midint_bigdiv_applies(ctx, op, bits, ctx->kernel_max_bits[op])) {
        /* its temporaries for the instances of a pass, and a product's workspace beside */
        size_t per = midint_bigdiv_instance_bytes(bits), m = midint_bigdiv_pass(ctx, bits, count), mul_bytes = 0;
        if (m && (st = midint_workspace_size(ctx, MIDINT_OP_MUL, bits, m, &mul_bytes)) == MIDINT_OK)
            *bytes = per * m + mul_bytes;
        else if (!m) /* one instance does not fit: what it needs */
            *bytes = 2 * per;
        return st;
    }
    const midint_variant *v = NULL;
    midint_plan plan;
    if (st == MIDINT_OK && ((st = midint_dispatch(ctx, op, c.n, count, 0, &v)) != MIDINT_OK ||
                            (st = midint_plan_make(ctx, v, c.n, result_words(&c), count, &plan)) != MIDINT_OK))
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
    if (midint_workspace_held(ctx) > bytes)
        midint_workspace_free(ctx);
    return MIDINT_OK;
}
