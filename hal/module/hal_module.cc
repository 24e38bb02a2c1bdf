#include "hal/module/hal_module.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "hal/collective.h"
#include "hal/element_type.h"
#include "hal/instrumentation.h"
#include "hal/module/hal_imports.h"
#include "hal/module/hal_types.h"
#include "hal/transfer.h"
#include "vm/byte_buffer.h"
#include "vm/native_module.h"

namespace kiln::hal {
namespace {

using vm::ByteBuffer;
using vm::ValueType;
using vm::Variant;
using Args = std::span<const Variant>;
using Results = std::span<Variant>;

// Per-context state: the devices (wrapped once, so hal.devices.get hands out
// the same ref every time) and scratch space the hot imports reuse instead of
// allocating per call.
struct HalState {
  // The semaphore fence.create last used on a device, and the value of the
  // last fence made on it: reused while every fence on it is reached.
  struct FenceSemaphore {
    const Device* device;
    Ref<Semaphore> semaphore;
    uint64_t value;
    // The last fence made on `semaphore`, as the VM holds it: handed out
    // again (its one timepoint moved on) once nothing else holds it.
    Ref<vm::Object> last_fence;
  };
  std::vector<Ref<Device>> devices;
  Ref<ParameterIndex> parameters;  // Never null (empty when none were given).
  // The group the program's default channels join (channel.default).
  CollectiveGroup collectives;
  Ref<Trace> trace;  // Null: nothing is traced.
  // When each command buffer being recorded began (for its "record" span).
  std::vector<std::pair<const CommandBuffer*, int64_t>> recording_since;
  std::vector<FenceSemaphore> fence_semaphores;
  // hal.device.allocator's result per device, made once: a program asks
  // for it on every call.
  std::vector<std::pair<const Device*, Ref<vm::Object>>> allocators;
  // device.instrumentation_ring's ring per device, made once per context:
  // every instrumented dispatch binds it, so every call appends to it.
  struct ContextRing {
    const Device* device;
    uint64_t byte_length;
    Ref<vm::Object> buffer;
  };
  std::vector<ContextRing> instrumentation_rings;
  Ref<InstrumentationRings> instrumentation;  // Null: rings are not registered.
  std::vector<Ref<vm::Object>> device_refs;
  std::vector<uint32_t> constants;
  std::vector<BufferRef> bindings;         // Empty between calls.
  std::vector<Ref<Buffer>> binding_table;  // Empty between calls.
  std::vector<int64_t> dims;
};

// ---------------------------------------------------------------------------
// Argument access. Every check builds its message only when it fails, in the
// cold, out-of-line functions below: a call's host time on a GPU follows how
// many cache lines its path touches (the host finds its caches cold after
// waiting for the device), so the checks on that path stay a few
// instructions each and the message code stays out of their lines.

[[gnu::cold, gnu::noinline]] Status ArgError(size_t index, std::string_view role,
                                             std::string_view what) {
  return InvalidArgumentError("argument " + std::to_string(index) + " (" + std::string(role) +
                              "): " + std::string(what));
}

// Argument `index` is not a ref of `expected` (or is null where that is not
// allowed).
[[gnu::cold, gnu::noinline]] Status RefArgError(Args args, size_t index, std::string_view role,
                                                const vm::RefType& expected) {
  return ArgError(index, role,
                  "expected " + std::string(expected.name) + ", got " + args[index].ToString());
}

[[gnu::cold, gnu::noinline]] Status I64ArgError(Args args, size_t index, std::string_view role) {
  return ArgError(index, role, "expected i64, got " + args[index].ToString());
}

[[gnu::cold, gnu::noinline]] Status DimArgError(Args args, size_t first, size_t i,
                                                bool any_allowed) {
  const Variant& value = args[first + i];
  return ArgError(first + i, "dim " + std::to_string(i),
                  value.type() != ValueType::kI64
                      ? "expected i64, got " + value.ToString()
                      : std::to_string(value.i64()) + " is negative" +
                            (any_allowed ? " (only -1, any size, is allowed)" : ""));
}

[[gnu::cold, gnu::noinline]] Status NegativeSizeError(size_t index, std::string_view role,
                                                      int64_t value, bool whole_allowed) {
  return ArgError(index, role,
                  std::to_string(value) + " is negative" +
                      (whole_allowed ? " (only -1, the whole buffer, is allowed)" : ""));
}

[[gnu::cold, gnu::noinline]] Status ElementTypeArgError(Args args, size_t index) {
  if (args[index].type() != ValueType::kI32) {
    return ArgError(index, "element type", "expected i32, got " + args[index].ToString());
  }
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08X", static_cast<uint32_t>(args[index].i32()));
  return ArgError(index, "element type", "unknown element type encoding " + std::string(hex));
}

// The holder (VmHalObject<T>, VmAllocator or ByteBuffer) in ref argument
// `index`; null only when `nullable` and the ref is null.
template <typename Holder>
Status GetHolder(Args args, size_t index, std::string_view role, bool nullable,
                 const Holder** out) {
  const Variant& value = args[index];
  if (value.is_ref()) {
    const vm::Object* object = value.ref().get();
    if (!object) {
      if (nullable) {
        *out = nullptr;
        return OkStatus();
      }
    } else if (&object->type() == &Holder::Type()) {
      *out = static_cast<const Holder*>(object);
      return OkStatus();
    }
  }
  return RefArgError(args, index, role, Holder::Type());
}

// The HAL object of type T in argument `index` (never null).
template <typename T>
Status Get(Args args, size_t index, std::string_view role, const Ref<T>** out) {
  const VmHalObject<T>* holder = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, index, role, /*nullable=*/false, &holder));
  *out = &holder->get();
  return OkStatus();
}

// A fence argument that may be null (no wait): null gives `empty`.
Status GetWaitFence(Args args, size_t index, const Fence& empty, const Fence** out) {
  const VmFence* holder = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, index, "wait fence", /*nullable=*/true, &holder));
  *out = holder ? holder->get().get() : &empty;
  return OkStatus();
}

