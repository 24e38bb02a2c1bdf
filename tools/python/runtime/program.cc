#include "tools/python/runtime/program.h"

#include <cmath>
#include <limits>

#include "base/file_io.h"
#include "hal/module/hal_module.h"
#include "hal/parameters/parameter_index.h"
#include "tools/common/host_tensor.h"
#include "tools/common/program_loading.h"
#include "tools/common/tensor_type.h"
#include "tools/python/runtime/device_array.h"
#include "tools/python/runtime/host_arrays.h"
#include "tools/python/status_error.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/signature.h"

namespace kiln::python {

namespace py = pybind11;

namespace {

// A fresh instance per program: the hal ref types are process-wide, so
// buffer views still pass between programs of one device.
Result<Ref<vm::Instance>> CreateInstance() {
  Ref<vm::Instance> instance = vm::Instance::Create();
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(*instance));
  return instance;
}

Result<Ref<hal::ParameterIndex>> OpenParameterFiles(const ParameterFiles& files) {
  Ref<hal::ParameterIndex> index = hal::ParameterIndex::Create();
  for (const auto& [scope, path] : files) {
    Status added = index->AddFile(scope, path);
    if (!added.ok()) {
      return added.WithContext("parameters {'" + scope + "': '" + path + "'}");
    }
  }
  return index;
}

std::string DescribeValue(const tools::ValueSpec& spec) {
  if (!spec.description.empty()) return spec.description;
  return std::string(vm::ValueTypeName(vm::ValueTypeOfChar(spec.type_char)));
}

// "float (1.5)", "str ('x')": what a Python argument was, for errors.
std::string DescribePython(py::handle value) {
  std::string text = py::str(py::type::handle_of(value).attr("__name__"));
  py::str repr = py::repr(value);
  std::string shown = repr;
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  return text + " (" + shown + ")";
}

// Raises kiln.Error for input `index` of `function`.
[[noreturn]] void FailInput(const std::string& function, size_t index, const std::string& why) {
  ThrowStatus(InvalidArgumentError("input " + std::to_string(index) + " of function '" + function +
                                   "': " + why));
}

}  // namespace

std::shared_ptr<Program> Program::Create(std::shared_ptr<Device> device, Ref<vm::Instance> instance,
                                         Ref<vm::BytecodeModule> module,
                                         const ParameterFiles& parameters) {
  auto program = std::shared_ptr<Program>(new Program());
  program->device_ = std::move(device);
  program->instance_ = std::move(instance);
  program->module_ = std::move(module);
  hal::HalModuleOptions options;
  options.parameters = ValueOrThrow(OpenParameterFiles(parameters));
  Result<Ref<vm::Context>> context = [&] {
    // The initializer runs here (parameter uploads, executable loads).
    py::gil_scoped_release release;
    return tools::CreateProgramContext(program->instance_, program->device_->ref(),
                                       program->module_, {}, {}, std::move(options));
  }();
  program->context_ = ValueOrThrow(std::move(context));
  return program;
}

std::shared_ptr<Program> Program::LoadFile(std::shared_ptr<Device> device, const std::string& path,
                                           const ParameterFiles& parameters) {
  Ref<vm::Instance> instance = ValueOrThrow(CreateInstance());
  Result<Ref<vm::BytecodeModule>> module = [&] {
    py::gil_scoped_release release;
    return vm::BytecodeModule::LoadFile(*instance, path);
  }();
  return Create(std::move(device), std::move(instance), ValueOrThrow(std::move(module)),
                parameters);
}

std::shared_ptr<Program> Program::LoadBytes(std::shared_ptr<Device> device, py::bytes bytes,
                                            const ParameterFiles& parameters) {
  Ref<vm::Instance> instance = ValueOrThrow(CreateInstance());
  const std::string_view data = bytes;
  // The loader keeps (and needs aligned) bytes of its own.
  AlignedBuffer copy =
      AlignedBuffer::CopyOf({reinterpret_cast<const uint8_t*>(data.data()), data.size()});
  Result<Ref<vm::BytecodeModule>> module = [&] {
    py::gil_scoped_release release;
    return vm::BytecodeModule::Load(*instance, std::move(copy));
  }();
  if (!module.ok()) ThrowStatus(module.status().WithContext("loading a module from bytes"));
  return Create(std::move(device), std::move(instance), std::move(*module), parameters);
}

