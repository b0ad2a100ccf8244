/* check_batch.c — runs batches through libmidint and compares every word and carry with GMP.
 *
 * Usage: check_batch --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] [--workspace BYTES]
 *                    [--pinned] [--expect-completed K] [--probe] [--odd-moduli]
 *   --odd-moduli: modulus objects made odd (a forced variant that takes odd moduli only, midint_variant.odd_moduli)
 * Cases come on stdin, one per line: "op bits count pattern seed api alias [args]"
 *   op: any operation of the table (midint_op_describe; its reference text is the GMP reference)
 *   api: host|async (host buffers, asynchronously, then midint_synchronize)|device|device4 (CUDA: device buffers that
 *        start 4 bytes past an allocation, so not 16-byte aligned: the kernels' 16-byte accesses must stand aside)
 *   alias: none|ra (r is a)|rb (r is b)|rab (a, b and r one buffer)|ab (a and b one buffer: a square), where a and b
 *          are the operation's first and second inputs of n words and r its result
 *   args: scalars and optional buffers, e.g. "shift=33", "shift=max" (bits - 1), "shifts=each" (per-instance counts),
 *         "carry=none" (an optional output left out); scalars not given are random (below bits where they must be);
 *         "variant=NAME" forces that variant for this case instead of --variant's (so that one process checks many
 *         variants: a process and its OpenCL context cost 50 ms to half a second on a CPU)
 * --expect-completed K: every call must fail with MIDINT_ERR_DEVICE saying that K instances were completed (the
 * test hook MIDINT_TEST_FAIL_CHUNK plants the failure); the first K results must be right and, unless r is an
 * input, the others untouched.
 * Output: "ok <case>" or "FAIL <case>: <what>" per line; exit 0 when all pass, 1 when any fails,
 * 2 on a usage or setup error, 3 from --probe when the backend is unavailable. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "midint.h"

#define POISON 0xDEADBEEFu

typedef struct test_case {
    char op[16], pattern[32], api[8], alias[8];
    char args[128]; /* the rest of the line: scalars and optional buffers ("shift=33 shifts=each carry=none") */
    unsigned bits;
    size_t count;
    uint64_t seed;
} test_case;

/* --pinned: the host buffers of every case come from midint_host_alloc (page-locked), else from malloc. */
static int pinned;
/* --expect-completed K (or -1: every call must succeed). */
static long long expect_completed = -1;

static void *host_alloc(size_t bytes, void *arg)
{
    void *p = NULL;
    if (!pinned)
        return malloc(bytes);
    return midint_host_alloc(arg, bytes, &p) == MIDINT_OK ? p : NULL;
}

static void host_release(void *p, void *arg)
{
    if (pinned)
        midint_host_free(arg, p);
    else
        free(p);
}

/* The same call through device buffers: one per distinct host array (aliases share one), written, the call, the
 * outputs read back; each buffer `skew` bytes past its allocation (CUDA: device pointers are addresses). */
