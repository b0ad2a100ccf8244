/* measure_ops.c — timing any operation of the table through its descriptor (op_batch, tests/drivers/cases.c), on
 * the device and with GMP on host threads; the commands "run" and "gmpop" of the measuring tool (measure.c). */
#include <gmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "measure_ops.h"

static void *host_alloc(size_t bytes, void *arg)
{
    (void)arg;
    return malloc(bytes);
}

static void host_release(void *p, void *arg)
{
    (void)arg;
    free(p);
}

midint_status choose_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count, const char *name,
                             const midint_modulus *mod, const char **chosen)
{
    midint_status st = MIDINT_OK;
    midint_force_variant(ctx, NULL);
    if (strcmp(name, "default") != 0)
        st = midint_force_variant(ctx, name);
    if (st == MIDINT_OK && !(*chosen = midint_selected_variant_modulus(ctx, op, bits, count, mod)))
        st = MIDINT_ERR_UNKNOWN_VARIANT;
    return st;
}

typedef struct run_arg {
    midint_context *ctx;
    const op_batch *b;
    void **bufs;
    const unsigned *scalars;
} run_arg;

static midint_status enqueue_run(void *p)
{
    run_arg *r = p;
    return midint_run_device(r->ctx, r->b->op, r->b->count, r->b->bits, r->bufs, r->scalars, NULL);
}

/* 257 instances spread over the batch (all when fewer) against GMP */
static int check_run(midint_context *ctx, const op_batch *b, void *const *dev)
{
    const midint_op_info *d = b->info;
    uint32_t *got[OPB_MAX] = {NULL}, *want[OPB_MAX] = {NULL}, *at[OPB_MAX] = {NULL};
    int ok = midint_synchronize(ctx, NULL) == MIDINT_OK;
    for (unsigned i = 0; ok && i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_OUTPUT && dev[i]) {
            size_t bytes = (size_t)(b->count * batch_words(b, i) * 4);
            ok = (got[i] = malloc(bytes)) && (want[i] = malloc(bytes)) &&
                 midint_buffer_read(ctx, got[i], dev[i], bytes) == MIDINT_OK;
        }
    size_t samples = b->count < 257 ? b->count : 257;
    for (size_t k = 0; ok && k < samples; k++) {
        size_t inst = samples == b->count ? k : k == samples - 1 ? b->count - 1 : (k * 2654435761u) % b->count;
        for (unsigned i = 0; i < d->nparams; i++)
            at[i] = want[i] ? want[i] + inst * batch_words(b, i) : NULL;
        ok = batch_expect(b, inst, at);
        for (unsigned i = 0; ok && i < d->nparams; i++)
            if (want[i])
                ok = memcmp(at[i], got[i] + inst * batch_words(b, i), (size_t)batch_words(b, i) * 4) == 0;
    }
    for (unsigned i = 0; i < OPB_MAX; i++)
        free(got[i]), free(want[i]);
    return ok;
}

void cmd_run(midint_context *ctx, const char *op_s, unsigned bits, size_t count, const char *name, int reps,
             const char *args)
{
    int op = parse_op(op_s);
    op_batch b;
    char why[256] = "unknown operation";
    void *dev[OPB_MAX] = {NULL}, *bufs[OPB_MAX];
    unsigned scalars[OPB_MAX];
    const char *chosen = name;
    char pattern[32] = "random";   /* "pattern=NAME" among the args: the test drivers' shapes (exponents all zero) */
    const char *pp = args ? strstr(args, "pattern=") : NULL;
    if (pp)
        sscanf(pp + 8, "%31[^ ,]", pattern);
    midint_status st = op >= 0 && batch_make(&b, (midint_op)op, count, bits, pattern, 1, args, host_alloc, NULL, why,
                                             sizeof why) ? MIDINT_OK : MIDINT_ERR_INVALID_ARGUMENT;
    if (st != MIDINT_OK) {
        printf("run %s %u %zu %s error 0 FAIL %s\n", op_s, bits, count, name, why);
        return;
    }
    const midint_op_info *d = b.info;
    unsigned k = 0;
    /* "modulus=odd" / "modulus=even": a modulus object's low bit set / cleared; "modulus=short": odd with its top word
     * cleared (the random pattern's moduli fill their words: Barrett's reduction; a short odd one takes Montgomery's,
     * a short even one the division), in every instance of its array, which the reference reads too. An input that
     * must be nonzero is an operation's modulus too (modinv's m: "modulus=odd" times the odd moduli alone) */
    const char *mp = args ? strstr(args, "modulus=") : NULL;
    const int shorter = mp && strncmp(mp + 8, "short", 5) == 0, odd = mp && strncmp(mp + 8, "odd", 3) == 0;
    for (unsigned i = 0; mp && i < d->nparams; i++) {
        const midint_param_info *p = &d->params[i];
        if (p->kind != MIDINT_PARAM_MODULUS && !(p->kind == MIDINT_PARAM_INPUT && (p->rules & MIDINT_RULE_NONZERO)))
            continue;
        const unsigned n = (unsigned)batch_words(&b, i);
        for (size_t j = 0; j < count; j++) {
            uint32_t *w = b.host[i] + j * n, any = 0;
            w[0] = odd || shorter ? w[0] | 1u : w[0] & ~1u;
            if (shorter && n > 1)
                w[n - 1] = 0;
            for (unsigned q = 0; q < n; q++)
                any |= w[q];
            w[0] |= any ? 0u : 2u;   /* never zero */
        }
    }
    st = batch_moduli(&b, ctx);   /* a modulus object: made once, outside the timing, as a user would */
    for (unsigned i = 0; i < d->nparams && st == MIDINT_OK; i++) {
        if (d->params[i].kind == MIDINT_PARAM_SCALAR)
            continue;
        if (d->params[i].kind == MIDINT_PARAM_MODULUS) {
            bufs[k++] = b.mod[i];
            continue;
        }
        size_t bytes = (size_t)(count * batch_words(&b, i) * 4);
        if (!b.absent[i] && (st = midint_buffer_alloc(ctx, bytes ? bytes : 4, &dev[i])) == MIDINT_OK &&
            d->params[i].kind == MIDINT_PARAM_INPUT)
            st = midint_buffer_write(ctx, dev[i], b.host[i], bytes);
        bufs[k++] = dev[i];
    }
    batch_scalars(&b, scalars);
    const midint_modulus *mod = NULL;   /* the call's modulus object, whose parity picks the variant */
    for (unsigned i = 0; i < d->nparams; i++)
        mod = d->params[i].kind == MIDINT_PARAM_MODULUS ? b.mod[i] : mod;
    if (st == MIDINT_OK)
        st = choose_variant(ctx, (midint_op)op, bits, count, name, mod, &chosen);
    double ms = 0;
    run_arg r = {ctx, &b, bufs, scalars};
    if (st == MIDINT_OK)
        st = midint_time(ctx, NULL, reps, enqueue_run, &r, &ms);
    if (st == MIDINT_OK)
        printf("run %s %u %zu %s ok %.6f %s %s\n", op_s, bits, count, chosen, ms, check_run(ctx, &b, dev) ? "pass"
                                                                                                            : "FAIL",
               args ? args : "");
    else
        printf("run %s %u %zu %s error 0 FAIL %s: %s\n", op_s, bits, count, chosen ? chosen : name,
               midint_status_name(st), midint_last_error(ctx));
    midint_force_variant(ctx, NULL);
    for (unsigned i = 0; i < OPB_MAX; i++)
        midint_buffer_free(ctx, dev[i]);
    batch_free(&b, host_release, NULL);
}

