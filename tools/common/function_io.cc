#include "tools/common/function_io.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "hal/module/hal_module.h"
#include "schemas/module_generated.h"
#include "tools/common/device_tensor.h"
#include "tools/common/npy.h"
#include "tools/common/quoted_literal.h"
#include "vm/signature.h"

namespace kiln::tools {
namespace {

using vm::ValueType;
using vm::Variant;

bool IsFileReference(std::string_view text) {
  return !text.empty() && (text.front() == '@' || text.front() == '+');
}

// Whether `text` is a shape and element type alone ("4xf32", "0x2xi8").
bool LooksLikeShapeAndType(std::string_view text) {
  const size_t last_x = text.rfind('x');
  if (text.empty() || !(text.front() >= '0' && text.front() <= '9') ||
      last_x == std::string_view::npos) {
    return false;
  }
  for (char c : text.substr(0, last_x)) {
    if (!(c == 'x' || (c >= '0' && c <= '9'))) return false;
  }
  return hal::ParseElementType(text.substr(last_x + 1)).ok();
}

// Reads `@file.npy` / `+file.npy`: the first or the next array of the file.
Result<HostTensor> ReadNpyInput(std::string_view text, InputFiles& files) {
  const std::string path(text.substr(1));
  if (path.empty()) return InvalidArgumentError(QuoteLiteral(text) + " names no file");
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, files.Bytes(path, text.front() == '@'));
  if (bytes.empty()) {
    return OutOfRangeError("'" + path + "' has no more arrays (every array was read already)");
  }
  size_t consumed = 0;
  auto tensor = ReadNpyArray(bytes, &consumed);
  if (!tensor.ok()) return tensor.status().WithContext("'" + path + "'");
  files.Advance(path, consumed);
  return tensor;
}

// Reads `SHAPExTYPE=@file.bin` / `=+file.bin`: raw elements from a file.
Result<HostTensor> ReadBinaryInput(std::string_view text, size_t equals, InputFiles& files) {
  const std::string_view reference = text.substr(equals + 1);
  KILN_ASSIGN_OR_RETURN(HostTensor tensor, ParseTensorLiteral(text.substr(0, equals + 1)));
  const std::string path(reference.substr(1));
  if (path.empty()) return InvalidArgumentError(QuoteLiteral(text) + " names no file");
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes,
                        files.Bytes(path, reference.front() == '@'));
  if (bytes.size() < tensor.bytes.size()) {
    return OutOfRangeError("'" + path + "' has " + std::to_string(bytes.size()) +
                           " bytes left but " +
                           FormatShapeAndType(tensor.shape, tensor.element_type) + " needs " +
                           std::to_string(tensor.bytes.size()));
  }
  if (!tensor.bytes.empty()) std::memcpy(tensor.bytes.data(), bytes.data(), tensor.bytes.size());
  files.Advance(path, tensor.bytes.size());
  return tensor;
}

// Parses a value for a ref argument or result: a tensor in any input form.
Result<HostTensor> ParseTensorValue(std::string_view text, const ValueSpec& spec,
                                    InputFiles& files) {
  if (IsFileReference(text)) return ReadNpyInput(text, files);
  const size_t equals = text.find('=');
  if (equals != std::string_view::npos) {
    if (IsFileReference(text.substr(equals + 1))) return ReadBinaryInput(text, equals, files);
    return ParseTensorLiteral(text);
  }
  // `4xf32` alone is a tensor of zeros, as in iree-run-module.
  if (LooksLikeShapeAndType(text)) return ParseTensorLiteral(std::string(text) + "=");
  if (spec.tensor && spec.tensor->is_static()) {
    // Untyped values take the declared shape and type.
    auto tensor = ParseTensorLiteral(spec.tensor->ShapeAndType() + "=" + std::string(text));
    if (!tensor.ok()) {
      return Status(tensor.status().code(), QuoteLiteral(text) + " as " + spec.tensor->ToString() +
                                                ": " + tensor.status().message());
    }
    return tensor;
  }
  if (spec.tensor || !spec.description.empty()) {
    return InvalidArgumentError(QuoteLiteral(text) +
                                " gives no shape and element type (SHAPExTYPE=VALUES) for " +
                                (spec.tensor ? spec.tensor->ToString() : spec.description));
  }
  // Not a tensor form at all: the scalar parser says why refs need one.
  return ParseValue(text, ValueType::kRef).status();
}

