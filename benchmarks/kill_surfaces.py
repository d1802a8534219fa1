#!/usr/bin/env python3
"""kill -9 and concurrent runs of ``pctfuzz accept``, ``migrate`` and ``replay --open``.

    python benchmarks/kill_surfaces.py                      # 20 + 20 trials per surface
    python benchmarks/kill_surfaces.py --trials 5 --surfaces migrate --keep /tmp/ks

``benchmarks/kill_test.py`` kills campaigns; this script kills the three commands that
rewrite files a person cares about. For each surface it runs ``--trials`` kill trials
and ``--trials`` concurrent trials, each on a fresh copy of one input built at the
start, and checks the invariants below by reading the files.

A kill trial starts the command in its own process group and SIGKILLs the group at
one of these moments, in turn: a random one, drawn uniformly between its start and the
end of an uninterrupted run (timed once per surface: the calibration run, which must
pass the same checks), or as soon as an event shows in the files (polled every
millisecond): for accept, its temp file written beside the accept file, or the accept
file replaced; for migrate and replay, the n-th rewrite of a record (n drawn at
random). It then checks what the kill left, runs the same command again to completion
and checks the result.
A concurrent trial starts 2 or 3 commands at once on the same files and checks what
they leave when all have ended.

Surfaces and invariants:

accept
    A findings store with one ``left_raw`` finding per planted adapter
    (``benchmarks/kill_impls.py``) and an accept file holding a user's text. Trials
    rotate over four files: an existing file of mode 0600, a symlink to a file in
    another folder, a file that does not exist yet (created under umask 027), and the
    ``pctfuzz-accept.toml`` of a project whose ``[tool.pctfuzz]`` names none yet (it
    must name it then, once). A rerun may say "accepted already" (exit 2). After a
    kill: the file is whole (it loads) and starts with the user's text, the link is a
    link. After the rerun (or the concurrent runs): every run exited 0, each entry is in
    the file exactly once, each finding is ``known-divergence``, the user's text is
    kept byte for byte, the link still points at the file that holds the entries, the
    mode is the old file's (or the umask's), and no temp file is left beside it.
migrate
    A store of older-format records (as ``tests/unit/test_migrate.py`` makes them) of
    ``broken_impls:TildeEncodingUrllib``: 12 records of one behaviour with hits 1-12,
    two triaged with notes, a record whose signature did not change, records that need
    re-minimizing. The reference is one uninterrupted migration of a copy. After a kill
    every record loads and there is one file per id; after the rerun (or the
    concurrent runs) every run exited 0 and the store equals the reference: the same
    ids, each hit counted exactly once, the same statuses, notes and previous ids.
replay
    A current store of 48 open findings of ``broken_impls:TildeEncodingUrllib``: 24
    whose case still fails (kept open) and 24 whose case passes now (to be marked
    ``fixed``), each with a note and hits. After a kill every record loads, one per
    id, with its hits and note, and only a passing one may have changed (to
    ``fixed``). After the rerun (or the concurrent runs) every run exited 1 (open
    findings still fail) with nothing on stderr but the verdicts, and every passing
    finding is ``fixed`` with a ``fixed_in``.

Temp files of the findings store that a killed writer left (``.*.tmp``) are counted
but are no violation: readers ignore them and ``cleanup_stale_temp`` removes them
(``store.files``). Not part of ``make test``; ``docs/benchmarks.md`` has the last
figures.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SUPPORT = ROOT / "tests" / "support"  # broken_impls (a planted bug)

try:
    import pctfuzz  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(SUPPORT))

from benchmarks.kill_impls import RAW, record_left_raw  # noqa: E402
from benchmarks.kill_test import kill_group  # noqa: E402
from pctfuzz._internal.accept import load_accept_file  # noqa: E402
from pctfuzz._internal.cases import EncodeCase  # noqa: E402
from pctfuzz._internal.identity import SIGNATURE_VERSION, finding_id  # noqa: E402
from pctfuzz._internal.store import (  # noqa: E402
    Finding,
    FindingStore,
    StoreProblem,
    new_finding,
)

TILDE = "broken_impls:TildeEncodingUrllib"
USER_TEXT = "# Our accepted differences: kept by pctfuzz accept byte for byte.\n"
#: The mode of the existing accept file, and the umask the runs have: a new accept
#: file must get 0o666 & ~UMASK, an existing one keep EXISTING_MODE.
EXISTING_MODE, UMASK = 0o600, 0o027
ACCEPT_VARIANTS = ("existing", "symlink", "new", "unnamed")
#: The pyproject.toml of the "unnamed" variant: a project whose [tool.pctfuzz] names no
#: accept file, so ``pctfuzz accept`` creates pctfuzz-accept.toml and names it there.
PYPROJECT = '[project]\nname = "demo"\n\n[tool.pctfuzz]\n# our settings\n'



# ----------------------------------------------------------------------- processes

def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in [str(ROOT / "src"), str(ROOT), str(SUPPORT),
                                       os.environ.get("PYTHONPATH", "")] if p)
    env = dict(os.environ, PYTHONPATH=path)
    env.pop("PCTFUZZ_ACCEPT", None)
    return env


@dataclass
class Ran:
    """A finished command: exit code (negative: killed by that signal) and its output."""

    argv: list[str]
    code: int
    out: str
    err: str

    def said(self) -> str:
        return f"`pctfuzz {' '.join(self.argv)}` exit {self.code}: " + \
            " | ".join([*self.out.splitlines()[-3:], *self.err.splitlines()[-5:]])[:1500]


def _start(argv: Sequence[str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out, open(log.with_suffix(".err"), "wb") as err:
        return subprocess.Popen([sys.executable, "-m", "pctfuzz", *argv], cwd=cwd,
                                env=_env(), stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                umask=UMASK)


def _finish(proc: subprocess.Popen[bytes], argv: Sequence[str], log: Path,
            timeout: float = 600) -> Ran:
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        code = -9
    return Ran(list(argv), code, log.read_text(errors="replace"),
               log.with_suffix(".err").read_text(errors="replace"))


def run(argv: Sequence[str], work: Path, name: str = "run", cwd: Path | None = None) -> Ran:
    """``argv`` run to its end in ``cwd`` (default ``work``), logged in ``work``."""
    log = work / f"{name}.log"
    return _finish(_start(argv, cwd or work, log), argv, log)


#: An event a kill may wait for: a probe of the files, true once it happened.
Probe = Callable[[], bool]


def run_killed(argv: Sequence[str], work: Path, delay: float, event: Probe | None,
               timeout: float, cwd: Path | None = None) -> Ran:
    """``argv`` started, its process group SIGKILLed ``delay`` seconds after the start
    or, with ``event``, as soon as the probe sees it (polled every millisecond, for at
    most ``timeout`` seconds); a command that ended first is not killed."""
    log = work / "killed.log"
    proc = _start(argv, cwd or work, log)
    if event is None:
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            kill_group(proc)
    else:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and not event() and time.monotonic() < deadline:
            time.sleep(0.001)
        if proc.poll() is None:
            kill_group(proc)
    return _finish(proc, argv, log)


def run_together(argvs: Sequence[Sequence[str]], work: Path,
                 cwd: Path | None = None) -> list[Ran]:
    """Every ``argv`` started at once, each waited for."""
    logs = [work / f"together-{i}.log" for i in range(len(argvs))]
    procs = [_start(argv, cwd or work, log) for argv, log in zip(argvs, logs, strict=True)]
    return [_finish(p, a, log) for p, a, log in zip(procs, argvs, logs, strict=True)]


# ------------------------------------------------------------------------- checks

def load_store(root: Path) -> tuple[dict[str, Finding], list[str]]:
    """Every record of ``root`` by id, and the violations of reading them: a record
    that does not load (torn or invalid), two files for one id."""
    problems: list[StoreProblem] = []
    found: dict[str, Finding] = {}
    violations: list[str] = []
    for finding in FindingStore(root).iter_findings(problems):
        if finding.id in found:
            violations.append(f"doubled: two files for finding {finding.id}")
        found[finding.id] = finding
    violations += [f"torn: unreadable record: {p}" for p in problems]
    return found, violations


def store_temp_files(root: Path) -> int:
    return sum(1 for p in root.glob(".*.tmp")) if root.is_dir() else 0


# --------------------------------------------------------------------------- surfaces

@dataclass
class Trial:
    """One trial's input: the folder it works in and what its commands are."""

    work: Path
    argvs: list[list[str]]
    info: dict[str, Any] = field(default_factory=dict)
    cwd: Path | None = None  # where the commands run (default: ``work``)


