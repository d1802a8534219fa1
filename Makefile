# Two entry points for a bare machine with python3: `make fuzz` and `make test`
# (`make test-slow` runs the longer tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
MAX_TIME ?= 60
export HYPOTHESIS_PROFILE ?= ci

.PHONY: fuzz test test-slow lint bench coverage docs dicts clean oss-fuzz-check oss-fuzz-user-check peers

$(STAMP): pyproject.toml src/pctfuzz/peers/node/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,impls,all]'
	if command -v npm >/dev/null; then npm ci --no-audit --no-fund --silent --prefix src/pctfuzz/peers/node; else echo "npm not found: the Node.js peers are not available (docs/protocol.md)"; fi
	touch $(STAMP)

## The main job: a bounded fuzz campaign over every target against urllib.parse. It
## starts from a copy of the committed seeds (corpus/) and records into out/ (git-ignored),
## so a clone stays clean: `make fuzz CORPUS=corpus FINDINGS=findings` records into the
## committed corpus and findings, on purpose.
FUZZ_OUT ?= out
CORPUS   ?= $(FUZZ_OUT)/corpus
FINDINGS ?= $(FUZZ_OUT)/findings
fuzz: $(STAMP)
ifneq ($(CORPUS),corpus)
	mkdir -p $(CORPUS) && cp -R corpus/. $(CORPUS)/
endif
	$(VENV)/bin/pctfuzz fuzz --max-time $(MAX_TIME) --corpus $(CORPUS) --findings $(FINDINGS)

## The test suite under the derandomized `ci` Hypothesis profile, then lint and types:
## minutes on two cores. Two pytest workers (pytest-xdist). The tests marked slow
## (real campaigns, end-to-end runs, signals, kills) are `make test-slow`'s; .ci/run
## runs both.
test: $(STAMP)
	$(PY) -m pytest -n 2 -m "not slow"
	$(VENV)/bin/ruff check src tests harness benchmarks
	$(VENV)/bin/mypy src

## The slow tests: each waits on its own campaign or process, so two at a time.
test-slow: $(STAMP)
	$(PY) -m pytest -n 2 -m slow

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests harness benchmarks
	$(VENV)/bin/mypy src

## Quick variants, under 2 minutes in all: exec/s with its ceilings, time to first
## finding per driver, the encoder against urllib (and yarl-C/ada where merged).
bench: $(STAMP)
	$(PY) benchmarks/bench_fuzz.py --quick
	$(PY) benchmarks/bench_ttb.py --quick --cap 10
	$(PY) benchmarks/bench_reference.py --quick

docs: $(STAMP)
	$(PY) -m pctfuzz._internal.accept.catalogue_text .
	$(PY) -c 'import pathlib; from pctfuzz._internal.checks.registry.render import docs_text; \
	p = pathlib.Path("docs/divergences.md"); p.write_text(docs_text(p.read_text().split("| id |")[0]))'
	$(PY) tests/support/cli_doc.py
	$(PY) -c 'import pathlib, re; from pctfuzz._internal.reports.matrix_changes import changes_table; \
	p = pathlib.Path("docs/peers.md"); p.write_text(re.sub("(?s)(<!-- changes-table -->\n).*?(<!-- /changes-table -->)", \
	lambda m: m[1] + changes_table() + m[2], p.read_text()))'

## The libFuzzer dictionaries, rendered from the grammar (src/pctfuzz/_internal/grammar.py).
dicts: $(STAMP)
	$(PY) -c 'import pathlib; from pctfuzz._internal.grammar import dictionary; \
	from pctfuzz._internal.targets import TARGETS; \
	[pathlib.Path(f"src/pctfuzz/data/dicts/{t}.dict").write_text(dictionary(t)) for t in TARGETS]'

coverage: $(STAMP)
	$(VENV)/bin/pctfuzz coverage