// The bytes of a vm.buffer argument as text (names, formats, messages).
Status GetText(Args args, size_t index, std::string_view role, std::string_view* out) {
  const ByteBuffer* buffer = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, index, role, /*nullable=*/false, &buffer));
  *out = std::string_view(reinterpret_cast<const char*>(buffer->data()), buffer->length());
  return OkStatus();
}

// An i64 argument of a variadic tail (whose type the VM does not know).
Status GetI64(Args args, size_t index, std::string_view role, int64_t* out) {
  if (args[index].type() != ValueType::kI64) return I64ArgError(args, index, role);
  *out = args[index].i64();
  return OkStatus();
}

// Dim `i` of a shape that starts at argument `first` (i64; >= 0, or also -1
// when `any_allowed`).
Status GetDim(Args args, size_t first, size_t i, bool any_allowed, int64_t* out) {
  const Variant& value = args[first + i];
  if (value.type() == ValueType::kI64 && (value.i64() >= 0 || (any_allowed && value.i64() == -1))) {
    *out = value.i64();
    return OkStatus();
  }
  return DimArgError(args, first, i, any_allowed);
}

// A byte offset or length (i64): non-negative, or -1 for "the whole rest"
// where `whole_allowed`.
Status GetSize(Args args, size_t index, std::string_view role, bool whole_allowed, size_t* out) {
  int64_t value = 0;
  KILN_RETURN_IF_ERROR(GetI64(args, index, role, &value));
  if (value >= 0) {
    *out = static_cast<size_t>(value);
    return OkStatus();
  }
  if (value == -1 && whole_allowed) {
    *out = kWholeBuffer;
    return OkStatus();
  }
  return NegativeSizeError(index, role, value, whole_allowed);
}

Status GetElementType(Args args, size_t index, ElementType* out) {
  if (args[index].type() != ValueType::kI32) return ElementTypeArgError(args, index);
  ElementType type = static_cast<ElementType>(static_cast<uint32_t>(args[index].i32()));
  if (type == ElementType::kNone || FormatElementType(type) == "none") {
    return ElementTypeArgError(args, index);
  }
  *out = type;
  return OkStatus();
}

Variant Wrapped(Ref<vm::Object> object) { return Variant::FromRef(std::move(object)); }

// ---------------------------------------------------------------------------
// Devices and allocation.

Status DevicesCount(HalState& state, Args, Results results) {
  results[0] = Variant::I32(static_cast<int32_t>(state.devices.size()));
  return OkStatus();
}

Status DevicesGet(HalState& state, Args args, Results results) {
  const int32_t index = args[0].i32();
  if (index < 0 || static_cast<size_t>(index) >= state.devices.size()) {
    return OutOfRangeError("argument 0 (index): device " + std::to_string(index) +
                           " does not exist (the hal module has " +
                           std::to_string(state.devices.size()) + " device(s))");
  }
  results[0] = Variant::FromRef(state.device_refs[index]);
  return OkStatus();
}

Status DeviceAllocator(HalState& state, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  for (const auto& [owner, allocator] : state.allocators) {
    if (owner == device->get()) {
      results[0] = Wrapped(allocator);
      return OkStatus();
    }
  }
  Ref<vm::Object> allocator = MakeRef<VmAllocator>(*device);
  state.allocators.emplace_back(device->get(), allocator);
  results[0] = Wrapped(std::move(allocator));
  return OkStatus();
}

// The ring instrumented kernels record their workgroups into: made on the
// first call (the module initializer; a new ring's header, zeroed records,
// uploaded as constants are), registered for the host to read back, and the
// same buffer on every later call.
Status DeviceInstrumentationRing(HalState& state, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  size_t length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 1, "byte length", /*whole_allowed=*/false, &length));
  for (const HalState::ContextRing& ring : state.instrumentation_rings) {
    if (ring.device != device->get()) continue;
    if (ring.byte_length != length) {
      return ArgError(1, "byte length",
                      "this context's instrumentation ring on the device holds " +
                          std::to_string(ring.byte_length) + " bytes, not " +
                          std::to_string(length));
    }
    results[0] = Wrapped(ring.buffer);
    return OkStatus();
  }
  if (Status size = CheckInstrumentRingSize(length); !size.ok()) {
    return ArgError(1, "byte length", size.message());
  }
  const std::vector<uint8_t> image = NewInstrumentRingImage(length);
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                        UploadBuffer(**device, image, "the instrumentation ring"));
  if (state.instrumentation) state.instrumentation->Register({*device, buffer, length});
  Ref<vm::Object> wrapped = WrapForVm(std::move(buffer));
  state.instrumentation_rings.push_back({device->get(), length, wrapped});
  results[0] = Wrapped(std::move(wrapped));
  return OkStatus();
}

Status AllocatorAllocate(HalState&, Args args, Results results) {
  const VmAllocator* allocator = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, 0, "allocator", /*nullable=*/false, &allocator));
  BufferParams params;
  if (uint32_t types = static_cast<uint32_t>(args[1].i32())) params.memory_type = types;
  if (uint32_t usage = static_cast<uint32_t>(args[2].i32())) params.usage = usage;
  size_t length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 3, "byte length", /*whole_allowed=*/false, &length));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer, allocator->allocator().Allocate(params, length));
  results[0] = Wrapped(WrapForVm(std::move(buffer)));
  return OkStatus();
}

// A program's constant bytes (a rodata) in a new buffer of the allocator's
// device, by the transfer the tools use for their inputs.
Status AllocatorAllocateInitialized(HalState&, Args args, Results results) {
  const VmAllocator* allocator = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, 0, "allocator", /*nullable=*/false, &allocator));
  const ByteBuffer* source = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, 1, "source", /*nullable=*/false, &source));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                        UploadBuffer(*allocator->device(), source->bytes(),
                                     std::to_string(source->length()) + " bytes of constant data"));
  results[0] = Wrapped(WrapForVm(std::move(buffer)));
  return OkStatus();
}

