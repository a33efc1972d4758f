# SPDX-License-Identifier: MIT
"""One ctranslate2 scenario in a real Windows CPython (the Windows Python
tier, scripts/test-windows-python, runs it under Wine, one process each).

    python.exe ct2_scenario.py MODE CUDNN_MAJOR [BACKEND]

MODE is how the program gets at NVIDIA's DLLs, laid out as pip lays out
nvidia-cudnn-cu12 and nvidia-cublas-cu12 (site-packages\\nvidia\\*\\bin):

  bare          nothing: import ctranslate2 as it is
  path          the recipe users copy: every nvidia\\*\\bin prepended to PATH
  add_dll_dir   the other recipe: os.add_dll_directory() of each, alone
  setup         cudaload.setup(require=["cudnn=N", "cublas=12"]) with no
                roots (this interpreter's own site-packages), then import
  setup_after   import ctranslate2 first, then the same setup()
  printed_path  the doctor's fix followed as printed: the folders of its
                PATH line (CT2_PATH_FIRST, ';'-separated) first on PATH
  setup_for     cudaload.setup(for_="ctranslate2"): what the program needs,
                read from its files, then import

BACKEND (setup modes): ctypes or cffi (CUDALOAD_BACKEND). CT2_REQUIRE
(comma-separated) replaces setup()'s requirements: the doctor's printed
ones. CT2_NAMES (comma-separated): names the doctor said would not be
found, each opened with LoadLibraryA at the end, as their openers do.

Then, as ctranslate2 itself does: LoadLibraryA("cublas64_12.dll") by name
(ctranslate2 opens cuBLAS that way, which searches PATH), and the first
cuDNN call, cudnnCreateTensorDescriptor, through ctranslate2's own bundled
cudnn64_N.dll (the module `import ctranslate2` loaded, reached by its full
path). Each result is printed as one JSON line ("step": ...) before the
next step, because a cuDNN shim that cannot find its sub-library prints
"Could not locate ..." and ends the process itself.
"""

import ctypes
import glob
import json
import os
import sys
import sysconfig


def emit(**fields):
    sys.stdout.write(json.dumps(fields, ensure_ascii=True) + "\n")
    sys.stdout.flush()


