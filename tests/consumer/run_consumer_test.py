#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Install the built project into a temporary prefix and build a consumer of
it the ways an outside project would, then run what was built.

    run_consumer_test.py --build-dir build [--config Release] [--cmake cmake]
                         [--cc cc] [--generator Ninja] [--keep]

Steps (each printed; the first failure stops the test with exit 1):
 1. cmake --install <build> --prefix <tmp>/prefix; the header, the shared and
    static libraries, cudaload.pc, the CMake package files and
    share/licenses/cudaload/LICENSE must be there.
 2. find_package(cudaload) with CMAKE_PREFIX_PATH=<prefix>: build
    tests/consumer (consumer against cudaload::cudaload, consumer_static
    against cudaload::cudaload_static) and run both.
 3. pkg-config with PKG_CONFIG_PATH=<prefix>/<libdir>/pkgconfig: the flags
    must point into the prefix; build tests/consumer/Makefile (consumer with
    cudaload.pc, consumer-static with cudaload-static.pc) and run both.
 4. The pkg-config commands of docs/integrating.md ("### pkg-config"), as
    written there, with its /opt/cudaload replaced by the prefix and app.c
    by tests/consumer/consumer.c.
A shared consumer built through CMake runs with LD_LIBRARY_PATH=<prefix>/
<libdir>; one built with pkg-config runs without it (its RUNPATH, from
pkg-config's libdir, finds the library); each must load the installed
libcudaload.so.1 (ldd). A static one must not need it (readelf, ldd).
A consumer prints "cudaload VERSION" (the header's) and "libraries 0" for an
empty root. Linux only.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_ROOT = HERE.parents[1]


class Failure(Exception):
    pass


def step(msg):
    print("== " + msg, flush=True)


def run(argv, env=None, cwd=None):
    print("$ " + " ".join(shlex.quote(str(a)) for a in argv), flush=True)
    proc = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=300)
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        print(out)
        raise Failure("%s exited with %d" % (argv[0], proc.returncode))
    return out


def header_version():
    text = (SOURCE_ROOT / "include" / "cudaload.h").read_text()
    return ".".join(re.search(r"^#define CUDALOAD_VERSION_%s (\d+)" % w, text, re.M).group(1)
                    for w in ("MAJOR", "MINOR", "PATCH"))


def needed_of(exe):
    readelf = shutil.which("readelf")
    if not readelf:
        return None
    out = run([readelf, "-d", "-W", exe])
    return re.findall(r"\(NEEDED\)\s+[^\[]*\[(.*)\]", out)


def check_consumer(exe, libdir, root, static, runpath=False):
    """Run a built consumer and check what it prints and what it loaded.
    runpath: a shared consumer that must find the library by itself, with
    no LD_LIBRARY_PATH."""
    exe = Path(exe)
    if not exe.is_file():
        raise Failure("%s was not built" % exe)
    env = dict(os.environ)
    if static or runpath:
        env.pop("LD_LIBRARY_PATH", None)
    else:
        env["LD_LIBRARY_PATH"] = str(libdir) + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    out = run([exe, root], env=env)
    expected = "cudaload %s\nlibraries 0\n" % header_version()
    if out != expected:
        raise Failure("%s printed %r, expected %r" % (exe, out, expected))
    needed = needed_of(exe)
    if needed is not None:
        has = [n for n in needed if n.startswith("libcudaload")]
        if static and has:
            raise Failure("%s is linked statically but needs %s" % (exe, has))
        if not static and has != ["libcudaload.so.1"]:
            raise Failure("%s needs %s, expected libcudaload.so.1" % (exe, has or "no libcudaload"))
    ldd = shutil.which("ldd")
    if static and ldd:
        # What ldd shows a user: no libcudaload at all (a static link that
        # took the .so says "libcudaload.so.1 => not found" here).
        out = run([ldd, exe], env=env)
        if "libcudaload" in out:
            raise Failure("%s is meant to be linked statically, but ldd shows:\n%s" % (exe, out))
    if not static:
        # Which file the loader picks: the one installed in the prefix.
        if ldd:
            out = run([ldd, exe], env=env)
            m = re.search(r"libcudaload\.so\.1 => (\S+)", out)
            if not m or os.path.realpath(m.group(1)) != os.path.realpath(os.path.join(libdir, "libcudaload.so.1")):
                raise Failure("%s loads libcudaload.so.1 from %s, not from %s"
                              % (exe, m.group(1) if m else "nowhere", libdir))
    print("ok: %s" % exe.name)


DOC_PREFIX = "/opt/cudaload"


def documented_pkg_config_commands(pkgconfig_dir):
    """The export and cc lines of the first sh block under "### pkg-config"
    in docs/integrating.md, with the documented prefix's pkgconfig folder
    replaced by the installed one."""
    doc = (SOURCE_ROOT / "docs" / "integrating.md").read_text(encoding="utf-8")
    m = re.search(r"^### pkg-config\n.*?^```sh\n(.*?)^```$", doc, re.S | re.M)
    if not m:
        raise Failure("docs/integrating.md has no sh block under '### pkg-config'")
    lines = [l.split("  #")[0].rstrip() for l in m.group(1).splitlines()]
    commands = [l for l in lines if l.startswith(("export PKG_CONFIG_PATH=", "cc "))]
    if len(commands) != 3 or not commands[0].startswith("export PKG_CONFIG_PATH=%s/" % DOC_PREFIX):
        raise Failure("docs/integrating.md's pkg-config block should export PKG_CONFIG_PATH=%s/..."
                      " and build app and app-static with cc: %r" % (DOC_PREFIX, lines))
    commands[0] = "export PKG_CONFIG_PATH=%s" % pkgconfig_dir
    return commands


def find_one(prefix, pattern, what):
    hits = sorted(prefix.glob(pattern))
    if not hits:
        raise Failure("%s not installed (no %s under %s)" % (what, pattern, prefix))
    return hits[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--config", default="")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--generator", default="")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()

    if not sys.platform.startswith("linux"):
        print("SKIPPED: the consumer test runs on Linux only")
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="cudaload-consumer-"))
    try:
        prefix = tmp / "prefix"
        empty_root = tmp / "empty-root"
        empty_root.mkdir()

        step("install into %s" % prefix)
        cmd = [args.cmake, "--install", os.path.abspath(args.build_dir), "--prefix", prefix]
        if args.config:
            cmd += ["--config", args.config]
        run(cmd)
        find_one(prefix, "include/cudaload.h", "the header")
        so = find_one(prefix, "lib*/**/libcudaload.so.1", "libcudaload.so.1")
        libdir = so.parent
        if not (libdir / "libcudaload.so").exists():
            raise Failure("no development link libcudaload.so in %s" % libdir)
        if not (libdir / "libcudaload.a").is_file():
            raise Failure("no static library libcudaload.a in %s" % libdir)
        pc = find_one(prefix, "lib*/**/pkgconfig/cudaload.pc", "cudaload.pc")
        find_one(prefix, "lib*/**/pkgconfig/cudaload-static.pc", "cudaload-static.pc")
        config = find_one(prefix, "lib*/**/cmake/cudaload/cudaloadConfig.cmake", "cudaloadConfig.cmake")
        find_one(prefix, "lib*/**/cmake/cudaload/cudaloadConfigVersion.cmake", "cudaloadConfigVersion.cmake")
        license_file = find_one(prefix, "share/licenses/cudaload/LICENSE", "the license")
        if not license_file.read_text(encoding="utf-8").startswith("MIT License"):
            raise Failure("%s is not the MIT license" % license_file)
        print("installed: %s, %s, %s" % (so.relative_to(prefix), pc.relative_to(prefix), config.relative_to(prefix)))

        failures = []

        step("find_package(cudaload) with CMAKE_PREFIX_PATH")
        try:
            build = tmp / "build-cmake"
            cmd = [args.cmake, "-S", HERE, "-B", build, "-DCMAKE_PREFIX_PATH=%s" % prefix,
                   "-DCMAKE_C_COMPILER=%s" % args.cc, "-DCMAKE_BUILD_TYPE=%s" % (args.config or "Release")]
            if args.generator:
                cmd += ["-G", args.generator]
            env = dict(os.environ)
            env.pop("CMAKE_PREFIX_PATH", None)
            run(cmd, env=env)
            run([args.cmake, "--build", build] + (["--config", args.config] if args.config else []))
            exes = {p.name: p for p in build.rglob("consumer*") if p.is_file() and os.access(p, os.X_OK)}
            for name, static in (("consumer", False), ("consumer_static", True)):
                if name not in exes:
                    raise Failure("%s was not built" % name)
                check_consumer(exes[name], libdir, empty_root, static)
        except Failure as e:
            failures.append("find_package: %s" % e)
            print("FAIL: %s" % e)

        step("pkg-config with PKG_CONFIG_PATH")
        try:
            if not shutil.which("pkg-config"):
                raise Failure("pkg-config is not installed")
            env = dict(os.environ)
            env["PKG_CONFIG_PATH"] = str(pc.parent)
            env.pop("PKG_CONFIG_LIBDIR", None)
            cflags = run(["pkg-config", "--cflags", "cudaload"], env=env).split()
            libs = run(["pkg-config", "--libs", "cudaload"], env=env).split()
            print("cflags: %s\nlibs: %s" % (" ".join(cflags), " ".join(libs)))
            real_prefix = os.path.realpath(prefix)
            inc = [f[2:] for f in cflags if f.startswith("-I")]
            libpaths = [f[2:] for f in libs if f.startswith("-L")]
            if not any(os.path.realpath(p) == os.path.realpath(prefix / "include") for p in inc):
                raise Failure("cudaload.pc's Cflags %s do not name %s/include: the .pc file does not follow"
                              " the prefix given to cmake --install" % (cflags, real_prefix))
            if not any(os.path.realpath(p) == os.path.realpath(libdir) for p in libpaths):
                raise Failure("cudaload.pc's Libs %s do not name %s" % (libs, libdir))
            out = tmp / "build-pkgconfig"
            out.mkdir()
            run(["make", "-f", HERE / "Makefile", "-C", out, "CC=%s" % args.cc], env=env)
            check_consumer(out / "consumer", libdir, empty_root, False, runpath=True)
            check_consumer(out / "consumer-static", libdir, empty_root, True)
        except Failure as e:
            failures.append("pkg-config: %s" % e)
            print("FAIL: %s" % e)

        step("the pkg-config commands of docs/integrating.md, as written")
        try:
            out = tmp / "build-docs"
            out.mkdir()
            commands = documented_pkg_config_commands(pc.parent)
            script = out / "commands.sh"
            script.write_text("set -e\n" + "\n".join(commands) + "\n")
            print("".join("  %s\n" % c for c in commands), end="")
            shutil.copy(HERE / "consumer.c", out / "app.c")
            env = dict(os.environ)
            for name in ("PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "LD_LIBRARY_PATH"):
                env.pop(name, None)
            run(["bash", script], env=env, cwd=out)
            check_consumer(out / "app", libdir, empty_root, False, runpath=True)
            check_consumer(out / "app-static", libdir, empty_root, True)
        except Failure as e:
            failures.append("docs/integrating.md: %s" % e)
            print("FAIL: %s" % e)

        if failures:
            print("\n%d failure(s):" % len(failures))
            for f in failures:
                print("  " + f)
            return 1
        print("OK")
        return 0
    except (Failure, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        if args.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
