"""JUnit XML from a results document: one testcase per target (a failure lists its new
findings) and one per replayed input or open finding replayed at the end of a campaign
(a failure when it reproduces, an error when it is unusable). Characters XML 1.0
cannot hold (section 2.2, ``Char``) are written as escapes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pctfuzz._internal.text import one_line

__all__ = ["to_junit"]

_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold written as an escape."""
    return _XML_BAD.sub(lambda m: ascii(m[0])[1:-1], text)


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    node = ET.SubElement(parent, tag, {k: _xml_text(str(v)) for k, v in attrs.items()})
    if text is not None:
        node.text = _xml_text(text)
    return node


def to_junit(document: Mapping[str, Any]) -> str:
    """JUnit XML: a testcase per target, and per replayed input (module docstring)."""
    command = document["command"]
    by_id = {f["id"]: f for f in document["findings"]}
    root = ET.Element("testsuites", {"name": f"pctfuzz {command}"})
    suite = _el(root, "testsuite", name=f"pctfuzz.{command}", timestamp=document["started"],
                time=f"{document['seconds']:.3f}")
    tests = failures = errors = 0
    for target in document["targets"]:
        tests += 1
        case = _el(suite, "testcase", classname=f"pctfuzz.{command}", name=target["target"],
                   time=f"{target.get('seconds', 0):.3f}")
        if command == "fuzz":
            new = [by_id[i] for i in target["new_findings"] if i in by_id]
            out = (f"processes={target['workers']} execs={target['execs']} "
                   f"exec/s={target['exec_per_s']} cov={target['cov']} ft={target['ft']} "
                   f"corpus={target['corpus_units']} new={len(target['new_findings'])} "
                   f"known={len(target['known_findings'])}")
            if target["new_findings"]:
                failures += 1
                lines = [f"{f['id']} {f['path']}: {f['summary']}" for f in new]
                _el(case, "failure", "\n".join(lines) or " ".join(target["new_findings"]),
                    message=f"{len(target['new_findings'])} new finding(s) in "
                    f"{target['target']}", type="new-finding")
        else:
            out = f"replayed={target.get('replayed', 0)} reproduced={target.get('reproduced', 0)}"
        _el(case, "system-out", out)
        if target.get("problems"):
            errors += 1
            _el(case, "error", "\n".join(target["problems"]),
                message=one_line("; ".join(target["problems"]), 200), type="incomplete")
        if target["errors"]:
            _el(case, "system-err", "\n".join(target["errors"]))
    findings_by_path = {f["path"]: f for f in document["findings"]}
    new_ids = {f["id"] for f in document["findings"] if f["new"] is True}
    for replay in document["replays"]:
        if command == "fuzz" and replay["finding_id"] in new_ids:
            continue  # a failure of its target's testcase already
        tests += 1
        name = replay["finding_id"] or Path(replay["path"]).name
        case = _el(suite, "testcase", classname=f"pctfuzz.replay.{replay['target']}",
                   name=name, file=replay["path"])
        if replay["reproduces"]:
            failures += 1
            finding = findings_by_path.get(replay["path"])
            kind = finding["kind"] if finding else "reproduction"
            _el(case, "failure", replay["evidence"], type=kind,
                message=f"reproduces: {one_line(replay['evidence'], 200)}")
    for error in document["errors"]:
        if command == "fuzz" and error["target"] is not None:
            continue  # already in its target's system-err
        tests += 1
        errors += 1
        case = _el(suite, "testcase", classname=f"pctfuzz.{command}",
                   name=error["path"] or "error")
        _el(case, "error", error["message"], message=one_line(error["message"], 200),
            type="unusable-input")
    for node in (suite, root):
        node.set("tests", str(tests))
        node.set("failures", str(failures))
        node.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"

