/* batch_gcd.c — finds the RSA moduli that share a prime with another: moduli in hexadecimal on stdin, one per line
 * (blank lines ignored), and for each modulus whose gcd with the product of all the others is not 1, a line
 * "INDEX MODULUS FACTOR" (hexadecimal; FACTOR is the modulus itself where it shares both its primes or is repeated).
 *
 * Usage: batch_gcd [cuda|opencl|auto] < moduli.txt */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "midint.h"

typedef struct {
    char **hex;       /* each modulus's digits, leading zeros dropped */
    size_t count, cap;
    size_t most;      /* the most digits of any */
} lines;

static int read_moduli(FILE *f, lines *in)
{
    char *line = NULL;
    size_t len = 0;
    for (ssize_t got; (got = getline(&line, &len, f)) >= 0;) {
        char *s = line, *e = line + got;
        while (s < e && isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            s += 2;
        if (s == e)
            continue;
        for (char *p = s; p < e; p++)
            if (!isxdigit((unsigned char)*p)) {
                fprintf(stderr, "batch_gcd: line %zu: '%.*s' is not a hexadecimal number\n", in->count + 1,
                        (int)(e - s), s);
                free(line);
                return 0;
            }
        while (s < e - 1 && *s == '0')
            s++;
        if (in->count == in->cap) {
            in->cap = in->cap ? 2 * in->cap : 1024;
            char **h = realloc(in->hex, in->cap * sizeof *h);
            if (!h)
                return free(line), 0;
            in->hex = h;
        }
        in->hex[in->count] = strndup(s, (size_t)(e - s));
        if (!in->hex[in->count++])
            return free(line), 0;
        if ((size_t)(e - s) > in->most)
            in->most = (size_t)(e - s);
    }
    free(line);
    return 1;
}

/* hex digits to n little-endian 32-bit words */
static void to_words(const char *hex, uint32_t *w, unsigned n)
{
    size_t len = strlen(hex);
    memset(w, 0, n * sizeof *w);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint32_t v = (uint32_t)(isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10);
        w[i / 8] |= v << (4 * (i % 8));
    }
}

static void print_words(const uint32_t *w, unsigned n)
{
    while (n > 1 && w[n - 1] == 0)
        n--;
    printf("%x", w[n - 1]);
    while (n-- > 1)
        printf("%08x", w[n - 1]);
}

int main(int argc, char **argv)
{
    midint_backend backend = MIDINT_BACKEND_AUTO;
    if (argc > 1 && strcmp(argv[1], "cuda") == 0)
        backend = MIDINT_BACKEND_CUDA;
    else if (argc > 1 && strcmp(argv[1], "opencl") == 0)
        backend = MIDINT_BACKEND_OPENCL;
    else if (argc > 1 && strcmp(argv[1], "auto") != 0) {
        fprintf(stderr, "usage: batch_gcd [cuda|opencl|auto] < moduli.txt\n");
        return 2;
    }
    lines in = {0};
    if (!read_moduli(stdin, &in))
        return 2;
    if (in.count == 0) {
        fprintf(stderr, "batch_gcd: no moduli on stdin\n");
        return 2;
    }
    const unsigned n = (unsigned)((in.most + 7) / 8), bits = 32 * n;
    uint32_t *m = malloc(in.count * n * sizeof *m), *g = malloc(in.count * n * sizeof *g);
    midint_context *ctx = NULL;
    if (!m || !g) {
        fprintf(stderr, "batch_gcd: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < in.count; i++)
        to_words(in.hex[i], m + i * n, n);
    if (midint_open(&ctx, backend, 0) != MIDINT_OK || midint_batch_gcd(ctx, in.count, bits, m, g) != MIDINT_OK) {
        fprintf(stderr, "batch_gcd: %s\n", midint_last_error(ctx));
        midint_close(ctx);
        return 1;
    }
    printf("# %zu moduli of up to %u bits\n", in.count, bits);
    for (size_t i = 0; i < in.count; i++) {
        int one = g[i * n] == 1;
        for (unsigned j = 1; j < n && one; j++)
            one = g[i * n + j] == 0;
        if (one)
            continue;
        printf("%zu ", i);
        print_words(m + i * n, n);
        printf(" ");
        print_words(g + i * n, n);
        printf("\n");
    }
    for (size_t i = 0; i < in.count; i++)
        free(in.hex[i]);
    free(in.hex);
    free(m);
    free(g);
    midint_close(ctx);
    return 0;
}
