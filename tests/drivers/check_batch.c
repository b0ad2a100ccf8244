/* check_batch.c — runs batches through libmidint and compares every word and carry with GMP.
 *
 * Usage: check_batch --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] [--workspace BYTES]
 *                    [--pinned] [--expect-completed K] [--probe]
 * Cases come on stdin, one per line: "op bits count pattern seed api alias"
 *   op: add|sub|mul|mullo   api: host|async (host buffers, asynchronously, then midint_synchronize)|device
 *   alias: none|ra (r is a)|rb (r is b)|rab (a, b and r one buffer)|ab (a and b one buffer: a square)
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
    char op[8], pattern[32], api[8], alias[8];
    unsigned bits;
    size_t count;
    uint64_t seed;
} test_case;

/* The same call through device buffers: write the inputs, run, read back. Aliases map to one buffer. */
static midint_status call_device(midint_context *ctx, midint_op op, const test_case *c, uint32_t *r,
                                 const uint32_t *a, const uint32_t *b, uint32_t *carry)
{
    size_t bytes = c->count * (c->bits / 32) * 4, r_bytes = bytes * result_words(op, 1);
    void *da = NULL, *db = NULL, *dr = NULL, *dc = NULL;
    midint_status st = midint_buffer_alloc(ctx, bytes, &da);
    if (st == MIDINT_OK && b != a)
        st = midint_buffer_alloc(ctx, bytes, &db);
    if (st == MIDINT_OK && r != a && r != b)
        st = midint_buffer_alloc(ctx, r_bytes, &dr);
    if (st == MIDINT_OK && carry)
        st = midint_buffer_alloc(ctx, c->count * 4, &dc);
    void *bufb = b == a ? da : db;
    void *bufr = r == a ? da : r == b ? bufb : dr;
    if (st == MIDINT_OK)
        st = midint_buffer_write(ctx, da, a, bytes);
    if (st == MIDINT_OK && bufb != da)
        st = midint_buffer_write(ctx, bufb, b, bytes);
    if (st == MIDINT_OK && bufr != da && bufr != bufb)
        st = midint_buffer_write(ctx, bufr, r, r_bytes);
    if (st == MIDINT_OK && carry)
        st = midint_buffer_write(ctx, dc, carry, c->count * 4);
    if (st == MIDINT_OK)
        st = device_call(op, ctx, c->count, c->bits, bufr, da, bufb, dc);
    if (st == MIDINT_OK)
        st = midint_synchronize(ctx, NULL);
    if (st == MIDINT_OK)
        st = midint_buffer_read(ctx, r, bufr, r_bytes);
    if (st == MIDINT_OK && carry)
        st = midint_buffer_read(ctx, carry, dc, c->count * 4);
    midint_buffer_free(ctx, da);
    midint_buffer_free(ctx, db);
    midint_buffer_free(ctx, dr);
    midint_buffer_free(ctx, dc);
    return st;
}

/* --pinned: the host buffers of every case come from midint_host_alloc (page-locked), else from malloc. */
static int pinned;
/* --expect-completed K (or -1: every call must succeed). */
static long long expect_completed = -1;

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

static uint32_t *host_buf(midint_context *ctx, size_t bytes)
{
    void *p = NULL;
    if (!pinned)
        return malloc(bytes);
    return midint_host_alloc(ctx, bytes, &p) == MIDINT_OK ? p : NULL;
}

static void host_buf_free(midint_context *ctx, void *p)
{
    if (pinned)
        midint_host_free(ctx, p);
    else
        free(p);
}

