#!/usr/bin/env python3
"""Differential tests of the loader model: the loader is the oracle.

For each scenario this builds a tree of small libraries with the host's C
compiler (or mingw-w64 for the Windows scenarios), asks the model what a
child program will map and by which rule (predict(): the loader_predict
program over lib/resolve.h; `cudaload explain` can take its place), runs
the child under the real loader (glibc with LD_DEBUG=libs,files; Wine with
WINEDEBUG=+loaddll), and compares, answer by answer. Every disagreement is
printed with both answers and fails the scenario. The last line is

    explain: N of N predictions agree with the loader

Usage: oracle.py --scenario NAME --cc CC --predict PROGRAM --work DIR
                 [--wine-run SCRIPT] [--list]
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

    def _source(self, tag, lazy, value, dep_tags):
        # Each library calls one function of each library it needs, so that
        # no linker drops the dependency (mingw keeps an import only when a
        # symbol of it is used).
        calls = "".join(" + h13_%s()" % d for d in dep_tags)
        decls = "".join("%sint h13_%s(void);\n" % (
            "__declspec(dllimport) " if self.windows else "", d) for d in dep_tags)
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
            tag=None):
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
                                 [self.tags[n] for n in needs if self.tags.get(n)]))
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
                    f.write("%s { global: h13_*; local: *; };\n" % version_node)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--predict")
    parser.add_argument("--work", default=os.path.join(os.getcwd(), "loader_oracle"))
    parser.add_argument("--wine-run")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    for attr in ("predict", "work", "wine_run"):
        if getattr(args, attr):
            setattr(args, attr, os.path.abspath(getattr(args, attr)))
    if args.list:
        print("\n".join(list(LINUX) + list(WINDOWS)))
        return 0
    name = args.scenario
    try:
        if name in LINUX:
            if not sys.platform.startswith("linux"):
                raise Skip("a Linux scenario")
            verdicts = run_linux(name, args)
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
