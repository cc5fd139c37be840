#!/usr/bin/env bash
# gpu_compare.py on a lent NVIDIA machine, from what `make gpu-bundle` put in .device: unpack the
# Vulkan loader, install the wheel beside the machine's PyTorch, run, and keep the results in $OUT.
# With GPU_TESTS=1 the wgpu test files run after it on the same GPU, with GPU_TESTS=all the whole
# Python suite (where a real GPU makes `cuda` available; log in $OUT/pytest.log).
set -euo pipefail
for deb in .device/gl/*.deb; do dpkg -x "$deb" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; fi
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .device/rstorch-*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv || true
python3 benches/gpu_compare.py --json "$out/gpu_compare.json" "$@" 2>&1 | tee "$out/gpu_compare.log"
if [ "${GPU_TESTS:-0}" != 0 ]; then
    # From outside the checkout, so that `import rstorch` finds the wheel, not python/.
    root=$PWD
    tests=("$root"/tests/python/test_wgpu*.py "$root"/tests/python/test_cuda_gpu.py)
    if [ "$GPU_TESTS" = all ]; then tests=("$root"/tests/python); fi
    (cd /tmp && python3 -m pytest -q -p no:cacheprovider "${tests[@]}" 2>&1 | tee "$out/pytest.log" | tail -15)
fi
