/* check_expr.c — runs generated expressions through midint_expr / midint_expr_device and compares every output word
 * with GMP walking the expression's program (midint_expr_desc.program) step by step.
 *
 * Usage: check_expr --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] [--workspace BYTES] [--probe]
 *        [--list]
 * Cases come on stdin, one per line: "name bits count pattern seed api alias [variant]"
 *   api: host|async (host buffers from midint_host_alloc, midint_expr_async, then midint_synchronize)|device
 *   alias: none|inplace (output 0 is the same buffer as input 0)|evenmod (an expression with a modulus, E mod m: instance
 *          count/2's first modulus even, or zero for an even seed; the call must fail naming it, outputs untouched)
 *   variant: the variant to force for this case, instead of --variant's (so that one process checks many variants:
 *            a process and its OpenCL context cost 50 ms to half a second on a CPU); its result line ends with it
 * Inputs 2k and 2k+1 are filled as the a and b of the other drivers' patterns (seed + k); inputs serving as a modulus
 * are then made odd, of varied shapes by instance (cases.c, expr_odd_moduli). Output: "ok <case>" or
 * "FAIL <case>: <what>" per line; exit 0 when all pass, 1 when any fails, 2 on a usage or setup error, 3 from
 * --probe when the backend is unavailable. --list prints each expression: name, inputs, outputs, program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "midint.h"

#define POISON 0xDEADBEEFu
#define MAX_IO 8

typedef struct test_case {
    char name[32], pattern[32], api[8], alias[12], variant[64];
    unsigned bits;
    size_t count;
    uint64_t seed;
} test_case;

/* Host memory of a case: page-locked (midint_host_alloc) for the asynchronous calls, else malloc. */
static void *host_mem(midint_context *ctx, int locked, size_t bytes)
{
    void *p = NULL;
    return !locked ? malloc(bytes) : midint_host_alloc(ctx, bytes, &p) == MIDINT_OK ? p : NULL;
}

static void host_mem_free(midint_context *ctx, int locked, void *p)
{
    if (locked)
        midint_host_free(ctx, p);
    else
        free(p);
}

/* "ok <case>" or "FAIL <case>: <why>", the case as its line gave it */
static void print_result(const test_case *c, int ok, const char *why)
{
    printf("%s %s %u %zu %s %llu %s %s%s%s%s%s\n", ok ? "ok" : "FAIL", c->name, c->bits, c->count, c->pattern,
           (unsigned long long)c->seed, c->api, c->alias, c->variant[0] ? " " : "", c->variant, ok ? "" : ": ", why);
}

