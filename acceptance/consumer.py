# SPDX-License-Identifier: MIT
"""acceptance/consumer.py - step 4: a real consumer of cuDNN 8, ctranslate2 4.4.0.

What the wheel needs (read with readelf/nm; docs/real-libraries.md):
  ctranslate2/_ext*.so          NEEDED libctranslate2-<hash>.so.4.4.0
  libctranslate2-<hash>.so.4.4.0 NEEDED libcudnn-<hash>.so.8.9.7 (bundled:
                                the cuDNN 8.9.7 shim, renamed by auditwheel,
                                RPATH "ctranslate2.libs"), and carries a
                                cuBLAS stub (cublasCreate_v2, ... exported)
                                that dlopens "libcublas.so.12" by name
  libcudnn-<hash>.so.8.9.7       dlopens libcudnn_ops_infer.so.8, ... by name
So "import ctranslate2" always works; the chain breaks at the first cuDNN or
cuBLAS call, with the messages users report. Without a GPU the public API
never gets there, so this script makes exactly those first calls through the
wheel's own libraries: cudnnCreateTensorDescriptor through the bundled shim
(lazy open of libcudnn_ops_infer.so.8) and cublasCreate_v2 through
libctranslate2's stub (lazy open of libcublas.so.12).

Usage (each run in a fresh process: loads cannot be undone):
  python consumer.py without  ROOT...   no cudaload: expected to abort with
                                         "Could not load library ..."
  python consumer.py with     ROOT...   cudaload.setup(require=[cudnn=8,
                                         cudnn=9, cublas=12], all_sublibs=True)
  python consumer.py minimal  ROOT...   the same without all_sublibs (the
                                         minimal plan), to show what it lacks
  python consumer.py cublas-without ROOT...  only the cuBLAS stub, no cudaload
ROOTs: the cuDNN 8 compat folder, the site folder with ctranslate2 and the
cuBLAS 12 wheel, the cuDNN 9 folder. Prints "ok"/"FAIL" lines, exits 0 when
all passed (an abort inside cuDNN/ctranslate2 exits 134).
"""

import ctypes
import glob
import os
import sys

RTLD_NOLOAD = getattr(os, "RTLD_NOLOAD", 4)
failures = 0


def check(ok, what):
    global failures
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures += 1


def mapped(name):
    with open("/proc/self/maps") as f:
        return sorted({line.split(None, 5)[5].strip() for line in f
                       if len(line.split(None, 5)) == 6 and
                       os.path.basename(line.split(None, 5)[5].strip()) == name})


def main():
    mode, roots = sys.argv[1], sys.argv[2:]
    site = next(r for r in roots if os.path.isdir(os.path.join(r, "ctranslate2")))
    if mode in ("with", "minimal"):
        import cudaload
        report = cudaload.setup(require=["cudnn=8", "cudnn=9", "cublas=12"],
                                roots=roots, site_packages=[], defaults=False,
                                all_sublibs=(mode == "with"))
        print(report, flush=True)
        check(report.ok, "cudaload.setup(require=['cudnn=8', 'cudnn=9', 'cublas=12'], "
              "all_sublibs=%s) before import ctranslate2" % (mode == "with"))

    import ctranslate2
    check(ctranslate2.__version__ == "4.4.0",
          "import ctranslate2 -> %s (CUDA devices: %d)"
          % (ctranslate2.__version__, ctranslate2.get_cuda_device_count()))
    libs = os.path.join(site, "ctranslate2.libs")
    core = glob.glob(os.path.join(libs, "libctranslate2-*.so*"))[0]
    shim = glob.glob(os.path.join(libs, "libcudnn-*.so.8*"))[0]
    core_h = ctypes.CDLL(core, mode=RTLD_NOLOAD | os.RTLD_NOW)

    if mode != "cublas-without":
        shim_h = ctypes.CDLL(shim, mode=RTLD_NOLOAD | os.RTLD_NOW)
        v = shim_h.cudnnGetVersion()
        check(v // 1000 == 8, "cudnnGetVersion() through ctranslate2's bundled cuDNN shim "
              "%s = %d" % (os.path.basename(shim), v))
        desc = ctypes.c_void_p()
        print("calling cudnnCreateTensorDescriptor through the bundled shim "
              "(lazy open of libcudnn_ops_infer.so.8) ...", flush=True)
        status = shim_h.cudnnCreateTensorDescriptor(ctypes.byref(desc))
        where = mapped("libcudnn_ops_infer.so.8")
        check(status == 0 and where,
              "cudnnCreateTensorDescriptor() = %d; libcudnn_ops_infer.so.8 from %s"
              % (status, where))
        shim_h.cudnnDestroyTensorDescriptor(desc)

    handle = ctypes.c_void_p()
    print("calling cublasCreate_v2 through libctranslate2's cuBLAS stub "
          "(lazy dlopen of libcublas.so.12) ...", flush=True)
    status = core_h.cublasCreate_v2(ctypes.byref(handle))
    where = mapped("libcublas.so.12")
    # No GPU/driver: the real cublasCreate returns CUBLAS_STATUS_NOT_INITIALIZED
    # (1); reaching it at all is the point.
    check(status in (0, 1) and where,
          "cublasCreate_v2() through the stub = %d (1 = NOT_INITIALIZED: no GPU); "
          "libcublas.so.12 from %s" % (status, where))

    if mode in ("with", "minimal"):
        v9 = [p for p in mapped("libcudnn.so.9")]
        check(bool(v9), "cuDNN 9 in the same process: %s" % v9)
        if v9:
            h9 = ctypes.CDLL(v9[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
            check(h9.cudnnGetVersion() // 10000 == 9,
                  "cudnnGetVersion() through libcudnn.so.9 = %d" % h9.cudnnGetVersion())
    print("%s: %d check(s) failed" % ("FAIL" if failures else "PASS", failures), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