// A parameter global's buffer (once per context, in the module
// initializer): the parameter's bytes, found and checked against the
// program's tensor type by the index, uploaded as constants are. The index
// names the scope, key and file in its errors.
Status AllocatorAllocateParameter(HalState& state, Args args, Results results) {
  const VmAllocator* allocator = nullptr;
  KILN_RETURN_IF_ERROR(GetHolder(args, 0, "allocator", /*nullable=*/false, &allocator));
  std::string_view scope, key;
  KILN_RETURN_IF_ERROR(GetText(args, 1, "scope", &scope));
  KILN_RETURN_IF_ERROR(GetText(args, 2, "key", &key));
  ElementType type = ElementType::kNone;
  KILN_RETURN_IF_ERROR(GetElementType(args, 3, &type));
  size_t length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 4, "byte length", /*whole_allowed=*/false, &length));
  state.dims.clear();
  for (size_t i = 0; i + 5 < args.size(); ++i) {
    int64_t dim = 0;
    KILN_RETURN_IF_ERROR(GetDim(args, 5, i, /*any_allowed=*/false, &dim));
    state.dims.push_back(dim);
  }
  KILN_ASSIGN_OR_RETURN(const SafetensorsTensor* tensor,
                        state.parameters->Lookup(scope, key, type, state.dims));
  const std::string what = "parameter " + ParameterIndex::FormatParameter(scope, key);
  if (tensor->bytes.size() != length) {
    return ArgError(4, "byte length",
                    std::to_string(length) + " bytes expected of " + what + ", which holds " +
                        std::to_string(tensor->bytes.size()));
  }
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                        UploadBuffer(*allocator->device(), tensor->bytes, what));
  results[0] = Wrapped(WrapForVm(std::move(buffer)));
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Buffers and buffer views.

Status BufferLength(HalState&, Args args, Results results) {
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer", &buffer));
  results[0] = Variant::I64(static_cast<int64_t>((*buffer)->byte_length()));
  return OkStatus();
}

Status BufferSubspan(HalState&, Args args, Results results) {
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer", &buffer));
  size_t offset = 0, length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 1, "offset", /*whole_allowed=*/false, &offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 2, "length", /*whole_allowed=*/true, &length));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> subspan, Buffer::Subspan(*buffer, offset, length));
  results[0] = Wrapped(WrapForVm(std::move(subspan)));
  return OkStatus();
}

// The size check of dispatch operands: the compiler passes the bytes an
// operand's declared shape needs and a message naming the function, the
// dispatch and the operand.
Status BufferAssert(HalState&, Args args, Results) {
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer", &buffer));
  std::string_view message;
  KILN_RETURN_IF_ERROR(GetText(args, 1, "message", &message));
  size_t minimum = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 2, "minimum length", /*whole_allowed=*/false, &minimum));
  const size_t length = (*buffer)->byte_length();
  if (length >= minimum) return OkStatus();
  return InvalidArgumentError(std::string(message) + ": needs " + std::to_string(minimum) +
                              " bytes, but its buffer holds " + std::to_string(length));
}

// One element the host reads (tensor.extract on the host): its bytes read
// back through the transfer the tools use (directly where the host can map
// the buffer, else through a staging copy), little-endian, zero-extended.
// The compiler submits and awaits the work that wrote the buffer first.
Status BufferLoad(HalState&, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 1, "buffer", &buffer));
  size_t offset = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 2, "offset", /*whole_allowed=*/false, &offset));
  const int32_t length = args[3].i32();
  if (length != 1 && length != 2 && length != 4 && length != 8) {
    return ArgError(3, "length", std::to_string(length) + " is not 1, 2, 4 or 8");
  }
  const size_t size = (*buffer)->byte_length();
  if (offset > size || static_cast<size_t>(length) > size - offset) {
    return OutOfRangeError("hal.buffer.load of " + std::to_string(length) + " bytes at offset " +
                           std::to_string(offset) + " of a buffer of " + std::to_string(size) +
                           " bytes");
  }
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> element, Buffer::Subspan(*buffer, offset, length));
  std::array<uint8_t, 8> bytes = {};
  KILN_RETURN_IF_ERROR(
      ReadBuffer(**device, element, std::span<uint8_t>(bytes.data(), length),
                 std::to_string(length) + " bytes at offset " + std::to_string(offset)));
  uint64_t value = 0;
  for (int32_t i = length - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  results[0] = Variant::I64(static_cast<int64_t>(value));
  return OkStatus();
}

Status BufferViewCreate(HalState& state, Args args, Results results) {
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer", &buffer));
  ElementType type = ElementType::kNone;
  KILN_RETURN_IF_ERROR(GetElementType(args, 1, &type));
  state.dims.clear();
  for (size_t i = 0; i + 2 < args.size(); ++i) {
    int64_t dim = 0;
    KILN_RETURN_IF_ERROR(GetDim(args, 2, i, /*any_allowed=*/false, &dim));
    state.dims.push_back(dim);
  }
  KILN_ASSIGN_OR_RETURN(Ref<BufferView> view, BufferView::Create(*buffer, state.dims, type));
  results[0] = Wrapped(WrapForVm(std::move(view)));
  return OkStatus();
}

Status BufferViewBuffer(HalState&, Args args, Results results) {
  const Ref<BufferView>* view = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer view", &view));
  results[0] = Wrapped(WrapForVm((*view)->buffer()));
  return OkStatus();
}

Status BufferViewRank(HalState&, Args args, Results results) {
  const Ref<BufferView>* view = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer view", &view));
  results[0] = Variant::I32(static_cast<int32_t>((*view)->rank()));
  return OkStatus();
}

Status BufferViewDim(HalState&, Args args, Results results) {
  const Ref<BufferView>* view = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer view", &view));
  const int32_t index = args[1].i32();
  if (index < 0 || static_cast<size_t>(index) >= (*view)->rank()) {
    return OutOfRangeError("argument 1 (index): dim " + std::to_string(index) +
                           " does not exist in a buffer view of rank " +
                           std::to_string((*view)->rank()) + " (" + (*view)->ShapeString() + ")");
  }
  results[0] = Variant::I64((*view)->dim(index));
  return OkStatus();
}

