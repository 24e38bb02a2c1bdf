#!/bin/sh
# Runs `kiln-run-module ARGS...` when kiln-run-module lists an available
# Vulkan device; otherwise says why and exits 77, which ctest reports as a
# skipped test (SKIP_RETURN_CODE). Usage: run_if_vulkan.sh KILN_RUN_MODULE ARGS...
run_module="$1"
shift
devices=$("$run_module" --list_devices 2>&1)
if ! printf '%s\n' "$devices" | grep -E '^vulkan://[0-9]+  ' | grep -vq '  unavailable: '; then
  echo "skipped: no available Vulkan device:"
  printf '%s\n' "$devices" | grep '^vulkan'
  exit 77
fi
exec "$run_module" "$@"
