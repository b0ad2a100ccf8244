/* _convert.c — midint._convert: Python ints <-> little-endian uint32 limb buffers in one C pass (optional). */

/*
 * midint/convert.py uses this module when it imports and falls back to its pure-Python path otherwise. The fast paths
 * read and write CPython's own digits, so each is compiled only for a CPython whose int layout the headers describe:
 *
 *   digits-size  30-bit digits, sign and count in ob_size                    CPython 3.8 to 3.11
 *   digits-tag   30-bit digits, count and sign in lv_tag (long_value)         CPython 3.12, 3.13
 *   export       PEP 757 PyLong_Export / PyLongWriter (public API), checked   CPython 3.14 and later
 *                at import to be 30-bit digits in 32-bit words
 *   bytes        CPython's byte-array functions, one call per int (slower)    any other CPython before 3.14
 *                (15-bit digits), or when built with -DMIDINT_CONVERT_BYTES (so its tests can run it)
 *
 * -DMIDINT_CONVERT_EXPORT takes the export path before 3.14 too, given a header that provides PEP 757 there
 * (pythoncapi-compat's pythoncapi_compat.h through -include): how the export path is tested without a 3.14.
 *
 * Anything the pure-Python path would refuse or convert specially (not an int, NumPy integers, negative, wider than
 * bits) is not handled here: ints_to_limbs returns the index of the first such item (a caller's buffer untouched, a
 * fresh one to be dropped) and convert.py takes the pure path, which raises its own message or converts the NumPy
 * integers. Nothing here runs Python code between checking an item and writing it, so the items cannot change.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#if defined(PYPY_VERSION) || defined(Py_LIMITED_API)
#error "midint._convert reads CPython's ints: build it for CPython, without the limited API"
#endif

#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>   /* Python.h includes it from 3.11 on */
#endif

#if PY_VERSION_HEX >= 0x030E0000 || defined(MIDINT_CONVERT_EXPORT)
#define CONV_EXPORT 1
#define CONV_LAYOUT "export"
#elif defined(MIDINT_CONVERT_BYTES) || PyLong_SHIFT != 30
#define CONV_BYTES 1
#define CONV_LAYOUT "bytes"
#elif PY_VERSION_HEX >= 0x030C0000 && defined(_PyLong_NON_SIZE_BITS) && _PyLong_NON_SIZE_BITS == 3 && \
    _PyLong_SIGN_MASK == 3
#define CONV_DIGITS 1
#define CONV_LAYOUT "digits-tag"
#elif PY_VERSION_HEX < 0x030C0000
#define CONV_DIGITS 1
#define CONV_LAYOUT "digits-size"
#else
#error "midint._convert: this CPython's int layout is not one it knows; build without the extension"
#endif

#define DIGIT_BITS 30
#define DIGIT_MASK ((uint32_t)0x3fffffff)

#if defined(CONV_DIGITS) || defined(CONV_EXPORT)

/* ---- the arithmetic of the digit layouts: 30-bit digits <-> 32-bit words ----
 * 16 digits (480 bits) are exactly 15 words, with fixed shifts: word j = digit j >> 2j | digit j+1 << (30 - 2j).
 * Whole groups go through those straight-line loops; the last partial group through a bit accumulator. */

static inline int bit_length32(uint32_t x)
{
#if defined(__GNUC__)
    return x ? 32 - __builtin_clz(x) : 0;
#else
    int n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
#endif
}

static inline void group_digits_to_words(const uint32_t *d, uint32_t *w)
{
    for (int j = 0; j < 15; j++)
        w[j] = (d[j] >> (2 * j)) | (d[j + 1] << (30 - 2 * j));
}

static inline void group_words_to_digits(const uint32_t *w, uint32_t *d)
{
    d[0] = w[0] & DIGIT_MASK;
    for (int k = 1; k < 15; k++)
        d[k] = ((w[k - 1] >> (32 - 2 * k)) | (w[k] << (2 * k))) & DIGIT_MASK;
    d[15] = w[14] >> 2;
}

/* nd digits of a value of at most 32*nw bits into nw words, zero-padded. A whole group of 16 digits ends below the
 * value's top digit, so its 15 words are all within nw; past the last digit the accumulator only holds bits of the
 * value (or zeros above it, kept out by j < nw). */
