"""What a benchmark reports: the machine, medians and p95s, tables (Markdown) and JSON.

Every timing is a list of repeated measurements summarised as median and p95 (linear interpolation
between order statistics, the numpy default), always with the number of measurements, so a p95 over
5 runs is visibly weaker than one over 500.

The machine is described from /proc (cores, CPU model, RAM) and, while each benchmark runs, the CPU
time used by *other* processes is measured (all busy CPU time minus this process, its children and
the database server's processes): a figure taken while someone else used a core says so.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# ---------------------------------------------------------------------------------------------
# Statistics


@dataclass(frozen=True)
class Stat:
    median: float
    p95: float
    n: int
    mean: float = 0.0
    min: float = 0.0
    max: float = 0.0

    def cell(self, digits: int = 1) -> str:
        """ "12.3 / 15.0" (median / p95)."""
        if self.n == 0:
            return "-"
        return f"{self.median:,.{digits}f} / {self.p95:,.{digits}f}"

    def as_json(self) -> dict[str, float | int]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


def stat(values: Iterable[float]) -> Stat:
    data = np.asarray([float(v) for v in values], dtype=np.float64)
    if data.size == 0:
        return Stat(0.0, 0.0, 0)
    return Stat(
        median=float(np.percentile(data, 50)),
        p95=float(np.percentile(data, 95)),
        n=int(data.size),
        mean=float(data.mean()),
        min=float(data.min()),
        max=float(data.max()),
    )


# ---------------------------------------------------------------------------------------------
# Machine


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.lower().startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def ram_gb() -> float:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024 / 1024, 1)
    return 0.0


def loadavg() -> list[float]:
    parts = _read("/proc/loadavg").split()
    return [float(p) for p in parts[:3]] if len(parts) >= 3 else []


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size of a process in MB (VmRSS)."""
    for line in _read(f"/proc/{pid}/status").splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def pss_mb(pid: int | str) -> float:
    """Proportional set size (shared pages split between the processes sharing them), in MB."""
    for line in _read(f"/proc/{pid}/smaps_rollup").splitlines():
        if line.startswith("Pss:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def describe_machine() -> dict[str, Any]:
    import django

    info: dict[str, Any] = {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "ram_gb": ram_gb(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "platform": platform.platform(),
        "loadavg_at_start": loadavg(),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads_default"] = torch.get_num_threads()
    except ImportError:  # pragma: no cover - a project dependency
        pass
    try:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            info["postgresql"] = cursor.fetchone()[0]
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
            info["pgvector"] = row[0] if row else None
        info["database"] = (
            "embedded (pgserver)" if connection.settings_dict.get("EMBEDDED_DATA_DIR") else "external"
        )
    except Exception as exc:  # the report must not die because the database is down
        info["database_error"] = str(exc)
    return info


def machine_lines(info: dict[str, Any]) -> list[str]:
    return [
        f"- CPU: {info.get('cpu_model')}, {info.get('cores')} cores; RAM {info.get('ram_gb')} GB",
        f"- Python {info.get('python')}, Django {info.get('django')}, torch {info.get('torch')} "
        f"(default {info.get('torch_threads_default')} threads), PostgreSQL {info.get('postgresql')} "
        f"+ pgvector {info.get('pgvector')} ({info.get('database')})",
        f"- Load average when the run started: {info.get('loadavg_at_start')}",
    ]


# ---------------------------------------------------------------------------------------------
# CPU used by other processes while a benchmark runs


def _proc_cpu_seconds(pid: int) -> float:
    stat_line = _read(f"/proc/{pid}/stat")
    if not stat_line:
        return 0.0
    fields = stat_line.rsplit(")", 1)[-1].split()
    # after the comm field: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat_line = _read(f"/proc/{entry}/stat")
        if not stat_line:
            continue
        try:
            ppid = int(stat_line.rsplit(")", 1)[-1].split()[1])
        except (IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _tree(root: int, kids: dict[int, list[int]]) -> list[int]:
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(kids.get(pid, []))
    return out


def postmaster_pid() -> int | None:
    """The embedded database server's postmaster (its processes do this benchmark's queries)."""
    try:
        from django.conf import settings

        data_dir = settings.DATABASES["default"].get("EMBEDDED_DATA_DIR")
        if not data_dir:
            return None
        first = (Path(str(data_dir)) / "postmaster.pid").read_text().splitlines()[0]
        return int(first)
    except (OSError, ValueError, IndexError, KeyError):
        return None


def _busy_seconds() -> float:
    line = _read("/proc/stat").splitlines()[0].split()
    values = [int(v) for v in line[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """Busy CPU seconds of the whole machine vs. ours (this process tree + the database server)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.busy0 = _busy_seconds()
        self.ours0 = self._ours()

    @staticmethod
    def _ours() -> dict[int, float]:
        kids = _children_map()
        pids = set(_tree(os.getpid(), kids))
        pm = postmaster_pid()
        if pm:
            pids.update(_tree(pm, kids))
        return {pid: _proc_cpu_seconds(pid) for pid in pids}

    def result(self) -> dict[str, float]:
        wall = max(1e-6, time.monotonic() - self.started)
        busy = _busy_seconds() - self.busy0
        # Totals, not per-process deltas: a process that exits hands its CPU time to its parent's
        # cutime (counted at the end), so its time before the start must not be counted twice.
        ours = sum(self._ours().values()) - sum(self.ours0.values())
        others = max(0.0, busy - ours)
        return {
            "wall_s": round(wall, 1),
            "machine_busy_cores": round(busy / wall, 2),
            "ours_cores": round(ours / wall, 2),
            "others_cores": round(others / wall, 2),
            "loadavg_after": loadavg()[0] if loadavg() else 0.0,
        }


# ---------------------------------------------------------------------------------------------
# Tables and sections


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: Any) -> None:
        self.rows.append(list(cells))

    def markdown(self) -> str:
        def fmt(cell: Any) -> str:
            if isinstance(cell, Stat):
                return cell.cell()
            if isinstance(cell, float):
                return f"{cell:,.2f}" if abs(cell) < 100 else f"{cell:,.0f}"
            return str(cell)

        lines = [f"**{self.title}**", ""]
        lines.append("| " + " | ".join(self.columns) + " |")
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines.extend("| " + " | ".join(fmt(c) for c in row) + " |" for row in self.rows)
        if self.notes:
            lines.append("")
            lines.extend(f"- {n}" for n in self.notes)
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        def plain(cell: Any) -> Any:
            return cell.as_json() if isinstance(cell, Stat) else cell

        return {
            "title": self.title,
            "columns": self.columns,
            "rows": [[plain(c) for c in row] for row in self.rows],
            "notes": self.notes,
        }


@dataclass
class Target:
    name: str
    value: float | None
    limit: float
    unit: str
    passed: bool | None
    why: str = ""

    def line(self) -> str:
        mark = {True: "met", False: "MISSED", None: "not measured"}[self.passed]
        shown = "-" if self.value is None else f"{self.value:,.1f} {self.unit}"
        text = f"{self.name}: {shown} (target {self.limit:,g} {self.unit}): {mark}"
        return text + (f". {self.why}" if self.why else "")


@dataclass
class Section:
    name: str
    title: str
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    cpu: dict[str, float] = field(default_factory=dict)

    def table(self, title: str, columns: Sequence[str]) -> Table:
        table = Table(title, list(columns))
        self.tables.append(table)
        return table

    def target(self, name: str, value: float | None, limit: float, unit: str, why_missed: str = "") -> Target:
        passed = None if value is None else value < limit
        target = Target(name, value, limit, unit, passed, "" if passed or passed is None else why_missed)
        self.targets.append(target)
        return target

    def busy_note(self) -> str:
        if not self.cpu:
            return ""
        others = self.cpu.get("others_cores", 0.0)
        text = (
            f"{self.cpu.get('wall_s')} s; other processes used {others:.2f} cores on average while it ran "
            f"(this benchmark and its database {self.cpu.get('ours_cores', 0.0):.2f})"
        )
        if others >= 0.3:
            text += ": the machine was BUSY, figures are slower than on a quiet machine"
        return text

    def markdown(self) -> str:
        out = [f"## {self.name}: {self.title}", ""]
        if self.cpu:
            out += [f"_{self.busy_note()}_", ""]
        if self.error:
            out += [f"**FAILED**: {self.error}", ""]
        for table in self.tables:
            out += [table.markdown(), ""]
        if self.targets:
            out += ["Targets:", *[f"- {t.line()}" for t in self.targets], ""]
        if self.notes:
            out += ["Notes:", *[f"- {n}" for n in self.notes], ""]
        return "\n".join(out)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "error": self.error,
            "cpu": self.cpu,
            "tables": [t.as_json() for t in self.tables],
            "targets": [asdict(t) for t in self.targets],
            "notes": self.notes,
            "data": self.data,
        }


def report_json(machine: dict[str, Any], sections: list[Section], *, command: str, quick: bool) -> str:
    return json.dumps(
        {
            "command": command,
            "quick": quick,
            "machine": machine,
            "sections": [s.as_json() for s in sections],
        },
        indent=2,
        default=str,
    )
