# SPDX-License-Identifier: MIT
"""``python -m cudaload doctor|scan|probe``: the command-line tool's
reports, through the Python bindings."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
