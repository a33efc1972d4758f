# SPDX-License-Identifier: MIT
"""cudaload: make CUDA libraries load, from Python.

Thin bindings over libcudaload's C API, with two backends: ctypes (the
default; standard library only) and CFFI in ABI mode. Choose with
CUDALOAD_BACKEND=ctypes|cffi or cudaload.use_backend(). The library is
CUDALOAD_LIBRARY if set, else the copy inside this package, else the system
loader's.

Typical use, before ``import torch``::

    import cudaload
    report = cudaload.setup(require=["cudnn=9", "cublas=12"])
    print(report)            # every file, why, and what was loaded

    print(cudaload.doctor()) # the whole diagnosis, as the CLI prints it
"""

# ``import cudaload`` runs in every process that uses it, before the program
# does anything: it opens the library (so that a missing one is an
# ImportError that lists every place looked in) and nothing else. The API
# (_api: setup() and what it uses; _extra: the rest), the exceptions
# (_errors), the constants and the version are imported on first use of one
# of their names, by __getattr__ below (PEP 562); ``from cudaload import
# setup`` and ``cudaload.Error`` work as before.

from ._library import load_default as _load_default

_load_default()
del _load_default

# Where the public names are defined (besides __version__ and constants).
_ERRORS = (
    "Error", "InvalidArgumentError", "OutOfMemoryError", "ReadError",
    "MalformedError", "NotFoundError", "UnsupportedError", "NotAFileError",
    "BadSpecError", "UnsatisfiedError", "LoadFailedError", "ConflictError",
    "MissingFunctionError", "UnreadableMessageError", "CudaloadWarning",
)
_EXTRA = (
    "probe", "doctor", "explain", "env_prepend", "inspect", "isolated_import",
    "isolated_open", "symbol_provider", "Probe", "Stage", "Device", "FileInfo", "DoctorReport",
    "Problem", "FixStep", "fix", "FixResult",
)

__all__ = [
    "__version__", "constants",
    "setup", "scan", "preload", "probe", "doctor", "fix", "explain", "env_prepend", "inspect",
    "isolated_import", "isolated_open", "symbol_provider",
    "default_site_packages", "use_backend", "backend", "library_path",
    "library_version",
    "Context", "Report", "Root", "Library", "PlanEntry", "Conflict", "ErrorMessage", "Probe",
    "Stage", "Device", "FileInfo", "DoctorReport", "Problem", "FixStep", "FixResult",
] + list(_ERRORS)


def __getattr__(name: str) -> object:
    """Import the module that defines ``name`` on its first use, and keep
    the name here so that later lookups do not come back."""
    if name == "constants":
        from . import _constants as value
    elif name == "__version__":
        from ._version import __version__ as value
    elif name in _ERRORS:
        from . import _errors
        value = getattr(_errors, name)
    elif name in _EXTRA:
        from . import _extra
        value = getattr(_extra, name)
    elif name in __all__:
        from . import _api
        value = getattr(_api, name)
    else:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    """The module's names, the lazily imported ones included."""
    return sorted(set(globals()) | set(__all__))