static midint_status call_device(midint_context *ctx, const op_batch *b, uint32_t *const *use, size_t skew)
{
    const midint_op_info *d = b->info;
    void *dev[OPB_MAX] = {NULL}, *base[OPB_MAX] = {NULL}, *bufs[OPB_MAX];
    unsigned scalars[OPB_MAX];
    midint_status st = MIDINT_OK;
    for (unsigned i = 0; i < d->nparams && st == MIDINT_OK; i++) {
        if (!use[i] || d->params[i].kind == MIDINT_PARAM_MODULUS) /* an object: the same in every form */
            continue;
        for (unsigned j = 0; j < i && !dev[i]; j++)
            if (use[j] == use[i])
                dev[i] = dev[j];
        size_t bytes = (size_t)(b->count * batch_words(b, i) * 4);
        if (!dev[i] && (st = midint_buffer_alloc(ctx, (bytes ? bytes : 4) + skew, &base[i])) == MIDINT_OK) {
            dev[i] = (char *)base[i] + skew;
            st = midint_buffer_write(ctx, dev[i], use[i], bytes);
        }
    }
    unsigned k = 0;
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind != MIDINT_PARAM_SCALAR)
            bufs[k++] = d->params[i].kind == MIDINT_PARAM_MODULUS ? (void *)b->mod[i] : dev[i];
    batch_scalars(b, scalars);
    if (st == MIDINT_OK)
        st = midint_run_device(ctx, b->op, b->count, b->bits, bufs, scalars, NULL);
    if (st == MIDINT_OK)
        st = midint_synchronize(ctx, NULL);
    for (unsigned i = 0; i < d->nparams && st == MIDINT_OK; i++)
        if (use[i] && d->params[i].kind == MIDINT_PARAM_OUTPUT)
            st = midint_buffer_read(ctx, use[i], dev[i], (size_t)(b->count * batch_words(b, i) * 4));
    for (unsigned i = 0; i < d->nparams; i++)
        if (base[i]) /* set only where allocated: aliases share another's */
            midint_buffer_free(ctx, base[i]);
    return st;
}

/* A planted failure: the status and message are as promised; how many instances must then be right. */
static int check_planted_failure(midint_context *ctx, midint_status st, const test_case *c, size_t *right, char *why,
                                 size_t whylen)
{
    char want[96];
    snprintf(want, sizeof want, "(%lld of %zu instances were completed)", expect_completed, c->count);
    if (st != MIDINT_ERR_DEVICE || !strstr(midint_last_error(ctx), want)) {
        snprintf(why, whylen, "expected MIDINT_ERR_DEVICE with '%s', got %s: %s", want, midint_status_name(st),
                 midint_last_error(ctx));
        return 0;
    }
    *right = (size_t)expect_completed;
    return 1;
}

/* The "variant=NAME" item of a case's args into out (empty when there is none). */
static void case_variant(const char *args, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *p = args; *p;) {
        size_t item = strcspn(p, " ,");
        if (item > 8 && strncmp(p, "variant=", 8) == 0)
            snprintf(out, len, "%.*s", (int)(item - 8), p + 8);
        p += item + (p[item] != '\0');
    }
}

