"""``fuzz.staging``: every whole input libFuzzer wrote to its private folder reaches the
corpus, once; a file cut short by a kill never does (its name is not its sha1)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pctfuzz._internal.fuzz.staging import stage_for_reading, unstage
from pctfuzz._internal.store import Corpus


def _write(folder: Path, data: bytes) -> str:
    name = hashlib.sha1(data).hexdigest()
    (folder / name).write_bytes(data)
    return name


def test_every_whole_input_reaches_the_corpus_once(tmp_path: Path) -> None:
    store = Corpus(tmp_path / "corpus")
    store.add("decode", b"%41")
    staging, reads = stage_for_reading(store, "decode")
    # An all-plain corpus folder is read in place: the private folder starts empty.
    assert reads == (store.dir("decode"),) and not any(staging.iterdir())
    written = [_write(staging, b"a%%%d" % n) for n in range(50)]
    (staging / hashlib.sha1(b"whole").hexdigest()).write_bytes(b"who")  # cut short
    (staging / ".tmp-libfuzzer").write_bytes(b"x")
    known: set[str] = set()
    lost: list[str] = []
    assert unstage(store, "decode", staging, known=known, remove=False, lost=lost) == 50
    # A slice's end imports, then the slot's end again: nothing counted twice.
    later = _write(staging, b"%zz")
    assert unstage(store, "decode", staging, known=known, lost=lost) == 1
    names = {p.name for p in store.dir("decode").iterdir()}
    assert names == {*written, later, Corpus.name_for(b"%41")} and not lost
    assert not staging.exists()
