#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential tests of the loader model: the loader is the oracle.

For each scenario this builds a tree of small libraries with the host's C
compiler (or mingw-w64 for the Windows scenarios), asks the model what a
child program will map and by which rule (predict(): the loader_predict
program over lib/loader/resolve.h; `cudaload explain` can take its place), runs
the child under the real loader (glibc with LD_DEBUG=libs,files; Wine with
WINEDEBUG=+loaddll), and compares, answer by answer. Every disagreement is
printed with both answers and fails the scenario. The last line is

    explain: N of N predictions agree with the loader

The commands_* scenarios check the verdicts of `cudaload doctor --for`,
`cudaload exec --for` and cudaload.setup() on an explain scenario's tree;
they print "doctor: N of N verdicts agree with the loader" (and exec,
preload).

Usage: oracle.py --scenario NAME --cc CC --predict PROGRAM --work DIR
                 [--wine-run SCRIPT] [--explain CUDALOAD]
                 [--library LIBCUDALOAD --bindings DIR] [--list]
Exit status: 0 all agree, 1 a disagreement, 77 skipped (ctest's skip code),
2 a setup failure (the tree could not be built).

docs/loader.md names the scenario that proves each rule.
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


class SetupError(Exception):
    """The scenario's tree or programs could not be made."""


class Skip(Exception):
    """The scenario cannot run on this host (said, not hidden)."""


# --------------------------------------------------------------------------
# Building trees
# --------------------------------------------------------------------------


def run_checked(cmd, **kw):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, **kw)
    if result.returncode != 0:
        raise SetupError("command failed (%d): %s\n%s" %
                         (result.returncode, " ".join(cmd), result.stdout))
    return result.stdout


