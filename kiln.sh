#!/usr/bin/env bash
# kiln.sh: one entry point to set up, build, test and demo kiln.
#
#   ./kiln.sh demo            install missing packages, build, run the end-to-end demo
#   ./kiln.sh test [ARGS...]  install missing packages, build, run ctest (ARGS go to ctest)
#   ./kiln.sh build           install missing packages, build
#   ./kiln.sh asan [ARGS...]  build the `asan` preset (ASan+LSan+UBSan) into build-asan, run ctest
#   ./kiln.sh help            this text
#
# Environment:
#   KILN_BUILD_DIR    build directory (default: build)
#   KILN_CMAKE_ARGS   extra arguments for the first cmake configure (word-split)
#
# A second run is fast: packages are checked with dpkg-query (apt is only called when
# something is missing), cmake configures only when <build>/build.ninja does not exist,
# and Ninja does nothing when nothing changed.
set -euo pipefail

# THE list of Debian packages kiln needs; nothing else in the repository repeats it.
#   lua5.4, luajit          : VM benchmarks compare against them
#   llvm-15-tools           : lit + FileCheck for the end-to-end tests
#   clang-14, libclang-rt-14-dev : the libFuzzer/ASan configuration (`cmake --preset fuzz`)
#   libvulkan-dev           : the Vulkan loader and headers (hal/vulkan)
#   mesa-vulkan-drivers     : lavapipe, the CPU Vulkan device the tests run on without a GPU
#   vulkan-validationlayers : the Khronos validation layer the Vulkan tests enable
#   glslc                   : compiles the GLSL compute shaders of samples and tests to SPIR-V
#   spirv-tools             : spirv-val checks every SPIR-V module kiln generates (tests)
#   libmlir-22-dev, mlir-22-tools, llvm-22-dev, liblld-22-dev : the compiler is built on
#                             upstream MLIR/LLVM 22 (bookworm-security)
#   llvm-22-tools           : lit-22, FileCheck and not for the compiler's FileCheck tests
#   libonnx-dev, libprotobuf-dev : kiln-import-onnx reads ONNX models (protobuf, shape inference)
#   nlohmann-json3-dev      : safetensors headers (JSON) in the importer and the runtime
#   python3-onnx, python3-numpy : the ONNX node-test runner and the model sample's generator
#   libonnx-testdata        : ONNX's backend node tests (tests/conformance, label conformance)
#   libxxhash-dev           : the .kmod checksum (XXH3-64, header-only use in vm/module_checksum.cc)
#   pybind11-dev            : the kiln Python package's extension modules (tools/python)
#   libdlpack-dev           : DLPack's header, the Python package's zero-copy tensor exchange
#   libdnnl-dev             : oneDNN 2.x headers; the cpu driver's library calls (matmul,
#                             convolution) open libdnnl.so.2 at run time (hal/cpu/onednn_symbols.h)
#   pkgconf                 : pkg-config, for building against an installed kiln's kiln.pc
#                             (README's "Embedding"; tests/install, label install)
KILN_DEBIAN_PACKAGES=(
  cmake
  ninja-build
  g++
  flatbuffers-compiler
  libflatbuffers-dev
  libcxxopts-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  lua5.4
  luajit
  llvm-15-tools
  clang-14
  libclang-rt-14-dev
  libvulkan-dev
  mesa-vulkan-drivers
  vulkan-validationlayers
  glslc
  spirv-tools
  libmlir-22-dev
  mlir-22-tools
  llvm-22-dev
  liblld-22-dev
  llvm-22-tools
  libonnx-dev
  libprotobuf-dev
  nlohmann-json3-dev
  python3
  python3-onnx
  python3-numpy
  libonnx-testdata
  libdnnl-dev
  libxxhash-dev
  pybind11-dev
  libdlpack-dev
  pkgconf
)

KILN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "${KILN_ROOT}"

BUILD_DIR="${KILN_BUILD_DIR:-build}"

header() { printf '==> %s\n' "$*"; }
die() { printf 'kiln.sh: %s\n' "$*" >&2; exit 1; }

usage() {
  cat <<'EOF'
usage: ./kiln.sh <command> [args...]

commands:
  demo            install missing packages, build, run the end-to-end demo
  test [ARGS...]  install missing packages, build, run the tests (ARGS go to ctest,
                  e.g. ./kiln.sh test -R verifier)
  build           install missing packages, build
  asan [ARGS...]  build with ASan+LSan+UBSan (cmake --preset asan, into build-asan)
                  and run the tests (ARGS go to ctest)
  help            show this text

environment:
  KILN_BUILD_DIR   build directory (default: build)
  KILN_CMAKE_ARGS  extra arguments for the first cmake configure
EOF
}