static void digits_to_words(const uint32_t *d, Py_ssize_t nd, uint32_t *w, Py_ssize_t nw)
{
    Py_ssize_t k = 0, j = 0;
    for (; k + 16 <= nd; k += 16, j += 15)
        group_digits_to_words(d + k, w + j);
    uint64_t acc = 0;
    int have = 0;
    for (; k < nd; k++) {
        acc |= (uint64_t)d[k] << have;
        have += DIGIT_BITS;
        if (have >= 32) {
            w[j++] = (uint32_t)acc;
            acc >>= 32;
            have -= 32;
        }
    }
    if (have > 0 && j < nw)
        w[j++] = (uint32_t)acc;
    memset(w + j, 0, (size_t)(nw - j) * sizeof *w);
}

/* The nd digits of the value held by nw words (nw: up to its top nonzero word; nd: exactly the digits it needs).
 * A whole group of 16 digits below nd reads words only below the top one. */
static void words_to_digits(const uint32_t *w, Py_ssize_t nw, uint32_t *d, Py_ssize_t nd)
{
    Py_ssize_t k = 0, j = 0;
    for (; k + 16 <= nd; k += 16, j += 15)
        group_words_to_digits(w + j, d + k);
    uint64_t acc = 0;
    int have = 0;
    for (; k < nd; k++) {
        if (have < DIGIT_BITS && j < nw) {
            acc |= (uint64_t)w[j++] << have;
            have += 32;
        }
        d[k] = (uint32_t)acc & DIGIT_MASK;
        acc >>= DIGIT_BITS;
        have -= DIGIT_BITS;
    }
}

/* Words in use (top nonzero + 1) and the bit length of a row. */
static inline Py_ssize_t row_bits(const uint32_t *w, Py_ssize_t nw, Py_ssize_t *used)
{
    while (nw > 0 && w[nw - 1] == 0)
        nw--;
    *used = nw;
    return nw ? 32 * (nw - 1) + bit_length32(w[nw - 1]) : 0;
}

/* A row of at most 64 bits (its low `used` words, at most 2, those above zero) as CPython's own constructor makes it:
 * its cached small ints, its compact form. */
static inline PyObject *small_int(const uint32_t *row, Py_ssize_t used)
{
    return PyLong_FromUnsignedLongLong(used == 0 ? 0 : used == 1 ? row[0] : row[0] | (uint64_t)row[1] << 32);
}

/* ---- reading an int: its magnitude's 30-bit digits and its sign ---- */

typedef struct {
    const uint32_t *digits;
    Py_ssize_t ndigits;
    int negative;
#if defined(CONV_EXPORT)
    uint32_t small[3];   /* a value PyLong_Export hands over as an int64, as digits */
    PyLongExport ex;
#endif
} int_view;

/* v (an int) as digits; view_close ends it. -1 with an exception if CPython refuses the export. */
static inline int view_open(PyObject *v, int_view *iv)
{
#if defined(CONV_EXPORT)
    if (PyLong_Export(v, &iv->ex) < 0)
        return -1;
    if (iv->ex.digits) {
        iv->digits = iv->ex.digits;
        iv->ndigits = iv->ex.ndigits;
        iv->negative = iv->ex.negative;
        return 0;
    }
    int64_t value = iv->ex.value;
    uint64_t mag = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    iv->negative = value < 0;
    iv->ndigits = 0;
    for (; mag; mag >>= DIGIT_BITS)
        iv->small[iv->ndigits++] = (uint32_t)mag & DIGIT_MASK;
    iv->digits = iv->small;
    return 0;
#elif PY_VERSION_HEX >= 0x030C0000
    const PyLongObject *lv = (const PyLongObject *)v;
    uintptr_t tag = lv->long_value.lv_tag;
    iv->digits = lv->long_value.ob_digit;
    iv->ndigits = (Py_ssize_t)(tag >> _PyLong_NON_SIZE_BITS);
    iv->negative = (tag & _PyLong_SIGN_MASK) == 2;
    return 0;
#else
    const PyLongObject *lv = (const PyLongObject *)v;
    Py_ssize_t size = Py_SIZE(lv);
    iv->digits = lv->ob_digit;
    iv->ndigits = size < 0 ? -size : size;
    iv->negative = size < 0;
    return 0;
#endif
}

static inline void view_close(int_view *iv)
{
#if defined(CONV_EXPORT)
    PyLong_FreeExport(&iv->ex);
#else
    (void)iv;
#endif
}

