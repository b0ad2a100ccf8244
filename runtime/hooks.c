/* hooks.c — the test hooks (hooks.h) read from the environment once, at open: every MIDINT_TEST_* variable here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "registry.h"

/* A count from the variable `name` into *out where it is set and not empty: at least `least`, at most `most`, a power
 * of two where `pow2`; else MIDINT_ERR_INVALID_ARGUMENT with `why` saying that `what` was expected. */
static midint_status read_count(const char *name, unsigned long long least, unsigned long long most, int pow2,
                                const char *what, unsigned long long *out, char *why, size_t len)
{
    const char *s = getenv(name);
    *out = 0;
    if (!s || !*s)
        return MIDINT_OK;
    if (sscanf(s, "%llu", out) != 1 || *out < least || *out > most || (pow2 && (*out & (*out - 1)))) {
        snprintf(why, len, "%s is '%.40s'; expected %s", name, s, what);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    return MIDINT_OK;
}

midint_status midint_hooks_read(midint_test_hooks *h, char *why, size_t len)
{
    memset(h, 0, sizeof *h);
    /* a variant named here returns a wrong word, as a broken kernel would (the tuner's tests) */
    const char *bad = getenv("MIDINT_TEST_CORRUPT");
    h->corrupt = bad && *bad ? midint_registry_find(bad) : NULL;
    const char *split = getenv("MIDINT_TEST_NTT_SPLIT");
    if (split && *split && sscanf(split, "%u,%u", &h->ntt_log, &h->ntt_rows) != 2) {
        snprintf(why, len, "MIDINT_TEST_NTT_SPLIT is '%.40s'; expected LOG,ROWS", split);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    unsigned long long v;
    midint_status st;
    if ((st = read_count("MIDINT_TEST_NTT_PIECE", 1, UINT32_MAX, 0, "a positive number of words", &v, why, len)))
        return st;
    h->ntt_piece = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_TILE_WORDS", 1, UINT32_MAX, 0, "a positive number of words", &v, why, len)))
        return st;
    h->tile_words = (uint32_t)v;
    const char *steps = getenv("MIDINT_TEST_EXPR_STEPS");
    h->expr_steps = steps && *steps && strcmp(steps, "0") != 0;
    const char *fail = getenv("MIDINT_TEST_FAIL_CHUNK");
    h->fail_chunk = fail && *fail ? strtoull(fail, NULL, 10) : 0;
    const char *probe = getenv("MIDINT_TEST_PROBE_FAIL");
    h->probe_fail = probe && strcmp(probe, "1") == 0;
    const char *wg = getenv("MIDINT_TEST_KERNEL_WG");
    h->kernel_wg = wg ? (uint32_t)strtoul(wg, NULL, 10) : 0;
    const char *composed = getenv("MIDINT_TEST_COMPOSED");
    h->composed = composed && strcmp(composed, "1") == 0;
    const char *no_replay = getenv("MIDINT_TEST_NO_REPLAY");
    h->no_replay = no_replay && strcmp(no_replay, "1") == 0;
    const char *trace_replay = getenv("MIDINT_TRACE_REPLAY");
    h->trace_replay = trace_replay && strcmp(trace_replay, "1") == 0;
    if ((st = read_count("MIDINT_TEST_BIGDIV", 2, UINT32_MAX, 0, "the Newton base's words, at least 2", &v, why,
                         len)))
        return st;
    h->bigdiv_base = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_WRAP_FROM", 1, UINT32_MAX, 0, "a positive number of words", &v, why, len)))
        return st;
    h->wrap_from = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_SPLIT_FROM", 1, UINT32_MAX, 0, "a positive number of words", &v, why, len)))
        return st;
    h->split_from = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_HALF_FROM", 1, UINT32_MAX, 0, "a positive number of words", &v, why, len)))
        return st;
    h->half_from = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_GCD_PART", 4, UINT32_MAX, 1, "a power of two of at least 4 moduli", &v, why,
                         len)))
        return st;
    h->gcd_part = (uint32_t)v;
    if ((st = read_count("MIDINT_TEST_DEVICE_BYTES", 1, SIZE_MAX, 0, "a positive number of bytes", &v, why, len)))
        return st;
    h->device_bytes = (size_t)v;
    return MIDINT_OK;
}