/* Run one case; fills `why` and returns 0 on failure. */
static int run_case(midint_context *ctx, const test_case *c, char *why, size_t whylen)
{
    int op = parse_op(c->op);
    if (op < 0) {
        snprintf(why, whylen, "unknown operation '%s'", c->op); /* never another operation's reference */
        return 0;
    }
    if (c->bits == 0 || c->bits % 32 || c->count == 0) {
        snprintf(why, whylen, "bad case line");
        return 0;
    }
    op_batch b;
    uint32_t *want[OPB_MAX] = {NULL}, *use[OPB_MAX] = {NULL};
    int ok = 0;
    if (!batch_make(&b, (midint_op)op, c->count, c->bits, c->pattern, c->seed, c->args, host_alloc, ctx, why, whylen))
        goto done;
    const midint_op_info *d = b.info;
    int ir = param_in_slot(d, MIDINT_SLOT_R), ia = nth_input(d, 0), ib = nth_input(d, 1);
    size_t in_bytes = c->count * (size_t)b.n * 4;
    for (unsigned i = 0; i < d->nparams; i++)
        use[i] = b.absent[i] ? NULL : b.host[i];
    /* aliases: ab and rab make b the same numbers as a (a square); ra, rb and rab put the result in an input's place */
    int square = strcmp(c->alias, "rab") == 0 || strcmp(c->alias, "ab") == 0;
    int into = strcmp(c->alias, "ra") == 0 || strcmp(c->alias, "rab") == 0 ? ia : strcmp(c->alias, "rb") == 0 ? ib : -1;
    if ((square && ib < 0) || (into < 0 && strcmp(c->alias, "none") != 0 && !square) ||
        (into >= 0 && batch_words(&b, (unsigned)ir) != b.n)) {
        snprintf(why, whylen, "alias '%s' does not apply to %s", c->alias, d->name);
        goto done;
    }
    if (square)
        memcpy(b.host[ib], b.host[ia], in_bytes);
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_OUTPUT && use[i] &&
            !(want[i] = malloc((size_t)(c->count * batch_words(&b, i) * 4)))) {
            snprintf(why, whylen, "out of host memory");
            goto done;
        }
    for (size_t inst = 0; inst < c->count; inst++) {
        uint32_t *at[OPB_MAX] = {NULL};
        for (unsigned i = 0; i < d->nparams; i++)
            at[i] = want[i] ? want[i] + inst * batch_words(&b, i) : NULL;
        if (!batch_expect(&b, inst, at)) {
            snprintf(why, whylen, "the reference of %s cannot be evaluated: %s", d->name, d->reference);
            goto done;
        }
    }
    if (square)
        use[ib] = use[ia];
    if (into >= 0) { /* the result's buffer starts as that input, and is passed as both */
        memcpy(use[ir], use[into], in_bytes);
        use[into] = use[ir];
        if (square)
            use[ia] = use[ib] = use[ir];
    }
    midint_status st;
    void *bufs[OPB_MAX];
    unsigned scalars[OPB_MAX];
    unsigned k = 0;
    if ((st = batch_moduli(&b, ctx)) != MIDINT_OK) {
        snprintf(why, whylen, "%s: %s", midint_status_name(st), midint_last_error(ctx));
        goto done;
    }
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind != MIDINT_PARAM_SCALAR)
            bufs[k++] = d->params[i].kind == MIDINT_PARAM_MODULUS ? (void *)b.mod[i] : use[i];
    batch_scalars(&b, scalars);
    if (strcmp(c->api, "device4") == 0 && midint_context_backend(ctx) != MIDINT_BACKEND_CUDA) {
        snprintf(why, whylen, "api device4 needs CUDA (OpenCL buffers are objects)");
        goto done;
    }
    if (strncmp(c->api, "device", 6) == 0)
        st = call_device(ctx, &b, use, strcmp(c->api, "device4") == 0 ? 4u : 0u);
    else if (strcmp(c->api, "async") == 0) {
        st = midint_run_async(ctx, b.op, c->count, c->bits, bufs, scalars, NULL);
        if (st == MIDINT_OK)
            st = midint_synchronize(ctx, NULL);
    } else
        st = midint_run(ctx, b.op, c->count, c->bits, bufs, scalars);
    size_t right = c->count; /* instances whose results must be right */
    if (expect_completed >= 0) {
        if (!check_planted_failure(ctx, st, c, &right, why, whylen))
            goto done;
        size_t rn = (size_t)batch_words(&b, (unsigned)ir);
        for (size_t i = right * rn; into < 0 && i < c->count * rn; i++)
            if (use[ir][i] != 0xDEADBEEFu) {
                snprintf(why, whylen, "instance %zu word %zu was written after the failure", i / rn, i % rn);
                goto done;
            }
    } else if (st != MIDINT_OK) {
        snprintf(why, whylen, "%s: %s", midint_status_name(st), midint_last_error(ctx));
        goto done;
    }
    for (unsigned i = 0; i < d->nparams; i++) {
        if (!want[i])
            continue;
        size_t w = (size_t)batch_words(&b, i);
        for (size_t j = 0; j < right * w; j++)
            if (use[i][j] != want[i][j]) {
                snprintf(why, whylen, "instance %zu %s word %zu: got %08" PRIx32 " want %08" PRIx32, j / w,
                         d->params[i].name, j % w, use[i][j], want[i][j]);
                goto done;
            }
    }
    ok = 1;
done:
    batch_free(&b, host_release, ctx);
    for (unsigned i = 0; i < OPB_MAX; i++)
        free(want[i]);
    return ok;
}

