# lit configuration of kiln's end-to-end tests: .mlir programs compiled with
# kiln-compile and run with kiln-run-module (or inspected with
# kiln-dump-module), their output checked with FileCheck.
#
# The build configures lit.site.cfg.py (from lit.site.cfg.py.in) with the
# paths below and loads this file from it; run the suite through ctest
# (`ctest -R kiln_e2e`) or lit directly (README.md).
import os
import shutil

import lit.formats

config.name = "kiln-e2e"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Inputs under Inputs/ (if any) are helpers, not tests; README.md is not a test.
config.excludes = ["Inputs", "README.md", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

site_attributes = ("kiln_bin_dir", "kiln_e2e_obj_root", "filecheck", "not_tool",
                   "kiln_cpu_kernels_dir")
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

# Bare `FileCheck` and `not` in RUN lines mean Debian's llvm-15 tools. These two
# come first so they see the RUN line as written (before %s or tool paths are
# expanded), and match only whole words.
config.substitutions.append((r"(?<![\w/.%-])FileCheck(?![\w/.-])", config.filecheck))
config.substitutions.append((r"(?<![\w/.%=-])not(?![\w/.=-])", config.not_tool))
config.substitutions.append(("%kiln-compile", tool("kiln-compile")))
config.substitutions.append(("%kiln-run-module", tool("kiln-run-module")))
config.substitutions.append(("%kiln-dump-module", tool("kiln-dump-module")))
# The folder holding samples/custom_dispatch/cpu's kernels.so (simple_mul,
# simple_add, simple_mul_inplace), for --object-search-path in dispatch tests.
config.substitutions.append(("%cpu_kernels_dir", config.kiln_cpu_kernels_dir))
# The folder holding this suite's dispatch_test_kernels.so (Inputs/).
config.substitutions.append(("%e2e_kernels_dir", config.kiln_e2e_obj_root))

# Keep the environment small and predictable: no user FILECHECK_OPTS, colors.
config.environment["FILECHECK_OPTS"] = ""
config.environment["LC_ALL"] = "C"
