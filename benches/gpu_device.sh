#!/usr/bin/env bash
# gpu_compare.py on a lent NVIDIA machine, from what `make gpu-bundle` put in .device: unpack the
# Vulkan loader, install the wheel beside the machine's PyTorch, run, and keep the results in $OUT.
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