Status BufferViewElementType(HalState&, Args args, Results results) {
  const Ref<BufferView>* view = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "buffer view", &view));
  results[0] = Variant::I32(static_cast<int32_t>((*view)->element_type()));
  return OkStatus();
}

// "tensor<?x4xf32>" from the asserted dims (-1 = ?) and element type.
std::string ExpectedTensor(Args dims, ElementType type) {
  std::string text = "tensor<";
  for (const Variant& dim : dims) text += (dim.i64() == -1 ? "?" : std::to_string(dim.i64())) + "x";
  return text + std::string(FormatElementType(type)) + ">";
}

// hal.buffer_view.assert's error: the program's input is not the tensor it declares.
[[gnu::cold, gnu::noinline]] Status AssertMismatchError(Args args, std::string_view message,
                                                        ElementType type, const BufferView* view) {
  const Args dims = args.subspan(3);
  const Variant& value = args[0];
  std::string got;
  if (view) {
    got = view->ShapeString();
  } else if (value.is_ref() && value.ref()) {
    got = "a " + std::string(value.ref()->type().name) + " (not a tensor)";
  } else if (value.is_ref()) {
    got = "null";
  } else {
    got = value.ToString();
  }
  return InvalidArgumentError(std::string(message) + ": expected " + ExpectedTensor(dims, type) +
                              ", got " + got);
}

Status BufferViewAssert(HalState&, Args args, Results) {
  std::string_view message;
  KILN_RETURN_IF_ERROR(GetText(args, 1, "message", &message));
  ElementType type = ElementType::kNone;
  KILN_RETURN_IF_ERROR(GetElementType(args, 2, &type));
  const Args dims = args.subspan(3);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t dim = 0;
    KILN_RETURN_IF_ERROR(GetDim(args, 3, i, /*any_allowed=*/true, &dim));
  }
  // The value itself is the program's input, so a wrong one is described
  // from the program's point of view, not as a bad import argument.
  const Variant& value = args[0];
  const BufferView* view =
      value.is_ref() ? UnwrapFromVm<BufferView>(value.ref().get()).get() : nullptr;
  bool matches =
      view && IsCompatibleElementType(type, view->element_type()) && view->rank() == dims.size();
  for (size_t i = 0; matches && i < dims.size(); ++i) {
    matches = dims[i].i64() == -1 || dims[i].i64() == view->dim(i);
  }
  if (matches) return OkStatus();
  return AssertMismatchError(args, message, type, view);
}

// ---------------------------------------------------------------------------
// Executables.

Status ExecutableLoad(HalState&, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  std::string_view name;
  KILN_RETURN_IF_ERROR(GetText(args, 1, "name", &name));
  if ((args.size() - 2) % 2 != 0) {
    return InvalidArgumentError("executable '" + std::string(name) +
                                "': " + std::to_string(args.size() - 2) +
                                " arguments follow the name; variants take 2 each (format, data)");
  }
  // Check every variant before choosing, so a malformed one is reported
  // whichever device runs the module.
  for (size_t i = 2; i < args.size(); i += 2) {
    std::string_view format;
    const ByteBuffer* data = nullptr;
    KILN_RETURN_IF_ERROR(GetText(args, i, "format", &format));
    KILN_RETURN_IF_ERROR(GetHolder(args, i + 1, "data", /*nullable=*/false, &data));
  }
  const std::vector<std::string>& runnable = (*device)->properties().executable_formats;
  for (size_t i = 2; i < args.size(); i += 2) {
    std::string_view format;
    KILN_RETURN_IF_ERROR(GetText(args, i, "format", &format));
    bool runs = false;
    for (const std::string& f : runnable) runs = runs || f == format;
    if (!runs) continue;
    const auto* data = static_cast<const ByteBuffer*>(args[i + 1].ref().get());
    auto executable = (*device)->CreateExecutable(format, data->bytes());
    if (!executable.ok()) {
      return executable.status().WithContext("loading executable '" + std::string(name) + "' (" +
                                             std::string(format) + ")");
    }
    // Names its dispatches in traces ("dispatch @name::@export").
    (*executable)->set_name(std::string(name));
    results[0] = Wrapped(WrapForVm(std::move(*executable)));
    return OkStatus();
  }
  std::string embedded, runs;
  for (size_t i = 2; i < args.size(); i += 2) {
    std::string_view format;
    KILN_RETURN_IF_ERROR(GetText(args, i, "format", &format));
    embedded += (embedded.empty() ? "" : ", ") + std::string(format);
  }
  for (const std::string& f : runnable) runs += (runs.empty() ? "" : ", ") + f;
  return NotFoundError("executable '" + std::string(name) + "' has no variant for device '" +
                       (*device)->properties().name +
                       "' (embedded formats: " + (embedded.empty() ? "none" : embedded) +
                       "; device runs: " + (runs.empty() ? "none" : runs) + ")");
}

// ---------------------------------------------------------------------------
// Channels (collective groups).

// A default channel of the program (flow.channel.default "group"): the
// group this module was given joined on `device`. The module initializer
// makes it once per context and group, so the rendezvous it may wait on is
// paid once.
Status ChannelDefault(HalState& state, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  std::string_view group;
  KILN_RETURN_IF_ERROR(GetText(args, 1, "group", &group));
  const CollectiveGroup& collectives = state.collectives;
  auto what = [&] {
    return "joining the " +
           (group.empty() ? std::string("default channel")
                          : "channel of group '" + std::string(group) + "'") +
           " as rank " + std::to_string(collectives.rank) + " of " +
           std::to_string(collectives.world_size);
  };
  if (collectives.world_size > 1 && !collectives.rendezvous) {
    return FailedPreconditionError(
        what() + ": a group of several participants needs a rendezvous (none was given)");
  }
  ChannelParams params;
  // A second default channel of this group from this process (a second
  // context) meets the others under its own name.
  params.group =
      collectives.rendezvous ? collectives.rendezvous->NextChannelName(group) : std::string(group);
  params.rank = collectives.rank;
  params.count = collectives.world_size;
  params.rendezvous = collectives.rendezvous;
  Result<Ref<Channel>> channel = (*device)->CreateChannel(params);
  if (!channel.ok()) return channel.status().WithContext(what());
  results[0] = Wrapped(WrapForVm(std::move(*channel)));
  return OkStatus();
}

