#!/bin/sh
# embedding_standalone_test.sh <kiln source> <prefix> <work dir> <cmake> <ctest> <generator>
#                              <make program> <C compiler> <C++ compiler>
#
# samples/embedding on its own against the kiln installed in <prefix>
# (install_prefix.sh), as its README.md says: configure with
# CMAKE_PREFIX_PATH, build (its kernels.so and multiply_add.kmod with the
# installed kiln-compile included), run its tests. Then the same from a copy
# of the folder outside kiln's tree, which must name kernels.c with
# KILN_EMBEDDING_KERNELS_SOURCE (and is refused, saying so, without it). The
# build directories are new every run.
set -eu
source_dir=$1 prefix=$2 work=$3 cmake=$4 ctest=$5 generator=$6 make_program=$7 cc=$8 cxx=$9
rm -rf "$work"
mkdir -p "$work"

# check <sample source> <out dir> [cmake args...]
check() {
  sample=$1 out=$2
  shift 2
  mkdir -p "$out"
  if ! "$cmake" -S "$sample" -B "$out/build" -G "$generator" \
      -DCMAKE_MAKE_PROGRAM="$make_program" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$out/configure.log" 2>&1; then
    cat "$out/configure.log"
    echo "embedding_standalone_test: configuring samples/embedding failed" >&2
    exit 1
  fi
  # The kiln it found is the one in <prefix>, not some other install.
  if ! grep -q "^-- kiln [0-9.]* from $prefix/" "$out/configure.log"; then
    grep 'kiln' "$out/configure.log" || true
    echo "embedding_standalone_test: find_package(kiln) did not find the kiln in $prefix" >&2
    exit 1
  fi
  if ! "$cmake" --build "$out/build" -j 2 >"$out/build.log" 2>&1; then
    tail -n 60 "$out/build.log"
    echo "embedding_standalone_test: building samples/embedding failed" >&2
    exit 1
  fi
  "$ctest" --test-dir "$out/build" --output-on-failure >"$out/ctest.log" 2>&1 || {
    cat "$out/ctest.log"
    echo "embedding_standalone_test: samples/embedding's tests failed" >&2
    exit 1
  }
  # Both samples ran: the tensors one exists only where kiln-compile was found.
  for test in embedding_sample_run embedding_tensors_sample_cpu \
              embedding_tensors_sample_cpu_sync_large; do
    if ! grep -q "Test *#[0-9]*: $test \.* *Passed" "$out/ctest.log"; then
      cat "$out/ctest.log"
      echo "embedding_standalone_test: $test did not run and pass" >&2
      exit 1
    fi
  done
  grep -E '^[0-9]+% tests passed' "$out/ctest.log"
}

check "$source_dir/samples/embedding" "$work/in_tree"

copy=$work/copy/embedding
mkdir -p "$work/copy"
cp -R "$source_dir/samples/embedding" "$copy"
# Where kernels.c is not beside the copy, configuring stops and names the variable.
if "$cmake" -S "$copy" -B "$work/copy_unnamed" -G "$generator" \
    -DCMAKE_MAKE_PROGRAM="$make_program" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/copy_unnamed.log" 2>&1 ||
    ! grep -q 'KILN_EMBEDDING_KERNELS_SOURCE=' "$work/copy_unnamed.log"; then
  cat "$work/copy_unnamed.log"
  echo "embedding_standalone_test: a copy without KILN_EMBEDDING_KERNELS_SOURCE must be refused" >&2
  exit 1
fi
check "$copy" "$work/copy_build" \
  -DKILN_EMBEDDING_KERNELS_SOURCE="$source_dir/samples/custom_dispatch/cpu/kernels.c"
