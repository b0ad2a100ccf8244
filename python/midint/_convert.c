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

/* 1: v is an int, not negative, of at most `bits` bits; 0: not (the pure path says why); -1: an exception. */
static inline int item_fits(PyObject *v, Py_ssize_t bits)
{
    int_view iv;
    if (!PyLong_Check(v))
        return 0;
    if (view_open(v, &iv) < 0)
        return -1;
    /* normalized: the top digit is nonzero */
    int fits = !iv.negative &&
               (iv.ndigits == 0 || DIGIT_BITS * (iv.ndigits - 1) + bit_length32(iv.digits[iv.ndigits - 1]) <= bits);
    view_close(&iv);
    return fits;
}

/* v's words into row (nw words), zero-padded; v has passed item_fits. */
static inline int item_write(PyObject *v, uint32_t *row, Py_ssize_t nw)
{
    int_view iv;
    if (view_open(v, &iv) < 0)
        return -1;
    digits_to_words(iv.digits, iv.ndigits, row, nw);
    view_close(&iv);
    return 0;
}

/* A new int of nd > 2 digits (so never one of CPython's cached small ints) filled by words_to_digits. */
static inline PyObject *new_int(const uint32_t *w, Py_ssize_t used, Py_ssize_t nd)
{
#if defined(CONV_EXPORT)
    void *digits;
    PyLongWriter *writer = PyLongWriter_Create(0, nd, &digits);
    if (!writer)
        return NULL;
    words_to_digits(w, used, digits, nd);
    return PyLongWriter_Finish(writer);
#else
    PyLongObject *r = _PyLong_New(nd);   /* positive, nd digits: normalized once filled, the top digit nonzero */
    if (!r)
        return NULL;
#if PY_VERSION_HEX >= 0x030C0000
    words_to_digits(w, used, r->long_value.ob_digit, nd);
#else
    words_to_digits(w, used, r->ob_digit, nd);
#endif
    return (PyObject *)r;
#endif
}

/* The int held by row (nw words): a new reference, or NULL with an exception. */
static inline PyObject *item_read(const uint32_t *row, Py_ssize_t nw)
{
    Py_ssize_t used, bits = row_bits(row, nw, &used);
    if (bits <= 64)   /* CPython's own constructor: cached small ints, its compact form */
        return PyLong_FromUnsignedLongLong(used == 0 ? 0 : used == 1 ? row[0] : row[0] | (uint64_t)row[1] << 32);
    return new_int(row, used, (bits + DIGIT_BITS - 1) / DIGIT_BITS);
}

#else /* CONV_BYTES: CPython's byte-array functions do the layout's work */

static inline int item_fits(PyObject *v, Py_ssize_t bits)
{
    if (!PyLong_Check(v) || _PyLong_Sign(v) < 0)
        return 0;
    size_t n = _PyLong_NumBits(v);
    if (n == (size_t)-1 && PyErr_Occurred()) {   /* more bits than a size_t counts: certainly too wide */
        PyErr_Clear();
        return 0;
    }
    return n <= (size_t)bits;
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

/* -1 when item i is taken, i when it is refused, -2 on an exception (item_fits's answers as ints_to_limbs's). */
static inline Py_ssize_t item_check(PyObject *v, Py_ssize_t bits, Py_ssize_t i)
{
    int fits = item_fits(v, bits);
    return fits > 0 ? -1 : fits == 0 ? i : -2;
}

static int check_words(Py_ssize_t words)
{
    if (words <= 0 || words > PY_SSIZE_T_MAX / 32) {
        PyErr_Format(PyExc_ValueError, "words=%zd is not a positive count of 32-bit words", words);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(ints_to_limbs_doc,
"ints_to_limbs(values, out, words, check_first=True) -> int\n\n"
"Writes each int of the sequence values as `words` little-endian 32-bit words into the C-contiguous writable\n"
"buffer out (len(values) * words words). Returns -1 when every item was written; otherwise the index of the\n"
"first item that is not an int, is negative or has more than 32 * words bits: out is then left untouched with\n"
"check_first (all items checked first), or holds the rows before that item without it (one pass, faster).");

static PyObject *ints_to_limbs(PyObject *self, PyObject *args)
{
    PyObject *values, *out, *seq = NULL, *result = NULL;
    Py_ssize_t words, bad = -1;
    int check_first = 1;
    Py_buffer view;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOn|p:ints_to_limbs", &values, &out, &words, &check_first) || check_words(words) < 0)
        return NULL;
    if (get_words(out, &view, PyBUF_WRITABLE, "out") < 0)
        return NULL;
    /* the buffer first, the items after: taking the items of a sequence other than a list or tuple runs its Python
     * code; from then on, no Python code runs until the last item is written, so the items stay as checked */
    if (!(seq = items_of(values)))
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (n > PY_SSIZE_T_MAX / 4 / words || view.len != n * words * 4) {
        PyErr_Format(PyExc_ValueError, "out holds %zd bytes; %zd ints of %zd words need %zd", view.len, n, words,
                     n <= PY_SSIZE_T_MAX / 4 / words ? n * words * 4 : PY_SSIZE_T_MAX);
        goto done;
    }
    /* all items checked before any is written (check_first: out is the caller's, to be left as it was when an item
     * is refused), or each just before it is written (a fresh array, dropped on a refusal: one pass, faster) */
    for (Py_ssize_t i = 0; i < n && check_first && bad < 0; i++)
        if ((bad = item_check(items[i], 32 * words, i)) < -1)
            goto done;
    uint32_t *rows = view.buf;
    for (Py_ssize_t i = 0; i < n && bad < 0; i++) {
        if (!check_first && (bad = item_check(items[i], 32 * words, i)) != -1)
            break;
        if (item_write(items[i], rows + i * words, words) < 0)
            goto done;
    }
    if (bad >= -1)
        result = PyLong_FromSsize_t(bad);
done:
    Py_XDECREF(seq);
    PyBuffer_Release(&view);
    return result;
}

PyDoc_STRVAR(limbs_to_ints_doc,
"limbs_to_ints(buffer, words) -> list\n\n"
"The ints held by a C-contiguous buffer of rows of `words` little-endian 32-bit words (its length a multiple of\n"
"4 * words bytes), one per row.");

static PyObject *limbs_to_ints(PyObject *self, PyObject *args)
{
    PyObject *obj, *list = NULL;
    Py_ssize_t words;
    Py_buffer view;
    (void)self;
    if (!PyArg_ParseTuple(args, "On:limbs_to_ints", &obj, &words) || check_words(words) < 0)
        return NULL;
    if (get_words(obj, &view, PyBUF_SIMPLE, "the limb buffer") < 0)
        return NULL;
    if (view.len % (4 * words)) {
        PyErr_Format(PyExc_ValueError, "the limb buffer holds %zd bytes, not a whole number of rows of %zd words",
                     view.len, words);
        goto done;
    }
    Py_ssize_t n = view.len / (4 * words);
    if (!(list = PyList_New(n)))
        goto done;
    const uint32_t *rows = view.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = item_read(rows + i * words, words);
        if (!v) {
            Py_CLEAR(list);   /* the list's unset items are NULL, which its deallocation skips */
            goto done;
        }
        PyList_SET_ITEM(list, i, v);
    }
done:
    PyBuffer_Release(&view);
    return list;
}

static PyMethodDef methods[] = {
    {"ints_to_limbs", ints_to_limbs, METH_VARARGS, ints_to_limbs_doc},
    {"limbs_to_ints", limbs_to_ints, METH_VARARGS, limbs_to_ints_doc},
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
