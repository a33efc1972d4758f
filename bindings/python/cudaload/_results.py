# SPDX-License-Identifier: MIT
"""The records of the GPU probe and of the doctor (Probe, Stage, Device,
DoctorReport, Problem, FixStep) and their readers from the C library.

Context.probe() and Context.doctor() (_api) make them, and the functions of
_extra return them: they live below both, so that neither module imports
the other. Only the Context's methods import this module, on first use.
"""

from . import _constants as C
from ._record import _Record
from ._text import _shown

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    from typing import Any, Dict, List, Optional

__all__ = ["Probe", "Stage", "Device", "DoctorReport", "Problem", "FixStep"]

class Stage(_Record):
    """One stage of the GPU probe."""

    __slots__ = ("name", "status", "message", "ms")

    def __init__(self, name: str, status: str, message: str, ms: float) -> None:
        self.name = name
        self.status = status
        self.message = message
        self.ms = ms


class Device(_Record):
    """A CUDA device the probe saw. ``capability`` is major*10+minor.

    How it runs, as the driver says (None where it did not):
    ``driver_model`` ("WDDM", "TCC"; "not_applicable" on Linux),
    ``kernel_timeout`` (a display watchdog limits its kernels),
    ``compute_mode`` ("default", "prohibited", "exclusive_process",
    "exclusive_thread"), ``integrated``, and ``free_memory_mib`` (device 0
    only, when the probe got a context there)."""

    __slots__ = ("name", "capability", "memory_mib", "uuid", "driver_model", "kernel_timeout",
                 "compute_mode", "integrated", "free_memory_mib")

    def __init__(self, name: str, capability: int, memory_mib: int, uuid: str,
                 driver_model: "Optional[str]" = None, kernel_timeout: "Optional[bool]" = None,
                 compute_mode: "Optional[str]" = None, integrated: "Optional[bool]" = None,
                 free_memory_mib: "Optional[int]" = None) -> None:
        self.name = name
        self.capability = capability
        self.memory_mib = memory_mib
        self.uuid = uuid
        self.driver_model = driver_model
        self.kernel_timeout = kernel_timeout
        self.compute_mode = compute_mode
        self.integrated = integrated
        self.free_memory_mib = free_memory_mib


class _ProbeText(_Record):
    """Base of Probe: the slot of the text the library wrote for it (not a
    field: not in to_dict(), repr or ==)."""

    __slots__ = ("_text",)


class Probe(_ProbeText):
    """The GPU probe's answer: ``gpu_ok`` and ``summary`` ("GPU usable: ..."
    or "fall back to CPU, because ..."), the reason, and every stage."""

    __slots__ = ("gpu_ok", "verdict", "reason", "reason_code", "summary", "stages",
                 "driver_path", "driver_version", "runtime_version", "devices")

    def __init__(self, gpu_ok: bool, verdict: str, reason: str, reason_code: int,
                 summary: str, stages: "List[Stage]", driver_path: str, driver_version: int,
                 runtime_version: int, devices: "List[Device]") -> None:
        self.gpu_ok = gpu_ok
        self.verdict = verdict
        self.reason = reason
        self.reason_code = reason_code
        self.summary = summary
        self.stages = stages
        self.driver_path = driver_path
        self.driver_version = driver_version
        self.runtime_version = runtime_version
        self.devices = devices
        self._text = None  # str(): the C library's text (Optional[str])

    def __str__(self) -> str:
        """For people, as ``cudaload probe`` prints it, written by the C
        library (cudaload_probe_report(), text): the verdict and summary,
        the stages as a table, the driver and each device, the driver's
        strings shown escaped. A Probe made by hand, not by the library,
        has no such text: its summary, escaped."""
        text = getattr(self, "_text", None)  # unset: unpickled from a version without it
        return text.rstrip("\n") if text else _shown(self.summary)