Status ChannelSplit(HalState&, Args args, Results results) {
  const Ref<Channel>* channel = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "channel", &channel));
  const int32_t color = args[1].i32();
  if (color < -1) {
    return ArgError(1, "color",
                    std::to_string(color) + " is negative (only -1, no subgroup, is allowed)");
  }
  KILN_ASSIGN_OR_RETURN(Ref<Channel> split, (*channel)->Split(color, args[2].i32()));
  results[0] = Wrapped(WrapForVm(std::move(split)));  // Null for color -1.
  return OkStatus();
}

Status ChannelRankAndCount(HalState&, Args args, Results results) {
  const Ref<Channel>* channel = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "channel", &channel));
  results[0] = Variant::I32((*channel)->rank());
  results[1] = Variant::I32((*channel)->count());
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Command buffers.

Status CommandBufferCreate(HalState& state, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  const int32_t mode = args[1].i32();
  if (mode != 0 && mode != 1) {
    return ArgError(1, "mode", std::to_string(mode) + " is neither 0 (one-shot) nor 1 (reusable)");
  }
  KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer,
                        (*device)->CreateCommandBuffer(mode == 0 ? CommandBufferMode::kOneShot
                                                                 : CommandBufferMode::kReusable));
  KILN_RETURN_IF_ERROR(command_buffer->Begin());
  if (state.trace && state.trace->recording()) {
    state.recording_since.emplace_back(command_buffer.get(), state.trace->Now());
  }
  results[0] = Wrapped(WrapForVm(std::move(command_buffer)));
  return OkStatus();
}

Status CommandBufferEnd(HalState& state, Args args, Results) {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &command_buffer));
  Status status = (*command_buffer)->End();
  auto& since = state.recording_since;
  for (auto it = since.begin(); it != since.end(); ++it) {
    if (it->first != command_buffer->get()) continue;
    state.trace->AddHostSpan("record", it->second);
    since.erase(it);
    break;
  }
  return status;
}

// The arguments dispatch and dispatch.indirect share: (cmd, executable,
// export ordinal, x, y, z, constant count, constants...), then bindings of
// 3 arguments each, the first of which is a `binding_ref` (buffer or slot).
// Fills state.constants.
struct DispatchHeader {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  const Ref<Executable>* executable = nullptr;
  uint32_t ordinal = 0;
  std::array<uint32_t, 3> workgroups = {};
  size_t first_binding = 0;
};

Status GetDispatchHeader(HalState& state, Args args, const char* binding_ref,
                         DispatchHeader* header) {
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &header->command_buffer));
  KILN_RETURN_IF_ERROR(Get(args, 1, "executable", &header->executable));
  const int32_t ordinal = args[2].i32();
  if (ordinal < 0) return ArgError(2, "export ordinal", std::to_string(ordinal) + " is negative");
  header->ordinal = static_cast<uint32_t>(ordinal);
  for (size_t i = 0; i < 3; ++i) {
    const int32_t count = args[3 + i].i32();
    if (count < 0) {
      return ArgError(3 + i, "workgroup count", std::to_string(count) + " is negative");
    }
    header->workgroups[i] = static_cast<uint32_t>(count);
  }
  const int32_t constant_count = args[6].i32();
  const size_t first_constant = 7;
  if (constant_count < 0 || static_cast<size_t>(constant_count) > args.size() - first_constant) {
    return ArgError(6, "constant count",
                    std::to_string(constant_count) + " constants do not fit in the " +
                        std::to_string(args.size() - first_constant) + " arguments that follow");
  }
  state.constants.clear();
  for (size_t i = first_constant; i < first_constant + constant_count; ++i) {
    if (args[i].type() != ValueType::kI32) {
      return ArgError(i, "constant " + std::to_string(i - first_constant),
                      "expected i32, got " + args[i].ToString());
    }
    state.constants.push_back(static_cast<uint32_t>(args[i].i32()));
  }
  header->first_binding = first_constant + constant_count;
  if ((args.size() - header->first_binding) % 3 != 0) {
    return InvalidArgumentError(std::to_string(args.size() - header->first_binding) +
                                " arguments follow the " + std::to_string(constant_count) +
                                " constant(s); bindings take 3 each (" + binding_ref +
                                ", offset, length)");
  }
  return OkStatus();
}

// Records the dispatch with the bindings gathered in state.bindings, then
// empties the scratch: the command buffer holds what it needs, and the
// scratch keeps no buffers alive.
//
// A workgroup count with a zero component (a dispatch over an empty tensor)
// records nothing: there is no work, and the HAL rejects such a dispatch.
Status RecordDispatch(HalState& state, const DispatchHeader& header, Status status) {
  const bool empty =
      header.workgroups[0] == 0 || header.workgroups[1] == 0 || header.workgroups[2] == 0;
  if (status.ok() && !empty) {
    status = (*header.command_buffer)
                 ->Dispatch(*header.executable, header.ordinal, header.workgroups, state.constants,
                            state.bindings);
  }
  state.bindings.clear();
  return status;
}

// The hot path: no strings unless something is wrong, constants and
// bindings through the state's scratch vectors.
Status CommandBufferDispatch(HalState& state, Args args, Results) {
  DispatchHeader header;
  KILN_RETURN_IF_ERROR(GetDispatchHeader(state, args, "buffer", &header));
  Status status;
  for (size_t i = header.first_binding; i < args.size(); i += 3) {
    const Ref<Buffer>* buffer = nullptr;
    size_t offset = 0, length = 0;
    if (!(status = Get(args, i, "binding buffer", &buffer)).ok() ||
        !(status = GetSize(args, i + 1, "binding offset", false, &offset)).ok() ||
        !(status = GetSize(args, i + 2, "binding length", true, &length)).ok()) {
      break;
    }
    state.bindings.push_back(BufferRef::Of(*buffer, offset, length));
  }
  return RecordDispatch(state, header, std::move(status));
}