std::vector<std::string> Program::exports() const {
  std::vector<std::string> names;
  for (const vm::ExportedFunction& exported : module_->exports()) names.push_back(exported.name);
  return names;
}

ProgramFunction Program::Lookup(const std::string& name) {
  if (name.empty()) ThrowStatus(InvalidArgumentError("a function name is empty"));
  const vm::ExportedFunction* exported = ValueOrThrow(tools::FindExport(*module_, name));
  tools::FunctionSpec spec = ValueOrThrow(tools::DescribeFunction(*module_, *exported));
  vm::Function function =
      ValueOrThrow(context_->LookupFunction(std::string(module_->name()) + "." + exported->name));
  return ProgramFunction(shared_from_this(), function, std::move(spec));
}

std::string ProgramFunction::signature() const {
  std::string text = "(";
  for (size_t i = 0; i < spec_.arguments.size(); ++i) {
    text += (i ? ", " : "") + DescribeValue(spec_.arguments[i]);
  }
  text += ") -> ";
  if (spec_.results.size() != 1) text += "(";
  for (size_t i = 0; i < spec_.results.size(); ++i) {
    text += (i ? ", " : "") + DescribeValue(spec_.results[i]);
  }
  if (spec_.results.size() != 1) text += ")";
  return text;
}

vm::Variant ProgramFunction::ConvertArgument(py::handle value, size_t index) {
  const tools::ValueSpec& spec = spec_.arguments[index];
  const std::string declared = DescribeValue(spec);
  auto fail = [&](const std::string& why) { FailInput(spec_.name, index, why); };
  switch (spec.type_char) {
    case 'i':
    case 'I': {
      // Integers and bools (and NumPy's integer scalars, through __index__);
      // a float would lose its fraction silently.
      PyObject* integer = PyNumber_Index(value.ptr());
      if (integer == nullptr) {
        PyErr_Clear();
        fail("argument " + std::to_string(index) + " is " + declared + " but got " +
             DescribePython(value));
      }
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
      Py_DECREF(integer);
      const bool fits =
          overflow == 0 && (spec.type_char == 'I' || (v >= std::numeric_limits<int32_t>::min() &&
                                                      v <= std::numeric_limits<int32_t>::max()));
      if (!fits) fail(std::string(py::str(value)) + " is out of range for " + declared);
      return spec.type_char == 'i' ? vm::Variant::I32(static_cast<int32_t>(v))
                                   : vm::Variant::I64(v);
    }
    case 'f':
    case 'F': {
      // Any real number (ints too); not strings, which float() would parse.
      const double v = PyNumber_Check(value.ptr()) && !PyUnicode_Check(value.ptr())
                           ? PyFloat_AsDouble(value.ptr())
                           : (PyErr_SetString(PyExc_TypeError, "not a number"), -1.0);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        fail("argument " + std::to_string(index) + " is " + declared + " but got " +
             DescribePython(value));
      }
      return spec.type_char == 'f' ? vm::Variant::F32(static_cast<float>(v)) : vm::Variant::F64(v);
    }
    default:
      break;
  }
  // A ref: a tensor (a buffer view) unless the reflection says otherwise.
  const bool any_tensor = spec.description.find("hal.buffer_view") != std::string::npos;
  if (!spec.description.empty() && !spec.tensor && !any_tensor) {
    fail("a value of type " + spec.description + " cannot be passed from Python");
  }
  Ref<hal::BufferView> view;
  if (py::isinstance<DeviceArray>(value)) {
    const DeviceArray& array = value.cast<const DeviceArray&>();
    if (array.device()->ref().get() != &program_->device_->hal_device()) {
      fail("the DeviceArray lives on " + array.device()->properties().uri + " but function '" +
           spec_.name + "' runs on " + program_->device_->properties().uri +
           " (move it with .numpy() or DLPack)");
    }
    view = array.view();
    if (spec.tensor) {
      hal::ElementType type = view->element_type();
      // An unsigned array where the program declares signless integers of
      // its width: the same bytes, viewed as declared.
      if (hal::IsCompatibleElementType(spec.tensor->element_type, type)) {
        type = spec.tensor->element_type;
      }
      if (auto why = tools::DescribeTensorTypeMismatch(*spec.tensor, view->shape(), type)) {
        fail("argument " + std::to_string(index) + " is " + spec.tensor->ToString() +
             " but the DeviceArray is " + view->ShapeString() + " (" + *why + ")");
      }
      if (type != view->element_type()) {
        view = ValueOrThrow(hal::BufferView::Create(view->buffer(), view->shape(), type));
      }
    }
  } else {
    if (value.is_none()) {
      fail("argument " + std::to_string(index) + " is " + declared + ", not None");
    }
    // Read as the declared type where compatible (host_arrays.h).
    HostArray host = ReadHostArray(value, spec.tensor);
    if (spec.tensor) {
      if (auto why =
              tools::DescribeTensorTypeMismatch(*spec.tensor, host.shape, host.element_type)) {
        fail("argument " + std::to_string(index) + " is " + spec.tensor->ToString() +
             " but the array is " + tools::FormatShapeAndType(host.shape, host.element_type) +
             " (" + *why + ")");
      }
    }
    view = UploadHostArray(program_->device_->hal_device(), host);
  }
  return vm::Variant::FromRef(hal::WrapBufferView(std::move(view)));
}

