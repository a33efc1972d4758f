# SPDX-License-Identifier: MIT
"""Issue 33 (hardening, third round), the Python side: names are compared
in ASCII whatever locale the interpreter runs in (item 12). Python sets
LC_CTYPE from the environment at start, so a program under tr_TR.UTF-8 gives
the library a locale where the C library's tolower('I') is 'I' (the dotless
i has no one-byte form): "CUPTI" and "NVJITLINK=13" must still name cupti
and nvjitlink. Every scenario runs in a fresh interpreter, with each
backend."""

import json
import os
import shutil
import subprocess
import sys

import pytest

LOCALE = "tr_TR.UTF-8"


@pytest.fixture(scope="module")
def turkish_locale(tmp_path_factory):
    """LOCPATH and LC_ALL for a child under tr_TR.UTF-8: the system's when it
    has one, else one compiled with localedef into a temporary folder (no
    root needed: glibc reads LOCPATH). Skips, saying why, where neither
    works."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the locale is compiled with glibc's localedef (Linux)")
    probe = [sys.executable, "-c",
             "import locale; locale.setlocale(locale.LC_ALL, %r)" % LOCALE]
    env = dict(os.environ, LC_ALL=LOCALE)
    env.pop("LOCPATH", None)
    if subprocess.run(probe, env=env, capture_output=True).returncode == 0:
        return {"LC_ALL": LOCALE}
    localedef = shutil.which("localedef")
    if not localedef:
        pytest.skip("%s is not installed and there is no localedef to compile "
                    "it (apt-get install locales)" % LOCALE)
    folder = tmp_path_factory.mktemp("locales")
    made = subprocess.run([localedef, "-i", "tr_TR", "-f", "UTF-8",
                           str(folder / LOCALE)], capture_output=True, text=True)
    env.update(LOCPATH=str(folder))
    if subprocess.run(probe, env=env, capture_output=True).returncode != 0:
        pytest.skip("%s is not installed and localedef could not compile it "
                    "(exit %d: %s)" % (LOCALE, made.returncode,
                                       (made.stderr or made.stdout).strip()[:200]))
    return {"LC_ALL": LOCALE, "LOCPATH": str(folder)}


def test_names_fold_in_ascii_under_a_turkish_locale(run, turkish_locale):
    result = run("""
        import ctypes, ctypes.util, json, locale
        import cudaload
        # The interpreter really is in the Turkish locale, where the C
        # library's tolower('I') keeps the capital I.
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        seen = {"locale": locale.setlocale(locale.LC_CTYPE),
                "tolower_I": libc.tolower(ord("I"))}
        with cudaload.Context(defaults=False, site_packages=False) as ctx:
            ctx.require("CUPTI")
            ctx.require("NVJITLINK=13")
            ctx.require("CUDART>=12,cuBLAS=12")
            seen["requirements"] = ctx.requirements()
        print(json.dumps(seen))
    """, extra_env=turkish_locale)
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["locale"] == LOCALE, seen
    assert seen["tolower_I"] == ord("I"), (
        "the C library folds I to %r here: this locale does not show the bug"
        % chr(seen["tolower_I"]))
    assert seen["requirements"] == ["cupti", "nvjitlink=13", "cudart>=12",
                                    "cublas=12"], seen
