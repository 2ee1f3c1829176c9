/* A DLPack consumer and producer written in C, as a framework's C code would be: compiled at test
 * time by tests/test_c_interop.py (skipped without a C compiler or Python's headers).
 *
 * consume(capsule) takes a "dltensor" or "dltensor_versioned" capsule, reads every field of the
 * tensor, renames the capsule to "used_dltensor" / "used_dltensor_versioned" (from then on this
 * code owns the deleter call, as DLPack says) and calls the deleter exactly once. It returns the
 * fields as a dict.
 *
 * produce(versioned, read_only, rows, cols, transposed) hands out (capsule, data address) for a
 * float64 matrix it allocated (values 0.5 * i in memory order), with strides for a C-ordered or a transposed
 * view, and the READ_ONLY flag when asked. Its deleter counts its calls (deleter_calls()); the
 * capsule's destructor calls it only while the capsule is unconsumed, as numpy's does.
 *
 * The structs follow DLPack 1.3's dlpack.h field for field (64-bit layout).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define FLAG_READ_ONLY 1u
#define FLAG_IS_COPIED 2u

/* ------------------------------------------------------------------------------ the consumer */

static PyObject *tensor_fields(const DLTensor *t) {
    PyObject *shape = PyTuple_New(t->ndim), *strides;
    if (shape == NULL) return NULL;
    for (int32_t i = 0; i < t->ndim; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape[i]));
    if (t->strides == NULL) {
        strides = Py_NewRef(Py_None);
    } else {
        strides = PyTuple_New(t->ndim);
        if (strides == NULL) { Py_DECREF(shape); return NULL; }
        for (int32_t i = 0; i < t->ndim; i++) PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    /* the address of the first element, as a consumer computes it */
    uintptr_t first = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    /* the first element's value, read from C: float64 only (what these tests hand over) */
    PyObject *value = Py_NewRef(Py_None);
    if (t->device.device_type == 1 && t->dtype.code == 2 && t->dtype.bits == 64) {
        int64_t count = 1;
        for (int32_t i = 0; i < t->ndim; i++) count *= t->shape[i];
        if (count > 0) { Py_DECREF(value); value = PyFloat_FromDouble(*(const double *)first); }
    }
    PyObject *fields = Py_BuildValue(
        "{s:K,s:K,s:i,s:i,s:i,s:N,s:N,s:i,s:i,s:i,s:N}",
        "data", (unsigned long long)(uintptr_t)t->data, "byte_offset", (unsigned long long)t->byte_offset,
        "device_type", t->device.device_type, "device_id", t->device.device_id, "ndim", t->ndim,
        "shape", shape, "strides", strides, "code", t->dtype.code, "bits", t->dtype.bits,
        "lanes", t->dtype.lanes, "first", value);
    return fields;
}

static PyObject *consume(PyObject *self, PyObject *capsule) {
    (void)self;
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_SetString(PyExc_TypeError, "consume() takes a DLPack capsule");
        return NULL;
    }
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred()) return NULL;
    PyObject *fields;
    if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
        DLManagedTensorVersioned *managed = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (managed == NULL) return NULL;
        fields = tensor_fields(&managed->dl_tensor);
        if (fields == NULL) return NULL;
        PyObject *extra = Py_BuildValue("{s:I,s:I,s:K,s:O}", "major", managed->version.major,
                                        "minor", managed->version.minor, "flags",
                                        (unsigned long long)managed->flags, "versioned", Py_True);
        if (extra == NULL || PyDict_Update(fields, extra) < 0) { Py_XDECREF(extra); Py_DECREF(fields); return NULL; }
        Py_DECREF(extra);
        /* ownership: renamed first, so the capsule's destructor leaves the deleter to us */
        if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0) { Py_DECREF(fields); return NULL; }
        if (managed->deleter != NULL) managed->deleter(managed); /* exactly once, here */
    } else if (name != NULL && strcmp(name, "dltensor") == 0) {
        DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
        if (managed == NULL) return NULL;
        fields = tensor_fields(&managed->dl_tensor);
        if (fields == NULL) return NULL;
        if (PyDict_SetItemString(fields, "versioned", Py_False) < 0) { Py_DECREF(fields); return NULL; }
        if (PyCapsule_SetName(capsule, "used_dltensor") < 0) { Py_DECREF(fields); return NULL; }
        if (managed->deleter != NULL) managed->deleter(managed);
    } else {
        PyErr_Format(PyExc_ValueError, "not an unconsumed DLPack capsule: %s", name ? name : "(no name)");
        return NULL;
    }
    return fields;
}

