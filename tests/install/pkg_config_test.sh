#!/bin/sh
# pkg_config_test.sh <kiln source> <prefix> <libdir> <work dir> <C++ compiler> <kiln version>
#
# kiln.pc of the kiln installed in <prefix> (install_prefix.sh), as
# README.md's "Embedding" section uses it: compile and link
# tests/install/embedder.cc with `pkg-config --cflags --libs kiln`, then run
# it. Exit 77 (skipped) where there is no pkg-config.
set -eu
source_dir=$1 prefix=$2 libdir=$3 work=$4 cxx=$5 version=$6
if ! command -v pkg-config >/dev/null 2>&1; then
  echo "pkg_config_test: skipped: no pkg-config (apt install pkgconf)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
export PKG_CONFIG_PATH

found=$(pkg-config --modversion kiln)
if [ "$found" != "$version" ]; then
  echo "pkg_config_test: pkg-config --modversion kiln says '$found', expected '$version'" >&2
  exit 1
fi
flags=$(pkg-config --cflags --libs kiln)
echo "pkg-config --cflags --libs kiln: $flags"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++20 "$source_dir/tests/install/embedder.cc" $flags -o "$work/embedder"
"$work/embedder" >"$work/output.txt"
cat "$work/output.txt"
if ! cmp -s "$work/output.txt" "$source_dir/tests/install/embedder_expected.txt"; then
  echo "pkg_config_test: the output differs from tests/install/embedder_expected.txt" >&2
  exit 1
fi