class FixStep(_Record):
    """One step of a problem's fix, followed in order: ``action`` is
    "install", "set-variable", "run-program", "command", "choice" (an
    install for the user to choose, where the note before it holds) or
    "note"; ``argv``
    the command's words as the program receives them (empty for a note),
    ``env`` the variables it sets, ``note`` the words for a person."""

    __slots__ = ("action", "argv", "env", "note")

    def __init__(self, action: str, argv: "List[str]", env: "Dict[str, str]",
                 note: "Optional[str]") -> None:
        self.action = action
        self.argv = argv
        self.env = env
        self.note = note


class Problem(_Record):
    """One problem of the doctor's report, as the library records it: its
    ``kind`` ("unsatisfied", "symbols-missing", ...: docs/doctor.md), the
    sentence the report prints (``text``), its ``facts`` (name -> value)
    and where each came from (``sources``: name -> "machine", "program",
    "message" or "request"), and its ``fix`` as steps."""

    __slots__ = ("kind", "text", "facts", "sources", "fix")

    def __init__(self, kind: str, text: str, facts: "Dict[str, str]",
                 sources: "Dict[str, str]", fix: "List[FixStep]") -> None:
        self.kind = kind
        self.text = text
        self.facts = facts
        self.sources = sources
        self.fix = fix

    def __str__(self) -> str:
        return self.text


def _names(lib: "Any", function: str) -> "Dict[int, str]":
    """Every value a name function of the library names (cudaload_fact_name,
    cudaload_fact_source_name, cudaload_fix_action_name): the values are
    pinned from 1 up, never reused, new ones added at the end, so they are
    asked in order up to the first the library does not name. The names are
    the library's alone (one table, in C); empty when it lacks the
    function."""
    out: "Dict[int, str]" = {}
    if not lib.has(function):
        return out
    value = 1
    while True:
        name = lib.call(function, value)
        if not name:
            return out
        out[value] = name
        value += 1


def _read_problems(lib: "Any", ctx: "Any") -> "List[Problem]":
    """The records of the last cudaload_doctor() call on ctx."""
    if not lib.has("cudaload_doctor_problem_kind"):
        return []
    facts = _names(lib, "cudaload_fact_name")
    sources = _names(lib, "cudaload_fact_source_name")
    actions = _names(lib, "cudaload_fix_action_name")
    problems = []
    for i in range(lib.call("cudaload_doctor_problem_count", ctx)):
        kind = lib.call("cudaload_doctor_problem_kind", ctx, i)
        values, where = {}, {}
        for fact, name in facts.items():
            value, source = lib.problem_fact(ctx, i, fact)
            if value is not None:
                values[name] = value
                where[name] = sources.get(source, "unknown")
        steps = []
        for s in range(lib.call("cudaload_doctor_fix_step_count", ctx, i)):
            argv, env = [], {}
            while True:
                word = lib.call("cudaload_doctor_fix_step_arg", ctx, i, s, len(argv))
                if word is None:
                    break
                argv.append(word)
            k = 0
            while True:
                pair = lib.call("cudaload_doctor_fix_step_env", ctx, i, s, k)
                if pair is None:
                    break
                name, _, value = pair.partition("=")
                env[name] = value
                k += 1
            steps.append(FixStep(actions.get(lib.call("cudaload_doctor_fix_step_action", ctx, i, s),
                                             "unknown"),
                                 argv, env, lib.call("cudaload_doctor_fix_step_note", ctx, i, s)))
        problems.append(Problem(lib.call("cudaload_problem_kind_name", kind) or "unknown",
                                lib.call("cudaload_doctor_problem_text", ctx, i) or "",
                                values, where, steps))
    return problems


