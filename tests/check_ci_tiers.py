#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that CI runs every test tier scripts/test knows.

scripts/test runs only the quick tiers by default (native, fresh, bare);
CI (.ci/run) must name every tier itself, so a tier added to scripts/test
and forgotten in .ci/run would silently never run. Checked:

  - the tiers scripts/test knows (`scripts/test --all --print-tiers`) are
    the tiers its dispatch handles (each `NAME)` branch of its tier loop);
  - .ci/run names each of them in its CUDALOAD_TEST_TIERS="..." line, and
    what it would run (CUDALOAD_TEST_PRINT_TIERS=1 .ci/run, which
    scripts/test answers by printing the tiers and stopping) is every one
    of them.

Usage: check_ci_tiers.py [--source REPO]
Exit status 0 when all hold, 1 naming what is missing. Python standard
library and bash only.
"""

import argparse
import os
import re
import signal
import subprocess
import sys


def words_printed(argv, source):
    """The tiers ARGV would run, as it prints them with
    CUDALOAD_TEST_PRINT_TIERS=1 (scripts/test stops there; the environment
    reaches it through .ci/run whatever arguments .ci/run passes), run as CI
    runs it: without a CUDALOAD_TEST_TIERS of the caller's. The timeout
    stops a .ci/run that would start the tests instead."""
    env = {k: v for k, v in os.environ.items() if k != "CUDALOAD_TEST_TIERS"}
    env["CUDALOAD_TEST_PRINT_TIERS"] = "1"
    child = subprocess.Popen(["bash"] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env, cwd=source,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # its own session: it and what it started
        child.communicate()
        raise RuntimeError("%s did not stop within 60 s with CUDALOAD_TEST_PRINT_TIERS=1: does "
                           "it run scripts/test?" % " ".join(argv))
    if child.returncode != 0:
        raise RuntimeError("%s with CUDALOAD_TEST_PRINT_TIERS=1: exit %d: %s" % (
            " ".join(argv), child.returncode, err.decode(errors="replace").strip()))
    return out.decode().split()


def dispatched_tiers(script_text):
    """The NAME) branches of the `case $tier in` of the loop that runs the
    tiers (a `for tier in $tiers; do` ... `done` at the start of a line)."""
    for body in re.findall(r"^for tier in \$tiers; do\n(.*?)^done$", script_text, re.M | re.S):
        if "case $tier in" in body:
            return re.findall(r"^    ([a-z0-9][a-z0-9-]*)\)", body, re.M)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), os.pardir))
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    problems = []

    try:
        known = words_printed(["scripts/test", "--all"], source)
        ci_runs = words_printed([".ci/run"], source)
    except (OSError, RuntimeError) as e:
        print("check_ci_tiers: FAIL: %s" % e)
        return 1
    if not known:
        problems.append("scripts/test --all printed no tier (CUDALOAD_TEST_PRINT_TIERS=1)")

    with open(os.path.join(source, "scripts", "test"), encoding="utf-8") as f:
        dispatched = dispatched_tiers(f.read())
    if dispatched is None:
        problems.append("scripts/test: no `for tier in $tiers; do` loop found to read its tiers from")
    else:
        for tier in dispatched:
            if tier not in known:
                problems.append("scripts/test runs a tier '%s' that its list of tiers (all_tiers) "
                                "lacks: --all and CI would never select it" % tier)
        for tier in known:
            if tier not in dispatched:
                problems.append("scripts/test lists a tier '%s' that its tier loop does not handle"
                                % tier)

    with open(os.path.join(source, ".ci", "run"), encoding="utf-8") as f:
        ci_text = f.read()
    named = re.findall(r'^\s*(?:export\s+)?CUDALOAD_TEST_TIERS="([^"]*)"', ci_text, re.M)
    if len(named) != 1:
        problems.append('.ci/run: expected one CUDALOAD_TEST_TIERS="..." line naming every tier, '
                        "found %d" % len(named))
        named_tiers = []
    else:
        named_tiers = named[0].split()
    for tier in known:
        if tier not in named_tiers:
            problems.append(".ci/run does not name the tier '%s' in CUDALOAD_TEST_TIERS: "
                            "CI would not run it" % tier)
        elif tier not in ci_runs:
            problems.append(".ci/run names the tier '%s' but would not run it "
                            "(it would run: %s)" % (tier, " ".join(ci_runs)))

    for p in problems:
        print("check_ci_tiers: FAIL: %s" % p)
    if problems:
        return 1
    print("check_ci_tiers: .ci/run runs all %d tiers scripts/test knows: %s" % (
        len(known), " ".join(known)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