class Tree:
    """A scenario's folder, and the libraries and programs built in it."""

    def __init__(self, root, cc, windows):
        self.root = root
        self.cc = cc
        self.windows = windows
        self.tags = {}  # relative path -> the tag of its h13_ function
        if os.path.exists(root):
            shutil.rmtree(root)
        os.makedirs(root)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def mkdir(self, rel):
        os.makedirs(self.path(rel), exist_ok=True)
        return self.path(rel)

    def _source(self, tag, lazy, value, dep_tags, exports=(), calls_cuda=()):
        # Each library calls one function of each library it needs, so that
        # no linker drops the dependency (mingw keeps an import only when a
        # symbol of it is used). exports: CUDA-named functions it defines
        # (cudnnCreate, ...); calls_cuda: CUDA-named functions it calls, so
        # that it holds references the explain scenarios watch bind.
        calls = "".join(" + h13_%s()" % d for d in dep_tags)
        calls += "".join(" + %s()" % c for c in calls_cuda)
        imp = "__declspec(dllimport) " if self.windows else ""
        decls = "".join("%sint h13_%s(void);\n" % (imp, d) for d in dep_tags)
        decls += "".join("%sint %s(void);\n" % (imp, c) for c in calls_cuda)
        export = ("__declspec(dllexport) " if self.windows else
                  "__attribute__((visibility(\"default\"))) ")
        decls += "".join("%sint %s(void) { return %d; }\n" % (export, x, value)
                         for x in exports)
        if self.windows:
            lines = ["#include <windows.h>", decls,
                     "__declspec(dllexport) int h13_%s(void) { return %d%s; }"
                     % (tag, value, calls)]
            if lazy:
                lines.append("__declspec(dllexport) void *h13_lazy_%s(void) "
                             "{ return (void *)LoadLibraryA(\"%s\"); }"
                             % (tag, lazy))
        else:
            lines = ["#include <dlfcn.h>", decls,
                     "__attribute__((visibility(\"default\"))) int h13_%s(void)"
                     " { return %d%s; }" % (tag, value, calls)]
            if lazy:
                lines.append("__attribute__((visibility(\"default\"))) void *"
                             "h13_lazy_%s(void) { return dlopen(\"%s\", "
                             "RTLD_NOW | RTLD_LOCAL); }" % (tag, lazy))
        return "\n".join(lines) + "\n"

    def lib(self, rel, soname=None, needs=(), rpath=None, runpath=None,
            lazy=None, version_node=None, nodeflib=False, value=1, stub=False,
            tag=None, exports=(), calls=()):
        """Build a library at rel. needs: paths (relative to the root) of
        libraries it links, whose SONAME (or file name) it then NEEDs, and
        calls (not a stub's: it stands for a system library at link time
        only)."""
        out = self.path(rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tag = tag or re.sub(r"[^A-Za-z0-9]", "_", rel)
        src = out + ".c"
        with open(src, "w") as f:
            f.write(self._source(tag, lazy, value,
                                 [self.tags[n] for n in needs if self.tags.get(n)],
                                 exports, calls))
        cmd = [self.cc, "-shared", "-o", out, src]
        if self.windows:
            cmd += [self.path(n) for n in needs]
        else:
            cmd[1:1] = ["-fPIC"]
            if soname:
                cmd.append("-Wl,-soname," + soname)
            if version_node:
                script = out + ".map"
                with open(script, "w") as f:
                    f.write("%s { global: h13_*;%s local: *; };\n" % (
                        version_node, "".join(" %s;" % x for x in exports)))
                cmd.append("-Wl,--version-script=" + script)
            if nodeflib:
                cmd.append("-Wl,-z,nodefaultlib")
            cmd.append("-Wl,--no-as-needed")
            for n in needs:
                dep = self.path(n)
                cmd += ["-L" + os.path.dirname(dep), "-l:" + os.path.basename(dep)]
            if rpath is not None:
                cmd += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + rpath]
            if runpath is not None:
                cmd += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + runpath]
            if lazy:
                cmd.append("-ldl")
        run_checked(cmd)
        self.tags[rel] = None if stub else tag
        return out

    def copy(self, src_rel, dst_rel):
        dst = self.path(dst_rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(self.path(src_rel), dst)
        if src_rel in self.tags:
            self.tags[dst_rel] = self.tags[src_rel]
        return dst

    def symlink(self, target, rel):
        link = self.path(rel)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(target, link)
        return link

    def other_machine(self, src_rel, dst_rel):
        """A copy of a library marked for another machine of the same class
        (aarch64 / arm64): a valid header the loader must refuse."""
        data = bytearray(open(self.path(src_rel), "rb").read())
        if self.windows:
            pe = struct.unpack_from("<I", data, 0x3C)[0]
            struct.pack_into("<H", data, pe + 4, 0xAA64)
        else:
            struct.pack_into("<H", data, 18, 183)  # EM_AARCH64
        self.tags[dst_rel] = self.tags.get(src_rel)
        dst = self.path(dst_rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        return dst

    def other_class(self, rel, soname):
        """A 32-bit library: built with -m32 and ld -m elf_i386 where the
        host can; otherwise an ELF32 header padded to a full 64-bit header
        (the loader reads no further before passing it over), said so."""
        out = self.path(rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        src = out + ".c"
        with open(src, "w") as f:
            f.write("int h13_i386(void) { return 32; }\n")
        try:
            run_checked([self.cc, "-m32", "-fPIC", "-c", "-o", out + ".o", src])
            run_checked(["ld", "-m", "elf_i386", "-shared", "-soname", soname,
                         "-o", out, out + ".o"])
        except (SetupError, OSError):
            print("note: no 32-bit toolchain; %s is an ELF32 header only" % rel)
            header = bytearray(64)
            header[0:4] = b"\x7fELF"
            header[4] = 1  # ELFCLASS32
            header[5] = 1
            header[6] = 1
            struct.pack_into("<HHI", header, 16, 3, 3, 1)  # ET_DYN, EM_386
            with open(out, "wb") as f:
                f.write(bytes(header))
        return out

    def child(self, rel, links=(), rpath=None, runpath=None):
        out = self.path(rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if self.windows:
            cmd = [self.cc, "-o", out, os.path.join(HERE, "child_windows.c")]
        else:
            cmd = [self.cc, "-o", out, os.path.join(HERE, "child_linux.c"),
                   "-Wl,--no-as-needed"]
            for n in links:
                dep = self.path(n)
                cmd += ["-L" + os.path.dirname(dep), "-l:" + os.path.basename(dep)]
            if rpath is not None:
                cmd += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + rpath]
            if runpath is not None:
                cmd += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + runpath]
            cmd.append("-ldl")
        run_checked(cmd)
        return out


class Plan:
    """What the child does, in its situation.

    actions: ("open", NAME[, FLAGS]) | ("lazy", SYMBOL-or-(DLL, SYMBOL),
             NAME) | ("adddir", DIR) | ("setdefault", FLAGS) |
             ("setdlldir", DIR)
    lazy: {library path: name it opens lazily}
    """

    def __init__(self, child, actions, cwd, ld_library_path=None, path=None,
                 lazy=None, check_system_path=False):
        self.child = child
        self.actions = actions
        self.cwd = cwd
        self.ld_library_path = ld_library_path
        self.path = path or []
        self.lazy = lazy or {}
        self.check_system_path = check_system_path


# --------------------------------------------------------------------------
# Linux scenarios
# --------------------------------------------------------------------------


def linux_rpath_chain(t):
    """A (RPATH $ORIGIN/../b) -> B (RPATH $ORIGIN/../c) -> C (RUNPATH
    $ORIGIN/../d) -> D; D needs E, found through A's RPATH (inherited along
    the chain); C needs F, present in A's RPATH folder and in C's RUNPATH
    folder: C's RUNPATH turns the chain off, so F comes from d/."""
    t.lib("e/libE.so.1", soname="libE.so.1")
    t.copy("e/libE.so.1", "b/libE.so.1")
    t.lib("f/libF.so.1", soname="libF.so.1", value=1)
    t.copy("f/libF.so.1", "b/libF.so.1")
    t.copy("f/libF.so.1", "d/libF.so.1")
    t.lib("d/libD.so.1", soname="libD.so.1", needs=["e/libE.so.1"])
    t.lib("c/libC.so.1", soname="libC.so.1", needs=["d/libD.so.1", "f/libF.so.1"],
          runpath="$ORIGIN/../d")
    t.lib("b/libB.so.1", soname="libB.so.1", needs=["c/libC.so.1"],
          rpath="$ORIGIN/../c")
    a = t.lib("a/libA.so", soname="libA.so", needs=["b/libB.so.1"],
              rpath="$ORIGIN/../b")
    shutil.rmtree(t.path("e"))
    shutil.rmtree(t.path("f"))
    child = t.child("bin/child")
    return Plan(child, [("open", a)], cwd=t.root)


def linux_ld_library_path(t):
    """LD_LIBRARY_PATH comes after DT_RPATH but before DT_RUNPATH: X
    (RUNPATH $ORIGIN) takes the LD_LIBRARY_PATH copy of Y; R (RPATH
    $ORIGIN) keeps its own copy of Z."""
    t.lib("own/libY.so.1", soname="libY.so.1", version_node="libY.so.1")
    t.copy("own/libY.so.1", "llp/libY.so.1")
    t.lib("own/libZ.so.1", soname="libZ.so.1", value=2)
    t.copy("own/libZ.so.1", "llp/libZ.so.1")
    x = t.lib("own/libX.so", soname="libX.so", needs=["own/libY.so.1"],
              runpath="$ORIGIN")
    r = t.lib("own/libR.so", soname="libR.so", needs=["own/libZ.so.1"],
              rpath="$ORIGIN")
    child = t.child("bin/child")
    return Plan(child, [("open", x), ("open", r)], cwd=t.root,
                ld_library_path=t.path("llp"))


def linux_same_soname(t):
    """Two files of one SONAME (and one version node), different contents:
    once v1's is loaded, a consumer whose RUNPATH holds v2's gets v1's, by
    SONAME, without a search."""
    v1 = t.lib("v1/libV.so.1", soname="libV.so.1", version_node="libV.so.1",
               value=1, tag="libV")
    t.lib("v2/libV.so.1", soname="libV.so.1", version_node="libV.so.1", value=2,
          tag="libV")
    consumer = t.lib("app/libuse.so", soname="libuse.so", needs=["v2/libV.so.1"],
                     runpath="$ORIGIN/../v2")
    child = t.child("bin/child")
    return Plan(child, [("open", v1), ("open", consumer)], cwd=t.root)


def linux_already_loaded_other_path(t):
    """A library with no SONAME, opened through a symlinked folder, is the
    file a consumer's RUNPATH finds under its real name: glibc sees the
    same st_dev/st_ino and takes the loaded object."""
    t.lib("real/libN.so", soname=None)
    t.symlink(t.path("real"), "alias")
    consumer = t.lib("app/libuseN.so", soname="libuseN.so", needs=["real/libN.so"],
                     runpath=t.path("real"))
    child = t.child("bin/child")
    return Plan(child, [("open", t.path("alias/libN.so")), ("open", consumer)],
                cwd=t.root)


def linux_other_class_and_machine(t):
    """LD_LIBRARY_PATH holds a 32-bit libW.so.1 and an aarch64 libM.so.1;
    the loader passes both over and takes the RUNPATH copies."""
    t.other_class("bad32/libW.so.1", "libW.so.1")
    t.lib("good/libW.so.1", soname="libW.so.1")
    t.lib("good/libM.so.1", soname="libM.so.1")
    t.other_machine("good/libM.so.1", "badarm/libM.so.1")
    consumer = t.lib("good/libuseWM.so", soname="libuseWM.so",
                     needs=["good/libW.so.1", "good/libM.so.1"],
                     runpath="$ORIGIN")
    child = t.child("bin/child")
    return Plan(child, [("open", consumer)], cwd=t.root,
                ld_library_path=t.path("bad32") + ":" + t.path("badarm"))


def linux_empty_runpath_entry(t):
    """RUNPATH "/nonexistent/lib:" (onnxruntime's shape): the empty entry
    is the current folder."""
    t.lib("cwd/libE2.so.1", soname="libE2.so.1")
    consumer = t.lib("app/libuseE.so", soname="libuseE.so",
                     needs=["cwd/libE2.so.1"],
                     runpath="/nonexistent-h13/lib:")
    child = t.child("bin/child")
    return Plan(child, [("open", consumer)], cwd=t.path("cwd"))


def linux_lazy_dlopen(t):
    """A shim (RUNPATH $ORIGIN) opens libsub.so.1 by name from inside
    itself, as cuDNN 9 opens its sub-libraries: LD_LIBRARY_PATH's copy
    wins over the one beside it; a second shim without LD_LIBRARY_PATH's
    name gets its sibling through RUNPATH."""
    t.lib("shim/libsub.so.1", soname="libsub.so.1", value=1)
    t.lib("other/libsub.so.1", soname="libsub.so.1", value=2)
    t.lib("shim/libsub2.so.1", soname="libsub2.so.1")
    shim = t.lib("shim/libshim.so", soname="libshim.so", runpath="$ORIGIN",
                 lazy="libsub.so.1")
    shim2 = t.lib("shim/libshim2.so", soname="libshim2.so", runpath="$ORIGIN",
                  lazy="libsub2.so.1")
    child = t.child("bin/child")
    return Plan(child,
                [("open", shim), ("lazy", "h13_lazy_shim_libshim_so", "libsub.so.1"),
                 ("open", shim2),
                 ("lazy", "h13_lazy_shim_libshim2_so", "libsub2.so.1")],
                cwd=t.root, ld_library_path=t.path("other"),
                lazy={shim: "libsub.so.1", shim2: "libsub2.so.1"})


def linux_exe_rpath(t):
    """The program has DT_RPATH $ORIGIN/../lib: its own libQ.so.1 comes
    from there, and so does the dependency of a library opened by path
    (whose own chain does not reach the program)."""
    t.lib("lib/libQ.so.1", soname="libQ.so.1")
    t.lib("lib/libQ2.so.1", soname="libQ2.so.1")
    p = t.lib("plugins/libP.so", soname="libP.so", needs=["lib/libQ2.so.1"])
    child = t.child("bin/child", links=["lib/libQ.so.1"], rpath="$ORIGIN/../lib")
    return Plan(child, [("open", p)], cwd=t.root)


def linux_exe_runpath(t):
    """The program has DT_RUNPATH $ORIGIN/../lib: a dlopen by name from the
    program searches it; the dependency of a library opened by path does
    not (RUNPATH is not inherited), so that open fails."""
    t.lib("lib/libQ3.so.1", soname="libQ3.so.1")
    t.lib("lib/libbyname.so.1", soname="libbyname.so.1")
    p = t.lib("plugins/libP3.so", soname="libP3.so", needs=["lib/libQ3.so.1"])
    child = t.child("bin/child", runpath="$ORIGIN/../lib")
    return Plan(child, [("open", "libbyname.so.1"), ("open", p)], cwd=t.root)


def linux_hwcaps_subfolders(t):
    """glibc 2.36 tries glibc-hwcaps/<level>/ and the legacy tls/... in
    every folder before the folder itself."""
    t.lib("lib/libH.so.1", soname="libH.so.1", value=1)
    t.copy("lib/libH.so.1", "lib/glibc-hwcaps/x86-64-v2/libH.so.1")
    t.lib("lib/libT.so.1", soname="libT.so.1", value=1)
    t.copy("lib/libT.so.1", "lib/tls/libT.so.1")
    consumer = t.lib("lib/libuseH.so", soname="libuseH.so",
                     needs=["lib/libH.so.1", "lib/libT.so.1"],
                     runpath="$ORIGIN")
    child = t.child("bin/child")
    return Plan(child, [("open", consumer)], cwd=t.root)


def linux_origin_tokens(t, facts):
    """$ORIGIN, ${LIB} and $PLATFORM expand as ld.so expands them; $FOO is
    kept as written."""
    lib, platform = facts.get("lib"), facts.get("platform")
    if not lib or not platform:
        raise Skip("the model knows no $LIB or $PLATFORM value here")
    t.lib("x/%s/%s/libK.so.1" % (lib, platform), soname="libK.so.1")
    t.lib("$FOO/libFoo.so.1", soname="libFoo.so.1")
    consumer = t.lib("x/libuseK.so", soname="libuseK.so",
                     needs=["x/%s/%s/libK.so.1" % (lib, platform),
                            "$FOO/libFoo.so.1"],
                     runpath="$ORIGIN/${LIB}/$PLATFORM:%s/$FOO" % t.root)
    child = t.child("bin/child")
    return Plan(child, [("open", consumer)], cwd=t.root)


def linux_nodeflib(t, facts):
    """DF_1_NODEFLIB: no default folder, and no cache entry under one; a
    cache entry elsewhere is still taken."""
    outside = None
    candidates = sorted((os.path.getsize(path), name, path)
                        for name, path in ldconfig_entries()
                        if os.path.isfile(path) and not any(
                            path.startswith(d.rstrip("/") + "/")
                            for d in facts["default_dirs"]))
    for _, name, path in candidates:
        # DT_AUXILIARY and DT_FILTER objects are not modelled (the ELF
        # reader does not report them; docs/loader.md, Linux 18): take a
        # library without them.
        if not has_filters(path):
            outside = (name, path)
            break
    inside = None
    for name, path in ldconfig_entries():
        if name == "libz.so.1":
            inside = (name, path)
    if not inside:
        raise Skip("no libz.so.1 in /etc/ld.so.cache")
    needs_inside = t.lib("sys/" + inside[0], soname=inside[0], stub=True)
    consumer = t.lib("app/libnodef.so", soname="libnodef.so",
                     needs=["sys/" + inside[0]], nodeflib=True)
    os.unlink(needs_inside)
    actions = [("open", consumer)]
    if outside:
        stub = t.lib("sys2/" + outside[0], soname=outside[0], stub=True)
        consumer2 = t.lib("app/libnodef2.so", soname="libnodef2.so",
                          needs=["sys2/" + outside[0]], nodeflib=True)
        os.unlink(stub)
        actions.append(("open", consumer2))
    else:
        print("note: no ld.so.cache entry outside the default folders here")
    child = t.child("bin/child")
    return Plan(child, actions, cwd=t.root)


def linux_system_search_path(t):
    """A name found nowhere: every place is tried, and ld.so prints its
    default folders with their hwcaps subfolders, which must be the
    model's."""
    child = t.child("bin/child")
    return Plan(child, [("open", "libh13-not-anywhere.so.1")], cwd=t.root,
                check_system_path=True)


def has_filters(path):
    """Whether a library's dynamic section has DT_AUXILIARY or DT_FILTER
    (ELF64 little-endian; anything else counts as having them)."""
    try:
        data = open(path, "rb").read()
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            return True
        phoff = struct.unpack_from("<Q", data, 0x20)[0]
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        for i in range(phnum):
            p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
                "<IIQQQQ", data, phoff + i * phentsize)
            if p_type == 2:  # PT_DYNAMIC
                for k in range(p_filesz // 16):
                    tag = struct.unpack_from("<q", data, p_offset + 16 * k)[0]
                    if tag == 0:
                        break
                    if tag in (0x7FFFFFFD, 0x7FFFFFFF):
                        return True
        return False
    except (OSError, struct.error, IndexError):
        return True


def ldconfig_entries():
    """(name, path) of /etc/ld.so.cache for this ABI, via ldconfig -p (the
    test's own view; the library reads the cache itself)."""
    for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"):
        try:
            out = subprocess.run([ldconfig, "-p"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL,
                                 universal_newlines=True).stdout
            break
        except OSError:
            out = ""
    for line in out.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and "x86-64" in m.group(2):
            yield m.group(1), m.group(3)


LINUX = {
    "rpath_chain": linux_rpath_chain,
    "ld_library_path": linux_ld_library_path,
    "same_soname": linux_same_soname,
    "already_loaded_other_path": linux_already_loaded_other_path,
    "other_class_and_machine": linux_other_class_and_machine,
    "empty_runpath_entry": linux_empty_runpath_entry,
    "lazy_dlopen": linux_lazy_dlopen,
    "exe_rpath": linux_exe_rpath,
    "exe_runpath": linux_exe_runpath,
    "hwcaps_subfolders": linux_hwcaps_subfolders,
    "origin_tokens": linux_origin_tokens,
    "nodeflib": linux_nodeflib,
    "system_search_path": linux_system_search_path,
}
NEEDS_FACTS = {"origin_tokens", "nodeflib"}


# --------------------------------------------------------------------------
# Windows scenarios (run under Wine)
# --------------------------------------------------------------------------

LOAD_WITH_ALTERED_SEARCH_PATH = 0x8
SEARCH_DLL_LOAD_DIR = 0x100
SEARCH_APPLICATION_DIR = 0x200
SEARCH_USER_DIRS = 0x400
SEARCH_SYSTEM32 = 0x800
SEARCH_DEFAULT_DIRS = 0x1000


def win(path):
    """A Linux path as a program under Wine sees it (Wine maps / to Z:)."""
    return "Z:" + path.replace("/", "\\")


def windows_app_folder_vs_path(t):
    """The application's folder comes before PATH; a DLL only on PATH is
    found there."""
    t.lib("app/h13a.dll", value=1)
    t.lib("path1/h13a.dll", value=2)
    t.lib("path1/h13b.dll", value=3)
    child = t.child("app/child.exe")
    return Plan(child, [("open", "h13a.dll"), ("open", "h13b.dll")],
                cwd=t.mkdir("cwd"), path=[t.path("path1")])


def windows_already_loaded(t):
    """A module loaded from one folder answers later loads of its name,
    and imports of it, though the application's folder holds another."""
    t.lib("other/h13x.dll", value=1)
    t.lib("app/h13x.dll", value=2)
    t.lib("app/h13c.dll", needs=["app/h13x.dll"])
    child = t.child("app/child.exe")
    return Plan(child, [("open", win(t.path("other/h13x.dll"))),
                        ("open", "h13x.dll"), ("open", "h13c.dll")],
                cwd=t.mkdir("cwd"))


def windows_search_flags(t):
    """LOAD_LIBRARY_SEARCH_*: AddDllDirectory folders with DEFAULT_DIRS
    (not PATH); DLL_LOAD_DIR gives a DLL's imports its own folder;
    SYSTEM32 alone finds nothing of the application's folder."""
    t.lib("user/h13u.dll", value=1)
    t.lib("path1/h13u.dll", value=2)
    t.lib("path1/h13v.dll", value=2)
    t.lib("deps/h13dep.dll")
    t.lib("deps/h13top.dll", needs=["deps/h13dep.dll"])
    t.lib("app/h13s.dll")
    child = t.child("app/child.exe")
    return Plan(child,
                [("adddir", win(t.path("user"))),
                 ("open", "h13u.dll", SEARCH_DEFAULT_DIRS),
                 ("open", "h13v.dll", SEARCH_DEFAULT_DIRS),
                 ("open", win(t.path("deps/h13top.dll")),
                  SEARCH_DLL_LOAD_DIR | SEARCH_DEFAULT_DIRS),
                 ("open", "h13s.dll", SEARCH_SYSTEM32)],
                cwd=t.mkdir("cwd"), path=[t.path("path1")])


def windows_altered_search_path(t):
    """LOAD_WITH_ALTERED_SEARCH_PATH: the DLL's folder replaces the
    application's for its imports."""
    t.lib("alt/h13dep2.dll")
    t.lib("alt/h13top2.dll", needs=["alt/h13dep2.dll"])
    child = t.child("app/child.exe")
    return Plan(child, [("open", win(t.path("alt/h13top2.dll")),
                         LOAD_WITH_ALTERED_SEARCH_PATH)],
                cwd=t.mkdir("cwd"))


def windows_lazy_loadlibrary(t):
    """A DLL loaded by full path with DLL_LOAD_DIR whose code later calls
    LoadLibraryA by name: its folder is not searched then (the standard
    order applies); with that folder on PATH the sibling is found."""
    t.lib("sub/h13sib.dll")
    t.lib("sub/h13shim.dll", lazy="h13sib.dll")
    t.lib("sub2/h13sib2.dll")
    t.lib("sub2/h13shim2.dll", lazy="h13sib2.dll")
    child = t.child("app/child.exe")
    flags = SEARCH_DLL_LOAD_DIR | SEARCH_DEFAULT_DIRS
    return Plan(child,
                [("open", win(t.path("sub/h13shim.dll")), flags),
                 ("lazy", ("h13shim.dll", "h13_lazy_sub_h13shim_dll"), "h13sib.dll"),
                 ("open", win(t.path("sub2/h13shim2.dll")), flags),
                 ("lazy", ("h13shim2.dll", "h13_lazy_sub2_h13shim2_dll"),
                  "h13sib2.dll")],
                cwd=t.mkdir("cwd"), path=[t.path("sub2")],
                lazy={t.path("sub/h13shim.dll"): "h13sib.dll",
                      t.path("sub2/h13shim2.dll"): "h13sib2.dll"})


def windows_other_machine(t):
    """A DLL of the name for another machine, first on PATH: the load fails
    with 193 rather than going on to the next PATH folder."""
    t.lib("good/h13m.dll")
    t.other_machine("good/h13m.dll", "arm/h13m.dll")
    child = t.child("app/child.exe")
    return Plan(child, [("open", "h13m.dll")], cwd=t.mkdir("cwd"),
                path=[t.path("arm"), t.path("good")])


def windows_current_folder(t):
    """SafeDllSearchMode: the current folder after the Windows folders,
    before PATH."""
    t.lib("cwd/h13cw.dll", value=1)
    t.lib("path1/h13cw.dll", value=2)
    child = t.child("app/child.exe")
    return Plan(child, [("open", "h13cw.dll")], cwd=t.path("cwd"),
                path=[t.path("path1")])


def windows_default_dirs(t):
    """After SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) a
    plain LoadLibrary no longer searches PATH; AddDllDirectory does."""
    t.lib("path1/h13p.dll")
    t.lib("user/h13q.dll")
    child = t.child("app/child.exe")
    return Plan(child, [("setdefault", SEARCH_DEFAULT_DIRS),
                        ("open", "h13p.dll"),
                        ("adddir", win(t.path("user"))),
                        ("open", "h13q.dll")],
                cwd=t.mkdir("cwd"), path=[t.path("path1")])


def windows_set_dll_directory(t):
    """SetDllDirectory: its folder right after the application's, and the
    current folder out of the order."""
    t.lib("dlldir/h13d.dll", value=1)
    t.lib("cwd/h13d.dll", value=2)
    t.lib("cwd/h13e.dll", value=2)
    t.lib("path1/h13e.dll", value=3)
    child = t.child("app/child.exe")
    return Plan(child, [("setdlldir", win(t.path("dlldir"))),
                        ("open", "h13d.dll"), ("open", "h13e.dll")],
                cwd=t.path("cwd"), path=[t.path("path1")])


WINDOWS = {
    "windows_app_folder_vs_path": windows_app_folder_vs_path,
    "windows_already_loaded": windows_already_loaded,
    "windows_search_flags": windows_search_flags,
    "windows_altered_search_path": windows_altered_search_path,
    "windows_lazy_loadlibrary": windows_lazy_loadlibrary,
    "windows_other_machine": windows_other_machine,
    "windows_current_folder": windows_current_folder,
    "windows_default_dirs": windows_default_dirs,
    "windows_set_dll_directory": windows_set_dll_directory,
}


# --------------------------------------------------------------------------
# The prediction side: one function, swappable
# --------------------------------------------------------------------------


def predict(predictor, situation_path, runner=None, argument=None):
    """The model's answer for a situation file: loader_predict's JSON.
    `cudaload explain` plugs in here. argument: the file's name as the
    predictor sees it (a Z:\\ path under Wine)."""
    cmd = ([runner] if runner else []) + [predictor, argument or situation_path]
    out_path = situation_path + ".prediction.json"
    err_path = situation_path + ".predict.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        status = subprocess.call(cmd, stdout=out, stderr=err)
    text = open(out_path).read()
    if status != 0:
        raise SetupError("the predictor failed (%d): %s\n%s" % (
            status, " ".join(cmd), open(err_path).read()))
    # wine-run appends the program's stderr after its stdout: keep the JSON.
    start = text.find("{")
    return json.loads(text[start:text.rfind("}") + 1])


# --------------------------------------------------------------------------
# Comparing
# --------------------------------------------------------------------------


class Verdicts:
    def __init__(self):
        self.total = 0
        self.agree = 0

    def check(self, what, predicted, actual, same=None):
        self.total += 1
        ok = same if same is not None else predicted == actual
        if ok:
            self.agree += 1
            print("agree     %s: %s" % (what, short(predicted)))
        else:
            print("DISAGREE  %s\n          model:  %s\n          loader: %s"
                  % (what, short(predicted), short(actual)))
        return ok


def short(value):
    if isinstance(value, (list, tuple, set)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def real(path, cwd):
    if path is None:
        return None
    return os.path.realpath(os.path.join(cwd, path))


# ---- Linux: LD_DEBUG=libs,files -----------------------------------------

LIST_KIND = {"LD_LIBRARY_PATH": "ld-library-path",
             "system search path": "default-dirs"}


class Block:
    def __init__(self, name, requester):
        self.name = name
        self.requester = requester
        self.list = None
        self.tries = []  # (file, (rule, source))
        self.mapped = False


def parse_ld_debug(text):
    """Segments of LD_DEBUG output (index 0: start-up, then one per child
    action), each a list of search blocks; and the search path lines."""
    segments = [[]]
    lists = []
    current = None
    for raw in text.splitlines():
        marker = re.match(r"^ACTION (\d+) begin$", raw)
        if marker:
            segments.append([])
            current = None
            continue
        m = re.match(r"^\s*\d+:\t?(.*)$", raw)
        if not m:
            continue
        msg = m.group(1)
        body = msg.strip()
        f = re.match(r"^file=(.*) \[\d+\];  (?:needed by|dynamically loaded by) "
                     r"(.*) \[\d+\]$", body)
        if f:
            current = Block(f.group(1), f.group(2))
            segments[-1].append(current)
            continue
        f = re.match(r"^find library=(.*) \[\d+\]; searching$", body)
        if f:
            if not current or current.name != f.group(1) or current.tries:
                current = Block(f.group(1), None)
                segments[-1].append(current)
            continue
        f = re.match(r"^search path=(.*)\t\t\((.*)\)$", msg.lstrip(" "))
        if f and current:
            what = f.group(2)
            src = re.match(r"^(RPATH|RUNPATH) from file (.*)$", what)
            if src:
                current.list = (src.group(1).lower(), src.group(2))
            else:
                current.list = (LIST_KIND.get(what, what), None)
            lists.append((what, f.group(1)))
            continue
        if body.startswith("search cache="):
            if current:
                current.list = ("ld-so-cache", None)
            continue
        f = re.match(r"^trying file=(.*)$", body)
        if f and current:
            current.tries.append((f.group(1), current.list))
            continue
        f = re.match(r"^file=(.*) \[\d+\];  generating link map$", body)
        if f:
            if current and current.name == f.group(1):
                current.mapped = True
            current = None
    return segments, lists


def linux_situation(plan, interpreter, path):
    with open(path, "w") as f:
        f.write("exe\t%s\n" % os.path.realpath(plan.child))
        f.write("cwd\t%s\n" % plan.cwd)
        if plan.ld_library_path is not None:
            f.write("ld_library_path\t%s\n" % plan.ld_library_path)
        f.write("preloaded\t%s\n" % interpreter)
        for lib, name in plan.lazy.items():
            f.write("lazy\t%s\t%s\n" % (lib, name))
        f.write("start\n")
        for action in plan.actions:
            if action[0] == "open":
                f.write("open\t0\t%s\n" % action[1])


def interpreter_of(program):
    """PT_INTERP of an ELF64 little-endian program."""
    data = open(program, "rb").read()
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 3:
            return data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode()
    raise SetupError("%s has no interpreter" % program)


def split_by_action(prediction, plan):
    """The model's edges per child action: [start-up, action 1, ...]. A
    lazy open is done by the model inside the open before it; the child
    does it as its own action."""
    opens = [a for a in prediction["actions"] if a["kind"] in ("start", "open")]
    groups = [opens[0]["edges"][1:]]  # the program itself is no search
    k = 1
    for action in plan.actions:
        if action[0] == "open":
            tree = opens[k]
            k += 1
            edges = tree["edges"]
            cut = [i for i, e in enumerate(edges) if e["lazy"]] + [len(edges)]
            groups.append(edges[:cut[0]])
            lazy_groups = [edges[cut[i]:cut[i + 1]] for i in range(len(cut) - 1)]
            tree["_lazy"] = lazy_groups
            tree["_lazy_used"] = 0
            last_open = tree
        elif action[0] == "lazy":
            group = last_open["_lazy"][last_open["_lazy_used"]] \
                if last_open["_lazy_used"] < len(last_open["_lazy"]) else []
            last_open["_lazy_used"] += 1
            groups.append(group)
        else:
            groups.append([])
    return groups, opens


def run_linux(name, args):
    tree = Tree(os.path.join(args.work, name), args.cc, windows=False)
    plan = None
    facts = None
    if name in NEEDS_FACTS:
        # The host's facts first (an empty situation).
        probe_path = os.path.join(tree.root, "facts.txt")
        open(probe_path, "w").close()
        facts = predict(args.predict, probe_path)["facts"]
        plan = LINUX[name](tree, facts)
    else:
        plan = LINUX[name](tree)
    child = os.path.realpath(plan.child)
    situation = os.path.join(tree.root, "situation.txt")
    linux_situation(plan, interpreter_of(child), situation)
    prediction = predict(args.predict, situation)

    argv = [child]
    for action in plan.actions:
        if action[0] == "open":
            argv.append("open:" + action[1])
        else:
            argv.append("lazy:" + action[1])
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("LD_PRELOAD", None)
    if plan.ld_library_path is not None:
        env["LD_LIBRARY_PATH"] = plan.ld_library_path
    env["LD_DEBUG"] = "libs,files"
    with open(os.path.join(tree.root, "child.out"), "w") as out, \
            open(os.path.join(tree.root, "child.err"), "w") as err:
        subprocess.call(argv, cwd=plan.cwd, env=env, stdout=out, stderr=err,
                        timeout=60)
    stdout = open(os.path.join(tree.root, "child.out")).read()
    stderr = open(os.path.join(tree.root, "child.err")).read()
    return compare_linux(plan, prediction, stdout, stderr, child)


def compare_linux(plan, prediction, stdout, stderr, child):
    v = Verdicts()
    cwd = plan.cwd
    segments, lists = parse_ld_debug(stderr)
    groups, opens = split_by_action(prediction, plan)
    outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail)", stdout, re.M))
    program = os.path.realpath(child)

    def requester(path):
        # The open itself has no requester in the tree: a bare name is
        # searched as the program's own (elf/dl-open.c).
        return real(path, cwd) if path else program

    for index, group in enumerate(groups):
        label = "start-up" if index == 0 else "action %d (%s)" % (
            index, " ".join(str(x) for x in plan.actions[index - 1][:2]))
        succeeded = index == 0 or outcomes.get(str(index)) == "ok"
        blocks = [b for b in (segments[index] if index < len(segments) else [])
                  if "/" not in b.name]
        # glibc stops at the first dependency it cannot find; the model
        # walks on (to show every problem), which the loader never saw.
        for j, e in enumerate(group):
            if e["rule"] == "not-found":
                group = group[:j + 1]
                break
        searched = [e for e in group if not e["by_name"] and "/" not in e["name"]]
        for e in group:
            if e["by_name"]:
                hit = [b for b in blocks if b.name == e["name"] and
                       requester(b.requester) == requester(e["from"])]
                v.check("%s: %s for %s: already loaded, no search" % (
                    label, e["name"], requester(e["from"])),
                    real(e["path"], cwd),
                    "searched again: %s" % [t[0] for t in hit[0].tries] if hit
                    else real(e["path"], cwd))
        for i in range(max(len(searched), len(blocks))):
            e = searched[i] if i < len(searched) else None
            b = blocks[i] if i < len(blocks) else None
            if e is None:
                v.check("%s: search for %s by %s" % (label, b.name, b.requester),
                        "no such search",
                        describe_block(b, cwd, succeeded or b is not blocks[-1]))
                continue
            what = "%s: %s for %s" % (label, e["name"], requester(e["from"]))
            model = describe_edge(e, cwd)
            if b is None:
                v.check(what, model, "no search")
                continue
            loader = describe_block(b, cwd, succeeded or b is not blocks[-1])
            v.check(what, model, loader,
                    same=(b.name == e["name"] and
                          requester(b.requester) == requester(e["from"]) and
                          model == loader))
            # The files the model says the loader meets and passes over
            # (another class or machine) are among those it tried, first.
            passed = [real(st["file"], cwd) for st in e["steps"]
                      if st["kind"] == "skipped" and st["file"]]
            if passed:
                tried = [real(f, cwd) for f, _ in b.tries]
                v.check(what + ": passed over", passed,
                        [f for f in tried if f in passed])

    # Action outcomes.
    k = 1
    for i, action in enumerate(plan.actions, 1):
        if action[0] == "open":
            tree = opens[k]
            k += 1
            model = "fail" if tree["failed"] else "ok"
        else:
            group = groups[i]
            lazy_edge = group[0] if group else None
            model = "ok" if lazy_edge and lazy_edge["path"] and \
                not lazy_edge.get("to_dropped") else "fail"
        v.check("action %d %s: outcome" % (i, action[1]), model,
                outcomes.get(str(i), "no answer"))

    # The files mapped at the end.
    mapped = set()
    for name in re.findall(r"^MAPPED (.*)$", stdout, re.M):
        if name.startswith("linux-vdso") or name.startswith("linux-gate"):
            continue
        mapped.add(real(name, cwd) if name else program)
    model = set(real(p, cwd) for p in prediction["loaded"])
    v.check("files mapped", sorted(model), sorted(mapped))

    if plan.check_system_path:
        facts = prediction["facts"]
        expected = []
        for d in facts["default_dirs"]:
            for sub in facts["hwcaps_subdirs"] or [""]:
                expected.append((d.rstrip("/") + "/" + sub).rstrip("/") or "/")
        printed = [dirs for what, dirs in lists if what == "system search path"]
        v.check("default folders with hwcaps subfolders", ":".join(expected),
                printed[0] if printed else "(not printed)")
    return v


def describe_edge(e, cwd):
    """The model's answer for one search: the file found, by which list
    (and whose), and what became of it."""
    if e["rule"] == "not-found":
        return "not found"
    found = real(e["found"], cwd)
    rule = e["found_rule"]
    source = real(e["source"], cwd) if rule in ("rpath", "runpath") else None
    outcome = "an object already loaded" if e["rule"] == "already-loaded" \
        else "mapped"
    return "%s by %s%s: %s" % (found, rule, " of %s" % source if source else "",
                               outcome)


def describe_block(b, cwd, succeeded):
    """The loader's answer for one search, in describe_edge's words: the
    last file tried is the one taken; with no new link map it was an object
    already loaded (same st_dev/st_ino) when the action succeeded, and the
    search failed when it did not."""
    if not b.mapped and not succeeded:
        return "not found"
    if not b.tries:
        return "nothing tried"
    found, (rule, source) = b.tries[-1][0], b.tries[-1][1] or (None, None)
    src = real(source, cwd) if rule in ("rpath", "runpath") and source else None
    return "%s by %s%s: %s" % (real(found, cwd), rule, " of %s" % src if src else "",
                               "mapped" if b.mapped else "an object already loaded")


# ---- Windows: WINEDEBUG=+loaddll ---------------------------------------


def parse_loaddll(text):
    """Segments of the child's +loaddll trace: [(loaded, unloaded), ...],
    index 0 before the first action."""
    pid = None
    for line in text.splitlines():
        m = re.match(r'^([0-9a-f]+):trace:loaddll:\w+ Loaded L"(.*)" at', line)
        if m and m.group(2).lower().endswith("child.exe"):
            pid = m.group(1)
    segments = [([], [])]
    for line in text.splitlines():
        if re.match(r"^ACTION \d+ begin$", line):
            segments.append(([], []))
            continue
        m = re.match(r'^([0-9a-f]+):trace:loaddll:\w+ (Loaded|Unloaded module) '
                     r'L"(.*?)"', line)
        if not m or m.group(1) != pid:
            continue
        path = m.group(3).replace("\\\\", "\\")
        (segments[-1][0] if m.group(2) == "Loaded" else segments[-1][1]).append(path)
    return segments


def run_windows(name, args):
    tree = Tree(os.path.join(args.work, name), args.cc, windows=True)
    plan = WINDOWS[name](tree)
    child_argv = []
    for action in plan.actions:
        if action[0] == "open":
            flags = action[2] if len(action) > 2 else 0
            child_argv.append("load:%x:%s" % (flags, action[1]))
        elif action[0] == "lazy":
            child_argv.append("lazy:%s:%s" % action[1])
        elif action[0] == "adddir":
            child_argv.append("adddir:" + action[1])
        elif action[0] == "setdefault":
            child_argv.append("setdefault:%x" % action[1])
        elif action[0] == "setdlldir":
            child_argv.append("setdlldir:" + action[1])
    env = dict(os.environ)
    env["CUDALOAD_WINEPATH"] = ";".join(win(p) for p in plan.path)
    env["CUDALOAD_WINEDEBUG"] = "+loaddll"
    out_path = os.path.join(tree.root, "child.out")
    err_path = os.path.join(tree.root, "child.err")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        subprocess.call([args.wine_run, plan.child] + child_argv, cwd=plan.cwd,
                        env=env, stdout=out, stderr=err, timeout=300)
    stdout = open(out_path).read()
    stderr = open(err_path).read()
    if not re.search(r"^CWD ", stdout, re.M):
        raise SetupError("the child did not run under Wine:\n%s\n%s" %
                         (stdout, stderr[-4000:]))

    situation = os.path.join(tree.root, "situation.txt")
    with open(situation, "w") as f:
        f.write("exe\t%s\n" % win(plan.child))
        f.write("cwd\t%s\n" % re.search(r"^CWD (.*)$", stdout, re.M).group(1))
        f.write("path\t%s\n" % re.search(r"^PATH (.*)$", stdout, re.M).group(1))
        for module in re.findall(r"^INIT (.*)$", stdout, re.M):
            f.write("preloaded\t%s\n" % module)
        for lib, lazy_name in plan.lazy.items():
            f.write("lazy\t%s\t%s\n" % (win(lib), lazy_name))
        for action in plan.actions:
            if action[0] == "open":
                flags = action[2] if len(action) > 2 else 0
                f.write("open\t%x\t%s\n" % (flags, action[1]))
            elif action[0] == "adddir":
                f.write("adddir\t%s\n" % action[1])
            elif action[0] == "setdefault":
                f.write("setdefault\t%x\n" % action[1])
            elif action[0] == "setdlldir":
                f.write("setdlldir\t%s\n" % action[1])
    prediction = predict(args.predict, situation, runner=args.wine_run,
                         argument=win(situation))
    return compare_windows(plan, prediction, stdout, stderr)


def compare_windows(plan, prediction, stdout, stderr):
    v = Verdicts()
    segments = parse_loaddll(stderr)
    opens = [a for a in prediction["actions"]]
    outcomes = dict((int(i), (r, code)) for i, r, code in re.findall(
        r"^ACTION (\d+) (ok|fail) ?(\d*)", stdout, re.M))
    pending_lazy = []
    k = 0
    for i, action in enumerate(plan.actions, 1):
        loaded, unloaded = segments[i] if i < len(segments) else ([], [])
        kept = [p.lower() for p in loaded if p not in unloaded]
        label = "action %d (%s)" % (i, " ".join(str(x) for x in action[:2]))
        if action[0] == "lazy":
            edges = pending_lazy.pop(0) if pending_lazy else []
            failed = not edges or not edges[0]["path"] or edges[0].get("to_dropped")
        else:
            tree = opens[k]
            k += 1
            if tree["kind"] != "open":
                v.check(label + ": outcome", "ok", outcomes.get(i, ("?",))[0])
                continue
            edges = tree["edges"]
            cut = [j for j, e in enumerate(edges) if e["lazy"]] + [len(edges)]
            pending_lazy = [edges[cut[j]:cut[j + 1]] for j in range(len(cut) - 1)]
            edges = edges[:cut[0]]
            failed = tree["failed"]
        # The outcome, with the error the loader reports.
        bad = [e for e in edges if e["rule"] == "not-found"]
        expected = "ok"
        if failed:
            fatal = any(s["kind"] == "fatal" for e in bad for s in e["steps"])
            expected = "fail %d" % (193 if fatal else 126)
        got = outcomes.get(i, ("no answer", ""))
        v.check(label + ": outcome", expected,
                got[0] + (" " + got[1] if got[1] else ""))
        # Each DLL the model maps in this action is what Wine loaded.
        for e in edges:
            if e["rule"] in ("not-found", "api-set"):
                continue
            what = "%s: %s" % (label, e["name"])
            if e["rule"] == "already-loaded":
                again = [p for p in kept if os.path.basename(p.replace("\\", "/"))
                         == e["name"].lower()]
                v.check(what + " (already loaded, nothing new)", e["path"],
                        "loaded again: %s" % again if again else e["path"])
            elif not failed:
                v.check(what + " by " + e["rule"], e["path"].lower(),
                        e["path"].lower() if e["path"].lower() in kept
                        else "not loaded; loaded: %s" % kept)
    modules = set(p.lower() for p in re.findall(r"^MODULE (.*)$", stdout, re.M))
    model = set(p.lower() for p in prediction["loaded"])
    v.check("modules at the end", sorted(model), sorted(modules))
    return v


# --------------------------------------------------------------------------
# Explain scenarios: `cudaload explain` itself is the predictor
# --------------------------------------------------------------------------
#
# The scenarios above check the rules (loader_predict over lib/loader/resolve.h);
# these check the command users run. Each builds CUDA-named fixtures (explain
# only expands the libraries its catalog knows), runs `cudaload explain FILE
# --symbols --format json` with the options and environment of one child
# process, runs that child, and compares every need explain lists (the file
# taken and the rule) with the loader's search for it, the files mapped,
# each open's outcome, and where each cudnn*/cublas* reference binds
# (LD_DEBUG=bindings; under Wine the DLL each import was loaded from).


class ExplainRun:
    """One child process and the explain run that predicts it.

    consumer: the file explain is asked about; the child opens it by path
    (RTLD_LOCAL) after the plan. options: explain's options besides FILE
    (--root, --require, --no-defaults, --global); with --require the child
    first opens the plan's files by path, as cudaload_preload does
    (RTLD_GLOBAL with --global), in the plan's order (`cudaload doctor`
    prints it). lazy: [(SYMBOL, NAME)] after the open: call SYMBOL, which
    opens NAME by name from inside its library (Windows: (DLL, SYMBOL)).
    expect_problem: a regular expression one of explain's problems must
    match exactly when problem_seen says the loader did what it names."""

    def __init__(self, label, child, consumer, options=(), ld_library_path=None,
                 lazy=(), cwd=None, path=(), expect_problem=None,
                 problem_seen=None):
        self.label = label
        self.child = child
        self.consumer = consumer
        self.options = list(options)
        self.ld_library_path = ld_library_path
        self.lazy = list(lazy)
        self.cwd = cwd
        self.path = list(path)
        self.expect_problem = expect_problem
        # The loader's side: problem_seen(mapped files, bindings, action
        # outcomes) tells whether it did what the problem names.
        self.problem_seen = problem_seen


def cuda_symbol(name):
    """The references the binding checks watch: cuDNN's and cuBLAS's."""
    return name.startswith("cudnn") or name.startswith("cublas")


def run_tool(cmd, env, cwd, ok=(0,)):
    """stdout of a cudaload command (its JSON); a SetupError for any exit
    status not in ok (explain exits 6 when it lists a problem)."""
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, env=env, cwd=cwd)
    if result.returncode not in ok:
        raise SetupError("failed (%d): %s\n%s%s" % (
            result.returncode, " ".join(cmd), result.stdout, result.stderr))
    # wine-run appends the program's stderr after its stdout: keep the JSON.
    text = result.stdout
    return json.loads(text[text.find("{"):text.rfind("}") + 1])


def explain_of(args, run, env, to_tool_path=lambda p: p):
    """explain's report for the run, and the plan's files (the doctor's
    plan for the same options), as the tool prints them."""
    runner = [args.wine_run] if args.wine_run else []
    options = [to_tool_path(o) if o.startswith("/") else o for o in run.options]
    plan = []
    if "--require" in options:
        doctor = run_tool(runner + [args.explain, "doctor", "--format", "json"] +
                          [o for o in options if o != "--global"],
                          env, run.cwd, ok=(0, 1, 3, 4, 5, 6, 7))
        plan = [p["path"] for p in doctor.get("plan", [])
                if p.get("state") == "planned" and p.get("path")]
    cmd = runner + [args.explain, "explain", to_tool_path(run.consumer)] + \
        options + ["--symbols", "--format", "json"]
    print("run %s: %s" % (run.label, " ".join(cmd[len(runner):])))
    report = run_tool(cmd, env, run.cwd, ok=(0, 6))
    for problem in report.get("problems", []):
        print("          explain problem: %s" % problem)
    return report, plan


def soname_of(path):
    """A library's DT_SONAME as readelf prints it, or None (the loader's
    side: which mapped object answers a name without a search)."""
    try:
        out = subprocess.run(["readelf", "-d", path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL,
                             universal_newlines=True).stdout
    except OSError:
        return None
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", out)
    return m.group(1) if m else None


def parse_bindings(text, cwd):
    """LD_DEBUG=bindings: {(file, symbol): (file it binds to, version)}."""
    out = {}
    for m in re.finditer(r"binding file (.+?) \[\d+\] to (.+?) \[\d+\]: "
                         r"normal symbol `([^']+)'(?: \[([^\]]*)\])?", text):
        out[(real(m.group(1), cwd), m.group(3))] = (real(m.group(2), cwd),
                                                   m.group(4))
    return out


def model_need(n, cwd):
    """explain's answer for one need, in the words of loader_need."""
    if n["rule"] == "not-found" or not n["resolved"]:
        return "not found"
    source = re.match(r"^(rpath|runpath) of (.*)$", n.get("detail") or "")
    return "%s by %s%s" % (real(n["resolved"], cwd), n["rule"],
                           " of %s" % real(source.group(2), cwd) if source else "")


def loader_need(name, requester, searches, outcomes, by_soname, cwd):
    """The loader's answer for one name a requester needs or opens: its
    search block (the last file tried, the list that held it; no new link
    map in an open that succeeded: the same file was already loaded), or,
    with no search, the mapped object whose SONAME answered the name."""
    hit = searches.get((name, requester))
    if hit is None:
        loaded = by_soname.get(name)
        return ("%s by already-loaded" % loaded) if loaded else \
            "no search, and nothing of that SONAME mapped"
    action, b = hit
    if not b.tries or (not b.mapped and outcomes.get(str(action)) != "ok"):
        return "not found"
    found, (rule, source) = b.tries[-1][0], b.tries[-1][1] or (None, None)
    if not b.mapped:
        return "%s by already-loaded" % real(found, cwd)
    src = real(source, cwd) if rule in ("rpath", "runpath") and source else None
    return "%s by %s%s" % (real(found, cwd), rule, " of %s" % src if src else "")


def tree_objects(report, tree, cwd):
    """explain's objects inside the scenario's tree (system libraries are
    shown as needs only; the child has them before any action anyway)."""
    return [o for o in report["objects"] if inside(o["path"], tree, cwd)]


def inside(path, tree, cwd):
    return bool(path) and real(path, cwd).startswith(
        os.path.realpath(tree.root) + os.sep)


def run_explain_linux(name, args):
    tree = Tree(os.path.join(args.work, name), args.cc, windows=False)
    runs = EXPLAIN_LINUX[name](tree)
    v = Verdicts()
    for run in runs:
        run.cwd = run.cwd or tree.root
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env.pop("LD_LIBRARY_PATH", None)
        if run.ld_library_path is not None:
            env["LD_LIBRARY_PATH"] = run.ld_library_path
        # explain models "opened into a new process with this environment":
        # it gets the child's LD_LIBRARY_PATH.
        report, plan = explain_of(args, run, env)
        glob = "--global" in run.options
        argv = [run.child] + \
            [("open-global:" if glob else "open:") + p for p in plan] + \
            ["open:" + run.consumer] + ["lazy:" + sym for sym, _ in run.lazy]
        env["LD_DEBUG"] = "libs,files,bindings"
        base = os.path.join(tree.root, run.label)
        with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
            subprocess.call(argv, cwd=run.cwd, env=env, stdout=out, stderr=err,
                            timeout=60)
        stdout = open(base + ".out").read()
        stderr = open(base + ".err").read()
        compare_explain_linux(run, tree, report, plan, stdout, stderr, v)
    return v


# The verdict's sentence for a file the loader takes that lacks symbols its
# consumer takes from it (lib/load/verdict.c, undefined_findings): group 1
# the consumer, 2 the library name.
UNDEFINED_PROBLEM = re.compile(r"^(?:without cudaload \(this environment as it "
                               r"is\): )?(\S+) takes \d+ symbols? from (\S+) "
                               r".*: loading it fails")


def compare_explain_linux(run, tree, report, plan, stdout, stderr, v):
    cwd = run.cwd
    segments, _ = parse_ld_debug(stderr)
    outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail)", stdout, re.M))
    # The loader's searches by (name, requester), with the action they were
    # part of; the first one counts (a later one is another requester's).
    searches = {}
    for index, segment in enumerate(segments):
        for b in segment:
            if "/" not in b.name and b.requester:
                searches.setdefault((b.name, real(b.requester, cwd)), (index, b))
    mapped = set()
    for name in re.findall(r"^MAPPED (.*)$", stdout, re.M):
        if name and not name.startswith("linux-") and inside(name, tree, cwd) and \
                real(name, cwd) != os.path.realpath(run.child):
            mapped.add(real(name, cwd))
    by_soname = dict((soname_of(p), p) for p in sorted(mapped))
    label = run.label
    objects = tree_objects(report, tree, cwd)
    consumer_action = len(plan) + 1
    lazy_action = dict((n, consumer_action + 1 + i)
                       for i, (_, n) in enumerate(run.lazy))

    # Each need of each object of the tree: the file taken and the rule.
    model_files = set(real(p, cwd) for p in plan)
    failed = False
    for o in objects:
        requester = real(o["path"], cwd)
        for n in o["needs"]:
            if n["rule"] != "not-found" and not inside(n["resolved"], tree, cwd):
                continue  # a system library, not expanded by explain
            what = "%s: %s %s %s" % (label, os.path.basename(requester),
                                     "opens" if n["kind"] == "lazy" else "needs",
                                     n["name"])
            v.check(what, model_need(n, cwd),
                    loader_need(n["name"], requester, searches, outcomes,
                                by_soname, cwd))
            if n["rule"] == "not-found":
                failed = failed or n["kind"] != "lazy"
            else:
                model_files.add(real(n["resolved"], cwd))
    # A file the consumer's open maps that lacks symbols its consumer
    # takes from it fails that open too (RTLD_NOW: "undefined symbol").
    loaded_at_open = set(real(o["path"], cwd) for o in objects)
    for problem in report.get("problems", []):
        m = UNDEFINED_PROBLEM.match(problem)
        if m and real(m.group(1), cwd) in loaded_at_open:
            failed = True
    # What each action did: the plan's opens, the consumer's, the lazy ones.
    for i in range(1, len(plan) + 1):
        v.check("%s: action %d (open the plan's %s)" % (
            label, i, os.path.basename(plan[i - 1])), "ok",
            outcomes.get(str(i), "no answer"))
    v.check("%s: action %d (open %s)" % (label, consumer_action,
                                         os.path.basename(run.consumer)),
            "fail" if failed else "ok",
            outcomes.get(str(consumer_action), "no answer"))
    for name, i in lazy_action.items():
        opened = [n for o in objects for n in o["needs"]
                  if n["kind"] == "lazy" and n["name"] == name]
        model = "ok" if opened and opened[0]["resolved"] else \
            "fail" if opened else "no such lazy open in the report"
        v.check("%s: action %d (lazy open of %s)" % (label, i, name), model,
                outcomes.get(str(i), "no answer"))
    if failed:  # a failed dlopen unmaps what it mapped
        model_files = set(real(p, cwd) for p in plan)
    else:
        model_files |= set(real(o["path"], cwd) for o in objects)
    v.check("%s: files of the tree mapped" % label, sorted(model_files),
            sorted(mapped))

    # Bindings: each cudnn*/cublas* reference explain lists, and every one
    # the loader made from the tree.
    bound = parse_bindings(stderr, cwd)
    predicted = set()
    for o in objects:
        owner = real(o["path"], cwd)
        for b in o["bindings"]:
            for each in b["each"] or []:
                if not cuda_symbol(each["symbol"]):
                    continue
                predicted.add((owner, each["symbol"]))
                got = bound.get((owner, each["symbol"]))
                v.check("%s: %s's %s%s binds to" % (
                    label, os.path.basename(owner), each["symbol"],
                    "@" + b["version"] if b["version"] else ""),
                    real(each["provider"], cwd) or "nothing",
                    got[0] if got else "no binding")
    for (owner, symbol), (to, version) in sorted(bound.items()):
        if cuda_symbol(symbol) and inside(owner, tree, cwd) and \
                (owner, symbol) not in predicted:
            v.check("%s: %s's %s binds to" % (label, os.path.basename(owner),
                                              symbol),
                    "no such reference in the report", to)
    if run.expect_problem:
        seen = run.problem_seen(mapped, bound, outcomes)
        hits = [p for p in report.get("problems", [])
                if re.search(run.expect_problem, p)]
        # The loader's side is whether it did what the problem names.
        v.check("%s: a problem matching /%s/ (loader: whether it happened)"
                % (label, run.expect_problem),
                "reported" if hits else "not reported",
                "reported" if seen else "not reported")


# ---- the Linux explain scenarios -----------------------------------------


def cudnn9_folder(t, folder, value=9):
    """A cuDNN 9 folder the planner accepts: libcudnn.so.9 (version node
    libcudnn.so.9: cudnnCreate, cudnnGetVersion) with the sub-libraries it
    requires beside it (graph, ops)."""
    t.lib(folder + "/libcudnn_graph.so.9", soname="libcudnn_graph.so.9",
          value=value)
    t.lib(folder + "/libcudnn_ops.so.9", soname="libcudnn_ops.so.9", value=value)
    return t.lib(folder + "/libcudnn.so.9", soname="libcudnn.so.9",
                 version_node="libcudnn.so.9", value=value,
                 exports=["cudnnCreate", "cudnnGetVersion"])


def explain_versioned_global(t):
    """cuDNN 9 opened RTLD_GLOBAL first (the plan for cudnn=9, --global),
    then a consumer linked against cuDNN 8. With symbol versions its
    cudnnCreate@libcudnn.so.8 passes the global cuDNN 9 over and binds to
    its own cuDNN 8; unversioned, the global cuDNN 9 takes the call."""
    cudnn9_folder(t, "cudnn9")
    options = ["--root", t.path("cudnn9"), "--require", "cudnn=9", "--global",
               "--no-defaults"]
    # As the real cuDNN 8 has them, the sub-libraries its shim opens by name
    # lie beside it (a plan of cuDNN 8 takes them with it).
    for folder in ("cudnn8", "cudnn8u"):
        for sub in ("ops_infer", "cnn_infer"):
            t.lib("%s/libcudnn_%s.so.8" % (folder, sub),
                  soname="libcudnn_%s.so.8" % sub, value=8)
    t.lib("cudnn8/libcudnn.so.8", soname="libcudnn.so.8",
          version_node="libcudnn.so.8", value=8,
          exports=["cudnnCreate", "cudnnGetVersion"])
    versioned = t.lib("app/libuse8.so", soname="libuse8.so",
                      needs=["cudnn8/libcudnn.so.8"], runpath="$ORIGIN/../cudnn8",
                      calls=["cudnnCreate"])
    t.lib("cudnn8u/libcudnn.so.8", soname="libcudnn.so.8", value=8,
          exports=["cudnnCreate", "cudnnGetVersion"])
    plain = t.lib("appu/libuse8u.so", soname="libuse8u.so",
                  needs=["cudnn8u/libcudnn.so.8"],
                  runpath="$ORIGIN/../cudnn8u", calls=["cudnnCreate"])
    child = t.child("bin/child")
    return [ExplainRun("versioned", child, versioned, options),
            ExplainRun("unversioned", child, plain, options,
                       expect_problem=r"references to libcudnn\.so\.8 bind to "
                       r".*cudnn9/libcudnn\.so\.9",
                       problem_seen=lambda mapped, bound, outcomes: any(
                           s == "cudnnCreate" and "/cudnn9/" in to
                           for (_, s), (to, _) in bound.items()))]


def explain_ld_library_path_shadow(t):
    """A cuDNN 9 shim (RUNPATH $ORIGIN) beside its sub-libraries: it needs
    libcudnn_ops.so.9 and opens libcudnn_graph.so.9 by name when it needs
    it; LD_LIBRARY_PATH holds other copies of both, which win (it comes
    before RUNPATH): the shim runs with another folder's sub-libraries."""
    # Copies of one library share the tag of their h13_ function (the shim
    # calls it, whichever copy the loader takes).
    t.lib("shim/libcudnn_ops.so.9", soname="libcudnn_ops.so.9", value=1,
          tag="cudnn_ops")
    t.lib("shim/libcudnn_graph.so.9", soname="libcudnn_graph.so.9", value=1,
          tag="cudnn_graph")
    t.lib("llp/libcudnn_ops.so.9", soname="libcudnn_ops.so.9", value=2,
          tag="cudnn_ops")
    t.lib("llp/libcudnn_graph.so.9", soname="libcudnn_graph.so.9", value=2,
          tag="cudnn_graph")
    shim = t.lib("shim/libcudnn.so.9", soname="libcudnn.so.9",
                 needs=["shim/libcudnn_ops.so.9"], runpath="$ORIGIN",
                 lazy="libcudnn_graph.so.9", tag="shim",
                 exports=["cudnnCreate"])
    child = t.child("bin/child")
    return [ExplainRun("shadow", child, shim, ld_library_path=t.path("llp"),
                       lazy=[("h13_lazy_shim", "libcudnn_graph.so.9")],
                       expect_problem=r"takes (libcudnn_(graph|ops)\.so\.9"
                       r"(, | and )?)+ from .*/llp.*siblings? shadowed",
                       problem_seen=lambda mapped, bound, outcomes: any(
                           os.path.dirname(p) == os.path.realpath(t.path("llp"))
                           for p in mapped))]


def explain_rpath_vs_runpath(t):
    """With LD_LIBRARY_PATH holding another libcublas.so.12: a consumer
    with DT_RPATH keeps its own (RPATH comes first), one with DT_RUNPATH
    takes LD_LIBRARY_PATH's; each run is a process of its own."""
    # Each cuBLAS needs the cuBLASLt beside it, as the real one does.
    t.lib("own/libcublasLt.so.12", soname="libcublasLt.so.12", value=1,
          tag="cublasLt")
    t.lib("llp/libcublasLt.so.12", soname="libcublasLt.so.12", value=2,
          tag="cublasLt")
    t.lib("own/libcublas.so.12", soname="libcublas.so.12", value=1,
          needs=["own/libcublasLt.so.12"], runpath="$ORIGIN",
          tag="cublas", exports=["cublasCreate_v2"])
    t.lib("llp/libcublas.so.12", soname="libcublas.so.12", value=2,
          needs=["llp/libcublasLt.so.12"], runpath="$ORIGIN",
          tag="cublas", exports=["cublasCreate_v2"])
    rpath = t.lib("app/librp.so", soname="librp.so", needs=["own/libcublas.so.12"],
                  rpath="$ORIGIN/../own", calls=["cublasCreate_v2"])
    runpath = t.lib("app/librunp.so", soname="librunp.so",
                    needs=["own/libcublas.so.12"], runpath="$ORIGIN/../own",
                    calls=["cublasCreate_v2"])
    child = t.child("bin/child")
    return [ExplainRun("rpath", child, rpath, ld_library_path=t.path("llp")),
            ExplainRun("runpath", child, runpath, ld_library_path=t.path("llp"))]


def explain_already_loaded(t):
    """The plan for cublas=12 preloaded (--require): a consumer's DT_NEEDED
    libcublas.so.12 is the loaded one, by SONAME, though its RUNPATH holds
    another copy; its cublasCreate_v2 binds there."""
    t.lib("pre/libcublasLt.so.12", soname="libcublasLt.so.12", value=1)
    t.lib("pre/libcublas.so.12", soname="libcublas.so.12", value=1,
          tag="cublas", exports=["cublasCreate_v2"])
    t.lib("own/libcublas.so.12", soname="libcublas.so.12", value=2,
          tag="cublas", exports=["cublasCreate_v2"])
    consumer = t.lib("app/libuseblas.so", soname="libuseblas.so",
                     needs=["own/libcublas.so.12"], runpath="$ORIGIN/../own",
                     calls=["cublasCreate_v2"])
    child = t.child("bin/child")
    return [ExplainRun("already-loaded", child, consumer,
                       ["--root", t.path("pre"), "--require", "cublas=12",
                        "--no-defaults"])]


def explain_not_found(t):
    """A consumer needs libcudnn.so.8, which is nowhere: rule not-found,
    and the loader fails the open."""
    if any(name == "libcudnn.so.8" and os.path.exists(path) for name, path in ldconfig_entries()):
        raise Skip("this host has a libcudnn.so.8 in /etc/ld.so.cache")
    t.lib("gone/libcudnn.so.8", soname="libcudnn.so.8",
          exports=["cudnnCreate"])
    consumer = t.lib("app/libneedsdnn.so", soname="libneedsdnn.so",
                     needs=["gone/libcudnn.so.8"], calls=["cudnnCreate"])
    shutil.rmtree(t.path("gone"))
    child = t.child("bin/child")
    return [ExplainRun("not-found", child, consumer,
                       expect_problem=r"needs libcudnn\.so\.8: not found",
                       problem_seen=lambda mapped, bound, outcomes:
                       outcomes.get("1") == "fail")]


def explain_stale_minor(t):
    """A stale minor: torch's cuSPARSE 12 (RUNPATH to its wheel's
    nvJitLink) takes __nvJitLinkComplete_12_4@libnvJitLink.so.12; an older
    libnvJitLink.so.12 of the same SONAME and version node, without that
    symbol, comes first on LD_LIBRARY_PATH (a CUDA 12.1 toolkit's lib64):
    the loader takes it and the load fails with "undefined symbol:
    __nvJitLinkComplete_12_4, version libnvJitLink.so.12". With the wheel's
    folder as a root, cudaload's plan loads the newer copy first."""
    new = "nvidia/nvjitlink/lib/libnvJitLink.so.12"
    t.lib(new, soname="libnvJitLink.so.12", version_node="libnvJitLink.so.12",
          value=124, tag="nvjitlink",
          exports=["__nvJitLinkCreate_12_1", "__nvJitLinkComplete_12_4"])
    t.lib("cuda121/lib64/libnvJitLink.so.12", soname="libnvJitLink.so.12",
          version_node="libnvJitLink.so.12", value=121, tag="nvjitlink",
          exports=["__nvJitLinkCreate_12_1"])
    consumer = t.lib("nvidia/cusparse/lib/libcusparse.so.12",
                     soname="libcusparse.so.12", needs=[new],
                     runpath="$ORIGIN/../../nvjitlink/lib",
                     calls=["__nvJitLinkCreate_12_1", "__nvJitLinkComplete_12_4"])
    child = t.child("bin/child")
    stale = t.path("cuda121/lib64")

    def stale_seen(mapped, bound, outcomes):
        return outcomes.get("1") == "fail"
    return [ExplainRun("stale-minor", child, consumer, ld_library_path=stale,
                       expect_problem=r"takes 1 symbol from libnvJitLink\.so\.12 "
                       r"version libnvJitLink\.so\.12 that .*/cuda121/lib64/",
                       problem_seen=stale_seen),
            ExplainRun("stale-minor-with-root", child, consumer,
                       ["--root", t.path("nvidia/nvjitlink/lib"), "--no-defaults"],
                       ld_library_path=stale)]


EXPLAIN_LINUX = {
    "explain_stale_minor": explain_stale_minor,
    "explain_versioned_global": explain_versioned_global,
    "explain_ld_library_path_shadow": explain_ld_library_path_shadow,
    "explain_rpath_vs_runpath": explain_rpath_vs_runpath,
    "explain_already_loaded": explain_already_loaded,
    "explain_not_found": explain_not_found,
}


# ---- The commands users run: doctor, exec and the preload ---------------
#
# For each run of an explain scenario (its tree, consumer, options and
# environment), the verdicts of the commands users run, all made by one
# judge (lib/load/verdict.c), against the real loader's outcome of the
# process each one models:
#
#   doctor --for CONSUMER  its problems that say a load fails ("needs X: not
#       found", "takes N symbols from X ... loading it fails", a name opened
#       by name not found) name exactly the libraries the loader fails on:
#       those without the prefix "without cudaload" in a child that opens
#       the doctor's plan by path first, those with it in a child that
#       opens the consumer as it is (what fails only without cudaload).
#   exec --for CONSUMER -- CHILD  exits 4 without running CHILD exactly when
#       CHILD, run under exec --force (the variable exec sets), fails.
#   cudaload.setup(for_=CONSUMER) (cudaload_preload, through the Python
#       bindings, in a process of its own)  refuses exactly when a child
#       with that plan preloaded fails; when it loads, the same process
#       then opens the consumer.
#
# A library the loader fails on is named as dlerror() names it: the file
# "cannot open shared object file", or the version of an undefined
# symbol (the library's version node, libnvJitLink.so.12).

PYTHON_SETUP = r"""
import ctypes, json, os, sys
import cudaload
a = json.loads(sys.argv[1])
mode = os.RTLD_NOW | (os.RTLD_GLOBAL if a["global"] else os.RTLD_LOCAL)
try:
    report = cudaload.setup(require=a["require"], roots=a["roots"],
                            site_packages=False, defaults=a["defaults"],
                            rtld_global=a["global"], for_=a["consumer"])
    print("SETUP ok")
except cudaload.Error as e:
    print("SETUP refused %s" % (e.status_text,))
    report = e.report
plan = [p.path for p in (report.plan if report else [])
        if p.path and p.state in ("planned", "loaded", "already-loaded")]
print("PLAN " + json.dumps(plan))
if report is not None and report.ok:
    libdl = ctypes.CDLL(None)
    libdl.dlerror.restype = ctypes.c_char_p
    action = 1
    try:
        handle = ctypes.CDLL(a["consumer"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
        print("ACTION %d ok" % action)
    except OSError as e:
        handle = None
        print("ACTION %d fail %s" % (action, e))
    for symbol in a["lazy"]:
        action += 1
        if handle is None:
            print("ACTION %d fail no symbol %s" % (action, symbol))
            continue
        fn = getattr(handle, symbol)
        fn.restype = ctypes.c_void_p
        if fn():
            print("ACTION %d ok" % action)
        else:
            print("ACTION %d fail %s" % (action,
                                         (libdl.dlerror() or b"").decode()))
"""


def failures_of(stdout):
    """The libraries the loader failed on, from the child's ACTION lines."""
    names = set()
    for reason in re.findall(r"^ACTION \d+ fail (.*)$", stdout, re.M):
        m = re.search(r"undefined symbol: \S+, version (\S+)", reason)
        if m:
            names.add(m.group(1))
            continue
        m = re.search(r"([^\s/:]+): cannot open shared object file", reason)
        names.add(m.group(1) if m else "(%s)" % reason)
    return sorted(names)


def spoken_names(text):
    """ "a, b and c" -> [a, b, c]."""
    return [n for n in re.split(r", | and ", text) if n]


AS_IT_IS = "without cudaload (this environment as it is): "


def doctor_failures(problems):
    """The libraries the doctor's problems say a load fails on: (with the
    plan, without cudaload)."""
    with_plan, as_is = set(), set()
    for text in problems:
        into = with_plan
        if text.startswith(AS_IT_IS):
            into, text = as_is, text[len(AS_IT_IS):]
        m = UNDEFINED_PROBLEM.match(text)
        if m:
            into.add(m.group(2))
            continue
        # A requirement (here: the consumer's own need) without a file:
        # "cudnn=8: no usable cudnn library" says libcudnn.so.8 is missing.
        m = re.match(r"^(\w+)=(\d+): no usable \w+ library", text)
        if m:
            into.add("lib%s.so.%s" % (m.group(1), m.group(2)))
            continue
        m = re.match(r"^\S+ needs (.+?): not found, so loading it fails", text) or \
            re.match(r"^\S+ needs (.+?), which the loader does not find", text) or \
            re.match(r"^\S+ opens (.+?) by name when it first needs (it|them)"
                     r"(: not found|, and the loader would not find)", text)
        if m:
            into.update(spoken_names(m.group(1)))
    return sorted(with_plan), sorted(as_is)


def lower(names):
    return sorted(set(n.lower() for n in names))


def run_child(argv, env, cwd, base):
    with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
        rc = subprocess.call(argv, cwd=cwd, env=env, stdout=out, stderr=err,
                             timeout=120)
    return rc, open(base + ".out").read(), open(base + ".err").read()


def command_options(run):
    """The run's explain options as the doctor and exec take them (exec has
    no --global: it loads nothing), with the consumer as --for."""
    return [o for o in run.options if o != "--global"] + ["--for", run.consumer]


def child_argv(run, plan=(), glob=False):
    return [run.child] + [("open-global:" if glob else "open:") + p
                          for p in plan] + \
        ["open:" + run.consumer] + ["lazy:" + sym for sym, _ in run.lazy]


def run_commands_linux(name, args):
    # A tree of its own: the explain scenario of the same name may run at
    # the same time (ctest -j) and rebuilds its tree from scratch.
    tree = Tree(os.path.join(args.work, "commands_" + name), args.cc, windows=False)
    runs = EXPLAIN_LINUX[name](tree)
    tallies = dict((c, Verdicts()) for c in ("doctor", "exec", "preload"))
    for run in runs:
        run.cwd = run.cwd or tree.root
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env.pop("LD_LIBRARY_PATH", None)
        if run.ld_library_path is not None:
            env["LD_LIBRARY_PATH"] = run.ld_library_path
        glob = "--global" in run.options
        base = os.path.join(tree.root, run.label)
        label = run.label
        options = command_options(run)

        # doctor
        cmd = [args.explain, "doctor"] + options + ["--format", "json"]
        print("run %s: %s" % (label, " ".join(cmd)))
        doctor = run_tool(cmd, env, run.cwd, ok=(0, 6))
        problems = [p["problem"] for p in doctor.get("problems", [])]
        for p in problems:
            print("          doctor problem: %s" % p)
        plan = [p["path"] for p in doctor.get("plan", [])
                if p.get("state") == "planned" and p.get("path")]
        with_plan, as_is = doctor_failures(problems)
        _, out, _ = run_child(child_argv(run, plan, glob), env, run.cwd,
                              base + ".doctor-plan")
        loader_with_plan = failures_of(out)
        # Library names without case: a requirement names the family
        # (nvjitlink), the loader the file (libnvJitLink.so.12).
        tallies["doctor"].check(
            "%s: doctor, libraries a load fails on with its plan (%d files) "
            "preloaded" % (label, len(plan)), with_plan, loader_with_plan,
            same=lower(with_plan) == lower(loader_with_plan))
        _, out, _ = run_child(child_argv(run), env, run.cwd, base + ".as-is")
        only_as_is = sorted(set(failures_of(out)) - set(loader_with_plan))
        tallies["doctor"].check(
            "%s: doctor, libraries a load fails on only without cudaload"
            % label, as_is, only_as_is, same=lower(as_is) == lower(only_as_is))

        # exec
        tail = ["--"] + child_argv(run)
        rc, out, err = run_child([args.explain, "exec"] + options + tail, env,
                                 run.cwd, base + ".exec")
        refused = rc == 4 and not re.search(r"^ACTION ", out, re.M)
        for line in err.splitlines()[:6]:
            print("          exec: %s" % line)
        _, out, _ = run_child([args.explain, "exec", "--force"] + options + tail,
                              env, run.cwd, base + ".exec-force")
        if not re.search(r"^ACTION ", out, re.M):
            # A requirement without a file: exec has no variable to set
            # even with --force, and the child would run as it is.
            print("          exec --force: no plan; the child as it is")
            _, out, _ = run_child(child_argv(run), env, run.cwd,
                                  base + ".exec-as-is")
        failed = failures_of(out)
        tallies["exec"].check(
            "%s: exec refuses to run the child (loader: the child under exec "
            "--force fails)" % label, "refuses" if refused else "runs",
            "refuses" if failed else "runs")

        # preload: cudaload.setup() in a Python process of its own
        if not args.library:
            continue
        spec = {"consumer": run.consumer, "global": glob,
                "lazy": [sym for sym, _ in run.lazy],
                "defaults": "--no-defaults" not in run.options,
                "roots": [run.options[i + 1] for i, o in enumerate(run.options)
                          if o == "--root"],
                "require": [run.options[i + 1] for i, o in
                            enumerate(run.options) if o == "--require"]}
        penv = dict(env)
        penv["CUDALOAD_LIBRARY"] = args.library
        penv["PYTHONPATH"] = args.bindings
        _, out, err = run_child([sys.executable, "-c", PYTHON_SETUP,
                                 json.dumps(spec)], penv, run.cwd,
                                base + ".setup")
        m = re.search(r"^SETUP (ok|refused.*)$", out, re.M)
        pm = re.search(r"^PLAN (.*)$", out, re.M)
        if not m or not pm:
            raise SetupError("cudaload.setup() gave no answer:\n%s%s" % (
                out, err[-3000:]))
        print("          setup: %s" % m.group(1))
        if m.group(1) == "ok":
            failed = failures_of(out)  # the consumer, opened in that process
        else:
            denv = dict(env)
            denv["LD_DEBUG"] = "bindings"
            _, cout, cerr = run_child(child_argv(run, json.loads(pm.group(1)), glob),
                                      denv, run.cwd, base + ".setup-plan")
            failed = failures_of(cout)
            # A refusal for a conflict is right when the loader does what the
            # scenario's problem names (the consumer's references bind to the
            # other major in the global scope), though nothing fails to load.
            if not failed and "conflict" in m.group(1) and run.problem_seen:
                outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail)", cout, re.M))
                if run.problem_seen(set(), parse_bindings(cerr, run.cwd), outcomes):
                    failed = ["(binds to the other major: %s)" % run.expect_problem]
        tallies["preload"].check(
            "%s: cudaload.setup() refuses (loader: the consumer with its plan "
            "preloaded fails, or binds where the refusal says)" % label,
            "ok" if m.group(1) == "ok" else "refuses",
            "refuses" if failed else "ok")
    return tallies


# ---- the Windows explain scenarios (under Wine) --------------------------


def unix(path):
    """A Z:\\ path as Wine shows it, as the Linux path it is (lowercase:
    Windows compares names without case)."""
    if path and re.match(r"^[Zz]:\\", path):
        path = path[2:].replace("\\", "/")
    return path.lower() if path else path


def run_explain_windows(name, args):
    tree = Tree(os.path.join(args.work, name), args.cc, windows=True)
    runs = EXPLAIN_WINDOWS[name](tree)
    v = Verdicts()
    for run in runs:
        run.cwd = run.cwd or tree.mkdir("cwd")
        env = dict(os.environ)
        # explain and the child both run under wine-run with this PATH.
        env["CUDALOAD_WINEPATH"] = ";".join(win(p) for p in run.path)
        report, plan = explain_of(args, run, env, to_tool_path=win)
        argv = ["load:0:" + p for p in plan] + ["load:0:" + win(run.consumer)] + \
            ["lazy:%s:%s" % lazy for lazy, _ in run.lazy]
        env["CUDALOAD_WINEDEBUG"] = "+loaddll"
        base = os.path.join(tree.root, run.label)
        with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
            subprocess.call([args.wine_run, run.child] + argv, cwd=run.cwd,
                            env=env, stdout=out, stderr=err, timeout=300)
        stdout = open(base + ".out").read()
        stderr = open(base + ".err").read()
        if not re.search(r"^CWD ", stdout, re.M):
            raise SetupError("the child did not run under Wine:\n%s\n%s" %
                             (stdout, stderr[-4000:]))
        compare_explain_windows(run, tree, report, plan, stdout, stderr, v)
    return v


def compare_explain_windows(run, tree, report, plan, stdout, stderr, v):
    """+loaddll names each DLL loaded, per action: a need is answered by
    the DLL of its name loaded in the consumer's action (its folder gives
    the rule: the application's folder, or a PATH entry), or by one loaded
    before it (already-loaded); imports bind to the DLL their name loaded,
    so that is also where each cudnn*/cublas* import binds."""
    root = os.path.realpath(tree.root).lower() + "/"
    app = os.path.dirname(os.path.realpath(run.child)).lower()
    path_dirs = [os.path.realpath(p).lower() for p in run.path]
    segments = parse_loaddll(stderr)
    outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail)", stdout, re.M))
    consumer_action = len(plan) + 1
    before = [unix(p) for seg in segments[:consumer_action]
              for p in seg[0] if p not in seg[1]]
    during = [unix(p) for p in (segments[consumer_action][0]
                                if consumer_action < len(segments) else [])]
    label = run.label

    def loader_answer(name):
        name = name.lower()
        for p in during:
            if os.path.basename(p) == name:
                folder = os.path.dirname(p)
                rule = "application-folder" if folder == app else \
                    "path-variable" if folder in path_dirs else \
                    "a folder of neither (%s)" % folder
                return "%s by %s" % (p, rule)
        for p in before:
            if os.path.basename(p) == name:
                return "%s by already-loaded" % p
        return "not found"

    objects = [o for o in report["objects"] if unix(o["path"]).startswith(root)]
    model_files = set(unix(p) for p in plan)
    failed = False
    for o in objects:
        for n in o["needs"]:
            resolved = unix(n["resolved"])
            if n["rule"] != "not-found" and not (resolved or "").startswith(root):
                continue  # a system DLL, not expanded by explain
            model = "not found" if n["rule"] == "not-found" else \
                "%s by %s" % (resolved, n["rule"])
            v.check("%s: %s imports %s" % (label, ntpath_base(o["path"]),
                                           n["name"]),
                    model, loader_answer(n["name"]))
            if n["rule"] == "not-found":
                failed = True
            else:
                model_files.add(resolved)
            # Where its cudnn*/cublas* imports bind: the DLL loaded for
            # the name they are imported from.
            for b in o["bindings"]:
                if b["library"].lower() != n["name"].lower():
                    continue
                for each in b["each"] or []:
                    if cuda_symbol(each["symbol"]):
                        got = loader_answer(n["name"]).split(" by ")[0]
                        v.check("%s: %s's %s binds to" % (
                            label, ntpath_base(o["path"]), each["symbol"]),
                            unix(each["provider"]) or "nothing", got)
    for i in range(1, len(plan) + 1):
        v.check("%s: action %d (load the plan's %s)" % (
            label, i, ntpath_base(plan[i - 1])), "ok",
            outcomes.get(str(i), "no answer"))
    v.check("%s: action %d (load %s)" % (label, consumer_action,
                                         os.path.basename(run.consumer)),
            "fail" if failed else "ok",
            outcomes.get(str(consumer_action), "no answer"))
    if not failed:
        model_files |= set(unix(o["path"]) for o in objects)
    modules = set(unix(p) for p in re.findall(r"^MODULE (.*)$", stdout, re.M))
    modules = set(p for p in modules if p.startswith(root) and
                  p != os.path.realpath(run.child).lower())
    v.check("%s: DLLs of the tree loaded" % label, sorted(model_files),
            sorted(modules))


