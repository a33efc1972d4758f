# SPDX-License-Identifier: MIT
"""The version of the Python package (kept equal to CUDALOAD_VERSION_* in
include/cudaload.h; tests/python/test_packaging.py checks it, and
scripts/build-wheels refuses to build when they differ)."""

__version__ = "0.2.0"
