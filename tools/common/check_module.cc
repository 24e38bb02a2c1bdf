#include "tools/common/check_module.h"

#include <charconv>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include "hal/module/check_imports.h"
#include "hal/module/hal_module.h"
#include "tools/common/device_tensor.h"
#include "tools/common/host_tensor.h"
#include "tools/common/tensor_literal.h"
#include "vm/byte_buffer.h"
#include "vm/native_module.h"

namespace kiln::tools {
namespace {

using hal::CheckImport;
using vm::Variant;
using Args = std::span<const Variant>;
using Results = std::span<Variant>;

// Per context: the failures not yet taken by the host.
struct CheckState {
  std::vector<CheckFailure> failures;
};

using CheckModule = vm::NativeModule<CheckState>;

Status ArgError(size_t index, std::string_view role, std::string_view what) {
  return InvalidArgumentError("argument " + std::to_string(index) + " (" + std::string(role) +
                              "): " + std::string(what));
}

// The text of the vm.buffer argument `index` (the check's location).
Status GetText(Args args, size_t index, std::string* out) {
  const vm::Object* object = args[index].ref().get();
  if (!object || &object->type() != &vm::ByteBuffer::Type()) {
    return ArgError(index, "location", "expected vm.buffer, got " + args[index].ToString());
  }
  const auto* buffer = static_cast<const vm::ByteBuffer*>(object);
  out->assign(reinterpret_cast<const char*>(buffer->data()), buffer->length());
  return OkStatus();
}

Status GetDevice(Args args, size_t index, Ref<hal::Device>* out) {
  *out = hal::UnwrapDevice(args[index]);
  if (!*out) return ArgError(index, "device", "expected hal.device, got " + args[index].ToString());
  return OkStatus();
}

// The contents of the buffer view in argument `index`, read back from `device`.
Status GetTensor(Args args, size_t index, std::string_view role, hal::Device& device,
                 HostTensor* out) {
  Ref<hal::BufferView> view = hal::UnwrapBufferView(args[index]);
  if (!view)
    return ArgError(index, role, "expected hal.buffer_view, got " + args[index].ToString());
  auto tensor = DownloadTensor(device, *view);
  if (!tensor.ok())
    return tensor.status().WithContext("argument " + std::to_string(index) + " (" +
                                       std::string(role) + ")");
  *out = std::move(*tensor);
  return OkStatus();
}

std::string Show(const HostTensor& tensor) {
  TensorFormatOptions options;
  options.max_element_count = kCheckMaxPrintedElements;
  return FormatTensor(tensor, options);
}

void Fail(CheckState& state, std::string location, std::string message) {
  state.failures.push_back({std::move(location), std::move(message)});
}

// A failed comparison of two tensors: why, then both of them.
void FailComparison(CheckState& state, std::string location, std::string_view check,
                    std::string_view why, const HostTensor& lhs, const HostTensor& rhs) {
  Fail(state, std::move(location),
       std::string(check) + " failed: " + std::string(why) + "\n  lhs: " + Show(lhs) +
           "\n  rhs: " + Show(rhs));
}

// Why two tensors cannot be compared element by element, if they cannot.
std::optional<std::string> DescribeShapeMismatch(const HostTensor& lhs, const HostTensor& rhs) {
  if (lhs.element_type != rhs.element_type) {
    return "element types differ (" + std::string(hal::FormatElementType(lhs.element_type)) +
           " vs " + std::string(hal::FormatElementType(rhs.element_type)) + ")";
  }
  if (lhs.shape != rhs.shape) {
    return "shapes differ (" + FormatShapeAndType(lhs.shape, lhs.element_type) + " vs " +
           FormatShapeAndType(rhs.shape, rhs.element_type) + ")";
  }
  return std::nullopt;
}

// The shortest text that reads back as `value`.
std::string Shortest(float value) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof(text), value);
  return error == std::errc() ? std::string(text, end) : std::to_string(value);
}

Status ExpectScalar(CheckState& state, Args args, bool want_true) {
  std::string location;
  KILN_RETURN_IF_ERROR(GetText(args, 1, &location));
  const int32_t value = args[0].i32();
  if ((value != 0) != want_true) {
    Fail(state, std::move(location),
         std::string(want_true ? "expect_true" : "expect_false") + " failed: the operand is " +
             std::to_string(value));
  }
  return OkStatus();
}

Status ExpectTrue(CheckState& state, Args args, Results) { return ExpectScalar(state, args, true); }
Status ExpectFalse(CheckState& state, Args args, Results) {
  return ExpectScalar(state, args, false);
}