// dispatch with binding-table slots instead of buffers (reusable command
// buffers): the same hot-path rules.
Status CommandBufferDispatchIndirect(HalState& state, Args args, Results) {
  DispatchHeader header;
  KILN_RETURN_IF_ERROR(GetDispatchHeader(state, args, "slot", &header));
  Status status;
  for (size_t i = header.first_binding; i < args.size(); i += 3) {
    size_t offset = 0, length = 0;
    if (args[i].type() != ValueType::kI32) {
      status = ArgError(i, "binding slot", "expected i32, got " + args[i].ToString());
      break;
    }
    if (args[i].i32() < 0) {
      status = ArgError(i, "binding slot", std::to_string(args[i].i32()) + " is negative");
      break;
    }
    if (!(status = GetSize(args, i + 1, "binding offset", false, &offset)).ok() ||
        !(status = GetSize(args, i + 2, "binding length", true, &length)).ok()) {
      break;
    }
    state.bindings.push_back(BufferRef::Slot(static_cast<uint32_t>(args[i].i32()), offset, length));
  }
  return RecordDispatch(state, header, std::move(status));
}

[[gnu::cold, gnu::noinline]] Status CollectiveOpArgError(int32_t op) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%X", static_cast<uint32_t>(op));
  return ArgError(2, "op",
                  std::string(hex) + " is not a collective (kind | reduction << 8, each a byte)");
}

[[gnu::cold, gnu::noinline]] Status NegativeSlotError(size_t index, std::string_view role,
                                                      int32_t slot) {
  return ArgError(index, role, std::to_string(slot) + " is negative");
}

// A binding-table slot: a fixed i32 argument (the VM checked its type), >= 0.
Status GetSlot(Args args, size_t index, std::string_view role, uint32_t* out) {
  const int32_t slot = args[index].i32();
  if (slot < 0) return NegativeSlotError(index, role, slot);
  *out = static_cast<uint32_t>(slot);
  return OkStatus();
}

// The arguments collective and collective.indirect share: (cmd, channel,
// op, element type, send rank, recv rank, ..., element count). The
// command buffer checks the op against the channel (CollectiveBufferCounts).
struct CollectiveHeader {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  const Ref<Channel>* channel = nullptr;
  CollectiveOp op;
  size_t element_count = 0;
};

Status GetCollectiveHeader(Args args, CollectiveHeader* header) {
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &header->command_buffer));
  KILN_RETURN_IF_ERROR(Get(args, 1, "channel", &header->channel));
  const int32_t op = args[2].i32();
  if (op < 0 || op > 0xFFFF) return CollectiveOpArgError(op);
  header->op.kind = static_cast<CollectiveKind>(op & 0xFF);
  header->op.reduction = static_cast<CollectiveReduction>(op >> 8);
  KILN_RETURN_IF_ERROR(GetElementType(args, 3, &header->op.element_type));
  header->op.send_rank = args[4].i32();
  header->op.recv_rank = args[5].i32();
  return GetSize(args, 12, "element count", /*whole_allowed=*/false, &header->element_count);
}

// The hot path (one-shot recordings record it on every call): no strings
// unless something is wrong.
Status CommandBufferCollective(HalState&, Args args, Results) {
  CollectiveHeader header;
  KILN_RETURN_IF_ERROR(GetCollectiveHeader(args, &header));
  const Ref<Buffer>* send = nullptr;
  const Ref<Buffer>* recv = nullptr;
  size_t send_offset = 0, send_length = 0, recv_offset = 0, recv_length = 0;
  KILN_RETURN_IF_ERROR(Get(args, 6, "send buffer", &send));
  KILN_RETURN_IF_ERROR(GetSize(args, 7, "send offset", false, &send_offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 8, "send length", true, &send_length));
  KILN_RETURN_IF_ERROR(Get(args, 9, "recv buffer", &recv));
  KILN_RETURN_IF_ERROR(GetSize(args, 10, "recv offset", false, &recv_offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 11, "recv length", true, &recv_length));
  return (*header.command_buffer)
      ->Collective(*header.channel, header.op, BufferRef::Of(*send, send_offset, send_length),
                   BufferRef::Of(*recv, recv_offset, recv_length), header.element_count);
}

// collective with binding-table slots (reusable command buffers).
Status CommandBufferCollectiveIndirect(HalState&, Args args, Results) {
  CollectiveHeader header;
  KILN_RETURN_IF_ERROR(GetCollectiveHeader(args, &header));
  uint32_t send = 0, recv = 0;
  size_t send_offset = 0, send_length = 0, recv_offset = 0, recv_length = 0;
  KILN_RETURN_IF_ERROR(GetSlot(args, 6, "send slot", &send));
  KILN_RETURN_IF_ERROR(GetSize(args, 7, "send offset", false, &send_offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 8, "send length", true, &send_length));
  KILN_RETURN_IF_ERROR(GetSlot(args, 9, "recv slot", &recv));
  KILN_RETURN_IF_ERROR(GetSize(args, 10, "recv offset", false, &recv_offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 11, "recv length", true, &recv_length));
  return (*header.command_buffer)
      ->Collective(*header.channel, header.op, BufferRef::Slot(send, send_offset, send_length),
                   BufferRef::Slot(recv, recv_offset, recv_length), header.element_count);
}