Result<HostValue> ParseOneValue(std::string_view text, size_t index, const ValueSpec& spec,
                                ValueRole role, InputFiles& files) {
  HostValue value;
  if (role == ValueRole::kExpectedOutput && text == "(ignored)") {
    value.kind = HostValue::Kind::kIgnored;
    return value;
  }
  if (spec.type_char != 'r') {
    if (IsTensorLiteral(text) || IsFileReference(text)) {
      return InvalidArgumentError(
          QuoteLiteral(text) + " is a tensor but the signature expects " +
          std::string(vm::ValueTypeName(vm::ValueTypeOfChar(spec.type_char))));
    }
    KILN_ASSIGN_OR_RETURN(value.scalar, ParseValue(text, vm::ValueTypeOfChar(spec.type_char)));
    return value;
  }
  // A buffer view of unknown type (a description of the lowered type) takes
  // any tensor; the program checks what it receives.
  const bool any_tensor = spec.description.find("hal.buffer_view") != std::string::npos;
  if (!spec.description.empty() && !spec.tensor && !any_tensor) {
    return InvalidArgumentError(QuoteLiteral(text) + ": a value of type " + spec.description +
                                " cannot be given on the command line");
  }
  KILN_ASSIGN_OR_RETURN(value.tensor, ParseTensorValue(text, spec, files));
  value.kind = HostValue::Kind::kTensor;
  if (spec.tensor) {
    if (std::optional<std::string> why = DescribeTensorTypeMismatch(
            *spec.tensor, value.tensor.shape, value.tensor.element_type)) {
      return InvalidArgumentError(
          std::string(role == ValueRole::kInput ? "argument " : "result ") + std::to_string(index) +
          " is " + spec.tensor->ToString() + " but " + QuoteLiteral(text) + " is " +
          FormatShapeAndType(value.tensor.shape, value.tensor.element_type) + " (" + *why + ")");
    }
  }
  return value;
}

// A scalar result as a 0-d tensor, for .npy and binary outputs.
Result<HostTensor> ScalarTensor(const Variant& value) {
  auto tensor_of = [](auto v, hal::ElementType type) {
    return HostTensor::FromBytes({}, type, {reinterpret_cast<const uint8_t*>(&v), sizeof(v)});
  };
  switch (value.type()) {
    case ValueType::kI32:
      return tensor_of(value.i32(), hal::ElementType::kInt32);
    case ValueType::kI64:
      return tensor_of(value.i64(), hal::ElementType::kInt64);
    case ValueType::kF32:
      return tensor_of(value.f32(), hal::ElementType::kFloat32);
    case ValueType::kF64:
      return tensor_of(value.f64(), hal::ElementType::kFloat64);
    default:
      return InvalidArgumentError("a " + FormatValue(value) + " cannot be written to a file");
  }
}

template <typename T>
bool WithinThreshold(T expected, T actual, double threshold) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (expected == actual) return true;
  if (std::isinf(expected) || std::isinf(actual)) return false;
  return std::fabs(static_cast<double>(actual) - static_cast<double>(expected)) <= threshold;
}

bool ScalarsMatch(const Variant& expected, const Variant& actual,
                  const ComparisonOptions& options) {
  if (expected.type() == ValueType::kF32 && actual.type() == ValueType::kF32 &&
      options.f32_threshold) {
    return WithinThreshold(expected.f32(), actual.f32(), *options.f32_threshold);
  }
  if (expected.type() == ValueType::kF64 && actual.type() == ValueType::kF64 &&
      options.f64_threshold) {
    return WithinThreshold(expected.f64(), actual.f64(), *options.f64_threshold);
  }
  return ValuesMatch(expected, actual);
}

std::optional<Tolerance> ThresholdFor(hal::ElementType type, const ComparisonOptions& options) {
  std::optional<double> threshold;
  switch (type) {
    case hal::ElementType::kFloat16:
      threshold = options.f16_threshold;
      break;
    case hal::ElementType::kBFloat16:
      threshold = options.bf16_threshold;
      break;
    case hal::ElementType::kFloat32:
      threshold = options.f32_threshold;
      break;
    case hal::ElementType::kFloat64:
      threshold = options.f64_threshold;
      break;
    default:
      break;
  }
  if (!threshold) return std::nullopt;
  return Tolerance{*threshold, 0};
}

// The one-line form of a host value for mismatch messages.
std::string Describe(const HostValue& value, const TensorFormatOptions& format) {
  if (value.kind == HostValue::Kind::kTensor) return FormatTensor(value.tensor, format);
  return FormatValue(value.scalar);
}

}  // namespace

using Descriptions = flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>;

