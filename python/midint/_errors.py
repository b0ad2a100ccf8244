"""Exceptions: every midint failure is a MidintError carrying the library's status name and message, and also the
built-in exception a Python user expects (ValueError, TypeError, MemoryError, RuntimeError)."""


class MidintError(Exception):
    """A failed midint call. `status` is the library's status name (e.g. "MIDINT_ERR_BITS_TOO_LARGE"), `message`
    its sentence about the failure (midint_last_error), `code` the numeric status (None for checks made in
    Python before the library is called; their status names the library's nearest one)."""

    def __init__(self, status, message, code=None):
        super().__init__(f"{status}: {message}")
        self.status, self.message, self.code = status, message, code


class MidintValueError(MidintError, ValueError):
    """Bad sizes, counts, shapes, overlapping buffers, values that do not fit, unknown variants."""


class MidintTypeError(MidintError, TypeError):
    """An input of the wrong kind or dtype."""


class MidintMemoryError(MidintError, MemoryError):
    """Host or device memory ran out (the message names the size needed where the library knows it)."""


class MidintDeviceError(MidintError, RuntimeError):
    """No such backend or device here, or the device/driver reported an error."""


# the library's status names and the Python class each maps to (midint.h's midint_status)
STATUS_CLASS = {
    "MIDINT_ERR_NULL_POINTER": MidintValueError,
    "MIDINT_ERR_INVALID_COUNT": MidintValueError,
    "MIDINT_ERR_INVALID_BITS": MidintValueError,
    "MIDINT_ERR_BITS_TOO_LARGE": MidintValueError,
    "MIDINT_ERR_UNKNOWN_BACKEND": MidintValueError,
    "MIDINT_ERR_NO_BACKEND": MidintDeviceError,
    "MIDINT_ERR_NO_DEVICE": MidintDeviceError,
    "MIDINT_ERR_OVERLAP": MidintValueError,
    "MIDINT_ERR_UNKNOWN_VARIANT": MidintValueError,
    "MIDINT_ERR_OUT_OF_MEMORY": MidintMemoryError,
    "MIDINT_ERR_DEVICE": MidintDeviceError,
    "MIDINT_ERR_INVALID_ARGUMENT": MidintValueError,
}


def from_status(lib, code, message):
    """The exception for a status code returned by the library."""
    name = lib.midint_status_name(code).decode()
    return STATUS_CLASS.get(name, MidintDeviceError)(name, message, code)


def value_error(message, status="MIDINT_ERR_INVALID_ARGUMENT"):
    return MidintValueError(status, message)


def type_error(message):
    return MidintTypeError("MIDINT_ERR_INVALID_ARGUMENT", message)
