# SPDX-License-Identifier: MIT
"""One onnxruntime-gpu scenario in a real Windows CPython (the Windows Python
tier, scripts/test-windows-python, runs it under Wine, one process each).

    python.exe ort_scenario.py MODE [BACKEND]

MODE is how the program gets at NVIDIA's DLLs, laid out as pip lays out the
nvidia-*-cu12 wheels (site-packages\\nvidia\\*\\bin):

  bare        nothing: import onnxruntime as it is
  setup_for   cudaload.setup(for_="onnxruntime") before the import: what the
              program needs, read from its files
  setup       cudaload.setup(require=ORT_REQUIRE) before the import: the
              requirements the doctor printed (ORT_REQUIRE, comma-separated)
  path        the doctor's other fix followed as printed: the folders of its
              PATH line (ORT_PATH_FIRST, ';'-separated) first on PATH
  doctor      nothing loaded: prints cudaload.doctor(for_="onnxruntime") as
              data (one JSON line, "step": "doctor") and ends

BACKEND (setup modes): ctypes or cffi (CUDALOAD_BACKEND).

Then what onnxruntime itself does to use CUDA: an InferenceSession of a
one-node model (Identity, built here as ONNX protobuf bytes) asking for
CUDAExecutionProvider first. onnxruntime loads its CUDA provider,
onnxruntime_providers_cuda.dll, by path from its capi folder when such a
session is made; when the provider or one of the DLLs it imports cannot be
loaded it logs why (on Windows: '... which depends on "X" which is missing')
and the session falls back to the CPU. Without a GPU (Wine has no driver)
the provider, once loaded, fails to find a device: what is judged is
whether the provider loaded with every import bound, read from the
process: its module, and, for each DLL its import table names, the file
the real loader bound it to (the address its first import holds, and the
module that address lies in). In bare mode each name of
ORT_NAMES (comma-separated: the DLLs the doctor said would not be found) is
then looked for as the provider's load looks for it (its own folder, then
LoadLibraryW by name: the application folder, the system folders, PATH).
onnxruntime writes its log to the standard
error as UTF-16: the scenario reads it back from a file and prints it in
the "session" step. Each result is one JSON line ("step": ...).
"""

import ctypes
import glob
import json
import os
import re
import struct
import sys
import sysconfig
import tempfile

PROVIDER = "onnxruntime_providers_cuda.dll"


def emit(**fields):
    sys.stdout.write(json.dumps(fields, ensure_ascii=True) + "\n")
    sys.stdout.flush()


# --- a one-node ONNX model, as protobuf bytes (no onnx package needed) -----

def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, payload):
    """A length-delimited field (wire type 2) or, for an int, a varint."""
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def identity_model():
    """ModelProto: ir_version 8, opset 13, graph y = Identity(x), x and y
    float tensors of shape [1]."""
    def value_info(name):
        shape = field(2, field(1, field(1, 1)))        # TensorShapeProto{dim{dim_value 1}}
        tensor = field(1, field(1, 1) + shape)         # TypeProto{tensor_type{elem_type FLOAT}}
        return field(1, name) + field(2, tensor)
    node = field(1, "x") + field(2, "y") + field(4, "Identity")
    graph = field(1, node) + field(2, "g") + field(11, value_info("x")) + field(12, value_info("y"))
    return field(1, 8) + field(7, graph) + field(8, field(1, "") + field(2, 13))


# --- the process's modules ------------------------------------------------

def setup_kernel32():
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.GetModuleHandleW.restype = ctypes.c_void_p
    kernel32.GetModuleHandleW.argtypes = [ctypes.c_wchar_p]
    kernel32.GetModuleFileNameW.argtypes = [ctypes.c_void_p, ctypes.c_wchar_p, ctypes.c_uint]
    kernel32.GetModuleHandleExW.argtypes = [ctypes.c_uint, ctypes.c_void_p,
                                            ctypes.POINTER(ctypes.c_void_p)]
    return kernel32


def file_of(kernel32, handle):
    buffer = ctypes.create_unicode_buffer(32768)
    kernel32.GetModuleFileNameW(ctypes.c_void_p(handle), buffer, len(buffer))
    return buffer.value


