#!/usr/bin/env bash
# Packs a build folder for the GPU machine (see README.md): everything the
# `gpu`-labelled ctest tests and the GPU benchmarks need, with executables
# stripped, plus lit, FileCheck and `not` from this machine's llvm-15-tools
# (the GPU machine has none), and the list of `gpu` tests as ctest describes
# them. The pack is one compressed tarball, small enough to travel.
#
# usage: tests/gpu/pack_gpu_build.sh BUILD_DIR PACK_DIR
#   then carry PACK_DIR and run tests/gpu/run_gpu_checks.sh PACK_DIR OUT_DIR there.
set -euo pipefail
build="$(cd "$1" && pwd)"
pack="$2"
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
staging="$(mktemp -d)"
trap 'rm -rf "${staging}"' EXIT
root="${staging}/kiln-gpu"
mkdir -p "${root}/build" "${root}/tools"

# The build, without objects and build-system state, and without the
# compiler-only test programs (kiln-opt, the compiler's gtests and fuzz
# replay: no GPU test runs them, and with MLIR linked statically each is
# hundreds of MB), and what only cpu tests use: the Python package (built
# for this machine's Python; the GPU machine's needs its own build), the
# install tests' trees, the cpu multi-GPU sample's weights.
(cd "${build}" && find . -type f \
    ! -name '*.o' ! -name '*.a' ! -path '*/CMakeFiles/*' ! -name '.ninja*' \
    ! -name 'build.ninja' ! -name 'CMakeCache.txt' ! -name '*.cmake' ! -path './Testing/*' \
    ! -path '*/fuzz/*corpus*' ! -name kiln-opt ! -name kiln_compiler_fuzz_regression_test \
    ! -name 'kiln_*_target_test' ! -path './python/*' ! -path './tests/install/*' \
    ! -path './samples/multi_gpu/cpu_*' -print0) |
  (cd "${build}" && xargs -0 cp --parents -t "${root}/build")
# Every folder, even those left empty: ctest runs tests in their own.
(cd "${build}" && find . -type d ! -path '*/CMakeFiles*' ! -path './Testing*' -print0) |
  (cd "${root}/build" && xargs -0 mkdir -p)
# Strip debug info from executables and shared objects; kiln-compile (MLIR,
# LLVM and lld linked statically, every LLVM backend with them: lld's driver
# initializes them all) loses its symbol table too.
find "${root}/build" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
  xargs -0 -r sh -c 'for f; do if head -c4 "$f" | grep -q ELF; then strip --strip-debug "$f"; fi; done' _
for tool in kiln-compile kiln-import-onnx; do
  if [[ -f "${root}/build/bin/${tool}" ]]; then strip --strip-all "${root}/build/bin/${tool}"; fi
done

# The kiln tools the e2e suite runs on the GPU machine must be in the pack
# (the copy above takes all of bin/; a build without one is not worth packing).
for tool in kiln-compile kiln-run-module kiln-check-module kiln-dump-module; do
  if [[ ! -x "${root}/build/bin/${tool}" ]]; then
    echo "pack_gpu_build.sh: ${build}/bin/${tool} is missing (build it first)" >&2
    exit 1
  fi
done

# The test tools the e2e suite runs with.
cp -r /usr/lib/llvm-15/build/utils/lit "${root}/tools/lit"
cp "$(readlink -f /usr/bin/FileCheck-15)" "${root}/tools/FileCheck-15"
cp "$(readlink -f /usr/bin/not-15)" "${root}/tools/not-15"
mkdir -p "${root}/tools/lib"
for lib in libz3.so.4 libtinfo.so.6 libbenchmark.so.1debian; do
  cp -L "/lib/x86_64-linux-gnu/${lib}" "${root}/tools/lib/"
done
# kiln-import-onnx (where it is built: the model tests, tests/models, import
# on the GPU machine) links Debian's ONNX and protobuf, which are not there.
if [[ -f "${root}/build/bin/kiln-import-onnx" ]]; then
  for lib in libonnx.so.1 libonnx_proto.so.1 libprotobuf.so.32; do
    cp -L "/usr/lib/x86_64-linux-gnu/${lib}" "${root}/tools/lib/"
  done
fi
# The cpu device's library calls open oneDNN (libdnnl.so.2, Debian's
# libdnnl2) at run time, which the GPU machine lacks; it links libOpenCL.so.1
# (its GPU engine, unused) and libgomp.so.1 (its CPU threads), copied too
# (ldd libdnnl.so.2). Without them the cpu exports run their kernels there.
if [[ -f /usr/lib/x86_64-linux-gnu/libdnnl.so.2 ]]; then
  for lib in libdnnl.so.2 libOpenCL.so.1 libgomp.so.1; do
    cp -L "/usr/lib/x86_64-linux-gnu/${lib}" "${root}/tools/lib/"
  done
fi
# ONNX's node tests (Debian's libonnx-testdata, about 1 MB packed) where
# they are installed: run_onnx_node_tests.py finds them beside bin/.
if [[ -d /usr/share/libonnx-testdata/data/node ]]; then
  cp -r /usr/share/libonnx-testdata/data/node "${root}/build/onnx-node-data"
fi

# The tests to run there, as ctest would run them, with this machine's
# paths: the `gpu` ones, and the Vulkan ones (lavapipe here, NVIDIA's Vulkan
# driver there), the e2e suite on vulkan included.
(cd "${build}" && ctest -L 'gpu|vulkan' --show-only=json-v1) > "${staging}/labelled.json"
(cd "${build}" && ctest -R '^kiln_e2e_vulkan$' --show-only=json-v1) > "${staging}/e2e.json"
python3 - "${staging}/labelled.json" "${staging}/e2e.json" > "${root}/gpu_tests.json" <<'PY'
import json, sys
tests, seen = [], set()
for path in sys.argv[1:]:
    for test in json.load(open(path))["tests"]:
        if test["name"] not in seen:
            seen.add(test["name"])
            tests.append(test)
json.dump({"tests": tests}, sys.stdout)
PY
cat > "${root}/paths.json" <<JSON
{"build": "${build}", "source": "${source_dir}",
 "lit": "/usr/lib/llvm-15/build/utils/lit/lit.py",
 "filecheck": "$(command -v FileCheck-15)", "not": "$(command -v not-15)"}
JSON

mkdir -p "${pack}"
XZ_OPT="-T2" tar -C "${staging}" -cJf "${pack}/kiln-gpu.tar.xz" kiln-gpu
du -h "${pack}/kiln-gpu.tar.xz"