Status ExpectAllTrue(CheckState& state, Args args, Results) {
  Ref<hal::Device> device;
  KILN_RETURN_IF_ERROR(GetDevice(args, 0, &device));
  HostTensor operand;
  KILN_RETURN_IF_ERROR(GetTensor(args, 1, "operand", *device, &operand));
  std::string location;
  KILN_RETURN_IF_ERROR(GetText(args, 2, &location));
  const bool is_float = hal::IsFloatType(operand.element_type);
  for (int64_t i = 0; i < operand.element_count(); ++i) {
    const bool is_true =
        is_float ? operand.ElementAsDouble(i) != 0 : operand.ElementAsUint64(i) != 0;
    if (!is_true) {
      Fail(state, std::move(location),
           "expect_all_true failed: element " + FormatCoordinates(operand.shape, i) +
               " is 0\n  operand: " + Show(operand));
      break;
    }
  }
  return OkStatus();
}

Status ExpectEq(CheckState& state, Args args, Results) {
  Ref<hal::Device> device;
  KILN_RETURN_IF_ERROR(GetDevice(args, 0, &device));
  HostTensor lhs, rhs;
  KILN_RETURN_IF_ERROR(GetTensor(args, 1, "lhs", *device, &lhs));
  KILN_RETURN_IF_ERROR(GetTensor(args, 2, "rhs", *device, &rhs));
  std::string location;
  KILN_RETURN_IF_ERROR(GetText(args, 3, &location));
  if (std::optional<std::string> why = DescribeShapeMismatch(lhs, rhs)) {
    FailComparison(state, std::move(location), "expect_eq", *why, lhs, rhs);
    return OkStatus();
  }
  // Bitwise: -0.0 differs from 0.0, and NaNs match only the same NaN.
  const size_t size = lhs.element_size();
  for (int64_t i = 0; i < lhs.element_count(); ++i) {
    if (std::memcmp(lhs.bytes.data() + i * size, rhs.bytes.data() + i * size, size) != 0) {
      FailComparison(state, std::move(location), "expect_eq",
                     "element " + FormatCoordinates(lhs.shape, i) + ": expected " +
                         FormatElement(rhs, i, FloatNotation::kShortest) + " but got " +
                         FormatElement(lhs, i, FloatNotation::kShortest),
                     lhs, rhs);
      break;
    }
  }
  return OkStatus();
}

Status ExpectAlmostEq(CheckState& state, Args args, Results) {
  Ref<hal::Device> device;
  KILN_RETURN_IF_ERROR(GetDevice(args, 0, &device));
  HostTensor lhs, rhs;
  KILN_RETURN_IF_ERROR(GetTensor(args, 1, "lhs", *device, &lhs));
  KILN_RETURN_IF_ERROR(GetTensor(args, 2, "rhs", *device, &rhs));
  const float atol = args[3].f32();
  const float rtol = args[4].f32();
  if (!(atol >= 0)) return ArgError(3, "atol", std::to_string(atol) + " is not >= 0");
  if (!(rtol >= 0)) return ArgError(4, "rtol", std::to_string(rtol) + " is not >= 0");
  std::string location;
  KILN_RETURN_IF_ERROR(GetText(args, 5, &location));
  std::optional<std::string> why = DescribeShapeMismatch(lhs, rhs);
  // rhs is the expected value: the tolerance scales with it (numpy's isclose).
  if (!why) why = DescribeMismatch(rhs, lhs, Tolerance{atol, rtol});
  if (why) {
    FailComparison(state, std::move(location),
                   "expect_almost_eq (atol " + Shortest(atol) + ", rtol " + Shortest(rtol) + ")",
                   *why, lhs, rhs);
  }
  return OkStatus();
}

}  // namespace

std::string CheckFailure::ToString() const {
  return location.empty() ? message : location + ": " + message;
}

Result<Ref<vm::Module>> CreateCheckModule(vm::Instance& instance) {
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(instance));
  Ref<CheckModule> module = CheckModule::Create(std::string(hal::kCheckModuleName), nullptr);
  // Every import of the contract table (check_imports.h), served by the
  // function of the same name: an entry without one does not compile.
#define KILN_CHECK_EXPORT(id, ...)                                                  \
  module->ExportVariadic(std::string(hal::GetCheckImport(CheckImport::k##id).name), \
                         std::string(hal::GetCheckImport(CheckImport::k##id).signature), id);
  KILN_FOR_EACH_CHECK_IMPORT(KILN_CHECK_EXPORT)
#undef KILN_CHECK_EXPORT
  return Ref<vm::Module>(std::move(module));
}

std::vector<CheckFailure> TakeCheckFailures(const vm::Context& context,
                                            const vm::Module& check_module) {
  if (!dynamic_cast<const CheckModule*>(&check_module)) return {};
  for (size_t i = 0; i < context.modules().size(); ++i) {
    if (context.modules()[i].get() != &check_module) continue;
    std::vector<CheckFailure>& failures = CheckModule::UserState(*context.state_of(i)).failures;
    std::vector<CheckFailure> taken = std::move(failures);
    failures.clear();
    return taken;
  }
  return {};
}

}  // namespace kiln::tools