def ntpath_base(path):
    return re.split(r"[\\/]", path)[-1]


def explain_windows_app_folder_vs_path(t):
    """A consumer DLL in the application's folder imports cublas64_12.dll,
    there and on PATH (the application's folder wins), and cudnn64_8.dll,
    only on PATH."""
    t.lib("app/cublas64_12.dll", value=1, tag="cublas",
          exports=["cublasCreate_v2"])
    t.lib("path1/cublas64_12.dll", value=2, tag="cublas",
          exports=["cublasCreate_v2"])
    t.lib("path1/cudnn64_8.dll", value=8, exports=["cudnnCreate"])
    consumer = t.lib("app/h13use.dll",
                     needs=["app/cublas64_12.dll", "path1/cudnn64_8.dll"],
                     calls=["cublasCreate_v2", "cudnnCreate"])
    child = t.child("app/child.exe")
    return [ExplainRun("app-folder-vs-path", child, consumer,
                       path=[t.path("path1")])]


def explain_windows_already_loaded(t):
    """The plan for cublas=12 loaded first (--require: by full path, from
    another folder): a consumer's import of cublas64_12.dll is that module,
    by name, though the application's folder holds another."""
    t.lib("pre/cublasLt64_12.dll", value=1)
    t.lib("pre/cublas64_12.dll", value=1, tag="cublas",
          exports=["cublasCreate_v2"])
    t.lib("app/cublas64_12.dll", value=2, tag="cublas",
          exports=["cublasCreate_v2"])
    consumer = t.lib("app/h13use2.dll", needs=["app/cublas64_12.dll"],
                     calls=["cublasCreate_v2"])
    child = t.child("app/child.exe")
    return [ExplainRun("already-loaded", child, consumer,
                       ["--root", t.path("pre"), "--require", "cublas=12",
                        "--no-defaults"])]