## OSS-Fuzz's packaging for real (not part of `make test`): build.sh with a copy of the
## builder's compile_python_fuzzer (PyInstaller onefile), then each fuzzer for 5 s from
## its seed corpus (OSSFUZZ_MAX_TIME=5; SANITIZER=address or undefined). Its own venv,
## pinned as the builder image's install_python.sh pins.
OSSFUZZ_VENV := .venv-ossfuzz
OSSFUZZ_MAX_TIME ?= 5
$(OSSFUZZ_VENV)/.installed:
	$(PYTHON) -m venv $(OSSFUZZ_VENV)
	$(OSSFUZZ_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OSSFUZZ_VENV)/bin/python -m pip install --quiet "atheris>=2.3.0" "pyinstaller==6.10.0" "setuptools==72.1.0"
	touch $@

oss-fuzz-check: $(OSSFUZZ_VENV)/.installed
	MAX_TIME=$(OSSFUZZ_MAX_TIME) .clusterfuzzlite/oss_fuzz_check $(OSSFUZZ_VENV)

## A user's project (tests/support/user_project.py) through `pctfuzz oss-fuzz init` and
## the same build: its fuzzer must find the project's planted bug (about 2 minutes per
## build; not part of `make test`). pctfuzz is installed into the venv first: the
## project's build.sh installs pctfuzz by version, as from PyPI.
oss-fuzz-user-check: $(OSSFUZZ_VENV)/.installed $(STAMP)
	$(OSSFUZZ_VENV)/bin/python -m pip install --quiet .
	PCTFUZZ_OSSFUZZ_VENV=$(OSSFUZZ_VENV) $(PY) -m pytest -q -s -p no:cacheprovider tests/integration/test_oss_fuzz_user.py

## The peers in other languages (docs/peers.md), on a Debian machine as root: the
## runtimes from Debian's packages (one apt-get update), then the Go, Java, Haskell,
## Nim, Qt (C++), GLib (C) and C# (Mono) peers built into src/pctfuzz/peers/build/
## (git-ignored; PCTFUZZ_PEER_BUILD moves it). Go and Nim build from their standard
## libraries only, Haskell from base and Debian's network-uri, the Qt peer from Debian's
## QtCore, the GLib peer from Debian's GLib and json-glib, the C# peer from Mono's class
## libraries: nothing is downloaded. The JavaScript
## runtimes besides Node.js (Bun) are npm packages, pinned in
## src/pctfuzz/peers/engines/package-lock.json and installed with npm ci into the
## build folder; they run the Node.js peer's peer.js. The PHP, Ruby, Perl, Lua, Tcl, R,
## Erlang (escript) and Elixir peers run from their source: nothing to build.
PEER_BUILD ?= src/pctfuzz/peers/build
PEER_DEBS  := golang-go php-cli ruby liburi-perl libcurl4 openjdk-17-jdk-headless \
              lua5.4 lua-socket tcl tcllib r-base-core r-cran-jsonlite \
              ghc libghc-network-uri-dev nim gcc erlang-base elixir \
              qt6-base-dev g++ pkg-config libglib2.0-dev libjson-glib-dev mono-complete
