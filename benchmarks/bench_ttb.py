#!/usr/bin/env python3
"""Time to first finding, from an empty corpus, per fault and driver.

Faults: every deliberately wrong codec of ``pctfuzz._internal.oracles.faults`` (``PCTFUZZ_FAULT``
on the
invariant target whose checks it breaks) and urllib.parse with one injected fault
(``ttb_faults``, on the differential target). Drivers, all running the target's check:

- ``atheris``: the standalone harness in crash mode (a subprocess, with the target's
  dictionary); the time from spawn until libFuzzer has written the crash file, so it
  includes the process start-up (imports, instrumentation: about 1 s);
- ``hypothesis``: a plain ``@given`` loop over the target's strategy, in-process,
  derandomize off, no database, generate phase only;
- ``random``: uniform random bytes (0-64 of them) through ``target.from_bytes`` and the
  check, in-process.

Each (fault, driver) is capped at ``--cap`` seconds; a fault not found counts as the
cap in the median and worst ("> cap"). Then, end to end, the default campaign
(``pctfuzz fuzz`` with every target and the default jobs, on urllib with "~" encoded):
seconds from its start to its first ``NEW FINDING`` line.

Findings per bug: each fault is one planted bug, so a record-mode campaign on its
target (``pctfuzz fuzz TARGET --jobs 1 --max-time CAP``, empty corpus and store) should
write one finding for it; the column counts the findings it wrote (issue 21: a
finding per padded variant or per differing unit shows here). Usage:

    python benchmarks/bench_ttb.py [--cap 10] [--quick] [--drivers atheris ...]
                                   [--no-campaign] [--no-findings] [--json]

The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: injected urllib fault -> (differential target, adapter import path).
URLLIB_FAULTS = {
    "urllib+tilde-encoded": ("diff_encode", "ttb_faults:TildeEncoded"),
    "urllib+lowercase-hex": ("diff_encode", "ttb_faults:LowercaseHex"),
    "urllib+iso2022-reescape": ("diff_encode", "ttb_faults:Iso2022JpReescape"),
    "urllib+unquote-ignore": ("diff_decode", "ttb_faults:UnquoteIgnore"),
    "urllib+form-percent20": ("diff_form", "ttb_faults:FormPercent20"),
}

#: ``--quick``: one fault per kind of invariant and per differential target.
QUICK = ("lowercase-hex", "path-dquote-raw", "strip", "decode-short-escape",
         "form-space-as-%20", "form-plus-kept", "urllib+tilde-encoded",
         "urllib+unquote-ignore")

DRIVERS = ("atheris", "hypothesis", "random")


def codec_target(fault: str) -> str:
    """The invariant target whose checks a ``pctfuzz._internal.oracles.faults`` codec breaks
    (by name)."""
    if fault in ("form-plus-kept", "form-surrogateescape"):
        return "form_parse"
    if fault.startswith("form-"):
        return "form"
    return "decode" if fault.startswith("decode-") else "encode"


def all_faults() -> dict[str, tuple[str, dict[str, str]]]:
    """fault -> (target, environment for the harness)."""
    from pctfuzz._internal.oracles.faults import FAULTS

    out = {name: (codec_target(name), {"PCTFUZZ_FAULT": name}) for name in FAULTS}
    for name, (target, path) in URLLIB_FAULTS.items():
        out[name] = (target, {"PCTFUZZ_IMPL": path})
    return out


def _impl(env: dict[str, str]) -> Any:
    if "PCTFUZZ_FAULT" in env:
        from pctfuzz._internal.oracles.faults import FAULTS

        return FAULTS[env["PCTFUZZ_FAULT"]]
    from pctfuzz._internal.oracles import get_impl

    return get_impl(env["PCTFUZZ_IMPL"])


def by_atheris(target: str, env: dict[str, str], cap: float) -> float | None:
    """Seconds from spawn until the harness wrote a crash file, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp, "corpus")
        corpus.mkdir()
        cmd = [sys.executable, str(HARNESS / f"fuzz_{target}.py"), str(corpus),
               f"-max_total_time={int(cap)}", f"-dict={HARNESS / f'{target}.dict'}",
               f"-artifact_prefix={tmp}/"]
        full_env = dict(os.environ, **env)
        full_env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(HERE), full_env.get("PYTHONPATH")]))
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=full_env)
        found: float | None = None
        while proc.poll() is None and time.monotonic() - started < cap + 30:
            if found is None and any(Path(tmp).glob("crash-*")):
                found = time.monotonic() - started
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if found is None and any(Path(tmp).glob("crash-*")):
            found = time.monotonic() - started
    return found if found is not None and found <= cap + 1 else None