/* ------------------------------------------------------------------------------ the producer */

static long deleter_call_count = 0;

typedef struct {
    double *values;
    int64_t shape[2];
    int64_t strides[2];
} Matrix;

/* both deleters: count the call, free the matrix and the struct itself */
static void release(void *managed, Matrix *matrix) {
    deleter_call_count++;
    free(matrix->values);
    free(matrix);
    free(managed);
}

static void delete_versioned(DLManagedTensorVersioned *self) { release(self, self->manager_ctx); }

static void delete_legacy(DLManagedTensor *self) { release(self, self->manager_ctx); }

/* the capsule's destructor: the deleter runs only if nobody consumed the capsule */
static void capsule_destructor(PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *managed = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        managed->deleter(managed);
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
        managed->deleter(managed);
    }
    PyErr_Clear(); /* PyCapsule_IsValid leaves no error, but a destructor must not raise */
}

static void fill_tensor(DLTensor *t, Matrix *m) {
    t->data = m->values;
    t->device.device_type = 1; /* kDLCPU */
    t->device.device_id = 0;
    t->ndim = 2;
    t->dtype.code = 2; /* kDLFloat */
    t->dtype.bits = 64;
    t->dtype.lanes = 1;
    t->shape = m->shape;
    t->strides = m->strides;
    t->byte_offset = 0;
}

static PyObject *produce(PyObject *self, PyObject *args) {
    (void)self;
    int versioned, read_only, transposed;
    long long rows, cols;
    if (!PyArg_ParseTuple(args, "ppLLp", &versioned, &read_only, &rows, &cols, &transposed)) return NULL;
    if (rows < 0 || cols < 0) { PyErr_SetString(PyExc_ValueError, "negative size"); return NULL; }
    Matrix *matrix = calloc(1, sizeof(Matrix));
    if (matrix == NULL) return PyErr_NoMemory();
    matrix->values = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    if (matrix->values == NULL) { free(matrix); return PyErr_NoMemory(); }
    for (long long i = 0; i < rows * cols; i++) matrix->values[i] = 0.5 * (double)i;
    /* memory holds a rows x cols C-ordered matrix; "transposed" describes its cols x rows view */
    if (transposed) {
        matrix->shape[0] = cols; matrix->shape[1] = rows;
        matrix->strides[0] = 1; matrix->strides[1] = cols;
    } else {
        matrix->shape[0] = rows; matrix->shape[1] = cols;
        matrix->strides[0] = cols; matrix->strides[1] = 1;
    }
    void *address = matrix->values;
    PyObject *capsule;
    if (versioned) {
        DLManagedTensorVersioned *managed = calloc(1, sizeof(DLManagedTensorVersioned));
        if (managed == NULL) { free(matrix->values); free(matrix); return PyErr_NoMemory(); }
        managed->version.major = 1;
        managed->version.minor = 3;
        managed->manager_ctx = matrix;
        managed->deleter = delete_versioned;
        managed->flags = read_only ? FLAG_READ_ONLY : 0;
        fill_tensor(&managed->dl_tensor, matrix);
        capsule = PyCapsule_New(managed, "dltensor_versioned", capsule_destructor);
        if (capsule == NULL) { delete_versioned(managed); deleter_call_count--; }
    } else {
        if (read_only) {
            PyErr_SetString(PyExc_ValueError, "a legacy capsule cannot say read-only");
            free(matrix->values); free(matrix);
            return NULL;
        }
        DLManagedTensor *managed = calloc(1, sizeof(DLManagedTensor));
        if (managed == NULL) { free(matrix->values); free(matrix); return PyErr_NoMemory(); }
        managed->manager_ctx = matrix;
        managed->deleter = delete_legacy;
        fill_tensor(&managed->dl_tensor, matrix);
        capsule = PyCapsule_New(managed, "dltensor", capsule_destructor);
        if (capsule == NULL) { delete_legacy(managed); deleter_call_count--; }
    }
    if (capsule == NULL) return NULL;
    return Py_BuildValue("NK", capsule, (unsigned long long)(uintptr_t)address);
}

static PyObject *deleter_calls(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    return PyLong_FromLong(deleter_call_count);
}

static PyMethodDef methods[] = {
    {"consume", consume, METH_O, "Read a DLPack capsule's fields, take it and call its deleter once."},
    {"produce", produce, METH_VARARGS, "(capsule, address) of a float64 matrix: (versioned, read_only, rows, cols, transposed)."},
    {"deleter_calls", deleter_calls, METH_NOARGS, "How often the producer's deleter has run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "dlpack_c", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_dlpack_c(void) { return PyModule_Create(&module); }
