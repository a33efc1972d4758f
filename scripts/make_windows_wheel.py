#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Assemble cudaload's py3-none-win_amd64 wheel from a mingw-w64 cross build.

    make_windows_wheel.py --platlib DIR --linux-wheel WHEEL --out DIR

scripts/build-wheels runs this. A native Windows build would have
scikit-build-core copy the package folder (cudaload/) into the wheel, add
what CMake's "python" component installs into the platlib folder, and write
the .dist-info. Without a Windows Python here, this does the same from:

  --platlib DIR       the cross build's `cmake --install --component python`
                      tree (SKBUILD_PLATLIB_DIR): cudaload/_lib/cudaload.dll,
                      cudaload/_lib/cudaload.exe, cudaload/_include/cudaload.h
  --linux-wheel WHEEL the Linux wheel of the same sdist: the pure-Python
                      package and METADATA (which names no platform, so it is
                      copied as it is); its cudaload/_lib/ and any grafted
                      *.libs/ folder are left out.

It writes DIR/<name>-<version>-py3-none-win_amd64.whl with a WHEEL file
(Root-Is-Purelib: false: the package holds binaries) and a RECORD of sha256
hashes, members in a fixed order with the Linux wheel's timestamps, so the
same inputs give the same bytes. Exit status 0, or 1 with the reason.
"""

import argparse
import base64
import hashlib
import os
import re
import sys
import zipfile

TAG = "py3-none-win_amd64"
PACKAGE = "cudaload"
# What a Windows wheel of cudaload cannot be without.
REQUIRED_PLATLIB = (
    PACKAGE + "/_lib/cudaload.dll",
    PACKAGE + "/_lib/cudaload.exe",
    PACKAGE + "/_include/cudaload.h",
)
# Members of the Linux wheel that belong to Linux: the package's binaries and
# the folder auditwheel grafts shared libraries into.
LINUX_ONLY = re.compile(r"^(%s/_lib/|[^/]+\.libs/)" % re.escape(PACKAGE))


class Failure(Exception):
    pass


def record_hash(data):
    """RECORD's hash field: sha256, urlsafe base64 without padding."""
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def read_linux_wheel(path):
    """(dist-info folder name, {member: bytes} kept, date_time) of the wheel."""
    try:
        wheel = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise Failure("%s: not a readable wheel: %s" % (path, exc))
    with wheel:
        names = wheel.namelist()
        dist_infos = sorted({n.split("/", 1)[0] for n in names
                             if re.match(r"^[^/]+\.dist-info/METADATA$", n)})
        if len(dist_infos) != 1:
            raise Failure("%s: expected one *.dist-info/METADATA, found %s"
                          % (path, dist_infos or "none"))
        dist_info = dist_infos[0]
        date_time = wheel.getinfo(dist_info + "/METADATA").date_time
        kept = {}
        for name in names:
            if name.endswith("/") or LINUX_ONLY.match(name):
                continue
            if name in (dist_info + "/WHEEL", dist_info + "/RECORD"):
                continue  # written anew for the Windows tag
            if re.search(r"\.so(\.\d+)*$", name):
                raise Failure("%s: %s is a Linux shared library outside %s/_lib/;"
                              " the Windows wheel cannot take it" % (path, name, PACKAGE))
            kept[name] = wheel.read(name)
    return dist_info, kept, date_time


def read_platlib(root):
    """{member: bytes} of every file under the install tree."""
    if not os.path.isdir(root):
        raise Failure("%s: no such folder (the cross build's install tree)" % root)
    files = {}
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            full = os.path.join(folder, name)
            member = os.path.relpath(full, root).replace(os.sep, "/")
            with open(full, "rb") as f:
                files[member] = f.read()
    for member in REQUIRED_PLATLIB:
        if member not in files:
            raise Failure("%s: %s is missing (did the cross build install its"
                          " 'python' component there?)" % (root, member))
    for member in (PACKAGE + "/_lib/cudaload.dll", PACKAGE + "/_lib/cudaload.exe"):
        if files[member][:2] != b"MZ":
            raise Failure("%s: %s is not a Windows PE file" % (root, member))
    return files


def check_metadata(dist_info, metadata):
    """The dist-info folder's name and METADATA's Name/Version must agree."""
    text = metadata.decode("utf-8")
    fields = dict(re.findall(r"^(Name|Version): *(.*?)\s*$", text, flags=re.M))
    match = re.match(r"^(.+)-([^-]+)\.dist-info$", dist_info)
    if not match or "Name" not in fields or "Version" not in fields:
        raise Failure("%s/METADATA: no Name or Version field" % dist_info)
    name = re.sub(r"[-_.]+", "_", fields["Name"]).lower()
    if match.group(1).lower() != name or match.group(2) != fields["Version"]:
        raise Failure("%s: METADATA says %s %s" % (dist_info, fields["Name"], fields["Version"]))
    return match.group(1), match.group(2)


def wheel_file(generator):
    return ("Wheel-Version: 1.0\n"
            "Generator: %s\n"
            "Root-Is-Purelib: false\n"
            "Tag: %s\n" % (generator, TAG)).encode("utf-8")


def build(platlib_dir, linux_wheel, out_dir):
    dist_info, members, date_time = read_linux_wheel(linux_wheel)
    name, version = check_metadata(dist_info, members[dist_info + "/METADATA"])
    for member, data in sorted(read_platlib(platlib_dir).items()):
        if member in members and members[member] != data:
            raise Failure("%s differs between the Linux wheel and the Windows build"
                          " (%s); both come from one sdist and should not" % (member, platlib_dir))
        members[member] = data
    members[dist_info + "/WHEEL"] = wheel_file("cudaload make_windows_wheel.py")

    # Package files first, then the .dist-info, RECORD last (the order
    # installers and `wheel` expect).
    order = sorted(members, key=lambda m: (m.startswith(dist_info + "/"), m))
    record_name = dist_info + "/RECORD"
    record = ["%s,%s,%d" % (m, record_hash(members[m]), len(members[m])) for m in order]
    record.append(record_name + ",,")
    members[record_name] = ("\n".join(record) + "\n").encode("utf-8")
    order.append(record_name)

    if "SOURCE_DATE_EPOCH" in os.environ:
        import time
        stamp = max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800)  # zip: >= 1980
        date_time = time.gmtime(stamp)[:6]

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "%s-%s-%s.whl" % (name, version, TAG))
    partial = path + ".part"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as wheel:
        for member in order:
            info = zipfile.ZipInfo(member, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = member.endswith((".exe", ".dll"))
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            wheel.writestr(info, members[member])
    os.replace(partial, path)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Assemble cudaload's %s wheel from a cross build." % TAG)
    parser.add_argument("--platlib", required=True,
                        help="the cross build's install tree (SKBUILD_PLATLIB_DIR)")
    parser.add_argument("--linux-wheel", required=True,
                        help="the Linux wheel of the same sdist")
    parser.add_argument("--out", required=True, help="the folder the wheel goes to")
    args = parser.parse_args(argv)
    try:
        path = build(args.platlib, args.linux_wheel, args.out)
    except Failure as exc:
        print("make_windows_wheel: %s" % exc, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