py::object ProgramFunction::ConvertResult(const vm::Variant& value, size_t index,
                                          bool keep_on_device) {
  switch (value.type()) {
    case vm::ValueType::kI32:
      return py::int_(value.i32());
    case vm::ValueType::kI64:
      return py::int_(value.i64());
    case vm::ValueType::kF32:
      return py::float_(value.f32());
    case vm::ValueType::kF64:
      return py::float_(value.f64());
    case vm::ValueType::kRef:
      break;
    default:
      return py::none();
  }
  if (!value.ref()) return py::none();
  Ref<hal::BufferView> view = hal::UnwrapBufferView(value);
  if (!view) {
    ThrowStatus(InvalidArgumentError("result " + std::to_string(index) + " of function '" +
                                     spec_.name + "' is " + value.ToString() +
                                     ", which Python cannot receive (only tensors and scalars)"));
  }
  const std::optional<tools::TensorType>& declared =
      index < spec_.results.size() ? spec_.results[index].tensor : std::nullopt;
  const hal::ElementType type = ResultElementType(view->element_type(), declared);
  if (keep_on_device) {
    if (type != view->element_type()) {
      view = ValueOrThrow(hal::BufferView::Create(view->buffer(), view->shape(), type));
    }
    return py::cast(DeviceArray(program_->device_, std::move(view)));
  }
  return DownloadToNumpy(program_->device_->hal_device(), *view, type);
}

py::object ProgramFunction::Call(const py::tuple& arguments, bool keep_on_device) {
  if (arguments.size() != spec_.arguments.size()) {
    ThrowStatus(InvalidArgumentError("function '" + spec_.name + "' expects " +
                                     std::to_string(spec_.arguments.size()) + " input(s), got " +
                                     std::to_string(arguments.size())));
  }
  Ref<vm::List> list = vm::List::Create(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) list->Push(ConvertArgument(arguments[i], i));
  Result<Ref<vm::List>> invoked = [&] {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(program_->call_mutex_);
    return vm::Invoke(*program_->context_, function_, *list);
  }();
  Ref<vm::List> results = ValueOrThrow(std::move(invoked));
  const size_t count = results->size();
  if (count == 0) return py::none();
  if (count == 1) return ConvertResult(results->items()[0], 0, keep_on_device);
  py::tuple tuple(count);
  for (size_t i = 0; i < count; ++i) {
    tuple[i] = ConvertResult(results->items()[i], i, keep_on_device);
  }
  return tuple;
}

}  // namespace kiln::python
