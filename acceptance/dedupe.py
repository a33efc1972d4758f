#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hard-link identical files across the acceptance cache's trees.

pip installs the same NVIDIA wheels into several venvs (cuDNN 9.28 and
cuBLAS 12.9 into the jax/tensorflow venv, the onnxruntime venv and the
folder of CUDA 12 wheels; cuDNN 9.1 into the torch 2.5.1 venv, the CUDA 12
venv and its unpacked wheel): the same bytes, 1 to 2 GB a copy. Each file
of at least --min-size whose size and contents equal an earlier one's is
replaced by a hard link to it, so the cache holds those bytes once. Safe for
venvs: pip removes a file before writing a new one in its place (it never
writes into an installed file), and nothing in the acceptance tier writes
into an installed library.

Usage: dedupe.py [--dry-run] [--min-size BYTES] DIR...
Prints how many files were linked and the bytes saved. Exit status 0, or 1
when a DIR is not a folder."""

import argparse
import hashlib
import os
import stat
import sys


def files_of(roots, min_size):
    """(size, path, dev, inode) of each regular file of at least min_size
    under roots, symbolic links not followed."""
    for root in roots:
        for folder, dirs, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_size >= min_size:
                    yield st.st_size, path, st.st_dev, st.st_ino


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.digest()


def link_over(source, target):
    """Replace target by a hard link to source, atomically: the link is made
    beside target, then renamed over it (a reader never sees no file)."""
    tmp = target + ".dedupe-link"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.link(source, tmp)
    st = os.lstat(target)
    os.replace(tmp, target)
    return st


def dedupe(roots, min_size=1 << 20, dry_run=False, say=print):
    by_size = {}
    for size, path, dev, ino in files_of(roots, min_size):
        by_size.setdefault((size, dev), []).append((path, ino))
    linked = saved = 0
    for (size, dev), entries in by_size.items():
        inodes = {}
        for path, ino in entries:
            inodes.setdefault(ino, path)
        if len(inodes) < 2:
            continue                      # one file, or all already one inode
        by_digest = {}
        for ino, path in sorted(inodes.items(), key=lambda kv: kv[1]):
            by_digest.setdefault(digest(path), []).append((ino, path))
        for group in by_digest.values():
            keep_ino, keep = group[0]
            for ino, path in group[1:]:
                # every name of that inode becomes a link to keep
                for other, other_ino in entries:
                    if other_ino != ino:
                        continue
                    if not dry_run:
                        link_over(keep, other)
                    linked += 1
                saved += size
    say("dedupe: %s%d file(s) linked to an identical one, %.2f GB saved"
        % ("(dry run) " if dry_run else "", linked, saved / 1e9))
    return linked, saved


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--min-size", type=int, default=1 << 20)
    args = ap.parse_args()
    bad = [d for d in args.dirs if not os.path.isdir(d)]
    if bad:
        print("dedupe: not a folder: %s" % ", ".join(bad), file=sys.stderr)
        return 1
    dedupe(args.dirs, args.min_size, args.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
