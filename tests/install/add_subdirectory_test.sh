#!/bin/sh
# add_subdirectory_test.sh <kiln source> <work dir> <cmake> <ctest> <generator> <make program>
#                          <C compiler> <C++ compiler>
#
# Builds tests/install/add_subdirectory, an application that adds kiln's
# source tree with add_subdirectory, runtime-only (KILN_BUILD_COMPILER=OFF)
# and with every package that only kiln's tests, benchmarks, samples or
# compiler use disabled: a REQUIRED find_package of any of them is a
# configure error. kiln's Python package is off by default under a parent
# project: the test leaves Python and pybind11 findable and checks that kiln
# did not turn it on. Builds only the application's two programs (kiln's
# runtime libraries, no tool) and runs the one that links kiln::runtime.
# The build directory is kept between runs (incremental).
set -eu
source_dir=$1 work=$2 cmake=$3 ctest=$4 generator=$5 make_program=$6 cc=$7 cxx=$8
build=$work/build
mkdir -p "$work"

# No build type: kiln must not pick one for its parent, and an unoptimized
# build is the quickest to compile. The GPU drivers are off for the same
# reason (they build and install in the main build's install test).
if ! "$cmake" -S "$source_dir/tests/install/add_subdirectory" -B "$build" -G "$generator" \
    -DCMAKE_MAKE_PROGRAM="$make_program" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DKILN_SOURCE_DIR="$source_dir" \
    -DKILN_BUILD_COMPILER=OFF \
    -DKILN_BUILD_CUDA_DRIVER=OFF -DKILN_BUILD_VULKAN_DRIVER=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_GMock=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_ONNX=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Protobuf=ON \
    -UKILN_BUILD_PYTHON \
    >"$work/configure.log" 2>&1; then
  cat "$work/configure.log"
  echo "add_subdirectory_test: configuring the application failed" >&2
  exit 1
fi
# What kiln's configure said it skipped, and what it must not have built.
grep -E '^-- kiln: ' "$work/configure.log" || true
if grep -q -E '^-- MLIR |^-- Found GTest' "$work/configure.log"; then
  echo "add_subdirectory_test: kiln looked for a dependency it must not need here" >&2
  exit 1
fi
if ! grep -q '^KILN_BUILD_PYTHON:BOOL=OFF$' "$build/CMakeCache.txt"; then
  grep '^KILN_BUILD_PYTHON' "$build/CMakeCache.txt" || true
  echo "add_subdirectory_test: kiln's Python package is on by default under a parent project" >&2
  exit 1
fi
# kiln's tests and samples are not part of the application's build.
if ! "$ctest" --test-dir "$build" -N | grep -q '^Total Tests: 0$'; then
  "$ctest" --test-dir "$build" -N
  echo "add_subdirectory_test: kiln added tests to the application's build" >&2
  exit 1
fi
# The build type is the application's: kiln must not pick one for it.
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ -n "$build_type" ]; then
  echo "add_subdirectory_test: kiln set the parent's CMAKE_BUILD_TYPE to '$build_type'" >&2
  exit 1
fi

if ! "$cmake" --build "$build" --target embedder cxx17_probe -j 2 >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log"
  echo "add_subdirectory_test: building the application failed" >&2
  exit 1
fi
"$build/embedder" >"$work/output.txt"
cat "$work/output.txt"
if ! cmp -s "$work/output.txt" "$source_dir/tests/install/embedder_expected.txt"; then
  echo "add_subdirectory_test: the output differs from tests/install/embedder_expected.txt" >&2
  exit 1
fi