/* v's bit length; -1 when v is not an int or is negative (the pure path says why); -2 on an exception. */
static inline Py_ssize_t item_bits(PyObject *v)
{
    int_view iv;
    if (!PyLong_Check(v))
        return -1;
    if (view_open(v, &iv) < 0)
        return -2;
    /* normalized: the top digit is nonzero */
    Py_ssize_t bits = iv.negative ? -1 : iv.ndigits == 0 ? 0
                    : DIGIT_BITS * (iv.ndigits - 1) + bit_length32(iv.digits[iv.ndigits - 1]);
    view_close(&iv);
    return bits;
}

/* v's words into row (nw words), zero-padded; v has passed item_check. */
static inline int item_write(PyObject *v, uint32_t *row, Py_ssize_t nw)
{
    int_view iv;
    if (view_open(v, &iv) < 0)
        return -1;
    digits_to_words(iv.digits, iv.ndigits, row, nw);
    view_close(&iv);
    return 0;
}

#if defined(CONV_EXPORT)
/* The int held by row (nw words): a new reference, or NULL with an exception. The digits layouts make their ints in
 * limbs_to_ints's passes instead. */
static inline PyObject *item_read(const uint32_t *row, Py_ssize_t nw)
{
    Py_ssize_t used, bits = row_bits(row, nw, &used);
    if (bits <= 64)
        return small_int(row, used);
    Py_ssize_t nd = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
    void *digits;
    PyLongWriter *writer = PyLongWriter_Create(0, nd, &digits);
    if (!writer)
        return NULL;
    words_to_digits(row, used, digits, nd);
    return PyLongWriter_Finish(writer);
}
#endif

#else /* CONV_BYTES: CPython's byte-array functions do the layout's work */

static inline Py_ssize_t item_bits(PyObject *v)
{
    if (!PyLong_Check(v) || _PyLong_Sign(v) < 0)
        return -1;
    size_t n = _PyLong_NumBits(v);
    if (n == (size_t)-1 && PyErr_Occurred()) {   /* more bits than a size_t counts: wider than any width */
        PyErr_Clear();
        return PY_SSIZE_T_MAX;
    }
    return n > (size_t)PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
}

static inline int item_write(PyObject *v, uint32_t *row, Py_ssize_t nw)
{
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(v, row, 4 * nw, Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                           Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    return need < 0 ? -1 : 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)v, (unsigned char *)row, (size_t)(4 * nw), 1, 0);
#endif
}

static inline PyObject *item_read(const uint32_t *row, Py_ssize_t nw)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(row, (size_t)(4 * nw), Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)row, (size_t)(4 * nw), 1, 0);
#endif
}
#endif

/* ---- the module's two functions ---- */

/* The items of values, held for the call: the list or tuple itself (PySequence_Fast), or, on a free-threaded
 * build, a tuple copy, since another thread could change a list while the items are read without the GIL. */
static PyObject *items_of(PyObject *values)
{
#ifdef Py_GIL_DISABLED
    return PySequence_Tuple(values);
#else
    return PySequence_Fast(values, "ints_to_limbs: values must be a sequence");
#endif
}

