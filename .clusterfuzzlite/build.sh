#!/bin/bash -eu
# Build the pctfuzz atheris fuzzers for ClusterFuzzLite or OSS-Fuzz.
#
# Runs inside gcr.io/oss-fuzz-base/base-builder-python with the working directory at
# the repository (the Dockerfile's WORKDIR) and $OUT set; compile_python_fuzzer is the
# builder's helper (pyinstaller, then a launcher script named after the fuzzer).
# For every harness/fuzz_<target>.py it writes to $OUT:
#   fuzz_<target>                  the fuzzer (name = script basename without .py)
#   fuzz_<target>_seed_corpus.zip  the files of corpus/<target>, flat
#   fuzz_<target>.dict             the libFuzzer dictionary, from the package data
#                                  (src/pctfuzz/data/dicts; harness/<target>.dict links there)
#   fuzz_<target>.options          libFuzzer options (max_len as in `pctfuzz fuzz`)
# The fuzzers run in crash mode (no PCTFUZZ_FINDINGS): a failed check is a crash.

pip3 install .

built=0
for fuzzer in harness/fuzz_*.py; do
  [ -f "$fuzzer" ] || continue
  name=$(basename -s .py "$fuzzer")
  target=${name#fuzz_}
  if [[ ! "$target" =~ ^[A-Za-z0-9_-]+$ ]]; then
    echo "build.sh: skipping $fuzzer: target names use letters, digits, _ and -" >&2
    continue
  fi

  # Checks and adapters are imported lazily: bundle the whole package.
  compile_python_fuzzer "$fuzzer" --collect-submodules pctfuzz

  if [ -d "corpus/$target" ]; then
    python3 - "corpus/$target" "$OUT/${name}_seed_corpus.zip" <<'PY'
import os
import sys
import zipfile

folder, archive = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if not entry.name.startswith(".") and entry.is_file(follow_symlinks=False):
            out.write(entry.path, entry.name)
PY
  fi
  if [ -f "src/pctfuzz/data/dicts/$target.dict" ]; then
    cp "src/pctfuzz/data/dicts/$target.dict" "$OUT/$name.dict"
  fi
  printf '[libfuzzer]\nmax_len = 4096\n' > "$OUT/$name.options"
  built=$((built + 1))
done

if [ "$built" -eq 0 ]; then
  echo "build.sh: no harness/fuzz_*.py found in $PWD" >&2
  exit 1
fi
echo "build.sh: built $built fuzzer(s) into $OUT"
