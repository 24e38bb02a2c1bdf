#!/bin/sh
# The MNIST sample end to end, each command printed before it runs:
#   generate  make_mnist_model.py: mnist.onnx, mnist_input.npy, mnist_expected.npy
#   import    kiln-import-onnx mnist.onnx -o mnist.mlir
#   compile   kiln-compile mnist.mlir --iree-hal-target-backends=<DEVICE's> -o mnist_DEVICE.kmod
#   run       kiln-run-module on DEVICE, the result checked against mnist_expected.npy
# Exits 77 (ctest's skip code here), saying why, when DEVICE is not available
# (after compiling: the compile step runs everywhere).
#
# usage: run_mnist.sh BIN_DIR DEVICE(cpu|vulkan|cuda) WORK_DIR [PYTHON]
#   PYTHON: an interpreter with numpy and onnx (default /usr/bin/python3)
set -eu
if [ $# -lt 3 ]; then
  echo "usage: run_mnist.sh BIN_DIR DEVICE(cpu|vulkan|cuda) WORK_DIR [PYTHON]" >&2
  exit 2
fi
bin="$1"
device="$2"
work="$3"
python="${4:-/usr/bin/python3}"
if ! "${python}" -c 'import numpy, onnx' 2>/dev/null; then
  python=python3  # numpy and onnx may belong to the python3 on PATH
fi
here="$(cd "$(dirname "$0")" && pwd)"
case "${device}" in
  cpu) backend=llvm-cpu ;;
  vulkan) backend=vulkan-spirv ;;
  cuda) backend=cuda ;;
  *) echo "run_mnist.sh: unknown device '${device}' (cpu, vulkan or cuda)" >&2; exit 2 ;;
esac

shown() {
  echo "+ $*"
  "$@"
}

mkdir -p "${work}"
shown "${python}" "${here}/make_mnist_model.py" --out-dir "${work}"
# The model is small (37 KB): every weight stays inline in the .mlir
# (a large model's go to a .safetensors file: see README.md).
shown "${bin}/kiln-import-onnx" "${work}/mnist.onnx" -o "${work}/mnist.mlir" --param-threshold=-1
shown "${bin}/kiln-compile" "${work}/mnist.mlir" --iree-hal-target-backends="${backend}" \
  -o "${work}/mnist_${device}.kmod"

# A device that kiln-run-module lists as unavailable (or not at all) skips.
devices="$("${bin}/kiln-run-module" --list_devices 2>&1 || true)"
if ! printf '%s\n' "${devices}" | grep -E "^${device}(://[0-9]+)?(  |$)" | grep -vq '  unavailable: '; then
  echo "skipped: no available ${device} device:"
  printf '%s\n' "${devices}" | grep -E "^${device}" || true
  exit 77
fi
# The probabilities of the ten digits, printed, then compared with the numpy
# reference's within 1e-4 (absolute; they sum to 1).
shown "${bin}/kiln-run-module" --device="${device}" --module="${work}/mnist_${device}.kmod" \
  --function=mnist --input=@"${work}/mnist_input.npy" \
  --expected_output=@"${work}/mnist_expected.npy" --expected_f32_threshold=1e-4