int main(int argc, char **argv)
{
    midint_backend backend = MIDINT_BACKEND_AUTO;
    int device = 0, probe = 0;
    const char *variant = NULL;
    size_t staging = 0, workspace = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            const char *b = argv[++i];
            backend = strcmp(b, "cuda") == 0 ? MIDINT_BACKEND_CUDA
                      : strcmp(b, "opencl") == 0 ? MIDINT_BACKEND_OPENCL : MIDINT_BACKEND_AUTO;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            variant = argv[++i];
        } else if (strcmp(argv[i], "--staging") == 0 && i + 1 < argc) {
            staging = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--workspace") == 0 && i + 1 < argc) {
            workspace = strtoull(argv[++i], NULL, 0);   /* a small cap makes grid calls run in several passes */
        } else if (strcmp(argv[i], "--pinned") == 0) {
            pinned = 1;
        } else if (strcmp(argv[i], "--expect-completed") == 0 && i + 1 < argc) {
            expect_completed = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--probe") == 0) {
            probe = 1;
        } else if (strcmp(argv[i], "--odd-moduli") == 0) {
            cases_odd_moduli = 1;   /* the forced variant takes odd moduli only (midint_variant.odd_moduli) */
        } else {
            fprintf(stderr, "usage: %s --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] "
                            "[--workspace BYTES] [--pinned] [--expect-completed K] [--probe] [--odd-moduli] < cases\n", argv[0]);
            return 2;
        }
    }
    midint_context *ctx = NULL;
    midint_status st = midint_open(&ctx, backend, device);
    if (probe) {
        if (st != MIDINT_OK) {
            printf("unavailable %s\n", midint_last_error(NULL));
            return 3;
        }
        const char *warps = midint_opencl_warps(ctx);
        printf("available %s%s%s\n", midint_device_name(ctx), warps ? "; warps: " : "", warps ? warps : "");
        midint_close(ctx);
        return 0;
    }
    if (st != MIDINT_OK) {
        fprintf(stderr, "check_batch: %s: %s\n", midint_status_name(st), midint_last_error(NULL));
        return 2;
    }
    if (variant && midint_force_variant(ctx, variant) != MIDINT_OK) {
        fprintf(stderr, "check_batch: %s\n", midint_last_error(ctx));
        midint_close(ctx);
        return 2;
    }
    if (staging && midint_set_staging_bytes(ctx, staging) != MIDINT_OK) {
        fprintf(stderr, "check_batch: %s\n", midint_last_error(ctx));
        midint_close(ctx);
        return 2;
    }
    if (workspace && midint_set_workspace_bytes(ctx, workspace) != MIDINT_OK) {
        fprintf(stderr, "check_batch: %s\n", midint_last_error(ctx));
        midint_close(ctx);
        return 2;
    }
    char line[256];
    int failures = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        test_case c = {0};
        char why[400] = "";
        int used = 0;
        int ok = sscanf(line, "%15s %u %zu %31s %" SCNu64 " %7s %7s%n", c.op, &c.bits, &c.count, c.pattern, &c.seed,
                        c.api, c.alias, &used) == 7;
        if (ok)
            snprintf(c.args, sizeof c.args, "%s", line + used + strspn(line + used, " "));
        char forced[64];
        case_variant(c.args, forced, sizeof forced);
        if (ok && forced[0] && midint_force_variant(ctx, forced) != MIDINT_OK) {
            snprintf(why, sizeof why, "%s", midint_last_error(ctx));
            ok = 0;
        }
        ok = ok && run_case(ctx, &c, why, sizeof why);
        if (forced[0]) { /* back to --variant's, or none */
            midint_force_variant(ctx, NULL);
            if (variant)
                midint_force_variant(ctx, variant);
        }
        if (ok) {
            printf("ok %s\n", line);
        } else {
            printf("FAIL %s: %s\n", line, why[0] ? why : "malformed case line");
            failures++;
        }
        fflush(stdout);
    }
    midint_close(ctx);
    return failures ? 1 : 0;
}
