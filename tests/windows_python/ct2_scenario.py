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

BACKEND (setup modes): ctypes or cffi (CUDALOAD_BACKEND).

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


def module_path(kernel32, name):
    handle = kernel32.GetModuleHandleW(name)
    if not handle:
        return None
    buffer = ctypes.create_unicode_buffer(32768)
    kernel32.GetModuleFileNameW(handle, buffer, len(buffer))
    return buffer.value


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

    site = sysconfig.get_paths()["purelib"]
    bins = sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin")))
    emit(step="start", mode=mode, python=sys.version.split()[0], platform=sys.platform,
         site=site, bins=bins)
    requirements = ["cudnn=%d" % major, "cublas=12"]
    if mode == "path":
        os.environ["PATH"] = os.pathsep.join(bins + [os.environ.get("PATH", "")])
    elif mode == "add_dll_dir":
        kept = [os.add_dll_directory(b) for b in bins]  # noqa: F841 (kept open)
    elif mode == "setup":
        import cudaload
        report = cudaload.setup(require=requirements)
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

    bundled = os.path.join(package, "cudnn64_%d.dll" % major)
    cudnn = ctypes.WinDLL(bundled)
    emit(step="cudnn-shim", path=bundled, exists=os.path.isfile(bundled))
    descriptor = ctypes.c_void_p()
    status = cudnn.cudnnCreateTensorDescriptor(ctypes.byref(descriptor))
    sub = "cudnn_ops_infer64_8.dll" if major == 8 else "cudnn_ops64_9.dll"
    emit(step="cudnn", status=status, sublibrary=sub, sublibrary_path=module_path(kernel32, sub),
         cudnn_path=module_path(kernel32, "cudnn64_%d.dll" % major))
    if status == 0:
        cudnn.cudnnDestroyTensorDescriptor(descriptor)


if __name__ == "__main__":
    main()
