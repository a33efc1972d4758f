# SPDX-License-Identifier: MIT
"""A pip fix line, followed exactly as the doctor prints it (issue 27,
item 3), against a real wheel.

    pip_fix_followed.py TOOL WHEELS_DIR

A fresh venv with no CUDA wheel is the active environment (VIRTUAL_ENV).
`cudaload doctor --require cudart=12` finds no CUDA 12 runtime and prints
the fix: this venv's pip (`"<venv>/bin/python" -m pip install
"nvidia-cuda-runtime-cu12"`), with nothing to pass as a root, since the
venv is searched. The command is run exactly as printed (the part before
", or set ..."), with pip pointed at WHEELS_DIR (PIP_NO_INDEX,
PIP_FIND_LINKS: the acceptance cache, so that it needs no network), and the
doctor run again: cudart=12 is satisfied, from the venv. Prints "ok ..." or
"FAIL ..." lines; exit status 0 when all passed.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile


def doctor(tool, env):
    result = subprocess.run([tool, "doctor", "--require", "cudart=12", "--format", "json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                            timeout=300)
    if result.returncode not in (0, 6):
        raise SystemExit("FAIL cudaload doctor exited %d:\n%s" % (result.returncode, result.stderr))
    return json.loads(result.stdout)


def main():
    tool, wheels = sys.argv[1], sys.argv[2]
    if not [f for f in os.listdir(wheels) if f.startswith("nvidia_cuda_runtime_cu12-")]:
        print("FAIL %s holds no nvidia_cuda_runtime_cu12 wheel" % wheels)
        return 1
    work = tempfile.mkdtemp(prefix="cudaload-pip-fix-")
    failed = 0
    try:
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME", "CUDNN_PATH", "LD_LIBRARY_PATH")}
        env["VIRTUAL_ENV"] = venv
        report = doctor(tool, env)
        problems = [p for p in report["problems"] if p["problem"].startswith("cudart=12:")]
        # The fix's first step: that venv's own pip, its words exactly
        # (the text report prints them quoted only where sh needs it).
        want = [os.path.join(venv, "bin", "python"), "-m", "pip", "install",
                "nvidia-cuda-runtime-cu12"]
        steps = problems[0]["fix"] if len(problems) == 1 else []
        if not steps or steps[0]["action"] != "install" or steps[0]["argv"] != want:
            print("FAIL the fix should start with %s: %s" % (want, json.dumps(problems)))
            return 1
        print("ok   the doctor's fix: %s" % problems[0]["fix_text"])
        if "pass its site-packages folder as a root" in problems[0]["fix_text"]:
            print("FAIL the fix asks to pass the venv's own site-packages as a root")
            failed += 1
        command = " ".join(shlex.quote(w) for w in steps[0]["argv"])
        if not problems[0]["fix_text"].startswith(command + "; or set "):
            print("FAIL the one-line fix does not start with the command: %s"
                  % problems[0]["fix_text"])
            failed += 1
        pip_env = dict(env, PIP_NO_INDEX="1", PIP_FIND_LINKS=wheels, PIP_DISABLE_PIP_VERSION_CHECK="1")
        result = subprocess.run(steps[0]["argv"], env=pip_env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        if result.returncode != 0:
            print("FAIL `%s` exited %d:\n%s" % (command, result.returncode, result.stdout[-2000:]))
            return 1
        print("ok   ran it as printed: %s" % command)
        report = doctor(tool, env)
        requirement = [q for q in report["requirements"] if q["spec"] == "cudart=12"][0]
        if requirement["satisfied"] and requirement["path"].startswith(venv + os.sep):
            print("ok   then the doctor finds cudart=12 in the venv: %s" % requirement["path"])
        else:
            print("FAIL after the fix cudart=12 is %s" % json.dumps(requirement))
            failed += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