/* ---- GMP: each operation's mpz function over the batch's instances on host threads ---- */

typedef struct gmp_job {
    const op_batch *b;
    int op;   /* index into the operations below */
    size_t first, last;
} gmp_job;

static const char *const gmp_ops[] = {"divrem", "mod", "mulmod", "powm", "gcd", "modinv"};

/* parameter i of instance inst as an mpz */
static void load(mpz_t z, const op_batch *b, const char *name, size_t inst)
{
    for (unsigned i = 0; i < b->info->nparams; i++)
        if (strcmp(b->info->params[i].name, name) == 0) {
            size_t w = (size_t)batch_words(b, i);
            mpz_import(z, w, -1, 4, 0, 0, b->host[i] + inst * w);
        }
}

static unsigned scalar_of(const op_batch *b, const char *name)
{
    for (unsigned i = 0; i < b->info->nparams; i++)
        if (strcmp(b->info->params[i].name, name) == 0)
            return b->scalar[i];
    return 0;
}

static void *gmp_worker(void *p)
{
    const gmp_job *j = p;
    const op_batch *b = j->b;
    mpz_t x, y, m, q, r;
    mpz_inits(x, y, m, q, r, NULL);
    int secret = scalar_of(b, "secret") != 0;
    for (size_t inst = j->first; inst < j->last; inst++) {
        switch (j->op) {
        case 0: load(x, b, "a", inst), load(m, b, "d", inst), mpz_tdiv_qr(q, r, x, m); break;
        case 1: load(x, b, "a", inst), load(m, b, "d", inst), mpz_tdiv_r(r, x, m); break;
        case 2: load(x, b, "a", inst), load(y, b, "b", inst), load(m, b, "m", inst), mpz_mul(q, x, y),
                mpz_tdiv_r(r, q, m); break;
        case 3: load(x, b, "base", inst), load(y, b, "exp", inst), load(m, b, "m", inst);
                (secret && mpz_sgn(y) > 0 ? mpz_powm_sec : mpz_powm)(r, x, y, m); break;
        case 4: load(x, b, "a", inst), load(y, b, "b", inst), mpz_gcd(r, x, y); break;
        default: load(x, b, "a", inst), load(m, b, "m", inst), mpz_invert(r, x, m); break;
        }
    }
    mpz_clears(x, y, m, q, r, NULL);
    return NULL;
}

void cmd_gmpop(const char *op_s, unsigned bits, size_t count, int threads, const char *args)
{
    int op = parse_op(op_s), which = -1;
    size_t len = strlen(op_s) > 7 && strcmp(op_s + strlen(op_s) - 7, "_shared") == 0 ? strlen(op_s) - 7 : strlen(op_s);
    for (int k = 0; k < (int)(sizeof gmp_ops / sizeof gmp_ops[0]); k++) /* a shared modulus: the same mpz calls */
        if (op >= 0 && strlen(gmp_ops[k]) == len && strncmp(op_s, gmp_ops[k], len) == 0)
            which = k;
    op_batch b;
    char why[256];
    if (which < 0 || threads < 1 || threads > 256 ||
        !batch_make(&b, (midint_op)op, count, bits, "random", 1, args, host_alloc, NULL, why, sizeof why)) {
        printf("gmpop %s %u %zu %d none %s\n", op_s, bits, count, threads, args ? args : "");
        return;
    }
    pthread_t tid[256];
    gmp_job jobs[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int t = 0; t < threads; t++) {
        jobs[t] = (gmp_job){&b, which, count * (size_t)t / (size_t)threads, count * (size_t)(t + 1) / (size_t)threads};
        pthread_create(&tid[t], NULL, gmp_worker, &jobs[t]);
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("gmpop %s %u %zu %d %.6f %s\n", op_s, bits, count, threads,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), args ? args : "");
    batch_free(&b, host_release, NULL);
}