/* Buffers the module reads or writes as uint32 words: C-contiguous (asked of the exporter) and 4-byte aligned. */
static int get_words(PyObject *obj, Py_buffer *view, int flags, const char *what)
{
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((uintptr_t)view->buf % sizeof(uint32_t)) {
        PyErr_Format(PyExc_ValueError, "%s is not aligned to 4 bytes", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* ---- a pass over the rows, split between threads ----
 * The passes below read or write only memory: the ints' digits, the limb rows, and new ints that no one else holds
 * yet. The calling thread keeps the GIL throughout, so no Python code runs and the items stay as they were read;
 * the other threads call nothing of CPython's. Only the digits layouts read ints as plain memory, so the export
 * and bytes paths (CPython calls per item) take one thread. */

#if defined(CONV_DIGITS) && !defined(_WIN32)
#define CONV_THREADS 1
#include <pthread.h>
#endif

#define MAX_THREADS 64

/* The smallest refused index of rows [lo, hi), -1 when none is, -2 on an exception (one thread only). */
typedef Py_ssize_t (*span_fn)(void *job, Py_ssize_t lo, Py_ssize_t hi);

typedef struct {
    span_fn fn;
    void *job;
    Py_ssize_t lo, hi, result;
} span;

#if defined(CONV_THREADS)
static void *span_run(void *arg)
{
    span *s = arg;
    s->result = s->fn(s->job, s->lo, s->hi);
    return NULL;
}
#endif

/* fn over rows [0, n) in up to `threads` contiguous spans, the calling thread taking the first (and any span whose
 * thread did not start); the smallest refused index of any span, -1 when none, -2 on an exception. */
static Py_ssize_t over_rows(span_fn fn, void *job, Py_ssize_t n, int threads)
{
#if defined(CONV_THREADS)
    span spans[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    int parts = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    if (parts > n)
        parts = n > 0 ? (int)n : 1;
    for (int t = 0; t < parts; t++)
        spans[t] = (span){fn, job, n * t / parts, n * (t + 1) / parts, -1};
    for (int t = 1; t < parts; t++)
        started[t] = pthread_create(&ids[t], NULL, span_run, &spans[t]) == 0;
    spans[0].result = fn(job, spans[0].lo, spans[0].hi);
    Py_ssize_t result = -1;
    for (int t = 0; t < parts; t++) {
        if (t && started[t])
            pthread_join(ids[t], NULL);
        else if (t)
            spans[t].result = fn(job, spans[t].lo, spans[t].hi);
        Py_ssize_t r = spans[t].result;
        if (r == -2 || result == -2)
            result = -2;
        else if (r >= 0 && (result < 0 || r < result))
            result = r;
    }
    return result;
#else
    (void)threads;
    return fn(job, 0, n);
#endif
}

/* -1 when item i is taken (an int, not negative, of at most `bits` bits), i when it is refused, -2 on an exception. */
static inline Py_ssize_t item_check(PyObject *v, Py_ssize_t bits, Py_ssize_t i)
{
    Py_ssize_t n = item_bits(v);
    return n < -1 ? -2 : n >= 0 && n <= bits ? -1 : i;
}

static int check_words(Py_ssize_t words)
{
    if (words <= 0 || words > PY_SSIZE_T_MAX / 32) {
        PyErr_Format(PyExc_ValueError, "words=%zd is not a positive count of 32-bit words", words);
        return -1;
    }
    return 0;
}

/* ints_to_limbs's spans: check only, write only (all checked before), or check each item just before writing it */
typedef struct {
    PyObject **items;
    uint32_t *rows;
    Py_ssize_t words;
    int check, write;
} to_limbs_job;

static Py_ssize_t to_limbs_span(void *arg, Py_ssize_t lo, Py_ssize_t hi)
{
    const to_limbs_job *job = arg;
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t bad = job->check ? item_check(job->items[i], 32 * job->words, i) : -1;
        if (bad != -1)
            return bad;
        if (job->write && item_write(job->items[i], job->rows + i * job->words, job->words) < 0)
            return -2;
    }
    return -1;
}

PyDoc_STRVAR(ints_to_limbs_doc,
"ints_to_limbs(values, out, words, check_first=True, threads=1) -> int\n\n"
"Writes each int of the sequence values as `words` little-endian 32-bit words into the C-contiguous writable\n"
"buffer out (len(values) * words words). Returns -1 when every item was written; otherwise the index of the\n"
"first item that is not an int, is negative or has more than 32 * words bits: out is then left untouched with\n"
"check_first (all items checked first), or holds some other rows (one pass, faster; for a fresh buffer to be\n"
"dropped). threads: how many threads share the rows (1 where the layout is not read as plain memory).");

static PyObject *ints_to_limbs(PyObject *self, PyObject *args)
{
    PyObject *values, *out, *seq = NULL, *result = NULL;
    Py_ssize_t words, bad = -1;
    int check_first = 1, threads = 1;
    Py_buffer view;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOn|pi:ints_to_limbs", &values, &out, &words, &check_first, &threads) ||
        check_words(words) < 0)
        return NULL;
    if (get_words(out, &view, PyBUF_WRITABLE, "out") < 0)
        return NULL;
    /* the buffer first, the items after: taking the items of a sequence other than a list or tuple runs its Python
     * code; from then on, no Python code runs until the last item is written, so the items stay as checked */
    if (!(seq = items_of(values)))
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > PY_SSIZE_T_MAX / 4 / words || view.len != n * words * 4) {
        PyErr_Format(PyExc_ValueError, "out holds %zd bytes; %zd ints of %zd words need %zd", view.len, n, words,
                     n <= PY_SSIZE_T_MAX / 4 / words ? n * words * 4 : PY_SSIZE_T_MAX);
        goto done;
    }
    /* all items checked before any is written (check_first: out is the caller's, to be left as it was when an item
     * is refused), or each just before it is written (a fresh array, dropped on a refusal: one pass, faster) */
    to_limbs_job job = {PySequence_Fast_ITEMS(seq), view.buf, words, 1, !check_first};
    bad = over_rows(to_limbs_span, &job, n, threads);
    if (check_first && bad == -1) {
        job.check = 0;
        job.write = 1;
        bad = over_rows(to_limbs_span, &job, n, threads);
    }
    if (bad >= -1)
        result = PyLong_FromSsize_t(bad);
done:
    Py_XDECREF(seq);
    PyBuffer_Release(&view);
    return result;
}

/* widest_bits's spans: each span's widest item folded into the job's with a compare-and-swap */
typedef struct {
    PyObject **items;
    Py_ssize_t widest;
} widest_job;

static Py_ssize_t widest_span(void *arg, Py_ssize_t lo, Py_ssize_t hi)
{
    widest_job *job = arg;
    Py_ssize_t widest = 0;
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t bits = item_bits(job->items[i]);
        if (bits < -1)
            return -2;
        if (bits < 0)
            return i;
        if (bits > widest)
            widest = bits;
    }
#if defined(CONV_THREADS)
    Py_ssize_t seen = __atomic_load_n(&job->widest, __ATOMIC_RELAXED);
    while (widest > seen &&
           !__atomic_compare_exchange_n(&job->widest, &seen, widest, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
#else
    if (widest > job->widest)
        job->widest = widest;
#endif
    return -1;
}

PyDoc_STRVAR(widest_bits_doc,
"widest_bits(values, threads=1) -> (bits, index)\n\n"
"The largest bit length among the ints of the sequence values (0 when it is empty or all zeros) and -1; or (0,\n"
"the index of the first item that is not an int or is negative).");

static PyObject *widest_bits(PyObject *self, PyObject *args)
{
    PyObject *values, *seq, *result = NULL;
    int threads = 1;
    (void)self;
    if (!PyArg_ParseTuple(args, "O|i:widest_bits", &values, &threads) || !(seq = items_of(values)))
        return NULL;
    widest_job job = {PySequence_Fast_ITEMS(seq), 0};
    Py_ssize_t bad = over_rows(widest_span, &job, PySequence_Fast_GET_SIZE(seq), threads);
    if (bad >= -1)
        result = Py_BuildValue("nn", bad == -1 ? job.widest : 0, bad);
    Py_DECREF(seq);
    return result;
}

PyDoc_STRVAR(limbs_to_ints_doc,
"limbs_to_ints(buffer, words, threads=1, reserved=None) -> list\n\n"
"The ints held by a C-contiguous buffer of rows of `words` little-endian 32-bit words (its length a multiple of\n"
"4 * words bytes), one per row. threads: how many threads share the rows' digits (1 where the layout is not\n"
"written as plain memory). reserved: reserve_ints(rows, words)'s ints, taken instead of new ones.");

#if defined(CONV_DIGITS)
/* limbs_to_ints in three passes: each row's digit count (threads), the ints made with those counts (the calling
 * thread: CPython's allocator), their digits filled (threads). A row of at most 64 bits is made whole by CPython's
 * own constructor in the second pass (its cached small ints, its compact form) and has count 0. */
typedef struct {
    const uint32_t *rows;
    Py_ssize_t words;
    Py_ssize_t *ndigits;
    PyObject **ints;
} to_ints_job;

static Py_ssize_t count_span(void *arg, Py_ssize_t lo, Py_ssize_t hi)
{
    const to_ints_job *job = arg;
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t used, bits = row_bits(job->rows + i * job->words, job->words, &used);
        job->ndigits[i] = bits <= 64 ? 0 : (bits + DIGIT_BITS - 1) / DIGIT_BITS;
    }
    return -1;
}

static Py_ssize_t fill_span(void *arg, Py_ssize_t lo, Py_ssize_t hi)
{
    const to_ints_job *job = arg;
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (!job->ndigits[i])
            continue;
        const uint32_t *row = job->rows + i * job->words;
        Py_ssize_t used;
        row_bits(row, job->words, &used);
        PyLongObject *r = (PyLongObject *)job->ints[i];
#if PY_VERSION_HEX >= 0x030C0000
        words_to_digits(row, used, r->long_value.ob_digit, job->ndigits[i]);
#else
        words_to_digits(row, used, r->ob_digit, job->ndigits[i]);
#endif
    }
    return -1;
}

