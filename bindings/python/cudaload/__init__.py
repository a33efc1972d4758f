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

from . import _constants as constants
from ._api import (Conflict, Context, Device, DoctorReport, FileInfo, Library,
                   PlanEntry, Probe, Report, Root, Stage, backend,
                   default_site_packages, doctor, env_prepend, inspect,
                   isolated_import, isolated_open, library_path,
                   library_version, preload, probe, scan, setup,
                   symbol_provider, use_backend)
from ._api import _load_default
from ._errors import (BadSpecError, ConflictError, Error, InvalidArgumentError,
                      LoadFailedError, MalformedError, MissingFunctionError,
                      NotAFileError, NotFoundError, OutOfMemoryError,
                      ReadError, UnsatisfiedError, UnsupportedError)
from ._version import __version__

# Open the library now, so that a missing one is an ImportError that lists
# every place looked in.
_load_default()
del _load_default

__all__ = [
    "__version__", "constants",
    "setup", "scan", "preload", "probe", "doctor", "env_prepend", "inspect",
    "isolated_import", "isolated_open", "symbol_provider",
    "default_site_packages", "use_backend", "backend", "library_path",
    "library_version",
    "Context", "Report", "Root", "Library", "PlanEntry", "Conflict", "Probe",
    "Stage", "Device", "FileInfo", "DoctorReport",
    "Error", "InvalidArgumentError", "OutOfMemoryError", "ReadError",
    "MalformedError", "NotFoundError", "UnsupportedError", "NotAFileError",
    "BadSpecError", "UnsatisfiedError", "LoadFailedError", "ConflictError",
    "MissingFunctionError",
]