peers:
	@missing=""; for p in $(PEER_DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "make peers: not root; install with apt-get:$$missing"; exit 2; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$$missing >/dev/null; \
	fi
	@$(MAKE) --no-print-directory $(PEER_BUILD)/pctfuzz-go-peer $(PEER_BUILD)/java/Peer.class \
	  $(PEER_BUILD)/pctfuzz-haskell-peer $(PEER_BUILD)/pctfuzz-nim-peer \
	  $(PEER_BUILD)/pctfuzz-qt-peer $(PEER_BUILD)/pctfuzz-glib-peer $(PEER_BUILD)/csharp/Peer.exe \
	  $(PEER_BUILD)/engines/.installed

# Built only when the source is newer: `make peers` on a ready machine does nothing.
$(PEER_BUILD)/pctfuzz-go-peer: src/pctfuzz/peers/go/peer.go
	mkdir -p $(PEER_BUILD)
	cd src/pctfuzz/peers/go && GOPROXY=off GO111MODULE=off CGO_ENABLED=0 \
	  go build -trimpath -o $(abspath $(PEER_BUILD))/pctfuzz-go-peer peer.go

$(PEER_BUILD)/java/Peer.class: src/pctfuzz/peers/java/Peer.java
	mkdir -p $(PEER_BUILD)/java
	javac -encoding UTF-8 -d $(PEER_BUILD)/java src/pctfuzz/peers/java/Peer.java

# ghc with the network-uri that Debian installed (its version, for the handshake, from
# ghc-pkg); the objects go to build/haskell/.
$(PEER_BUILD)/pctfuzz-haskell-peer: src/pctfuzz/peers/haskell/Peer.hs
	mkdir -p $(PEER_BUILD)/haskell
	ghc -O -v0 -package network-uri -outputdir $(PEER_BUILD)/haskell \
	  -DNETWORK_URI_VERSION="\"$$(ghc-pkg --simple-output field network-uri version | tail -n 1)\"" \
	  -o $(PEER_BUILD)/pctfuzz-haskell-peer src/pctfuzz/peers/haskell/Peer.hs

# nim (through gcc); its C files go to build/nimcache/, not ~/.cache/nim.
$(PEER_BUILD)/pctfuzz-nim-peer: src/pctfuzz/peers/nim/peer.nim
	mkdir -p $(PEER_BUILD)
	nim c -d:release --hints:off --verbosity:0 --nimcache:$(abspath $(PEER_BUILD))/nimcache \
	  -o:$(abspath $(PEER_BUILD))/pctfuzz-nim-peer src/pctfuzz/peers/nim/peer.nim

# g++ against Debian's Qt 6 QtCore (pkg-config Qt6Core; -fPIC: Qt 6 requires it).
$(PEER_BUILD)/pctfuzz-qt-peer: src/pctfuzz/peers/qt/peer.cpp
	mkdir -p $(PEER_BUILD)
	g++ -std=c++17 -O2 -fPIC $$(pkg-config --cflags Qt6Core) \
	  -o $(PEER_BUILD)/pctfuzz-qt-peer src/pctfuzz/peers/qt/peer.cpp $$(pkg-config --libs Qt6Core)

# gcc against the GLib (guri.c) and json-glib that Debian installed, through pkg-config.
$(PEER_BUILD)/pctfuzz-glib-peer: src/pctfuzz/peers/glib/peer.c
	mkdir -p $(PEER_BUILD)
	gcc -O2 -Wall -Wextra -o $@ src/pctfuzz/peers/glib/peer.c \
	  $$(pkg-config --cflags --libs glib-2.0 json-glib-1.0)

# mcs against Mono's System.Web (HttpUtility); mono runs Peer.exe.
$(PEER_BUILD)/csharp/Peer.exe: src/pctfuzz/peers/csharp/Peer.cs
	mkdir -p $(PEER_BUILD)/csharp
	mcs -nologo -warnaserror -optimize+ -r:System.Web.dll -out:$@ src/pctfuzz/peers/csharp/Peer.cs

# npm ci again only when the pinned versions change.
ENGINES := src/pctfuzz/peers/engines
$(PEER_BUILD)/engines/.installed: $(ENGINES)/package.json $(ENGINES)/package-lock.json
	@command -v npm >/dev/null || { echo "make peers: npm not found: the Bun peer is not available"; exit 2; }
	mkdir -p $(PEER_BUILD)/engines
	cp $(ENGINES)/package.json $(ENGINES)/package-lock.json $(PEER_BUILD)/engines/
	npm ci --no-audit --no-fund --silent --prefix $(PEER_BUILD)/engines
	touch $@

clean:
	rm -rf $(VENV) $(OSSFUZZ_VENV) .hypothesis .pytest_cache .mypy_cache .ruff_cache htmlcov .coverage