/* Ints made ahead of their values (reserve_ints): each of `ndigits` digits, its digits not yet written, held here
 * and by no one else until limbs_to_ints takes them over (a capsule, so that Python code cannot reach them). */
#define RESERVED_NAME "midint._convert.reserved"
typedef struct {
    Py_ssize_t n, ndigits;
    PyObject *ints[];
} reserved_ints;

static void reserved_free(PyObject *capsule)
{
    reserved_ints *res = PyCapsule_GetPointer(capsule, RESERVED_NAME);
    for (Py_ssize_t i = 0; res && i < res->n; i++)
        Py_XDECREF(res->ints[i]);   /* unread digits: an int's deallocation does not read them */
    PyMem_Free(res);
}

/* The reserved ints a limbs_to_ints call of n rows of `words` words can take, or NULL with an exception. */
static reserved_ints *reserved_for(PyObject *capsule, Py_ssize_t n, Py_ssize_t words)
{
    reserved_ints *res = PyCapsule_GetPointer(capsule, RESERVED_NAME);
    if (!res)
        return NULL;
    if (res->n != n || res->ndigits < (32 * words + DIGIT_BITS - 1) / DIGIT_BITS || (n && !res->ints[0])) {
        PyErr_Format(PyExc_ValueError, "reserved ints: %zd of %zd digits%s, for %zd rows of %zd words", res->n,
                     res->ndigits, n && !res->ints[0] ? ", already taken" : "", n, words);
        return NULL;
    }
    return res;
}