class DoctorReport:
    """cudaload_doctor()'s report. ``str()`` is the text (or JSON/YAML) as
    the command-line tool prints it; ``to_dict()`` parses a JSON report;
    ``problems`` are its problems as records (Problem), in the report's
    order, whatever the format."""

    def __init__(self, text: str, format: str,
                 problems: "Optional[List[Problem]]" = None) -> None:
        self.text = text
        self.format = format
        self.problems = problems if problems is not None else []

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "DoctorReport(format=%r, %d characters)" % (self.format, len(self.text))

    def to_dict(self) -> "Dict[str, Any]":
        """The JSON report as data (format="json" only)."""
        if self.format != "json":
            raise ValueError("to_dict() needs doctor(format='json')")
        import json
        return json.loads(self.text)


_FORMATS = {"text": C.CUDALOAD_FORMAT_TEXT, "json": C.CUDALOAD_FORMAT_JSON,
            "yaml": C.CUDALOAD_FORMAT_YAML}


def _read_probe(lib: "Any", handle: "Any") -> "Probe":
    def opt(name: str, *args: "Any") -> "Any":
        return lib.call(name, handle, *args) if lib.has(name) else None

    def name_of(function: str, value: int) -> str:
        # The library's own name of a value (one table, in C), the same the
        # tool and the JSON reports write.
        named = lib.call(function, value) if lib.has(function) else None
        return named or "unknown(%s)" % value

    verdict = opt("cudaload_probe_verdict")
    reason = opt("cudaload_probe_reason") or 0
    stages = []
    for i in range(opt("cudaload_probe_stage_count") or 0):
        status = opt("cudaload_probe_stage_status", i)
        stages.append(Stage(opt("cudaload_probe_stage_name", i) or "",
                            name_of("cudaload_probe_stage_status_name", status),
                            opt("cudaload_probe_stage_message", i) or "",
                            float(opt("cudaload_probe_stage_ms", i) or 0.0)))
    def yes_no(name: str, i: int) -> "Optional[bool]":
        value = opt(name, i)
        return None if value is None or value < 0 else bool(value)

    def named(name: str, function: str, i: int) -> "Optional[str]":
        # The library's names (one table, in C); unknown is None.
        value = opt(name, i)
        text = lib.call(function, value) if value is not None and lib.has(function) else None
        return None if text in (None, "unknown") else text

    devices = []
    for i in range(opt("cudaload_probe_device_count") or 0):
        free_mib = opt("cudaload_probe_device_free_mib", i)
        devices.append(Device(
            opt("cudaload_probe_device_name", i) or "",
            opt("cudaload_probe_device_capability", i) or 0,
            int(opt("cudaload_probe_device_memory_mib", i) or 0),
            opt("cudaload_probe_device_uuid", i) or "",
            driver_model=named("cudaload_probe_device_driver_model",
                               "cudaload_probe_driver_model_name", i),
            kernel_timeout=yes_no("cudaload_probe_device_kernel_timeout", i),
            compute_mode=named("cudaload_probe_device_compute_mode",
                               "cudaload_probe_compute_mode_name", i),
            integrated=yes_no("cudaload_probe_device_integrated", i),
            free_memory_mib=None if free_mib is None or free_mib < 0 else int(free_mib)))
    probe = Probe(
        gpu_ok=verdict == C.CUDALOAD_GPU_OK,
        verdict="gpu" if verdict == C.CUDALOAD_GPU_OK else "cpu",
        reason=name_of("cudaload_probe_reason_name", reason), reason_code=reason,
        summary=opt("cudaload_probe_summary") or "", stages=stages,
        driver_path=opt("cudaload_probe_driver_path") or "",
        driver_version=opt("cudaload_probe_driver_version") or 0,
        runtime_version=opt("cudaload_probe_runtime_version") or 0,
        devices=devices)
    if lib.has("cudaload_probe_report"):
        # The text the tool prints; a libcudaload before CUDALOAD_1.6 writes
        # none (CUDALOAD_E_INVALID_ARGUMENT for the format).
        status, text = lib.probe_report(handle, C.CUDALOAD_FORMAT_TEXT)
        probe._text = text if status == C.CUDALOAD_OK else None
    return probe