Status CommandBufferFillBuffer(HalState&, Args args, Results) {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &command_buffer));
  const Ref<Buffer>* target = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 1, "target buffer", &target));
  size_t offset = 0, length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 2, "target offset", false, &offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 3, "length", true, &length));
  const int32_t pattern_length = args[5].i32();
  if (pattern_length != 1 && pattern_length != 2 && pattern_length != 4) {
    return ArgError(5, "pattern length", std::to_string(pattern_length) + " is not 1, 2 or 4");
  }
  return (*command_buffer)
      ->FillBuffer(BufferRef::Of(*target, offset, length), static_cast<uint32_t>(args[4].i32()),
                   static_cast<size_t>(pattern_length));
}

Status CommandBufferCopyBuffer(HalState&, Args args, Results) {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &command_buffer));
  const Ref<Buffer>* source = nullptr;
  const Ref<Buffer>* target = nullptr;
  size_t source_offset = 0, target_offset = 0, length = 0;
  KILN_RETURN_IF_ERROR(Get(args, 1, "source buffer", &source));
  KILN_RETURN_IF_ERROR(GetSize(args, 2, "source offset", false, &source_offset));
  KILN_RETURN_IF_ERROR(Get(args, 3, "target buffer", &target));
  KILN_RETURN_IF_ERROR(GetSize(args, 4, "target offset", false, &target_offset));
  KILN_RETURN_IF_ERROR(GetSize(args, 5, "length", true, &length));
  return (*command_buffer)
      ->CopyBuffer(BufferRef::Of(*source, source_offset), BufferRef::Of(*target, target_offset),
                   length);
}

Status CommandBufferExecutionBarrier(HalState&, Args args, Results) {
  const Ref<CommandBuffer>* command_buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "command buffer", &command_buffer));
  return (*command_buffer)->ExecutionBarrier();
}

// ---------------------------------------------------------------------------
// Fences and the queue.

Status FenceCreate(HalState& state, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  // A program makes a fence per submission. Creating a semaphore each time
  // costs a driver object (a timeline VkSemaphore on Vulkan), so the
  // device's previous fence semaphore is reused once every fence on it is
  // reached: the new fence's timepoint is one past its value, which nothing
  // else signals, exactly like timepoint 1 of a new semaphore.
  HalState::FenceSemaphore* entry = nullptr;
  for (HalState::FenceSemaphore& e : state.fence_semaphores) {
    if (e.device == device->get()) entry = &e;
  }
  Result<uint64_t> reached = entry != nullptr ? entry->semaphore->Query() : Result<uint64_t>(0);
  if (entry == nullptr || !reached.ok() || *reached != entry->value) {
    KILN_ASSIGN_OR_RETURN(Ref<Semaphore> semaphore, (*device)->CreateSemaphore(0));
    if (entry == nullptr) entry = &state.fence_semaphores.emplace_back();
    *entry = {device->get(), std::move(semaphore), 0, nullptr};
  }
  // A program makes a fence per call and drops it before the next: when
  // nothing but this entry holds the last one (its wrapper and the fence
  // itself), no one can observe it any more. It is made again by moving its
  // one timepoint on (last_fence is dropped with the semaphore it waits on,
  // and Insert keeps the larger value of a semaphore), without three
  // allocations per call.
  auto fence_of = [](const Ref<vm::Object>& wrapped) -> const Ref<Fence>& {
    return static_cast<const VmFence*>(wrapped.get())->get();
  };
  if (!entry->last_fence || entry->last_fence->ref_count() != 1 ||
      fence_of(entry->last_fence)->ref_count() != 1) {
    entry->last_fence = WrapForVm(MakeRef<Fence>());
  }
  fence_of(entry->last_fence)->Insert(entry->semaphore, ++entry->value);
  results[0] = Wrapped(entry->last_fence);
  return OkStatus();
}

[[gnu::cold, gnu::noinline]] Status NegativeTimeoutError(int64_t timeout_ms) {
  return ArgError(1, "timeout",
                  std::to_string(timeout_ms) + " ms is negative (-1 waits without limit)");
}

// The traced wait: its span, and the dispatch spans the wait saw complete.
[[gnu::noinline]] Status TracedWait(HalState& state, const Fence& fence, Timeout timeout) {
  const int64_t start_ns = state.trace->Now();
  Status status = fence.Wait(timeout);
  const int64_t end_ns = state.trace->Now();
  state.trace->AddWait(end_ns - start_ns);  // The span and the count agree.
  if (state.trace->recording()) {
    state.trace->AddHostSpan("wait", start_ns, {}, end_ns);
    // Devices that read their timers only when asked add their dispatch
    // spans now (after the span above, so the flush's own time is not
    // counted as waiting).
    for (const Ref<Device>& device : state.devices) device->FlushTrace();
  }
  return status;
}

Status FenceAwait(HalState& state, Args args, Results) {
  const Ref<Fence>* fence = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "fence", &fence));
  const int64_t timeout_ms = args[1].i64();
  if (timeout_ms < -1) return NegativeTimeoutError(timeout_ms);
  // Beyond what nanoseconds hold (292 years) is as good as forever.
  constexpr int64_t kMaxMs = INT64_MAX / 1000000;
  const Timeout timeout = timeout_ms == -1 || timeout_ms > kMaxMs
                              ? kInfiniteTimeout
                              : Timeout(std::chrono::milliseconds(timeout_ms));
  if (!state.trace) return (*fence)->Wait(timeout);
  return TracedWait(state, **fence, timeout);
}

[[gnu::cold, gnu::noinline]] Status BindingSlotArgError(Args args, size_t index, size_t slot) {
  return ArgError(index, "binding-table slot " + std::to_string(slot),
                  "expected hal.buffer or null, got " + args[index].ToString());
}