/* Run one case; fills `why` and returns 0 on failure. */
static int run_case(midint_context *ctx, const test_case *c, char *why, size_t whylen)
{
    int op = parse_op(c->op);
    if (op < 0 || c->bits == 0 || c->bits % 32 || c->count == 0) {
        snprintf(why, whylen, "bad case line");
        return 0;
    }
    unsigned n = c->bits / 32, rn = result_words((midint_op)op, n);
    size_t words = c->count * n, r_words = c->count * rn;
    int has_carry = op_has_carry((midint_op)op);
    uint32_t *a = host_buf(ctx, words * 4), *b = host_buf(ctx, words * 4), *r = host_buf(ctx, r_words * 4);
    uint32_t *carry = host_buf(ctx, c->count * 4), *want = malloc(r_words * 4), *want_c = malloc(c->count * 4);
    int ok = 0;
    if (!a || !b || !r || !carry || !want || !want_c) {
        snprintf(why, whylen, "out of host memory");
        goto done;
    }
    if (!fill_operands(c->pattern, c->seed, c->count, n, a, b)) {
        snprintf(why, whylen, "unknown pattern '%s'", c->pattern);
        goto done;
    }
    int square = strcmp(c->alias, "rab") == 0 || strcmp(c->alias, "ab") == 0;
    if (square)
        memcpy(b, a, words * 4);
    for (size_t i = 0; i < c->count; i++)
        reference((midint_op)op, n, a + i * n, (square ? a : b) + i * n, want + i * rn, want_c + i);

    /* poison the outputs so that a word the kernel never wrote shows up */
    for (size_t i = 0; i < r_words; i++)
        r[i] = POISON;
    for (size_t i = 0; i < c->count; i++)
        carry[i] = POISON;
    const uint32_t *pa = a, *pb = b;
    uint32_t *pr = r;
    if (strcmp(c->alias, "ra") == 0) {
        memcpy(r, a, words * 4);
        pa = r;
    } else if (strcmp(c->alias, "rb") == 0) {
        memcpy(r, b, words * 4);
        pb = r;
    } else if (strcmp(c->alias, "rab") == 0) {
        memcpy(r, a, words * 4);
        pa = pb = r;
    } else if (strcmp(c->alias, "ab") == 0) {
        pb = pa;
    } else if (strcmp(c->alias, "none") != 0) {
        snprintf(why, whylen, "unknown alias '%s'", c->alias);
        goto done;
    }
    uint32_t *pc = has_carry ? carry : NULL;
    midint_status st;
    if (strcmp(c->api, "device") == 0)
        st = call_device(ctx, (midint_op)op, c, pr, pa, pb, pc);
    else if (strcmp(c->api, "async") == 0) {
        st = async_call((midint_op)op, ctx, c->count, c->bits, pr, pa, pb, pc);
        if (st == MIDINT_OK)
            st = midint_synchronize(ctx, NULL);
    } else
        st = host_call((midint_op)op, ctx, c->count, c->bits, pr, pa, pb, pc);
    size_t right = c->count; /* instances whose results must be right */
    if (expect_completed >= 0) {
        if (!check_planted_failure(ctx, st, c, &right, why, whylen))
            goto done;
        for (size_t i = right * rn; strcmp(c->alias, "none") == 0 && i < r_words; i++)
            if (r[i] != POISON) {
                snprintf(why, whylen, "instance %zu word %zu was written after the failure", i / rn, i % rn);
                goto done;
            }
    } else if (st != MIDINT_OK) {
        snprintf(why, whylen, "%s: %s", midint_status_name(st), midint_last_error(ctx));
        goto done;
    }
    for (size_t i = 0; i < right * rn; i++)
        if (r[i] != want[i]) {
            snprintf(why, whylen, "instance %zu word %zu: got %08" PRIx32 " want %08" PRIx32, i / rn, i % rn, r[i],
                     want[i]);
            goto done;
        }
    for (size_t i = 0; has_carry && i < right; i++)
        if (carry[i] != want_c[i]) {
            snprintf(why, whylen, "instance %zu carry: got %" PRIu32 " want %" PRIu32, i, carry[i], want_c[i]);
            goto done;
        }
    ok = 1;
done:
    host_buf_free(ctx, a);
    host_buf_free(ctx, b);
    host_buf_free(ctx, r);
    host_buf_free(ctx, carry);
    free(want);
    free(want_c);
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
        } else {
            fprintf(stderr, "usage: %s --backend cuda|opencl [--device N] [--variant NAME] [--staging BYTES] "
                            "[--workspace BYTES] [--pinned] [--expect-completed K] [--probe] < cases\n", argv[0]);
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
        int ok = sscanf(line, "%7s %u %zu %31s %" SCNu64 " %7s %7s", c.op, &c.bits, &c.count, c.pattern, &c.seed,
                        c.api, c.alias) == 7 &&
                 run_case(ctx, &c, why, sizeof why);
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