Result<FunctionSpec> DescribeFunction(const vm::BytecodeModule& module,
                                      const vm::ExportedFunction& function) {
  FunctionSpec spec;
  spec.name = function.name;
  vm::SignatureParts parts;
  KILN_RETURN_IF_ERROR(vm::ParseSignature(function.signature, &parts));
  // The reflection lives in the module's export table entry of this name.
  const Descriptions* arguments = nullptr;
  const Descriptions* results = nullptr;
  if (const auto* exports = module.flat().exports()) {
    for (const schema::Export* entry : *exports) {
      if (entry->name() && entry->name()->string_view() == function.name) {
        arguments = entry->argument_descriptions();
        results = entry->result_descriptions();
        break;
      }
    }
  }
  auto fill = [&](std::string_view types, const Descriptions* texts, std::string_view what,
                  std::vector<ValueSpec>* out) -> Status {
    for (size_t i = 0; i < types.size(); ++i) {
      ValueSpec value;
      value.type_char = types[i];
      // Descriptions only count when there is one per value.
      if (texts && texts->size() == types.size()) {
        value.description = texts->Get(static_cast<uint32_t>(i))->str();
        if (value.type_char == 'r') {
          auto tensor = ParseTensorTypeDescription(value.description);
          if (!tensor.ok()) {
            return tensor.status().WithContext(std::string(what) + " " + std::to_string(i) +
                                               " of function '" + function.name + "'");
          }
          value.tensor = std::move(*tensor);
        }
      }
      out->push_back(std::move(value));
    }
    return OkStatus();
  };
  KILN_RETURN_IF_ERROR(fill(parts.arguments, arguments, "argument", &spec.arguments));
  KILN_RETURN_IF_ERROR(fill(parts.results, results, "result", &spec.results));
  return spec;
}

Result<std::span<const uint8_t>> InputFiles::Bytes(const std::string& path, bool restart) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile(path));
    it = files_.emplace(path, File{std::move(bytes), 0}).first;
  }
  if (restart) it->second.offset = 0;
  return it->second.bytes.span().subspan(it->second.offset);
}

void InputFiles::Advance(const std::string& path, size_t count) {
  auto it = files_.find(path);
  if (it != files_.end()) it->second.offset += count;
}

Result<std::vector<HostValue>> ParseFunctionValues(std::span<const std::string> texts,
                                                   std::span<const ValueSpec> specs,
                                                   std::string_view function, ValueRole role,
                                                   InputFiles& files) {
  const bool input = role == ValueRole::kInput;
  if (texts.size() != specs.size()) {
    if (input) {
      return InvalidArgumentError("function '" + std::string(function) + "' expects " +
                                  std::to_string(specs.size()) + " input(s), got " +
                                  std::to_string(texts.size()));
    }
    return InvalidArgumentError("function '" + std::string(function) + "' returns " +
                                std::to_string(specs.size()) + " result(s), got " +
                                std::to_string(texts.size()) + " expected output(s)");
  }
  std::vector<HostValue> values;
  values.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    auto value = ParseOneValue(texts[i], i, specs[i], role, files);
    if (!value.ok()) {
      return Status(value.status().code(),
                    (input ? "input " : "expected output ") + std::to_string(i) + " of function '" +
                        std::string(function) + "': " + value.status().message());
    }
    values.push_back(std::move(*value));
  }
  return values;
}

Result<Ref<vm::List>> MakeArguments(hal::Device& device, std::span<const HostValue> values) {
  Ref<vm::List> list = vm::List::Create(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const HostValue& value = values[i];
    if (value.kind != HostValue::Kind::kTensor) {
      list->Push(value.scalar);
      continue;
    }
    auto view = UploadTensor(device, value.tensor);
    if (!view.ok()) return view.status().WithContext("input " + std::to_string(i));
    list->Push(Variant::FromRef(hal::WrapBufferView(std::move(*view))));
  }
  return list;
}