# Installs the packages of KILN_DEBIAN_PACKAGES that are not installed yet.
ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    printf 'kiln.sh: warning: dpkg-query not found (not Debian?); not checking packages: %s\n' \
      "${KILN_DEBIAN_PACKAGES[*]}" >&2
    return 0
  fi
  local missing=() pkg status
  for pkg in "${KILN_DEBIAN_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null || true)"
    if [[ "${status}" != "install ok installed" ]]; then
      missing+=("${pkg}")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  if [[ "$(id -u)" -ne 0 ]]; then
    {
      printf 'kiln.sh: missing Debian packages: %s\n' "${missing[*]}"
      printf 'install them with:\n'
      printf '  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends %s\n' \
        "${missing[*]}"
    } >&2
    exit 1
  fi
  header "installing missing packages: ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# Configures BUILD_DIR once, then builds it (a no-op build takes well under a second).
configure_and_build() {
  if [[ ! -f "${BUILD_DIR}/build.ninja" ]]; then
    local extra_args=()
    read -r -a extra_args <<<"${KILN_CMAKE_ARGS:-}"
    header "configuring (${BUILD_DIR})"
    cmake -S . -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      ${extra_args[@]+"${extra_args[@]}"}
  fi
  header "building (${BUILD_DIR})"
  cmake --build "${BUILD_DIR}"
}

setup() {
  ensure_packages
  configure_and_build
}

# The end-to-end demo: compile samples/programs/demo.mlir with kiln-compile and
# run some of its functions with kiln-run-module (iree-run-module's flags and
# output), then the custom-dispatch sample on the CPU driver: two hand-written
# kernels dispatched on tensors with, between them, an arith.addf on tensors
# whose kernel kiln generates (cuda and vulkan come with their own samples).
run_demo() {
  local bin="${BUILD_DIR}/bin"
  local module="${BUILD_DIR}/demo/demo.kmod"
  mkdir -p "$(dirname "${module}")"
  header "running demo"
  run_shown "${bin}/kiln-compile" samples/programs/demo.mlir -o "${module}"
  run_shown "${bin}/kiln-run-module" --module="${module}" --function=fib_with_calls --input=25
  run_shown "${bin}/kiln-run-module" --module="${module}" --function=gcd --input=i64=1071 \
    --input=i64=462
  run_shown "${bin}/kiln-run-module" --module="${module}" --function=hypot --input=f32=3 \
    --input=f32=4 --expected_output=f32=5
  local sample_dir="${BUILD_DIR}/samples/custom_dispatch/cpu"
  run_shown "${bin}/kiln-compile" samples/custom_dispatch/cpu/example.mlir \
    --object-search-path="${sample_dir}" -o "${module%/*}/custom_dispatch.kmod"
  run_shown "${bin}/kiln-run-module" --device=cpu \
    --module="${module%/*}/custom_dispatch.kmod" --function=mixed_invocation \
    --input=8xf32=2 --input=8xf32=4
  # An ONNX model (samples/models): a small CNN over a 28x28 image written
  # with its input and the output a numpy reference computes, imported by
  # kiln-import-onnx, compiled, run on the CPU and checked: the ten digits'
  # probabilities are printed, then [SUCCESS].
  header "ONNX model: samples/models (MNIST-sized CNN)"
  sh samples/models/run_mnist.sh "${bin}" cpu "${module%/*}/mnist"
}


# Prints a command, then runs it.
run_shown() {
  printf '+ %s\n' "$*"
  "$@"
}

run_tests() {
  local dir="$1"
  shift
  header "testing (${dir})"
  ctest --test-dir "${dir}" --output-on-failure -j2 "$@"
}

main() {
  local cmd="${1:-help}"
  if (($# > 0)); then shift; fi
  case "${cmd}" in
    demo)
      (($# == 0)) || die "demo takes no arguments"
      setup
      run_demo
      ;;
    test)
      setup
      run_tests "${BUILD_DIR}" "$@"
      ;;
    build)
      (($# == 0)) || die "build takes no arguments"
      setup
      ;;
    asan)
      ensure_packages
      BUILD_DIR="build-asan"  # the binaryDir of the `asan` preset
      if [[ ! -f "${BUILD_DIR}/build.ninja" ]]; then
        header "configuring (${BUILD_DIR}: cmake --preset asan)"
        cmake --preset asan
      fi
      header "building (${BUILD_DIR})"
      cmake --build "${BUILD_DIR}"
      # LeakSanitizer (GCC 12's) misreads the dynamic-TLS vector of a thread
      # once dlopen-ed libraries with TLS (oneDNN, libgomp) are in it, and its
      # tracer dies with SIGSEGV at exit ("Tracer caught signal 11", a
      # garbage "DTLS" range): e2e tensors/constant_filter_convolution.mlir
      # did. Leak checking stays on; only __tls_get_addr is not intercepted.
      export ASAN_OPTIONS="${ASAN_OPTIONS:+${ASAN_OPTIONS}:}intercept_tls_get_addr=0"
      run_tests "${BUILD_DIR}" "$@"
      ;;
    help | -h | --help)
      usage
      ;;
    *)
      usage >&2
      die "unknown command: ${cmd}"
      ;;
  esac
}

main "$@"
