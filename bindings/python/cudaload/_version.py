"""The version of the Python package (kept equal to CUDALOAD_VERSION_* in
include/cudaload.h; tests/python/test_api.py checks it)."""

__version__ = "0.1.0"