Result<std::vector<HostValue>> ReadResults(hal::Device& device, const vm::List& results,
                                           std::span<const ValueSpec> declared) {
  std::vector<HostValue> values;
  values.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const Variant& item = results.items()[i];
    HostValue value;
    value.scalar = item;
    if (item.is_ref()) {
      value.kind = HostValue::Kind::kRef;
      if (Ref<hal::BufferView> view = hal::UnwrapBufferView(item)) {
        auto tensor = DownloadTensor(device, *view);
        if (!tensor.ok()) return tensor.status().WithContext("result " + std::to_string(i));
        value.kind = HostValue::Kind::kTensor;
        value.tensor = std::move(*tensor);
        // A signless integer result declared signed or unsigned (an ONNX
        // model's uint8) reads as declared: same bits, the caller's type.
        const hal::ElementType actual = value.tensor.element_type;
        if (i < declared.size() && declared[i].tensor &&
            hal::ElementKind(actual) == hal::NumericalKind::kInteger) {
          const hal::ElementType want = declared[i].tensor->element_type;
          const hal::NumericalKind kind = hal::ElementKind(want);
          if ((kind == hal::NumericalKind::kIntegerSigned ||
               kind == hal::NumericalKind::kIntegerUnsigned) &&
              hal::ElementBitWidth(want) == hal::ElementBitWidth(actual)) {
            value.tensor.element_type = want;
          }
        }
        value.scalar = Variant();
      }
    }
    values.push_back(std::move(value));
  }
  return values;
}

std::string FormatHostValue(const HostValue& value, const TensorFormatOptions& options) {
  switch (value.kind) {
    case HostValue::Kind::kTensor:
      return "hal.buffer_view\n" + FormatTensor(value.tensor, options);
    case HostValue::Kind::kIgnored:
      return "(ignored)";
    default:
      return FormatValue(value.scalar);
  }
}

std::vector<std::string> CompareHostValues(std::span<const HostValue> expected,
                                           std::span<const HostValue> actual,
                                           const ComparisonOptions& options) {
  std::vector<std::string> mismatches;
  for (size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
    const HostValue& want = expected[i];
    const HostValue& got = actual[i];
    const std::string prefix = "result[" + std::to_string(i) + "]: ";
    switch (want.kind) {
      case HostValue::Kind::kIgnored:
        break;
      case HostValue::Kind::kScalar:
      case HostValue::Kind::kRef:
        if (got.kind == HostValue::Kind::kTensor ||
            !ScalarsMatch(want.scalar, got.scalar, options)) {
          mismatches.push_back(prefix + "expected " + Describe(want, options.format) + " but got " +
                               Describe(got, options.format));
        }
        break;
      case HostValue::Kind::kTensor: {
        if (got.kind != HostValue::Kind::kTensor) {
          mismatches.push_back(prefix + "expected " + Describe(want, options.format) + " but got " +
                               Describe(got, options.format));
          break;
        }
        if (std::optional<std::string> why = DescribeMismatch(
                want.tensor, got.tensor, ThresholdFor(want.tensor.element_type, options))) {
          mismatches.push_back(prefix + *why + "\n  expected:\n" +
                               FormatTensor(want.tensor, options.format) + "\n  actual:\n" +
                               FormatTensor(got.tensor, options.format));
        }
        break;
      }
    }
  }
  return mismatches;
}

Status WriteOutputs(std::span<const std::string> specs, std::span<const HostValue> results,
                    const TensorFormatOptions& format,
                    const std::function<void(std::string_view)>& print) {
  for (size_t i = 0; i < specs.size() && i < results.size(); ++i) {
    const std::string& spec = specs[i];
    const HostValue& value = results[i];
    const std::string where = "--output=" + spec + " (result " + std::to_string(i) + ")";
    if (spec.empty()) continue;
    if (spec == "-") {
      print("result[" + std::to_string(i) + "]: " + FormatHostValue(value, format) + "\n");
      continue;
    }
    if (!IsFileReference(spec)) {
      return InvalidArgumentError(where +
                                  ": expected '' (ignore), '-' (print), @FILE (write) or "
                                  "+FILE (append)");
    }
    const bool append = spec.front() == '+';
    std::string path = spec.substr(1);
    if (append && !path.empty() && path.front() == '@') path.erase(0, 1);  // "+@file" too.
    if (path.empty()) return InvalidArgumentError(where + ": no file name");
    HostTensor tensor;
    if (value.kind == HostValue::Kind::kTensor) {
      tensor = value.tensor;
    } else {
      auto scalar = ScalarTensor(value.scalar);
      if (!scalar.ok()) return scalar.status().WithContext(where);
      tensor = std::move(*scalar);
    }
    Status status;
    if (path.ends_with(".npy")) {
      status = append ? AppendNpyFile(path, tensor) : WriteNpyFile(path, tensor);
    } else {
      status = append ? AppendFile(path, tensor.bytes) : WriteFile(path, tensor.bytes);
    }
    if (!status.ok()) return status.WithContext(where);
  }
  return OkStatus();
}

}  // namespace kiln::tools