static int run_case(midint_context *ctx, const test_case *c, const char *variant)
{
    const midint_expr_desc *d = midint_expr_find(c->name);
    if (!d) {
        printf("FAIL %s %u %zu %s: no such expression\n", c->name, c->bits, c->count, c->pattern);
        return 0;
    }
    if (c->variant[0])
        variant = c->variant;
    unsigned n = c->bits / 32, nin = d->ninputs, nout = d->noutputs;
    uint32_t *in[MAX_IO] = {0}, *saved[MAX_IO] = {0}, *out[MAX_IO] = {0}, *want[MAX_IO] = {0};
    int ok = 1, inplace = strcmp(c->alias, "inplace") == 0, async = strcmp(c->api, "async") == 0;
    char why[256] = "";
    for (unsigned i = 0; i < nin; i++) {
        in[i] = host_mem(ctx, async, c->count * n * 4);
        saved[i] = malloc(c->count * n * 4);
    }
    for (unsigned i = 0; i < nin; i += 2) {
        uint32_t *second = i + 1 < nin ? in[i + 1] : malloc(c->count * n * 4);
        if (!fill_operands(c->pattern, c->seed + i / 2, c->count, n, in[i], second)) {
            snprintf(why, sizeof why, "unknown pattern");
            ok = 0;
        }
        if (i + 1 >= nin)
            free(second);
    }
    /* moduli (E mod m) odd, of varied shapes; "evenmod": one instance's modulus even (zero for an even seed), which the
     * call must refuse naming that instance, every output untouched */
    unsigned moduli = expr_moduli(d);
    size_t bad = c->count / 2;
    int evenmod = strcmp(c->alias, "evenmod") == 0;
    expr_odd_moduli(d, n, in, c->count, c->seed);
    if (evenmod && !moduli) {
        snprintf(why, sizeof why, "evenmod: the expression has no modulus");
        ok = 0;
    }
    for (unsigned i = 0; evenmod && i < nin; i++)
        if (moduli >> i & 1u) {
            if (c->seed % 2 == 0)
                memset(in[i] + bad * n, 0, (size_t)n * 4);
            else
                in[i][bad * n] &= ~1u, in[i][bad * n + n - 1] |= 0x80000000u;
            break;
        }
    for (unsigned i = 0; i < nin; i++)
        memcpy(saved[i], in[i], c->count * n * 4);
    for (unsigned j = 0; j < nout; j++) {
        size_t words = c->count * n * d->output_words[j];
        out[j] = inplace && j == 0 ? in[0] : host_mem(ctx, async, words * 4);
        want[j] = malloc((size_t)n * d->output_words[j] * 4);
        if (!(inplace && j == 0))
            for (size_t k = 0; k < words; k++)
                out[j][k] = POISON;
    }
    if (inplace && d->output_words[0] != 1) {
        snprintf(why, sizeof why, "output 0 is twice as wide: no in-place case");
        ok = 0;
    }
    midint_status st = MIDINT_OK;
    if (ok && variant)
        st = midint_force_variant(ctx, variant);
    if (ok && st == MIDINT_OK && strcmp(c->api, "host") == 0) {
        st = midint_expr(ctx, c->name, c->count, c->bits, nout, (void *const *)out, nin, (const void *const *)in);
    } else if (ok && st == MIDINT_OK && async) {
        st = midint_expr_async(ctx, c->name, c->count, c->bits, nout, (void *const *)out, nin,
                               (const void *const *)in, NULL);
        if (st == MIDINT_OK)
            st = midint_synchronize(ctx, NULL);
    } else if (ok && st == MIDINT_OK) {
        void *dev[MAX_IO] = {0}; /* outputs, then inputs; in place: output 0 is input 0's buffer */
        for (unsigned i = 0; i < nout + nin && st == MIDINT_OK; i++) {
            int is_out = i < nout;
            size_t bytes = c->count * n * 4 * (is_out ? d->output_words[i] : 1u);
            if (inplace && i == nout) {
                dev[i] = dev[0];
                st = midint_buffer_write(ctx, dev[i], in[0], bytes);
                continue;
            }
            st = midint_buffer_alloc(ctx, bytes, &dev[i]);
            if (st == MIDINT_OK)
                st = midint_buffer_write(ctx, dev[i], is_out ? out[i] : in[i - nout], bytes);
        }
        if (st == MIDINT_OK)
            st = midint_expr_device(ctx, c->name, c->count, c->bits, nout, dev, nin, (const void *const *)(dev + nout),
                                    NULL);
        if (st == MIDINT_OK)
            st = midint_synchronize(ctx, NULL);
        /* the outputs read back also after a refused call (evenmod: they must be as they were) */
        midint_status rd = MIDINT_OK;
        for (unsigned j = 0; j < nout && rd == MIDINT_OK && (st == MIDINT_OK || evenmod) && dev[j]; j++)
            rd = midint_buffer_read(ctx, out[j], dev[j], c->count * n * 4 * d->output_words[j]);
        st = st != MIDINT_OK ? st : rd;
        for (unsigned i = 0; i < nout + nin; i++)
            if (!(inplace && i == nout))
                midint_buffer_free(ctx, dev[i]);
    }
    if (ok && evenmod) {
        char idx[32];
        snprintf(idx, sizeof idx, "[%zu] is %s", bad, c->seed % 2 == 0 ? "zero" : "even");
        if (st != MIDINT_ERR_INVALID_ARGUMENT || !strstr(midint_last_error(ctx), idx) ||
            !strstr(midint_last_error(ctx), "must be odd")) {
            snprintf(why, sizeof why, "evenmod: want INVALID_ARGUMENT naming %s, got %s: %.150s", idx,
                     midint_status_name(st), midint_last_error(ctx));
            ok = 0;
        }
        for (unsigned j = 0; ok && j < nout; j++)
            for (size_t k = 0; ok && k < c->count * n * d->output_words[j]; k++)
                if (out[j][k] != POISON) {
                    snprintf(why, sizeof why, "evenmod: output %s word %zu was written", d->outputs[j], k);
                    ok = 0;
                }
        print_result(c, ok, why);
        ok = ok ? 2 : 0; /* reported; no reference to compare */
    }
    if (ok == 1 && st != MIDINT_OK) {
        snprintf(why, sizeof why, "%s: %s", midint_status_name(st), midint_last_error(ctx));
        ok = 0;
    }
    for (size_t inst = 0; ok == 1 && inst < c->count; inst++) {
        if (!reference_expr(d, n, (const uint32_t *const *)saved, inst, want)) {
            snprintf(why, sizeof why, "the reference could not evaluate the program '%s'", d->program);
            ok = 0;
        }
        for (unsigned j = 0; ok && j < nout; j++) {
            size_t words = (size_t)n * d->output_words[j];
            for (size_t k = 0; ok && k < words; k++)
                if (out[j][inst * words + k] != want[j][k]) {
                    snprintf(why, sizeof why, "instance %zu output %s word %zu: got %08x want %08x", inst, d->outputs[j],
                             k, out[j][inst * words + k], want[j][k]);
                    ok = 0;
                }
        }
    }
    if (variant)
        midint_force_variant(ctx, NULL);
    if (ok != 2)
        print_result(c, ok, why);
    for (unsigned i = 0; i < nin; i++) {
        host_mem_free(ctx, async, in[i]);
        free(saved[i]);
    }
    for (unsigned j = 0; j < nout; j++) {
        if (!(inplace && j == 0))
            host_mem_free(ctx, async, out[j]);
        free(want[j]);
    }
    return ok != 0;
}