EXPLAIN_WINDOWS = {
    "explain_windows_app_folder_vs_path": explain_windows_app_folder_vs_path,
    "explain_windows_already_loaded": explain_windows_already_loaded,
}


# --------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--predict")
    parser.add_argument("--work", default=os.path.join(os.getcwd(), "loader_oracle"))
    parser.add_argument("--wine-run")
    # The cudaload program whose `explain` the explain_* scenarios check.
    parser.add_argument("--explain")
    # The library and the Python bindings the commands_* scenarios' setup()
    # runs with.
    parser.add_argument("--library")
    parser.add_argument("--bindings")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    for attr in ("predict", "work", "wine_run", "explain", "library",
                 "bindings"):
        if getattr(args, attr):
            setattr(args, attr, os.path.abspath(getattr(args, attr)))
    if args.list:
        print("\n".join(list(LINUX) + list(WINDOWS) + list(EXPLAIN_LINUX) +
                        list(EXPLAIN_WINDOWS) +
                        ["commands_" + n for n in EXPLAIN_LINUX]))
        return 0
    name = args.scenario
    try:
        if name in LINUX:
            if not sys.platform.startswith("linux"):
                raise Skip("a Linux scenario")
            verdicts = run_linux(name, args)
        elif name in EXPLAIN_LINUX:
            if not sys.platform.startswith("linux"):
                raise Skip("a Linux scenario")
            if not args.explain:
                raise Skip("no cudaload program (--explain) to run")
            verdicts = run_explain_linux(name, args)
        elif name.startswith("commands_") and name[9:] in EXPLAIN_LINUX:
            if not sys.platform.startswith("linux"):
                raise Skip("a Linux scenario")
            if not args.explain:
                raise Skip("no cudaload program (--explain) to run")
            if not args.library:
                print("note: no --library (a sanitizer build: Python cannot "
                      "load it): setup()'s verdicts are not checked")
            tallies = run_commands_linux(name[9:], args)
            for command, verdicts in tallies.items():
                if not verdicts.total:
                    continue
                print("%s: %d of %d verdicts agree with the loader"
                      % (command, verdicts.agree, verdicts.total))
            return 0 if all(t.agree == t.total for t in tallies.values()) else 1
        elif name in EXPLAIN_WINDOWS:
            if not args.wine_run:
                raise Skip("no Wine (--wine-run) to run Windows programs")
            if not args.explain:
                raise Skip("no cudaload program (--explain) to run")
            verdicts = run_explain_windows(name, args)
        elif name in WINDOWS:
            if not args.wine_run:
                raise Skip("no Wine (--wine-run) to run Windows programs")
            verdicts = run_windows(name, args)
        else:
            print("oracle.py: no scenario %r" % name, file=sys.stderr)
            return 2
    except Skip as why:
        print("[  SKIPPED ] %s: %s" % (name, why))
        return SKIP
    except SetupError as why:
        print("oracle.py: %s: %s" % (name, why), file=sys.stderr)
        return 2
    print("explain: %d of %d predictions agree with the loader"
          % (verdicts.agree, verdicts.total))
    return 0 if verdicts.agree == verdicts.total else 1


if __name__ == "__main__":
    sys.exit(main())
