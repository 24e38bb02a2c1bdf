#!/bin/sh
# embedding_standalone_test.sh <kiln source> <prefix> <work dir> <cmake> <ctest> <generator>
#                              <make program> <C compiler> <C++ compiler>
#
# samples/embedding on its own against the kiln installed in <prefix>
# (install_prefix.sh), as its README.md says: configure with
# CMAKE_PREFIX_PATH, build (its kernels.so and multiply_add.kmod with the
# installed kiln-compile included), run its tests. The build directory is new
# every run.
set -eu
source_dir=$1 prefix=$2 work=$3 cmake=$4 ctest=$5 generator=$6 make_program=$7 cc=$8 cxx=$9
build=$work/build
rm -rf "$work"
mkdir -p "$work"

if ! "$cmake" -S "$source_dir/samples/embedding" -B "$build" -G "$generator" \
    -DCMAKE_MAKE_PROGRAM="$make_program" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1; then
  cat "$work/configure.log"
  echo "embedding_standalone_test: configuring samples/embedding failed" >&2
  exit 1
fi
# The kiln it found is the one in <prefix>, not some other install.
if ! grep -q "^-- kiln [0-9.]* from $prefix/" "$work/configure.log"; then
  grep 'kiln' "$work/configure.log" || true
  echo "embedding_standalone_test: find_package(kiln) did not find the kiln in $prefix" >&2
  exit 1
fi
if ! "$cmake" --build "$build" -j 2 >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log"
  echo "embedding_standalone_test: building samples/embedding failed" >&2
  exit 1
fi
"$ctest" --test-dir "$build" --output-on-failure >"$work/ctest.log" 2>&1 || {
  cat "$work/ctest.log"
  echo "embedding_standalone_test: samples/embedding's tests failed" >&2
  exit 1
}
# Both samples ran: the tensors one exists only where kiln-compile was found.
for test in embedding_sample_run embedding_tensors_sample_cpu \
            embedding_tensors_sample_cpu_sync_large; do
  if ! grep -q "Test *#[0-9]*: $test \.* *Passed" "$work/ctest.log"; then
    cat "$work/ctest.log"
    echo "embedding_standalone_test: $test did not run and pass" >&2
    exit 1
  fi
done
grep -E '^[0-9]+% tests passed' "$work/ctest.log"