/* An int of v's digits set to nd (at most those it was made with): CPython's own normalization shrinks an int so. */
static inline void set_digit_count(PyObject *v, Py_ssize_t nd)
{
#if PY_VERSION_HEX >= 0x030C0000
    ((PyLongObject *)v)->long_value.lv_tag = (uintptr_t)nd << _PyLong_NON_SIZE_BITS;   /* positive */
#else
    Py_SET_SIZE(v, nd);
#endif
}

static int rows_to_list(const uint32_t *rows, Py_ssize_t words, PyObject *list, int threads, reserved_ints *res)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    to_ints_job job = {rows, words, PyMem_New(Py_ssize_t, n > 0 ? n : 1), ((PyListObject *)list)->ob_item};
    if (!job.ndigits) {
        PyErr_NoMemory();
        return -1;
    }
    over_rows(count_span, &job, n, threads);
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint32_t *row = rows + i * words;
        PyObject *v;
        if (!job.ndigits[i]) {
            v = small_int(row, words < 2 ? words : 2);
        } else if (res) {   /* a reserved int, shrunk to its count */
            v = res->ints[i];
            res->ints[i] = NULL;
            set_digit_count(v, job.ndigits[i]);
        } else {
            v = (PyObject *)_PyLong_New(job.ndigits[i]);
        }
        /* positive, ndigits[i] digits: normalized once filled, the top digit nonzero */
        if (!v) {
            PyMem_Free(job.ndigits);
            return -1;   /* the list's unset items are NULL, which its deallocation skips */
        }
        PyList_SET_ITEM(list, i, v);
    }
    for (Py_ssize_t i = 0; res && i < n; i++)   /* those not taken (rows of at most 64 bits) */
        Py_CLEAR(res->ints[i]);
    over_rows(fill_span, &job, n, threads);
    PyMem_Free(job.ndigits);
    return 0;
}

PyDoc_STRVAR(reserve_ints_doc,
"reserve_ints(count, words) -> capsule\n\n"
"count new ints, each able to hold 32 * words bits, made now (CPython's allocator) for a later\n"
"limbs_to_ints(buffer, words, threads, reserved) of count rows to fill: so that they can be made while something\n"
"else (a device call) runs. Held in a capsule, taken once. Only where the layout is written as plain memory.");

