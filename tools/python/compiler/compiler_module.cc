// kiln._compiler: kiln's compiler in process (compiler/pipeline/compile.h),
// for kiln.compile. MLIR text in, .kmod bytes out; errors are kiln.Error
// carrying MLIR's rendered diagnostics (`file:line:col: error: ...` with the
// source line and a caret), as kiln-compile prints them.
//
// A build without the compiler (the runtime-only build of the GPU machine)
// has no kiln._compiler; kiln.compile then says so.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "compiler/pipeline/compile.h"
#include "compiler/targets/passes.h"
#include "tools/python/status_error.h"

namespace py = pybind11;

namespace {

// Compiles `source` (named `path` in diagnostics; relative executable object
// paths start from its directory) for `targets` (kiln's or IREE's names; none:
// the module's own).
py::bytes Compile(const std::string& source, const std::string& path,
                  const std::vector<std::string>& targets,
                  const std::vector<std::string>& object_search_paths,
                  const std::string& module_name, bool debug_locations, bool library_calls,
                  bool allow_tf32, bool memoize_command_buffers) {
  using namespace kiln;
  compiler::CompileOptions options;
  options.pipeline.targets = python::ValueOrThrow(compiler::NormalizeTargetNames(targets));
  options.pipeline.object_search_paths = object_search_paths;
  options.pipeline.library_calls = library_calls;
  options.pipeline.allow_tf32 = allow_tf32;
  options.pipeline.memoize_command_buffers = memoize_command_buffers;
  options.module_name = module_name;
  options.debug_locations = debug_locations;
  Result<std::vector<uint8_t>> compiled = [&] {
    py::gil_scoped_release release;
    return compiler::CompileSource(path, source, options);
  }();
  const std::vector<uint8_t> bytes = python::ValueOrThrow(std::move(compiled));
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "kiln's compiler bindings (use kiln.compile instead)";
  m.def("compile", &Compile, py::arg("source"), py::arg("path"), py::arg("targets"),
        py::arg("object_search_paths"), py::arg("module_name"), py::arg("debug_locations"),
        py::arg("library_calls"), py::arg("allow_tf32"), py::arg("memoize_command_buffers"));
}
