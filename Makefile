# User entry points. Everything installs and builds what it needs:
#   sudo make testbed    the BCube paper's testbed (BCube_1, n=4) on Mininet
#   sudo make test       every test: C unit tests (sanitized), CLI and integration tests
SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
BUILD      ?= build
TEST_BUILD ?= build-test
JOBS       ?= $(shell nproc)
PYTHON     := /usr/bin/python3

# Debian 12 packages the project needs; nothing comes from pip. `make build`
# needs only BUILD_PACKAGES, `make simulations` those and SIM_PACKAGES; the
# testbed, the tests and the experiments need them all. Those two targets
# ask dpkg only when what the packages provide is missing (BUILD_HAVE, SIM_HAVE).
BUILD_PACKAGES := build-essential cmake pkg-config check libev-dev libnl-3-dev libnl-route-3-dev \
                  libpcap-dev clang libbpf-dev
SIM_PACKAGES   := python3-matplotlib
PY_PACKAGES    := python3-venv python3-pip python3-setuptools python3-wheel
APT_PACKAGES   := $(BUILD_PACKAGES) $(SIM_PACKAGES) $(PY_PACKAGES) openvswitch-switch mininet iperf3 ethtool iproute2 procps \
                  tcpdump python3-pytest iputils-ping valgrind tshark libclang-rt-dev openssh-client openssh-server sudo \
                  chromium python3-websocket

.PHONY: all deps build-deps sim-deps python build test test-unit test-integration bench simulations testbed clean-testbed clean help experiments wireshark-plugin fuzz soak

all: build

help:
	@echo "sudo make testbed   bring up the emulated testbed (TOPO=\"bcube n=4 k=1\", VIEW=8080 for the live view)"
	@echo "sudo make test      run every test"
	@echo "make build          build dcn-topo and the library (Release, in $(BUILD)/)"
	@echo "make python         the Python packages, editable, in $(VENV)/ (offline, Debian's Python)"
	@echo "make bench          run the benchmarks"
	@echo "sudo make experiments   rerun the papers' testbed experiments into results/"
	@echo "make simulations    rerun the papers' simulated figures (dcn-sim, results/sim-*)"
	@echo "sudo make deps      install the Debian packages (make build checks only the compilers' and libraries')"
	@echo "make wireshark-plugin   install the DCN dissector for Wireshark/tshark (docs/inspection.md)"
	@echo "make fuzz           run every libFuzzer harness FUZZ_SECONDS (60) each"
	@echo "sudo make soak DURATION=30m   TCP traffic under random failures into results/soak/ (docs/soak.md)"

# What the package sets provide, tested without dpkg in a few stat calls:
# the compilers and CMake on PATH, the libraries by pkg-config (libev, which
# has no .pc file, by its header), the Python modules by find_spec (not imported)
BUILD_HAVE := type -P cc cmake pkg-config clang >/dev/null && \
              pkg-config --exists libpcap libnl-3.0 libnl-route-3.0 libbpf check && test -e /usr/include/ev.h
PY_FIND     = $(PYTHON) -c 'import importlib.util as u; import sys; sys.exit(not all(map(u.find_spec, sys.argv[1:])))'
SIM_HAVE   := $(PY_FIND) matplotlib
PY_HAVE    := $(PY_FIND) venv pip setuptools wheel

# $(call need,PACKAGES[,PRESENT]): nothing when the shell test PRESENT passes
# (what the packages provide is there); otherwise one dpkg-query for them
# all, then installs the missing ones as root, or names them and fails
need = @if ! { $(or $(2),false); } 2>/dev/null; then \
	missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(1) 2>/dev/null | \
	  awk '$$NF == "installed" {ok[$$1] = 1} END {n = split("$(strip $(1))", w, " "); \
	  for (i = 1; i <= n; i++) if (!ok[w[i]]) printf " %s", w[i]}'); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "deps: missing$$missing; run 'sudo make deps'" >&2; exit 1; fi; \
	  echo "deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi; \
	fi

deps:
	$(call need,$(APT_PACKAGES))
	@echo "deps: all $(words $(APT_PACKAGES)) packages present"

build-deps:
	$(call need,$(BUILD_PACKAGES),$(BUILD_HAVE))

# the simulator is dcn-sim (the build) and matplotlib: no OVS, no Mininet
sim-deps: build-deps
	$(call need,$(SIM_PACKAGES),$(SIM_HAVE))

# The Python packages (pyproject.toml: orchestrator, explib) installed
# editable into a virtual environment over Debian's Python and its python3-*
# packages, offline: no index, no build isolation, no dependencies fetched.
# Optional: the scripts run from the checkout without it (docs/contributing.md).
VENV ?= $(BUILD)/venv
python:
	$(call need,$(PY_PACKAGES),$(PY_HAVE))
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv --system-site-packages --without-pip $(VENV)
	@$(VENV)/bin/python -m pip install -q --no-index --no-build-isolation --no-deps -e .
	@echo "python: $(VENV)/bin/python imports orchestrator and explib; $(VENV)/bin/dcn-testbed"

build: build-deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

$(TEST_BUILD)/CMakeCache.txt:
	@cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DDCN_SANITIZE=ON >/dev/null