static PyObject *reserve_ints(PyObject *self, PyObject *args)
{
    Py_ssize_t n, words;
    (void)self;
    if (!PyArg_ParseTuple(args, "nn:reserve_ints", &n, &words) || check_words(words) < 0)
        return NULL;
    if (n < 0 || n > (PY_SSIZE_T_MAX - (Py_ssize_t)sizeof(reserved_ints)) / (Py_ssize_t)sizeof(PyObject *)) {
        PyErr_Format(PyExc_ValueError, "count=%zd is not a count of ints", n);
        return NULL;
    }
    reserved_ints *res = PyMem_Malloc(sizeof(reserved_ints) + (size_t)n * sizeof(PyObject *));
    if (!res)
        return PyErr_NoMemory();
    res->n = n;
    res->ndigits = (32 * words + DIGIT_BITS - 1) / DIGIT_BITS;
    memset(res->ints, 0, (size_t)n * sizeof(PyObject *));
    PyObject *capsule = PyCapsule_New(res, RESERVED_NAME, reserved_free);
    if (!capsule) {
        PyMem_Free(res);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!(res->ints[i] = (PyObject *)_PyLong_New(res->ndigits))) {
            Py_DECREF(capsule);   /* frees those made */
            return NULL;
        }
    return capsule;
}
#else
static int rows_to_list(const uint32_t *rows, Py_ssize_t words, PyObject *list, int threads, void *res)
{
    (void)threads;
    (void)res;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *v = item_read(rows + i * words, words);
        if (!v)
            return -1;   /* the list's unset items are NULL, which its deallocation skips */
        PyList_SET_ITEM(list, i, v);
    }
    return 0;
}
#endif

static PyObject *limbs_to_ints(PyObject *self, PyObject *args)
{
    PyObject *obj, *list = NULL, *reserved = Py_None;
    Py_ssize_t words;
    int threads = 1;
    Py_buffer view;
    (void)self;
    if (!PyArg_ParseTuple(args, "On|iO:limbs_to_ints", &obj, &words, &threads, &reserved) || check_words(words) < 0)
        return NULL;
    if (get_words(obj, &view, PyBUF_SIMPLE, "the limb buffer") < 0)
        return NULL;
    if (view.len % (4 * words)) {
        PyErr_Format(PyExc_ValueError, "the limb buffer holds %zd bytes, not a whole number of rows of %zd words",
                     view.len, words);
        goto done;
    }
    Py_ssize_t n = view.len / (4 * words);
#if defined(CONV_DIGITS)
    reserved_ints *res = NULL;
    if (reserved != Py_None && !(res = reserved_for(reserved, n, words)))
        goto done;
#else
    void *res = NULL;
    if (reserved != Py_None) {
        PyErr_SetString(PyExc_ValueError, "reserved ints: this layout makes its ints one by one");
        goto done;
    }
#endif
    if ((list = PyList_New(n)) && rows_to_list(view.buf, words, list, threads, res) < 0)
        Py_CLEAR(list);
done:
    PyBuffer_Release(&view);
    return list;
}

static PyMethodDef methods[] = {
    {"ints_to_limbs", ints_to_limbs, METH_VARARGS, ints_to_limbs_doc},
    {"limbs_to_ints", limbs_to_ints, METH_VARARGS, limbs_to_ints_doc},
    {"widest_bits", widest_bits, METH_VARARGS, widest_bits_doc},
#if defined(CONV_DIGITS)
    {"reserve_ints", reserve_ints, METH_VARARGS, reserve_ints_doc},
#endif
    {NULL, NULL, 0, NULL},
};

/* Refuses to load where the words would not be what the buffers hold (a big-endian host: the limbs are
 * little-endian), or where CPython 3.14+'s digits are not the 30-bit ones the export path reads. */
static int module_exec(PyObject *m)
{
#if PY_BIG_ENDIAN
    PyErr_SetString(PyExc_ImportError, "midint._convert: a big-endian host; midint uses its pure-Python conversions");
    return -1;
#endif
#if defined(CONV_EXPORT)
    const PyLongLayout *layout = PyLong_GetNativeLayout();
    if (layout->bits_per_digit != DIGIT_BITS || layout->digit_size != 4 || layout->digits_order != -1 ||
        layout->digit_endianness != -1) {
        PyErr_SetString(PyExc_ImportError, "midint._convert: this CPython's ints are not 30-bit digits in 32-bit "
                        "words; midint uses its pure-Python conversions");
        return -1;
    }
#endif
    return PyModule_AddStringConstant(m, "LAYOUT", CONV_LAYOUT);
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_convert",
    "Python ints <-> little-endian uint32 limb buffers in C (midint.convert uses it when present).",
    0, methods, slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__convert(void)
{
    return PyModuleDef_Init(&module);
}