// Submits a command buffer with the binding table in arguments 4.. (none
// for hal.device.queue.execute): the hot path of memoized command buffers,
// so the table goes through the state's scratch vector (emptied afterwards:
// it keeps no buffers alive).
Status DeviceQueueExecute(HalState& state, Args args, Results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  const Fence empty;
  const Fence* wait = nullptr;
  KILN_RETURN_IF_ERROR(GetWaitFence(args, 1, empty, &wait));
  const Ref<Fence>* signal = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 2, "signal fence", &signal));
  const Ref<CommandBuffer>* command_buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 3, "command buffer", &command_buffer));
  constexpr size_t kFirstSlot = 4;
  Status status;
  for (size_t i = kFirstSlot; i < args.size(); ++i) {
    // A null ref is an empty slot: an error at submit only if a command
    // uses it. (Checked inline: the role string is only built on error.)
    const Variant& value = args[i];
    const vm::Object* object = value.is_ref() ? value.ref().get() : nullptr;
    if (!value.is_ref() || (object && &object->type() != &VmBuffer::Type())) {
      status = BindingSlotArgError(args, i, i - kFirstSlot);
      break;
    }
    state.binding_table.push_back(object ? static_cast<const VmBuffer*>(object)->get() : nullptr);
  }
  if (status.ok()) {
    ScopedHostSpan span(state.trace.get(), "submit");
    const int64_t start_ns = state.trace ? state.trace->Now() : 0;
    status =
        (*device)->QueueExecute(*wait, **signal, std::span(command_buffer, 1), state.binding_table);
    if (state.trace) state.trace->AddSubmit(state.trace->Now() - start_ns);
  }
  state.binding_table.clear();
  return status;
}

// The indirect form differs only in its binding table, which the loop above
// reads from whatever arguments follow the command buffer.
constexpr auto DeviceQueueExecuteIndirect = DeviceQueueExecute;

Status DeviceQueueAlloca(HalState&, Args args, Results results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  const Fence empty;
  const Fence* wait = nullptr;
  KILN_RETURN_IF_ERROR(GetWaitFence(args, 1, empty, &wait));
  const Ref<Fence>* signal = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 2, "signal fence", &signal));
  size_t length = 0;
  KILN_RETURN_IF_ERROR(GetSize(args, 3, "byte length", false, &length));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                        (*device)->QueueAlloca(*wait, **signal, BufferParams{}, length));
  results[0] = Wrapped(WrapForVm(std::move(buffer)));
  return OkStatus();
}

Status DeviceQueueDealloca(HalState&, Args args, Results) {
  const Ref<Device>* device = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 0, "device", &device));
  const Fence empty;
  const Fence* wait = nullptr;
  KILN_RETURN_IF_ERROR(GetWaitFence(args, 1, empty, &wait));
  const Ref<Fence>* signal = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 2, "signal fence", &signal));
  const Ref<Buffer>* buffer = nullptr;
  KILN_RETURN_IF_ERROR(Get(args, 3, "buffer", &buffer));
  return (*device)->QueueDealloca(*wait, **signal, *buffer);
}

template <typename T>
Ref<T> UnwrapVariant(const Variant& value) {
  return value.is_ref() ? UnwrapFromVm<T>(value.ref().get()) : nullptr;
}

}  // namespace

Status RegisterHalTypes(vm::Instance& instance) {
  for (const vm::RefType* type :
       {&VmDevice::Type(), &VmAllocator::Type(), &VmBuffer::Type(), &VmBufferView::Type(),
        &VmChannel::Type(), &VmExecutable::Type(), &VmCommandBuffer::Type(), &VmFence::Type()}) {
    KILN_RETURN_IF_ERROR(instance.types().Register(*type));
  }
  return OkStatus();
}

Result<Ref<vm::Module>> CreateHalModule(vm::Instance& instance, std::vector<Ref<Device>> devices,
                                        HalModuleOptions options) {
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i])
      return InvalidArgumentError("hal module: device " + std::to_string(i) + " is null");
  }
  KILN_RETURN_IF_ERROR(RegisterHalTypes(instance));
  Ref<ParameterIndex> parameters =
      options.parameters ? std::move(options.parameters) : ParameterIndex::Create();
  // A trace that records spans gets the devices' dispatch spans too
  // (Device::AttachTrace; one that only counts waits measures nothing).
  if (options.trace && options.trace->recording()) {
    for (const Ref<Device>& device : devices) device->AttachTrace(options.trace);
  }
  auto module = vm::NativeModule<HalState>::Create(
      "hal",
      [devices = std::move(devices), parameters = std::move(parameters),
       trace = std::move(options.trace), collectives = std::move(options.collectives),
       instrumentation =
           std::move(options.instrumentation)]() -> Result<std::unique_ptr<HalState>> {
        auto state = std::make_unique<HalState>();
        state->devices = devices;
        state->parameters = parameters;
        state->trace = trace;
        state->collectives = collectives;
        state->instrumentation = instrumentation;
        for (const Ref<Device>& device : devices) state->device_refs.push_back(WrapForVm(device));
        return state;
      });
  // Every import of the contract table (hal_imports.h), served by the
  // function of the same name: an entry without one does not compile.
#define KILN_HAL_EXPORT(id, ...)                                           \
  module->ExportVariadic(std::string(GetHalImport(HalImport::k##id).name), \
                         std::string(GetHalImport(HalImport::k##id).signature), id);
  KILN_FOR_EACH_HAL_IMPORT(KILN_HAL_EXPORT)
#undef KILN_HAL_EXPORT
  return Ref<vm::Module>(std::move(module));
}

Ref<vm::Object> WrapBufferView(Ref<BufferView> view) { return WrapForVm(std::move(view)); }
Ref<BufferView> UnwrapBufferView(const vm::Variant& value) {
  return UnwrapVariant<BufferView>(value);
}
Ref<vm::Object> WrapBuffer(Ref<Buffer> buffer) { return WrapForVm(std::move(buffer)); }
Ref<Buffer> UnwrapBuffer(const vm::Variant& value) { return UnwrapVariant<Buffer>(value); }
Ref<vm::Object> WrapDevice(Ref<Device> device) { return WrapForVm(std::move(device)); }
Ref<Device> UnwrapDevice(const vm::Variant& value) { return UnwrapVariant<Device>(value); }
Ref<vm::Object> WrapFence(Ref<Fence> fence) { return WrapForVm(std::move(fence)); }
Ref<Fence> UnwrapFence(const vm::Variant& value) { return UnwrapVariant<Fence>(value); }

}  // namespace kiln::hal