int main(int argc, char **argv)
{
    midint_backend backend = MIDINT_BACKEND_AUTO;
    int device = 0, probe = 0, list = 0;
    const char *variant = NULL;
    size_t staging = 0, workspace = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            const char *b = argv[++i];
            backend = strcmp(b, "cuda") == 0 ? MIDINT_BACKEND_CUDA : strcmp(b, "opencl") == 0 ? MIDINT_BACKEND_OPENCL
                                                                                               : MIDINT_BACKEND_AUTO;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            variant = argv[++i];
        } else if (strcmp(argv[i], "--staging") == 0 && i + 1 < argc) {
            staging = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--workspace") == 0 && i + 1 < argc) {
            workspace = strtoull(argv[++i], NULL, 0);   /* a small cap makes grid calls run in several passes */
        } else if (strcmp(argv[i], "--probe") == 0) {
            probe = 1;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = 1;
        } else {
            fprintf(stderr, "usage: %s --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] "
                    "[--workspace BYTES] [--probe] [--list]\n", argv[0]);
            return 2;
        }
    }
    if (list) {
        for (size_t i = 0; i < midint_expr_count(); i++) {
            const midint_expr_desc *d = midint_expr_info(i);
            printf("%s inputs", d->name);
            for (unsigned k = 0; k < d->ninputs; k++)
                printf(" %s", d->inputs[k]);
            printf(" outputs");
            for (unsigned k = 0; k < d->noutputs; k++)
                printf(" %s:%u", d->outputs[k], d->output_words[k]);
            printf(" program %s\n", d->program);
        }
        return 0;
    }
    midint_context *ctx = NULL;
    midint_status st = midint_open(&ctx, backend, device);
    if (st != MIDINT_OK) {
        printf("%s\n", midint_last_error(NULL));
        return probe && (st == MIDINT_ERR_NO_BACKEND || st == MIDINT_ERR_NO_DEVICE) ? 3 : 2;
    }
    if (probe) {
        printf("%s\n", midint_device_name(ctx));
        midint_close(ctx);
        return 0;
    }
    if (staging)
        midint_set_staging_bytes(ctx, staging);
    if (workspace)
        midint_set_workspace_bytes(ctx, workspace);
    char line[256];
    int all = 1;
    while (fgets(line, sizeof line, stdin)) {
        test_case c = {0};
        unsigned long long seed = 0;
        int fields = sscanf(line, "%31s %u %zu %31s %llu %7s %11s %63s", c.name, &c.bits, &c.count, c.pattern, &seed,
                            c.api, c.alias, c.variant);
        if (fields != 7 && fields != 8) {
            if (strspn(line, " \t\r\n") != strlen(line)) {
                printf("FAIL bad case line: %s", line);
                all = 0;
            }
            continue;
        }
        c.seed = seed;
        all &= run_case(ctx, &c, variant);
        fflush(stdout);
    }
    midint_close(ctx);
    return all ? 0 : 1;
}