# DCN_DOCS_BUILD_DIR: the documented commands (ctest doc_commands) run on the
# Release build the docs name, not on the sanitized one
test-unit: deps build $(TEST_BUILD)/CMakeCache.txt
	@cmake -S . -B $(TEST_BUILD) -DDCN_DOCS_BUILD_DIR=$(abspath $(BUILD)) >/dev/null
	@cmake --build $(TEST_BUILD) -j $(JOBS)
	@cd $(TEST_BUILD) && DCN_TEST_NO_SKIP=1 ctest --output-on-failure -j $(JOBS)

# Root integration tests in network namespaces (tests/integration/run.sh runs
# every tests/integration/test_*.sh and the pytest files, one at a time).
test-integration: test-unit
	@tests/integration/run.sh $(TEST_BUILD)

test: test-unit test-integration

TOPO ?= bcube n=4 k=1
TESTBED_ARGS ?=
# CLUSTER="host1 host2": the same network spread over these machines (docs/cluster.md)
CLUSTER ?=
# VIEW=8080: the live view on http://127.0.0.1:8080/ while the testbed is up (docs/view.md)
VIEW ?=
testbed: deps build
	@$(PYTHON) orchestrator/dcn_testbed.py --build-dir $(BUILD) --topo "$(TOPO)" $(TESTBED_ARGS) $(if $(strip $(CLUSTER)),--cluster "$(strip $(CLUSTER))") $(if $(strip $(VIEW)),--view $(strip $(VIEW)))

clean-testbed:
	@$(PYTHON) orchestrator/dcn_testbed.py --clean

# bench: every benchmark binary, then every executable script of tests/bench
# (helpers such as ovs_bench_lib.sh and forwarding_summary.py are not executable)
bench: deps build
	@for b in $(BUILD)/tests/bench/bench_*; do if [ -x "$$b" ]; then "$$b" || exit 1; fi; done
	@for s in tests/bench/*.sh tests/bench/*.py; do if [ -f "$$s" ] && [ -x "$$s" ]; then "$$s" $(BUILD) || exit 1; fi; done

# The papers' testbed experiments (root; each brings up and tears down its own
# network), then results/README.md. EXPERIMENT_ARGS go to every script.
EXPERIMENTS ?= capacity bcube-forwarding bcube-one-to-one bcube-one-to-several bcube-one-to-all bcube-all-to-all \
               mdcube-one-to-one mdcube-c2c mdcube-c2c-all-to-all mdcube-all-to-all mdcube-failures
EXPERIMENT_ARGS ?=
# HCN/BCN and BCDC: one script per pattern, run once per family (results/<family>-<pattern>/)
FAMILY_EXPERIMENTS ?= family-one-to-one family-one-to-several family-one-to-all family-all-to-all
FAMILIES ?= hcn bcn bcdc
experiments: deps build
	@for e in $(EXPERIMENTS); do echo "=== experiments/$$e"; experiments/$$e $(EXPERIMENT_ARGS) || echo "experiments/$$e: exit $$?"; done
	@for f in $(FAMILIES); do for e in $(FAMILY_EXPERIMENTS); do echo "=== experiments/$$e --family $$f"; experiments/$$e --family $$f $(EXPERIMENT_ARGS) || echo "experiments/$$e --family $$f: exit $$?"; done; done
	@experiments/bcube-summary
	@experiments/mdcube-summary
	@PYTHONPATH=experiments $(PYTHON) -m explib.report

# The Wireshark/tshark dissector (tools/wireshark/dcn.lua) into the user's
# personal Lua plugin folder, where Wireshark and tshark load it at start.
WIRESHARK_PLUGIN_DIR ?= $(HOME)/.local/lib/wireshark/plugins
wireshark-plugin:
	@mkdir -p "$(WIRESHARK_PLUGIN_DIR)"
	@install -m 644 tools/wireshark/dcn.lua "$(WIRESHARK_PLUGIN_DIR)/dcn.lua"
	@echo "installed $(WIRESHARK_PLUGIN_DIR)/dcn.lua"

# libFuzzer harnesses (tests/fuzz/), built with clang in build-fuzz/, each
# run FUZZ_SECONDS; FUZZ_REPORT=1 also writes its section of results/reliability.md.
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
fuzz: deps
	@tests/fuzz/run_fuzz.sh --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS) $(if $(FUZZ_REPORT),--report results/reliability.md)

# The soak (docs/soak.md): DURATION (seconds, or 30m, 1h) of TCP connections
# between rotating pairs while a seeded schedule fails and restores links,
# switches and servers; BCube_1 n=4 then HCN(4,1); writes results/soak/
# (the default data path, the kernel's; SOAK_ARGS="--data-path agent": results/soak-agent/).
# SOAK_ARGS go to experiments/soak (--seed, --concurrency, --out, ...).
DURATION  ?= 30m
SOAK_ARGS ?=
soak: deps build
	@experiments/soak --duration $(DURATION) --build-dir $(BUILD) $(SOAK_ARGS)

# The papers' simulated figures and tables (dcn-sim, docs/simulator.md):
# every experiments/sim/fig_*.py writes its own results/sim-*/ folder.
# DCN_SIM_THREADS=1 runs dcn-sim on one thread (default: its own, 2).
simulations: sim-deps build
	@t0=$$(date +%s); for s in experiments/sim/fig_*.py; do echo "== $$s"; t=$$(date +%s); \
	  DCN_BUILD=$(abspath $(BUILD)) nice -n 19 $(PYTHON) "$$s" || exit 1; \
	  echo "== $$s: $$(( $$(date +%s) - t )) s"; done; echo "== simulations: $$(( $$(date +%s) - t0 )) s in total"

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(FUZZ_BUILD)
