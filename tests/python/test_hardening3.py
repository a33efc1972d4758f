# SPDX-License-Identifier: MIT
"""Issue 33 (hardening, third round), the Python side: fix lines planned
for Windows quote for cmd and PowerShell (item 3); names are compared in
ASCII whatever locale the interpreter runs in (item 12). Python sets
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


def copy_file(src, dst):
    # By reading and writing: shutil.copy2 calls CopyFile2 on Windows,
    # which Wine lacks (the process ends there, under the windows-python
    # tier).
    with open(src, "rb") as a, open(dst, "wb") as b:
        shutil.copyfileobj(a, b)
    return dst


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True, copy_function=copy_file)
    return dst


def test_windows_fix_lines_quote_for_cmd_and_powershell(run, fixtures, tmp_path):
    """Item 3, Windows naming (planned here, pasted there): a folder whose
    name cmd and PowerShell both read literally in double quotes is written
    so; one holding what either expands there ($, %) is DIR in the command
    and named after it, never printed where a shell would act on it."""
    site = os.path.join(fixtures, "windows", "site-packages")
    if not os.path.isdir(site):
        pytest.skip("the Windows fixture tree was not built (it needs mingw-w64)")
    quoted = copy_tree(site, str(tmp_path / "v&echo x&(z)^w" / "site-packages"))
    apart = copy_tree(site, str(tmp_path / "v$(calc)%PATH%" / "site-packages"))
    result = run("""
        import json, sys
        import cudaload
        out = {}
        for key, root in (("quoted", sys.argv[1]), ("apart", sys.argv[2])):
            with cudaload.Context(roots=[root], defaults=False, site_packages=False,
                                  target="windows") as ctx:
                ctx.require("cudnn=8")
                out[key] = ctx.plan(check=False).error
        print(json.dumps(out))
    """.replace("sys.argv[1]", repr(quoted)).replace("sys.argv[2]", repr(apart)))
    out = json.loads(result.stdout.strip().splitlines()[-1])
    folder = os.path.dirname(os.path.realpath(quoted))
    # No interpreter to name: the py launcher where one is installed, else
    # the program's Python (issue 45, item 4).
    pip = "py" if "fix: py -m pip" in out["quoted"] else "python"
    assert ('%s -m pip install --no-deps --target "%s" '
            '"nvidia-cudnn-cu12==8.9.*"' % (pip, os.path.join(folder, "cudnn8"))) in out["quoted"], \
        out["quoted"]
    folder = os.path.dirname(os.path.realpath(apart))
    assert ("%s -m pip install --no-deps --target DIR "
            '"nvidia-cudnn-cu12==8.9.*"' % pip) in out["apart"], out["apart"]
    assert "(DIR: the folder %s, whose name holds" % os.path.join(folder, "cudnn8") \
        in out["apart"], out["apart"]
    fix = [l for l in out["apart"].splitlines() if "fix: " in l][0]
    assert "$(calc)" not in fix[:fix.index(" (DIR: ")], fix
