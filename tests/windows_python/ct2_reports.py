# SPDX-License-Identifier: MIT
"""What cudaload says of ctranslate2 before anything is loaded, in a real
Windows CPython (scripts/test-windows-python runs it under Wine):

    python.exe ct2_reports.py CUDNN_MAJOR

Prints one JSON object: "doctor", cudaload.doctor(require=[cudnn=N,
cublas=12]) as data; "doctor_for", the same with for_="ctranslate2" (the
program's own files, as the process will load them once cudaload has loaded
the plan); "explain", cudaload.explain() of ctranslate2\\ctranslate2.dll;
"explain_ext", of the extension module Python imports. Nothing is loaded:
the tier compares these with what the program then does
(ct2_scenario.py)."""

import glob
import json
import os
import sys
import sysconfig

import cudaload


def main():
    major = int(sys.argv[1])
    require = ["cudnn=%d" % major, "cublas=12"]
    site = sysconfig.get_paths()["purelib"]
    package = os.path.join(site, "ctranslate2")
    extension = sorted(glob.glob(os.path.join(package, "_ext.*.pyd")))
    out = {
        "site": site,
        "doctor": cudaload.doctor(require=require, format="json").to_dict(),
        "doctor_for": cudaload.doctor(require=require, for_="ctranslate2",
                                      format="json").to_dict(),
        "explain": cudaload.explain([os.path.join(package, "ctranslate2.dll")]),
        "explain_ext": cudaload.explain(extension[:1]) if extension else None,
    }
    sys.stdout.write(json.dumps(out, ensure_ascii=True) + "\n")


if __name__ == "__main__":
    main()
