# lit configuration of the compiler's FileCheck tests (kiln-opt, kiln-compile).
import os
import shutil

import lit.formats

config.name = "kiln-compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
# .onnxtxt: ONNX models in ONNX's text format, for kiln-import-onnx (onnx/).
config.suffixes = [".mlir", ".onnxtxt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.kiln_obj_root
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.substitutions.append((r"(?<![\w/.%-])FileCheck(?![\w/.-])", config.filecheck))
config.substitutions.append((r"(?<![\w/.%=-])not(?![\w/.=-])", config.not_tool))
for tool in ("kiln-opt", "kiln-compile", "kiln-dump-module", "kiln-run-module",
             "kiln-check-module", "kiln-import-onnx"):
    config.substitutions.append(("%" + tool, os.path.join(config.kiln_bin_dir, tool)))
config.substitutions.append(("%kiln_source_dir", config.kiln_source_dir))
config.environment["FILECHECK_OPTS"] = ""
config.environment["LC_ALL"] = "C"
# script(1) gives a command a pseudo-terminal (kiln-compile's refusal to
# write bytes to a terminal).
if shutil.which("script"):
    config.available_features.add("script")