def import_bindings(kernel32, module):
    """{DLL name: the file the loader bound the module's import of it to}
    for every DLL the module's import table names, read in memory; None
    when the module is not loaded."""
    base = kernel32.GetModuleHandleW(module)
    if not base:
        return None

    def read(offset, size):
        return ctypes.string_at(base + offset, size)

    pe = struct.unpack("<I", read(0x3C, 4))[0]
    # IMAGE_OPTIONAL_HEADER64's data directory 1 (imports) at +0x78.
    rva, size = struct.unpack("<II", read(pe + 24 + 0x78, 8))
    out = {}
    for at in range(rva, rva + size, 20):
        _, _, _, name_rva, first_thunk = struct.unpack("<IIIII", read(at, 20))
        if not name_rva:
            break
        name = ctypes.string_at(base + name_rva).decode("ascii", "replace")
        address = struct.unpack("<Q", read(first_thunk, 8))[0]
        handle = ctypes.c_void_p()
        # GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | _UNCHANGED_REFCOUNT
        if kernel32.GetModuleHandleExW(0x4 | 0x2, ctypes.c_void_p(address), ctypes.byref(handle)):
            out[name] = file_of(kernel32, handle.value)
        else:
            out[name] = None
    return out


def readable(data):
    """onnxruntime's log as text: its lines are UTF-16LE (std::wcerr), the
    lines around them (Wine's, Python's) bytes of the code page: each run
    decoded as what it is, colour codes dropped."""
    out, i = [], 0
    while i < len(data):
        wide = i + 1 < len(data) and data[i + 1] == 0 and data[i] != 0
        j = i
        if wide:
            # A run of UTF-16 units lasts while one of the next three has a
            # zero high byte (ASCII-heavy text; 日本 has none).
            while j + 1 < len(data) and any(data[k + 1] == 0 for k in range(j, min(j + 6, len(data) - 1), 2)):
                j += 2
            out.append(data[i:j].decode("utf-16-le", "replace"))
        else:
            while j < len(data) and not (j + 1 < len(data) and data[j + 1] == 0 and data[j] != 0):
                j += 1
            out.append(data[i:j].decode("utf-8", "replace"))
        i = max(j, i + 1)
    return re.sub(r"\x1b\[[0-9;]*m", "", "".join(out))


def main():
    mode = sys.argv[1]
    if len(sys.argv) > 2:
        os.environ["CUDALOAD_BACKEND"] = sys.argv[2]
    kernel32 = setup_kernel32()
    site = sysconfig.get_paths()["purelib"]
    emit(step="start", mode=mode, python=sys.version.split()[0], site=site,
         bins=sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin"))))
    if mode == "doctor":
        import cudaload
        emit(step="doctor", report=cudaload.doctor(for_="onnxruntime", format="json").to_dict())
        return
    if mode in ("setup", "setup_for"):
        import cudaload
        if mode == "setup_for":
            report = cudaload.setup(for_="onnxruntime")
        else:
            report = cudaload.setup(require=[r for r in os.environ.get("ORT_REQUIRE", "").split(",") if r])
        emit(step="setup", status=report.status, backend=cudaload.backend(),
             loaded=[e.loaded_path or e.path for e in report.loaded])
    elif mode == "path":
        first = [f for f in os.environ.get("ORT_PATH_FIRST", "").split(";") if f]
        os.environ["PATH"] = os.pathsep.join(first + [os.environ.get("PATH", "")])
    elif mode != "bare":
        raise SystemExit("unknown mode %r" % mode)

    import onnxruntime
    capi = os.path.join(os.path.dirname(onnxruntime.__file__), "capi")
    emit(step="import", onnxruntime=onnxruntime.__version__,
         available=onnxruntime.get_available_providers(),
         provider_loaded=bool(kernel32.GetModuleHandleW(PROVIDER)))
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 2  # warnings and errors: why a provider did not load
    error = None
    log = tempfile.TemporaryFile()
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(log.fileno(), 2)
    try:
        session = onnxruntime.InferenceSession(identity_model(), options,
                                               providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        providers = session.get_providers()
    except Exception as exc:  # the session's own error, as the program would see it
        providers, error = None, "%s: %s" % (type(exc).__name__, exc)
    sys.stderr.flush()
    os.dup2(saved, 2)
    log.seek(0)
    handle = kernel32.GetModuleHandleW(PROVIDER)
    emit(step="session", providers=providers, error=error, log=readable(log.read()),
         provider=file_of(kernel32, handle) if handle else None,
         expected=os.path.join(capi, PROVIDER),
         bound=import_bindings(kernel32, PROVIDER))
    if mode == "bare":
        kernel32.LoadLibraryW.restype = ctypes.c_void_p
        kernel32.LoadLibraryW.argtypes = [ctypes.c_wchar_p]
        found = {}
        for name in [n for n in os.environ.get("ORT_NAMES", "").split(",") if n]:
            beside = os.path.join(capi, name)
            ctypes.set_last_error(0)
            if os.path.isfile(beside):
                found[name] = beside
            elif kernel32.LoadLibraryW(name):
                found[name] = file_of(kernel32, kernel32.GetModuleHandleW(name))
            else:
                found[name] = "error %d" % ctypes.get_last_error()
        emit(step="names", found=found)


if __name__ == "__main__":
    main()