def module_paths(kernel32, name):
    """Every module of the process with that file name, by the process's
    module list (psapi: K32EnumProcessModules), in load order."""
    psapi = kernel32
    process = kernel32.GetCurrentProcess()
    kernel32.GetCurrentProcess.restype = ctypes.c_void_p
    process = ctypes.c_void_p(kernel32.GetCurrentProcess())
    modules = (ctypes.c_void_p * 4096)()
    needed = ctypes.c_uint()
    psapi.K32EnumProcessModules.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint,
                                            ctypes.POINTER(ctypes.c_uint)]
    if not psapi.K32EnumProcessModules(process, modules, ctypes.sizeof(modules),
                                       ctypes.byref(needed)):
        return []
    out = []
    buffer = ctypes.create_unicode_buffer(32768)
    for handle in modules[:needed.value // ctypes.sizeof(ctypes.c_void_p)]:
        kernel32.GetModuleFileNameW(ctypes.c_void_p(handle), buffer, len(buffer))
        if os.path.basename(buffer.value).lower() == name.lower():
            out.append(buffer.value)
    return out


def module_path(kernel32, name):
    handle = kernel32.GetModuleHandleW(name)
    if not handle:
        return None
    buffer = ctypes.create_unicode_buffer(32768)
    kernel32.GetModuleFileNameW(handle, buffer, len(buffer))
    return buffer.value


def import_binding(kernel32, module, dll_name):
    """The file the loader bound `module`'s import of dll_name to, read
    from the module's import address table in memory (the address its
    first import of that DLL holds, and the module that address lies in),
    or None when the module imports nothing of that name."""
    import struct
    base = kernel32.GetModuleHandleW(module)
    if not base:
        return None

    def read(offset, size):
        return ctypes.string_at(base + offset, size)

    pe = struct.unpack("<I", read(0x3C, 4))[0]
    # IMAGE_OPTIONAL_HEADER64's data directory 1 (imports) at +0x78.
    rva, size = struct.unpack("<II", read(pe + 24 + 0x78, 8))
    for at in range(rva, rva + size, 20):
        _, _, _, name_rva, first_thunk = struct.unpack("<IIIII", read(at, 20))
        if not name_rva:
            break
        name = ctypes.string_at(base + name_rva).decode("ascii", "replace")
        if name.lower() != dll_name.lower():
            continue
        address = struct.unpack("<Q", read(first_thunk, 8))[0]
        handle = ctypes.c_void_p()
        # GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | _UNCHANGED_REFCOUNT
        if not kernel32.GetModuleHandleExW(0x4 | 0x2, ctypes.c_void_p(address),
                                           ctypes.byref(handle)):
            return None
        buffer = ctypes.create_unicode_buffer(32768)
        kernel32.GetModuleFileNameW(handle, buffer, len(buffer))
        return buffer.value
    return None


def main():
    mode, major = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) > 3:
        os.environ["CUDALOAD_BACKEND"] = sys.argv[3]
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.GetModuleHandleW.restype = ctypes.c_void_p
    kernel32.GetModuleHandleW.argtypes = [ctypes.c_wchar_p]
    kernel32.GetModuleFileNameW.argtypes = [ctypes.c_void_p, ctypes.c_wchar_p, ctypes.c_uint]
    kernel32.LoadLibraryA.restype = ctypes.c_void_p
    kernel32.LoadLibraryA.argtypes = [ctypes.c_char_p]
    kernel32.GetModuleHandleExW.argtypes = [ctypes.c_uint, ctypes.c_void_p,
                                            ctypes.POINTER(ctypes.c_void_p)]

    site = sysconfig.get_paths()["purelib"]
    bins = sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin")))
    emit(step="start", mode=mode, python=sys.version.split()[0], platform=sys.platform,
         site=site, bins=bins)
    requirements = ["cudnn=%d" % major, "cublas=12"]
    if os.environ.get("CT2_REQUIRE"):
        requirements = os.environ["CT2_REQUIRE"].split(",")
    if mode == "printed_path":
        first = [f for f in os.environ.get("CT2_PATH_FIRST", "").split(";") if f]
        os.environ["PATH"] = os.pathsep.join(first + [os.environ.get("PATH", "")])
    elif mode == "path":
        os.environ["PATH"] = os.pathsep.join(bins + [os.environ.get("PATH", "")])
    elif mode == "add_dll_dir":
        kept = [os.add_dll_directory(b) for b in bins]  # noqa: F841 (kept open)
    elif mode == "setup":
        import cudaload
        report = cudaload.setup(require=requirements)
        emit(step="setup", status=report.status, backend=cudaload.backend())
    elif mode == "setup_for":
        import cudaload
        report = cudaload.setup(for_="ctranslate2")
        emit(step="setup", status=report.status, backend=cudaload.backend())
    elif mode != "setup_after" and mode != "bare":
        raise SystemExit("unknown mode %r" % mode)

    import ctranslate2
    package = os.path.dirname(ctranslate2.__file__)
    emit(step="import", ctranslate2=ctranslate2.__version__, package=package)
    if mode == "setup_after":
        import cudaload
        report = cudaload.setup(require=requirements)
        emit(step="setup", status=report.status, backend=cudaload.backend())

    # ctranslate2 opens cuBLAS by name with LoadLibraryA: PATH decides.
    ctypes.set_last_error(0)
    handle = kernel32.LoadLibraryA(b"cublas64_12.dll")
    error = ctypes.get_last_error() if not handle else 0
    emit(step="cublas", loaded=bool(handle), error=error,
         path=module_path(kernel32, "cublas64_12.dll"))
    if handle:
        # What ctranslate2 logs first: "Loaded cuBLAS library version ..."
        blas = ctypes.WinDLL("cublas64_12.dll", handle=handle)
        value = ctypes.c_int()
        status = blas.cublasGetProperty(0, ctypes.byref(value))
        emit(step="cublas-property", status=status, major=value.value)

    # The cuDNN ctranslate2 uses: the copy its ctranslate2.dll's import of
    # cudnn64_N.dll is bound to (4.4.0), else the one its __init__ loads
    # from its own folder (4.8.5's ctranslate2.dll imports no cuDNN).
    bundled = os.path.join(package, "cudnn64_%d.dll" % major)
    bound = import_binding(kernel32, "ctranslate2.dll", "cudnn64_%d.dll" % major)
    shim = bound or bundled
    cudnn = ctypes.WinDLL(shim)
    emit(step="cudnn-shim", path=shim, bundled=bundled, bound=bound,
         exists=os.path.isfile(shim),
         loaded=[p for p in (module_paths(kernel32, "cudnn64_%d.dll" % major))])
    descriptor = ctypes.c_void_p()
    status = cudnn.cudnnCreateTensorDescriptor(ctypes.byref(descriptor))
    sub = "cudnn_ops_infer64_8.dll" if major == 8 else "cudnn_ops64_9.dll"
    emit(step="cudnn", status=status, sublibrary=sub, sublibrary_path=module_path(kernel32, sub),
         cudnn_path=module_path(kernel32, "cudnn64_%d.dll" % major))
    if status == 0:
        cudnn.cudnnDestroyTensorDescriptor(descriptor)
    # Every name the doctor said would not be found, opened as its opener
    # opens it (LoadLibraryA: by name, PATH).
    opened = {}
    for name in [n for n in os.environ.get("CT2_NAMES", "").split(",") if n]:
        ctypes.set_last_error(0)
        loaded = kernel32.LoadLibraryA(name.encode("ascii"))
        opened[name] = module_path(kernel32, name) if loaded else "error %d" % ctypes.get_last_error()
    emit(step="names", opened=opened)


if __name__ == "__main__":
    main()
