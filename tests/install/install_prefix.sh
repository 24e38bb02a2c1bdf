#!/bin/sh
# install_prefix.sh <kiln build dir> <prefix> <libdir> <cmake>
#
# `cmake --install <build> --prefix <prefix>` into a fresh prefix (the
# fixture of the tests that build against an installed kiln), then checks
# what landed there: the tools (kiln-compile runs from the prefix: it finds
# Debian's libMLIR through its RPATH), the libraries, the public headers by
# their path in the tree, kilnConfig.cmake with its version file and
# targets, and kiln.pc; and what must not: headers that include cuda.h,
# vulkan.h or the generated FlatBuffer headers.
set -eu
build=$1 prefix=$2 libdir=$3 cmake=$4
rm -rf "$prefix"
if ! "$cmake" --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1; then
  cat "$prefix.log"
  echo "install_prefix: cmake --install failed" >&2
  exit 1
fi

status=0
for file in bin/kiln-compile bin/kiln-run-module bin/kiln-dump-module bin/kiln-dump-instruments \
            "$libdir/libkiln_base.a" "$libdir/libkiln_vm.a" "$libdir/libkiln_hal.a" \
            "$libdir/libkiln_hal_cpu.a" "$libdir/libkiln_hal_drivers.a" \
            "$libdir/libkiln_hal_module.a" "$libdir/libkiln_hal_parameters.a" \
            include/kiln/base/status.h include/kiln/vm/context.h include/kiln/vm/native_module.h \
            include/kiln/hal/device.h include/kiln/hal/builtin_drivers.h \
            include/kiln/hal/module/hal_module.h include/kiln/hal/parameters/parameter_index.h \
            include/kiln/hal/cpu/kernel_abi.h \
            "$libdir/cmake/kiln/kilnConfig.cmake" "$libdir/cmake/kiln/kilnConfigVersion.cmake" \
            "$libdir/cmake/kiln/kilnTargets.cmake" "$libdir/pkgconfig/kiln.pc"; do
  if [ ! -f "$prefix/$file" ]; then
    echo "install_prefix: missing <prefix>/$file" >&2
    status=1
  fi
done
for path in include/kiln/hal/cuda include/kiln/hal/vulkan include/kiln/schemas \
            include/kiln/hal/cpu/onednn_library.h include/kiln/hal/utils/library_call_spec.h; do
  if [ -e "$prefix/$path" ]; then
    echo "install_prefix: <prefix>/$path is installed, but it needs headers kiln's users lack" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] || exit 1

if ! version=$("$prefix/bin/kiln-compile" --version 2>&1); then
  echo "install_prefix: the installed kiln-compile does not run: $version" >&2
  exit 1
fi
echo "installed into $prefix: $version"
