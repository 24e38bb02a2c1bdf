#!/usr/bin/env bash
# kiln's GPU checks, run on the GPU machine from the repository root with a
# pack of a build made here (tests/gpu/pack_gpu_build.sh): every `gpu` ctest
# test, then the GPU dispatch benchmark and the PyTorch baselines, in one run.
# Writes OUT_DIR/summary.md, tests.log, bench.json, torch.json, bench.log.
#
# usage: tests/gpu/run_gpu_checks.sh PACK_DIR OUT_DIR [run_gpu_checks.py flags]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Vulkan on the GPU machine needs a loader (carried as .deb files in .gl,
# see ../shared/GPU.md) and NVIDIA's ICD.
if compgen -G ".gl/*.deb" > /dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [[ -z "${VK_DRIVER_FILES:-}" ]]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
             /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
             $(find / -xdev -name 'nvidia_icd*.json' 2>/dev/null | head -1); do
    if [[ -f "${icd}" ]]; then
      export VK_DRIVER_FILES="${icd}"
      break
    fi
  done
fi
echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
exec python3 "${here}/run_gpu_checks.py" "$@"
