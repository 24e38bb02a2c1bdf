# lit configuration of kiln's end-to-end tests: .mlir programs compiled with
# kiln-compile and run with kiln-run-module (or inspected with
# kiln-dump-module), their output checked with FileCheck.
#
# The build configures lit.site.cfg.py (from lit.site.cfg.py.in) with the
# paths below and loads this file from it; run the suite through ctest
# (`ctest -R kiln_e2e`) or lit directly (README.md).
#
# One suite for every device: `--param kiln_device=cpu|vulkan|cuda|...`
# (default cpu; any --device URI works) is `%device` in RUN lines and the lit
# feature `device-<driver>` (cpu-sync and the local-* aliases also count as
# `device-cpu`); `target-cpu|cuda|vulkan` says which targets' kernels were
# built. When that device is not usable here, every test is
# UNSUPPORTED and a "kiln-e2e: SKIPPED" note says why (ctest reports the test
# as skipped); with `--param kiln_device_required=1` that is an error instead.
import os
import subprocess
import sys

import lit.formats

config.name = "kiln-e2e"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Inputs under Inputs/ (if any) are helpers, not tests; README.md is not a test.
config.excludes = ["Inputs", "README.md", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

site_attributes = ("kiln_bin_dir", "kiln_e2e_obj_root", "filecheck", "not_tool",
                   "kiln_cpu_kernels_dir", "kiln_e2e_kernels_dir", "kiln_targets")
missing = [name for name in site_attributes if not hasattr(config, name)]
if missing:
    lit_config.fatal(
        "lit.cfg.py must be loaded from the configured lit.site.cfg.py in the build directory "
        "(missing: " + ", ".join(missing) + ")")

config.test_exec_root = config.kiln_e2e_obj_root

def tool(name):
    path = os.path.join(config.kiln_bin_dir, name)
    if not os.path.exists(path):
        lit_config.warning("%s not found (build it: ninja -C <build> %s)" % (path, name))
    return path

# --- The device ---

CPU_DRIVERS = ("cpu", "cpu-sync", "local-task", "local-sync")
device = lit_config.params.get("kiln_device", "cpu")
driver = device.split("://")[0]
target = "cpu" if driver in CPU_DRIVERS else driver
config.available_features.add("device-" + target)
built_targets = [t for t in config.kiln_targets.split(",") if t]
# `target-<t>` for each target whose kernels this build has (nvcc and glslc
# are optional): for tests that read those objects whatever the device.
for built in built_targets:
    config.available_features.add("target-" + built)

def device_unusable_reason():
    """Why `device` cannot run the suite here, or None when it can."""
    if target == "cpu":
        return None
    if target not in built_targets:
        return ("no %s kernels were built (targets built: %s; nvcc and glslc are found when "
                "CMake configures)" % (target, ", ".join(built_targets)))
    command = [tool("kiln-run-module"), "--list_devices"]
    try:
        listing = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as error:
        return "%s failed: %s" % (" ".join(command), error)
    lines = listing.stdout.splitlines()
    # A usable device lists as "vulkan://0  <name>"; a driver that cannot run
    # here as "vulkan  unavailable: <reason>".
    if any(line.startswith(driver + "://") for line in lines):
        # Mesa's software Vulkan driver (lavapipe, named llvmpipe) ends any
        # shader loop after 65535 iterations: `device-lavapipe` marks what
        # that cuts short.
        if any(line.startswith(driver + "://") and "llvmpipe" in line for line in lines):
            config.available_features.add("device-lavapipe")
        return None
    for line in lines:
        if line.split(" ", 1)[0] == driver:
            return "kiln-run-module --list_devices: " + line.strip()
    return ("kiln-run-module has no '%s' driver (--list_devices lists: %s)" %
            (driver, "; ".join(l.strip() for l in lines) or listing.stderr.strip()))

def device_count():
    """How many `driver` devices this machine has (cpu: ranks share the host)."""
    if target == "cpu":
        return 8
    try:
        listing = subprocess.run([tool("kiln-run-module"), "--list_devices"],
                                 capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in listing.stdout.splitlines() if line.startswith(driver + "://"))

reason = device_unusable_reason()
# `mpirun`: Open MPI's launcher is installed (tests that the tools read its
# environment: `mpirun -np N kiln-run-module ...` with no collective flags).
import shutil
if shutil.which("mpirun"):
    config.available_features.add("mpirun")
# `ranks-N`: a collective group of N processes can run here, one device each
# (tests of collectives across processes REQUIRE it).
if not reason:
    for ranks in range(1, device_count() + 1):
        config.available_features.add("ranks-%d" % ranks)
if reason:
    if lit_config.params.get("kiln_device_required", "0") not in ("", "0", "false"):
        lit_config.fatal("device '%s' is not usable: %s" % (device, reason))
    lit_config.note("kiln-e2e: SKIPPED: device '%s' is not usable: %s" % (device, reason))
    config.unsupported = True
else:
    lit_config.note("kiln-e2e: dispatch tests run on --device=%s" % device)

# --- Substitutions ---

# Bare `FileCheck` and `not` in RUN lines mean Debian's llvm-15 tools. These two
# come first so they see the RUN line as written (before %s or tool paths are
# expanded), and match only whole words.
config.substitutions.append((r"(?<![\w/.%-])FileCheck(?![\w/.-])", config.filecheck))
config.substitutions.append((r"(?<![\w/.%=-])not(?![\w/.=-])", config.not_tool))
config.substitutions.append(("%kiln-compile", tool("kiln-compile")))
# `--param kiln_run_flags="..."`: flags every run of a module gets besides
# the test's own (`--cuda_library_calls=false` runs the whole suite on the
# generated kernels of cuda modules that carry library calls).
run_flags = lit_config.params.get("kiln_run_flags", "").strip()
def runner(name):
    return tool(name) + (" " + run_flags if run_flags else "")
config.substitutions.append(("%kiln-run-module", runner("kiln-run-module")))
config.substitutions.append(("%kiln-check-module", runner("kiln-check-module")))
# kiln-benchmark-module is built only where Google Benchmark is installed:
# its tests REQUIRE the feature of the same name.
if os.path.exists(os.path.join(config.kiln_bin_dir, "kiln-benchmark-module")):
    config.available_features.add("kiln-benchmark-module")
    config.substitutions.append(("%kiln-benchmark-module", runner("kiln-benchmark-module")))
config.substitutions.append(("%kiln-dump-module", tool("kiln-dump-module")))
config.substitutions.append(("%kiln-dump-instruments", tool("kiln-dump-instruments")))
# `%run-ranks -n N [--tcp] -- COMMAND`: COMMAND as every rank of a collective
# group of N processes (samples/multi_gpu/run_ranks.py, which says how ranks
# get their own arguments).
config.substitutions.append(
    ("%run-ranks", sys.executable + " " + os.path.join(
        config.test_source_root, "..", "..", "samples", "multi_gpu", "run_ranks.py")))
# The device dispatch tests run on (--device=%device) and the targets whose
# kernels this build has (--target=%kiln_targets).
config.substitutions.append(("%device", device))
# The device's target as IREE's backends spell it: tests of generated kernels
# compile for the device they run on.
TARGET_BACKENDS = {"cpu": "llvm-cpu", "vulkan": "vulkan-spirv", "cuda": "cuda"}
config.substitutions.append(("%target_backend", TARGET_BACKENDS.get(target, target)))
config.substitutions.append(("%kiln_targets", ",".join(built_targets)))
# The folder holding samples/custom_dispatch/cpu's kernels.so (simple_mul,
# simple_add, simple_mul_inplace), for --object-search-path in dispatch tests.
config.substitutions.append(("%cpu_kernels_dir", config.kiln_cpu_kernels_dir))
# The folder holding this suite's kernels (Inputs/): dispatch_test_kernels.so,
# dispatch_test_kernels_sm_75.ptx and one <kernel>.spv per GLSL kernel.
config.substitutions.append(("%e2e_kernels_dir", config.kiln_e2e_kernels_dir))

# Keep the environment small and predictable: no user FILECHECK_OPTS, colors.
config.environment["FILECHECK_OPTS"] = ""
config.environment["LC_ALL"] = "C"
# The Vulkan loader and CUDA find their drivers through the environment
# (ICD files, the GPU's libcuda); pass on what the caller set.
# kiln's own switches (KILN_VULKAN_VALIDATION=1: the Khronos validation
# layer) and NCCL's (NCCL_NVLS_ENABLE=0 on the shared multi-GPU machines)
# pass on too.
for name in os.environ:
    if name.startswith("KILN_") or name.startswith("NCCL_") or name in (
            "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_LAYER_PATH", "VK_INSTANCE_LAYERS",
            "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "HOME", "XDG_RUNTIME_DIR"):
        config.environment[name] = os.environ[name]