def _first_failure(step: Callable[[], None], cap: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < cap:
        try:
            step()
        except Exception:
            return time.monotonic() - started
    return None


def by_random(target: str, env: dict[str, str], cap: float) -> float | None:
    """Seconds until uniform random bytes fail the check, or None."""
    from pctfuzz._internal.targets import get_target

    tgt, impl, rng = get_target(target), _impl(env), random.Random()

    def step() -> None:
        tgt.run_bytes(rng.randbytes(rng.randrange(65)), impl)

    return _first_failure(step, cap)


class _TimeUp(Exception):
    pass


def by_hypothesis(target: str, env: dict[str, str], cap: float) -> float | None:
    """Seconds until a plain ``@given`` loop fails the check, or None."""
    from hypothesis import HealthCheck, Phase, given, settings

    from pctfuzz._internal.targets import get_target

    tgt, impl = get_target(target), _impl(env)
    found: list[float] = []
    started = time.monotonic()

    @settings(max_examples=10**8, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(tgt.strategy())
    def loop(case: Any) -> None:
        if time.monotonic() - started > cap:
            raise _TimeUp
        try:
            tgt.check(case, impl)
        except Exception:
            if not found:
                found.append(time.monotonic() - started)
            raise

    with contextlib.suppress(Exception):  # the failure (or _TimeUp), re-raised at the end
        loop()
    return found[0] if found else None


def by_campaign(impl: str, cap: float) -> float | None:
    """Seconds from the start of ``pctfuzz fuzz --impl impl`` (the default campaign: every
    target, the default jobs, an empty store in a scratch folder) until it prints its
    first ``NEW FINDING`` line, or None within ``cap``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
        cmd = [sys.executable, "-m", "pctfuzz", "fuzz", "-q", "--impl", impl,
               "--max-time", str(int(cap) + 1), "--corpus", f"{tmp}/corpus",
               "--findings", f"{tmp}/findings"]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        found: float | None = None
        assert proc.stdout is not None
        for line in proc.stdout:  # (-q: findings and the summary only)
            if found is None and "NEW FINDING" in line:
                found = time.monotonic() - started
                proc.terminate()
        proc.wait()
    return found if found is not None and found <= cap else None


def findings_per_bug(target: str, env: dict[str, str], seconds: float) -> int | None:
    """Findings written by a record-mode campaign of ``seconds`` on ``target`` with one
    planted bug (``env``: ``PCTFUZZ_FAULT`` or ``PCTFUZZ_IMPL``), one process, empty
    corpus and store; None if the campaign failed to run. A fault is no implementation
    the command line names: it is handed to the harness as the campaign's
    ``HarnessSettings(fault=...)``, as ``pctfuzz fuzz`` hands over the project."""
    with tempfile.TemporaryDirectory() as tmp:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(HERE), full_env.get("PYTHONPATH")]))
        campaign = (
            "import sys; from pathlib import Path\n"
            "from pctfuzz._internal.fuzz.campaign import run_campaign\n"
            "from pctfuzz._internal.fuzz.protocol import HarnessSettings\n"
            "target, seconds, tmp, impl, fault = sys.argv[1:]\n"
            "run_campaign([target], max_time=float(seconds), jobs=1, impl=impl or 'urllib',\n"
            "             corpus=Path(tmp, 'corpus'), findings=Path(tmp, 'findings'),\n"
            "             handoff=HarnessSettings(fault=fault or None))\n")
        cmd = [sys.executable, "-c", campaign, target, str(max(1, int(seconds))), tmp,
               env.get("PCTFUZZ_IMPL", ""), env.get("PCTFUZZ_FAULT", "")]
        proc = subprocess.run(cmd, cwd=tmp, env=full_env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False)
        if proc.returncode != 0:
            return None
        return len(list(Path(tmp, "findings").glob("*.json")))


RUNNERS: dict[str, Callable[[str, dict[str, str], float], float | None]] = {
    "atheris": by_atheris, "hypothesis": by_hypothesis, "random": by_random}


def _fmt(took: float | None) -> str:
    return "-" if took is None else f"{took:.2f}"


def _count(n: int | None) -> str:
    return "-" if n is None else str(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=10.0, help="seconds per fault and driver")
    parser.add_argument("--quick", action="store_true", help=f"only {len(QUICK)} faults")
    parser.add_argument("--drivers", nargs="*", default=list(DRIVERS), choices=DRIVERS)
    parser.add_argument("--faults", nargs="*", help="fault names (default: all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-findings", action="store_true",
                        help="skip the findings-per-bug campaigns (one of --cap s per fault)")
    parser.add_argument("--no-campaign", action="store_true",
                        help="skip the default campaign's time to its first finding")
    args = parser.parse_args()

    faults = all_faults()
    names = args.faults or (list(QUICK) if args.quick else list(faults))
    unknown = [n for n in names if n not in faults]
    if unknown:
        print(f"bench_ttb: unknown fault(s) {', '.join(unknown)}; known: {', '.join(faults)}",
              file=sys.stderr)
        return 2
    load = os.getloadavg()
    results: dict[str, dict[str, float | None]] = {}
    per_bug: dict[str, int | None] = {}
    for name in names:
        target, env = faults[name]
        results[name] = {d: RUNNERS[d](target, env, args.cap) for d in args.drivers}
        if not args.no_findings:
            per_bug[name] = findings_per_bug(target, env, args.cap)
        if not args.json:
            print(f"  {name:<24}{target:<13}"
                  + "".join(f"{_fmt(results[name][d]):>12}" for d in args.drivers)
                  + (f"{_count(per_bug[name]):>18}" if not args.no_findings else ""),
                  file=sys.stderr, flush=True)
    summary = {}
    for driver in args.drivers:
        times = [results[n][driver] for n in names]
        capped = [args.cap if t is None else t for t in times]
        summary[driver] = {"found": sum(t is not None for t in times), "of": len(times),
                           "median_s": statistics.median(capped), "worst_s": max(capped)}
    # The end-to-end figure: `pctfuzz fuzz` as a user starts it, on urllib with
    # "~" percent-encoded (ttb_faults.TildeEncoded), until its first finding.
    campaign = None if args.no_campaign else by_campaign("ttb_faults:TildeEncoded", args.cap)
    if args.json:
        print(json.dumps({"cap_s": args.cap, "loadavg": load, "faults": results,
                          "summary": summary, "campaign_first_finding_s": campaign,
                          "findings_per_bug": per_bug}, indent=2))
        return 0
    print(f"time to first finding, empty corpus, cap {args.cap:g} s per fault and driver "
          f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores; "
          "atheris includes ~1 s start-up)")
    column = "" if args.no_findings else f"{'findings per bug':>18}"
    print(f"{'fault':<24}{'target':<13}" + "".join(f"{d:>12}" for d in args.drivers)
          + column)
    for name in names:
        print(f"{name:<24}{faults[name][0]:<13}"
              + "".join(f"{_fmt(results[name][d]):>12}" for d in args.drivers)
              + ("" if args.no_findings else f"{_count(per_bug[name]):>18}"))
    for label, key in (("found", None), ("median s", "median_s"), ("worst s", "worst_s")
                       ) if args.drivers else ():
        cells = []
        for d in args.drivers:
            s = summary[d]
            if key is None:
                cells.append(f"{s['found']}/{s['of']}")
            else:
                value = float(s[key])
                over = key == "worst_s" and s["found"] < s["of"]
                cells.append((">" if over else "") + f"{value:.2f}")
        print(f"{label:<37}" + "".join(f"{c:>12}" for c in cells))
    if per_bug:
        counts = [n for n in per_bug.values() if n is not None]
        print(f"findings per bug ({args.cap:g} s record-mode campaign per fault, one process): "
              f"mean {statistics.mean(counts):.2f}, max {max(counts)}" if counts else
              "findings per bug: no campaign ran")
    if not args.no_campaign:
        print("default campaign (`pctfuzz fuzz --impl ttb_faults:TildeEncoded`, every target, "
              f"empty store): first finding at {_fmt(campaign)} s from start"
              + ("" if campaign is not None else f" (none within {args.cap:g} s)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
