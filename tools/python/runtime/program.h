// Program and ProgramFunction: a loaded .kmod in its own VM context on one
// device, and its exported functions as Python callables.
//
// Loading follows kiln-run-module (tools/common/program_loading.h): the
// module is loaded and verified, then a context links the `hal` module
// serving the device (with the external parameters, scope -> safetensors
// files) before the program, whose initializer runs at load time. Each
// Program has its own context; a context runs one call at a time (calls
// from several Python threads take turns; the GIL is released while a call
// runs).
//
// A call checks its arguments against the export's signature and
// reflection (tools/common/function_io.h's FunctionSpec) before anything
// runs: the count; Python numbers for i32/i64/f32/f64 slots (ints and bools
// for integers, any real number for floats); for tensors a DeviceArray of
// the same device (passed without a copy) or a host array (host_arrays.h)
// whose shape and element type must fit the declared tensor type. Errors
// name the input and the function: "input 1 of function 'add': argument 1
// is tensor<4xf32> but the array is 4xi32 (element type i32 differs from
// f32)". Results are Python ints and floats, NumPy arrays, or DeviceArrays
// when `keep_on_device`.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/ref.h"
#include "tools/common/function_io.h"
#include "tools/python/runtime/device.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"

namespace kiln::python {

// One parameter file: `path` serves the parameters of `scope` ("" is the
// empty scope), as --parameters=[scope=]FILE.
using ParameterFiles = std::vector<std::pair<std::string, std::string>>;

class ProgramFunction;

class Program : public std::enable_shared_from_this<Program> {
 public:
  // Loads the .kmod at `path` / in `bytes` onto `device`.
  static std::shared_ptr<Program> LoadFile(std::shared_ptr<Device> device, const std::string& path,
                                           const ParameterFiles& parameters);
  static std::shared_ptr<Program> LoadBytes(std::shared_ptr<Device> device, pybind11::bytes bytes,
                                            const ParameterFiles& parameters);

  std::string_view name() const { return module_->name(); }
  std::vector<std::string> exports() const;
  const std::shared_ptr<Device>& device() const { return device_; }

  // The export `name` ("f" or "@f"); kiln.Error (NOT_FOUND, listing the
  // exports) when there is none.
  ProgramFunction Lookup(const std::string& name);

 private:
  friend class ProgramFunction;
  static std::shared_ptr<Program> Create(std::shared_ptr<Device> device, Ref<vm::Instance> instance,
                                         Ref<vm::BytecodeModule> module,
                                         const ParameterFiles& parameters);

  std::shared_ptr<Device> device_;
  Ref<vm::Instance> instance_;
  Ref<vm::BytecodeModule> module_;
  Ref<vm::Context> context_;
  std::mutex call_mutex_;  // One call at a time per context.
};

class ProgramFunction {
 public:
  const std::string& name() const { return spec_.name; }
  // "(tensor<4xf32>, i32) -> tensor<4xf32>".
  std::string signature() const;
  // Calls the function with `arguments` (see the file comment); None for
  // no result, the value for one, a tuple for several.
  pybind11::object Call(const pybind11::tuple& arguments, bool keep_on_device);

 private:
  friend class Program;
  ProgramFunction(std::shared_ptr<Program> program, vm::Function function, tools::FunctionSpec spec)
      : program_(std::move(program)), function_(function), spec_(std::move(spec)) {}

  vm::Variant ConvertArgument(pybind11::handle value, size_t index);
  pybind11::object ConvertResult(const vm::Variant& value, size_t index, bool keep_on_device);

  std::shared_ptr<Program> program_;
  vm::Function function_;
  tools::FunctionSpec spec_;
};

}  // namespace kiln::python