class Surface:
    """A command under test: how to build its input, prepare a trial, check the files
    after a kill and after the command ran to completion."""

    name = ""

    def build(self, template: Path) -> None:
        raise NotImplementedError

    def trial(self, template: Path, work: Path, number: int, processes: int) -> Trial:
        shutil.copytree(template, work, symlinks=True)
        return self._trial(work, number, processes)

    def _trial(self, work: Path, number: int, processes: int) -> Trial:
        raise NotImplementedError

    def events(self, trial: Trial, rng: random.Random) -> dict[str, Probe]:
        """The moments a kill trial may wait for, by name (probes set up before the
        command starts)."""
        raise NotImplementedError

    def after_kill(self, trial: Trial) -> list[str]:
        raise NotImplementedError

    def after_runs(self, trial: Trial, runs: list[Ran]) -> list[str]:
        raise NotImplementedError


class AcceptSurface(Surface):
    """``pctfuzz accept`` into one accept file (module docstring)."""

    name = "accept"

    def build(self, template: Path) -> None:
        findings = template / "findings"
        ids = {name: record_left_raw(findings, name) for name in RAW}
        (template / "ids.txt").write_text("".join(f"{n} {i}\n" for n, i in ids.items()))
        for folder in ("project", "shared", "unnamed"):
            (template / folder).mkdir()
        (template / "unnamed" / "pyproject.toml").write_text(PYPROJECT)
        for path in (template / "project" / "existing.toml", template / "shared" / "real.toml"):
            path.write_text(USER_TEXT)
            path.chmod(EXISTING_MODE)
        (template / "project" / "link.toml").symlink_to(Path("..") / "shared" / "real.toml")

    def _trial(self, work: Path, number: int, processes: int) -> Trial:
        ids = dict(line.split() for line in (work / "ids.txt").read_text().splitlines())
        # Every third trial another file, so that each kill moment meets each file.
        variant = ACCEPT_VARIANTS[number // 3 % len(ACCEPT_VARIANTS)]
        accept = work / "project" / {"existing": "existing.toml", "symlink": "link.toml",
                                     "new": "new.toml", "unnamed": ""}[variant]
        # The unnamed project's file: no --accept, pctfuzz accept picks the name.
        given = [] if variant == "unnamed" else ["--accept", str(accept)]
        if variant == "unnamed":
            accept = work / "unnamed" / "pctfuzz-accept.toml"
        names = list(RAW)
        first = number % len(names)
        chosen = [names[(first + k) % len(names)] for k in range(processes)]
        argvs = [["accept", ids[name], *given, "--findings", str(work / "findings"),
                  "--impl", f"benchmarks.kill_impls:{name}", "--accept-impact"]
                 for name in chosen]
        return Trial(work, argvs, {"variant": variant, "accept": accept,
                                   "ids": [ids[n] for n in chosen]},
                     cwd=accept.parent if variant == "unnamed" else None)

    def _file(self, trial: Trial) -> tuple[Path, list[str]]:
        """The file the entries go to, and violations of the link."""
        accept: Path = trial.info["accept"]
        if trial.info["variant"] != "symlink":
            return accept, []
        real = trial.work / "shared" / "real.toml"
        if not accept.is_symlink():
            return accept, [f"other: {accept.name} is no longer a symlink"]
        if accept.resolve() != real:
            return accept, [f"other: {accept.name} now points at {os.readlink(accept)}"]
        return real, []

    def events(self, trial: Trial, rng: random.Random) -> dict[str, Probe]:
        path, _ = self._file(trial)

        def temp_written() -> bool:  # the new file written beside it, being checked
            return any(n.startswith(f".{path.name}.") for n in os.listdir(path.parent))

        return {"temp file written": temp_written, "file replaced": _replaced(path)}

    def after_kill(self, trial: Trial) -> list[str]:
        path, violations = self._file(trial)
        if not path.exists():
            return violations if trial.info["variant"] in ("new", "unnamed") else \
                [*violations, f"lost: {path.name} is gone"]
        text = path.read_text(errors="replace")
        if trial.info["variant"] in ("existing", "symlink") and not text.startswith(USER_TEXT):
            violations.append(f"lost: {path.name}: the user's text is not kept: {text[:200]!r}")
        try:
            load_accept_file(str(path))
        except Exception as exc:  # torn or invalid: any failure is the violation
            violations.append(f"torn: {path.name} does not load: {exc}")
        return violations

    def after_runs(self, trial: Trial, runs: list[Ran]) -> list[str]:
        # A rerun after a killed run that had written everything may say so (exit 2);
        # whether that is true is checked below, on the files.
        violations = [f"other: run failed: {r.said()}" for r in runs if r.code != 0
                      and not (r.code == 2 and "is accepted already" in r.err
                               and len(r.err.strip().splitlines()) == 1)]
        path, link = self._file(trial)
        violations += link
        if trial.info["variant"] == "unnamed":
            violations += _named(path)
        if not path.is_file():
            return [*violations, f"lost: {path.name}: no accept file"]
        text = path.read_text(errors="replace")
        if trial.info["variant"] in ("existing", "symlink") and not text.startswith(USER_TEXT):
            violations.append(f"lost: {path.name}: the user's text is not kept")
        try:
            tables = tomllib.loads(text).get("divergence", [])
            load_accept_file(str(path))
        except Exception as exc:
            return [*violations, f"torn: {path.name} does not load: {exc}"]
        entry_ids = [str(t.get("id")) for t in tables]
        store = FindingStore(trial.work / "findings")
        for ident in trial.info["ids"]:
            count = sum(e.endswith(f"-{ident}") for e in entry_ids)
            if count != 1:
                violations.append(f"{'lost' if count < 1 else 'doubled'}: finding {ident}: "
                                  f"{count} entries in {path.name}")
            status = store.get(ident).status
            if status != "known-divergence":
                violations.append(f"lost: finding {ident}: status {status}, not known-divergence")
        mode = stat.S_IMODE(path.stat().st_mode)
        new = trial.info["variant"] in ("new", "unnamed")
        wanted = 0o666 & ~UMASK if new else EXISTING_MODE
        if mode != wanted:
            violations.append(f"other: {path.name}: mode {mode:o}, not {wanted:o}")
        left = [p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")]
        if left:
            violations.append(f"other: temp files left beside {path.name}: {left}")
        return violations


def _named(accept: Path) -> list[str]:
    """Violations of the unnamed project's pyproject.toml once ``accept`` is written:
    it must name the file, once, and keep the user's lines."""
    pyproject = accept.parent / "pyproject.toml"
    text = pyproject.read_text(errors="replace")
    try:
        table = tomllib.loads(text)["tool"]["pctfuzz"]
    except (tomllib.TOMLDecodeError, KeyError) as exc:
        return [f"torn: {pyproject.name} does not load: {exc!r}"]
    violations = []
    if table.get("accept") != accept.name:
        violations.append(f"lost: [tool.pctfuzz] accept is {table.get('accept')!r}")
    if text.count("accept =") > 1 or "# our settings" not in text:
        violations.append(f"other: {pyproject.name} damaged: {text!r}")
    return violations


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def _replaced(path: Path) -> Probe:
    """True once ``path`` is another file than now (an atomic write renames a new
    file over it, so its inode changes; a missing file appears)."""
    before = _inode(path)
    return lambda: _inode(path) != before


def _store_changed(root: Path, times: int) -> Probe:
    """True once the records of the folder ``root`` (name -> inode) were seen to change
    ``times`` times: a record written (renamed over the old one), added or removed.
    Changes closer together than two polls count as one."""
    def records() -> dict[str, int]:
        out = {}
        for name in os.listdir(root):
            if name.endswith(".json") and (inode := _inode(root / name)) is not None:
                out[name] = inode
        return out

    last, changes = records(), 0

    def probe() -> bool:
        nonlocal last, changes
        now = records()
        if now != last:
            last, changes = now, changes + 1
        return changes >= times

    return probe


def _tilde(value: str) -> Finding:
    """A finding of ``TildeEncodingUrllib`` on ``value`` (which holds a '~')."""
    from broken_impls import TildeEncodingUrllib  # type: ignore[import-not-found]

    from pctfuzz._internal.checks import differential

    case = EncodeCase(value, "component")
    try:
        differential.check_encode(case, TildeEncodingUrllib())
    except Exception as exc:
        return new_finding("diff_encode", "divergence", exc, case=case, impl=TILDE)
    raise AssertionError(f"TildeEncodingUrllib agrees on {value!r}")


def _renamed(finding: Finding, signature: str, **changes: Any) -> Finding:
    return dataclasses.replace(finding, signature=signature, id=finding_id(signature),
                               **changes)


def _comparable(store: dict[str, Finding]) -> dict[str, tuple[Any, ...]]:
    """What migrate must keep of each record: the fields a kill may not change
    (a joined note is compared as a set of parts: which record merged first is free)."""
    return {ident: (f.hits, f.status, frozenset((f.note or "").split("; ")),
                    frozenset(f.previous_ids or ()), f.signature_version, f.case)
            for ident, f in store.items()}


class MigrateSurface(Surface):
    """``pctfuzz migrate`` of a store of older-format records (module docstring)."""

    name = "migrate"
    reference: dict[str, tuple[Any, ...]]

    def build(self, template: Path) -> None:
        store = FindingStore(template / "findings")
        old = SIGNATURE_VERSION - 1
        for i in range(12):  # one behaviour now; its hits sum to 78
            value = "a~" + "b" * i  # minimized to "~" by the migration
            signature = f"diff_encode|divergence|encode|unit=0x7E;diff=n{i}|impl={TILDE}"
            changes: dict[str, Any] = {"signature_version": old, "hits": i + 1}
            if i == 3:
                changes.update(status="wont-fix", note="triaged by alice")
            if i == 7:
                changes.update(note="seen in production")
            store.record(_renamed(_tilde(value), signature, **changes))
        same = _tilde("x~y~z")  # its signature did not change: migrated in place
        store.record(dataclasses.replace(same, signature_version=old, hits=5,
                                         status="false-positive", note="bob's verdict"))
        # A reference run of a copy: what every trial must end with.
        with tempfile.TemporaryDirectory(dir=template.parent) as scratch:
            copy = Path(scratch) / "copy"
            shutil.copytree(template, copy, symlinks=True)
            ran = run(["migrate", "--findings", str(copy / "findings"), "--impl", TILDE],
                      Path(scratch))
            if ran.code != 0:
                raise SystemExit(f"the reference migration failed: {ran.said()}")
            found, violations = load_store(copy / "findings")
            if violations or len(found) != 1 or next(iter(found.values())).hits != 78 + 5:
                raise SystemExit(f"unexpected reference migration: {violations} {found}")
            self.reference = _comparable(found)

    def _trial(self, work: Path, number: int, processes: int) -> Trial:
        argv = ["migrate", "--findings", str(work / "findings"), "--impl", TILDE]
        return Trial(work, [argv] * processes)

    def events(self, trial: Trial, rng: random.Random) -> dict[str, Probe]:
        # The first write is a merged record written, its old record not yet removed.
        return {"n-th record write": _store_changed(trial.work / "findings",
                                                    rng.randint(1, 6))}

    def after_kill(self, trial: Trial) -> list[str]:
        return load_store(trial.work / "findings")[1]

    def after_runs(self, trial: Trial, runs: list[Ran]) -> list[str]:
        violations = [f"other: run failed: {r.said()}" for r in runs if r.code != 0]
        found, unreadable = load_store(trial.work / "findings")
        violations += unreadable
        got = _comparable(found)
        for ident in sorted(set(got) | set(self.reference)):
            mine, wanted = got.get(ident), self.reference.get(ident)
            if mine == wanted:
                continue
            # More hits than the reference, or a record it has not: a hit counted twice.
            doubled = wanted is None or (mine is not None and mine[0] > wanted[0])
            violations.append(f"{'doubled' if doubled else 'lost'}: finding {ident}: "
                              f"{mine} != reference {wanted}")
        return violations


class ReplaySurface(Surface):
    """``pctfuzz replay --open`` of a store of open findings (module docstring)."""

    name = "replay"
    OPEN = 24

    def build(self, template: Path) -> None:
        store = FindingStore(template / "findings")
        real = _tilde("a~b")
        for i in range(self.OPEN):
            # Still failing, another way than recorded: "fails differently", kept open.
            failing = f"diff_encode|divergence|encode|kill-test=failing{i}|impl={TILDE}"
            store.record(_renamed(real, failing, hits=i + 1, note=f"failing {i}"))
            # Its case passes now: the replay marks it fixed.
            passing = f"diff_encode|divergence|encode|kill-test=passing{i}|impl={TILDE}"
            store.record(_renamed(real, passing, hits=i + 1, note=f"passing {i}",
                                  case=EncodeCase(f"abc{i}", "component").to_json(),
                                  raw_input=None))

    def _trial(self, work: Path, number: int, processes: int) -> Trial:
        argv = ["replay", "--open", "--findings", str(work / "findings"), "--impl", TILDE]
        before, _ = load_store(work / "findings")
        return Trial(work, [argv] * processes, {"before": before})

    def _compare(self, trial: Trial, *, done: bool) -> list[str]:
        before: dict[str, Finding] = trial.info["before"]
        found, violations = load_store(trial.work / "findings")
        if set(found) != set(before):
            violations.append(f"lost: ids changed: lost {sorted(set(before) - set(found))}, "
                              f"new {sorted(set(found) - set(before))}")
        for ident, old in before.items():
            new = found.get(ident)
            if new is None:
                continue
            if (new.hits, new.note, new.case) != (old.hits, old.note, old.case):
                violations.append(f"other: finding {ident}: hits, note or case changed")
            passing = "kill-test=passing" in old.signature
            if not passing and new.status != old.status:
                violations.append(f"other: finding {ident}: still failing, but {new.status}")
            if passing and new.status not in (("fixed",) if done else ("fixed", old.status)):
                violations.append(f"lost: finding {ident}: passes, but {new.status}")
            if new.status == "fixed" and not new.fixed_in:
                violations.append(f"lost: finding {ident}: fixed with no fixed_in")
        return violations

    def events(self, trial: Trial, rng: random.Random) -> dict[str, Probe]:
        return {"n-th verdict written": _store_changed(trial.work / "findings",
                                                       rng.randint(1, self.OPEN))}

    def after_kill(self, trial: Trial) -> list[str]:
        return self._compare(trial, done=False)

    def after_runs(self, trial: Trial, runs: list[Ran]) -> list[str]:
        violations = [f"other: run failed: {r.said()}" for r in runs
                      if r.code != 1 or r.err.strip()]
        return violations + self._compare(trial, done=True)


SURFACES: dict[str, Callable[[], Surface]] = {
    "accept": AcceptSurface, "migrate": MigrateSurface, "replay": ReplaySurface}


# ------------------------------------------------------------------------------ loop

#: What a violation is, by the word it starts with: a file that does not load
#: (``torn``), an entry, hit, verdict or text missing (``lost``), one counted twice
#: (``doubled``), anything else (``other``: a failed run, a mode, a link, a leftover).
KINDS = ("torn", "lost", "doubled", "other")


@dataclass
class Tally:
    surface: str
    seconds: float = 0.0  # one uninterrupted run (the kill window)
    kill_trials: int = 0
    killed_mid_run: int = 0  # kills that came before the command ended
    concurrent_trials: int = 0
    #: ("kill" | "concurrent") -> violating trials, and violations by kind.
    violating: dict[str, int] = field(default_factory=lambda: {"kill": 0, "concurrent": 0})
    kinds: dict[tuple[str, str], int] = field(default_factory=dict)
    temp_files: int = 0  # store temp files left by killed writers (no violation)
    moments: dict[str, int] = field(default_factory=dict)  # kills by what they waited for
    problems: list[str] = field(default_factory=list)

    def add(self, trial: str, label: str, problems: list[str]) -> None:
        self.violating[trial] += bool(problems)
        for problem in problems:
            kind = problem.split(":", 1)[0]
            self.kinds[trial, kind] = self.kinds.get((trial, kind), 0) + 1
        self.problems += [f"{label}: {p}" for p in problems]


def run_surface(surface: Surface, workdir: Path, trials: int, rng: random.Random,
                log: Callable[[str], None]) -> Tally:
    tally = Tally(surface.name)
    base = workdir / surface.name
    template = base / "template"
    template.mkdir(parents=True)
    with contextlib.redirect_stderr(io.StringIO()):  # the recorder's NEW FINDING lines
        surface.build(template)
    # The kill window: one uninterrupted run, which must itself pass the checks.
    calibration = surface.trial(template, base / "calibration", 0, 1)
    started = time.monotonic()
    ran = run(calibration.argvs[0], calibration.work, cwd=calibration.cwd)
    tally.seconds = time.monotonic() - started
    tally.add("kill", "calibration", surface.after_runs(calibration, [ran]))
    for number in range(trials):
        trial = surface.trial(template, base / f"kill-{number:02d}", number, 1)
        # Kills rotate over a random moment of the run and each event of the surface.
        events = surface.events(trial, rng)
        moment = ["random", *events][number % (len(events) + 1)]
        ran = run_killed(trial.argvs[0], trial.work, rng.uniform(0, tally.seconds),
                         events.get(moment), timeout=max(60.0, 10 * tally.seconds),
                         cwd=trial.cwd)
        tally.killed_mid_run += ran.code == -9
        tally.moments[moment] = tally.moments.get(moment, 0) + 1
        problems = [f"{p} (after the kill)" for p in surface.after_kill(trial)]
        tally.temp_files += store_temp_files(trial.work / "findings")
        rerun = run(trial.argvs[0], trial.work, "rerun", cwd=trial.cwd)
        problems += [f"{p} (after the rerun)" for p in surface.after_runs(trial, [rerun])]
        tally.kill_trials += 1
        tally.add("kill", f"kill {number} ({moment})", problems)
        if problems:
            log(f"{surface.name} kill {number} ({moment}): " + "\n  ".join(problems))
    for number in range(trials):
        processes = 2 + number % 2
        trial = surface.trial(template, base / f"together-{number:02d}", number, processes)
        runs = run_together(trial.argvs, trial.work, trial.cwd)
        problems = surface.after_runs(trial, runs)
        tally.concurrent_trials += 1
        tally.add("concurrent", f"concurrent {number} ({processes} runs)", problems)
        if problems:
            log(f"{surface.name} concurrent {number}: " + "\n  ".join(problems))
    return tally


def table(tallies: list[Tally]) -> str:
    """One row per surface: kill trials (how many killed mid-run), trials with a
    violation and violations by kind; the same for concurrent trials."""
    def kinds(t: Tally, trial: str) -> str:
        return "/".join(str(t.kinds.get((trial, k), 0)) for k in KINDS)

    rows = [("surface", "run s", "kills", "mid-run", "violating", "torn/lost/doubled/other",
             "concurrent", "violating", "torn/lost/doubled/other", "store .tmp left")]
    rows += [(t.surface, f"{t.seconds:.1f}", str(t.kill_trials), str(t.killed_mid_run),
              str(t.violating["kill"]), kinds(t, "kill"), str(t.concurrent_trials),
              str(t.violating["concurrent"]), kinds(t, "concurrent"), str(t.temp_files))
             for t in tallies]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]
    lines += [f"{t.surface} kills by moment: "
              + ", ".join(f"{n} {m}" for m, n in t.moments.items()) for t in tallies]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20,
                        help="kill trials, and as many concurrent trials, per surface")
    parser.add_argument("--surfaces", default=",".join(SURFACES),
                        help="comma-separated, of: " + ", ".join(SURFACES))
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and keep it")
    args = parser.parse_args()
    print(f"seed {args.seed}", flush=True)

    def log(message: str) -> None:
        print(message, flush=True)

    started = time.monotonic()
    rng = random.Random(args.seed)
    names = [n for n in args.surfaces.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="pctfuzz-kill-surfaces-") as scratch:
        workdir = args.keep or Path(scratch)
        tallies = [run_surface(SURFACES[name](), workdir, args.trials, rng, log)
                   for name in names]
    print(table(tallies))
    for tally in tallies:
        for problem in tally.problems:
            print(f"PROBLEM {tally.surface}: {problem}")
    print(f"{time.monotonic() - started:.0f} s")
    return 1 if any(t.problems for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())
