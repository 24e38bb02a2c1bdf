// The `hal` import contract: every function the `hal` VM module exports,
// defined once. hal_module.cc registers its exports from this table, and the
// compiler's HAL->VM conversion (compiler/vm/conversion/hal_to_vm*) declares
// its `vm.import`s and builds its `vm.call.import`s from it, so neither side
// spells an import's name, signature or argument order by hand.
//
// The header is plain constexpr C++ with no dependencies: the runtime
// includes it without the compiler, the compiler without the runtime.
//
// One entry per import:
//   X(Id, "name", "signature", "arguments", "tail", "results", "meaning")
//   - Id: HalImport::k<Id>; hal_module.cc serves it with the function <Id>.
//   - name: the export's name in module "hal" (programs import "hal.<name>").
//   - signature: the calling convention (vm/signature.h): one character per
//     value, arguments '_' results; a '*' ending the arguments takes any
//     further arguments (a variadic tail), which the native function checks.
//   - arguments: the fixed arguments in order, "name:type" separated by
//     spaces. A type is i32, i64 (also index and byte sizes), f32, or the ref type
//     the argument holds (hal.device, hal.allocator, hal.buffer,
//     hal.buffer_view, hal.channel, hal.executable, hal.command_buffer,
//     hal.fence, vm.buffer); a trailing '?' on a ref type means null is
//     accepted.
//   - tail: what a variadic tail holds (empty when the import is fixed).
//   - results: the results, in the same "name:type" form.
//   - meaning: what the import does.
// static_asserts below check that the signature is exactly the one the
// typed arguments and results spell, so the two cannot drift apart.
//
// Common encodings:
//   - Element types (i32) are hal::ElementType values (hal/element_type.h):
//     (kind << 24) | bit_width, e.g. f32 = 0x20000020, i32 = 0x10000020,
//     i1 = 0x13000001, bf16 = 0x21000010; index lowers to i64 = 0x10000040.
//   - Byte offsets and lengths are i64. A length of -1 (buffer.subspan,
//     dispatch bindings, fill/copy) means "to the end of the buffer"; other
//     negative sizes and offsets are errors.
//   - Strings and executable bytes arrive as vm.buffer refs (rodata).
//   - A collective's op (i32) is hal::CollectiveKind | hal::CollectiveReduction
//     << 8 (hal/collective.h): all_reduce with sum = 0x101, all_gather = 0x0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln::hal {

// clang-format off
#define KILN_FOR_EACH_HAL_IMPORT(X)                                                               \
  X(DevicesCount, "devices.count", "_i",                                                          \
    "", "",                                                                                       \
    "count:i32",                                                                                  \
    "the number of devices given to CreateHalModule")                                             \
  X(DevicesGet, "devices.get", "i_r",                                                             \
    "index:i32", "",                                                                              \
    "device:hal.device",                                                                          \
    "device `index` (OUT_OF_RANGE if there is none)")                                             \
  X(DeviceAllocator, "device.allocator", "r_r",                                                   \
    "device:hal.device", "",                                                                      \
    "allocator:hal.allocator",                                                                    \
    "the device's allocator")                                                                     \
  X(DeviceInstrumentationRing, "device.instrumentation_ring", "rI_r",                             \
    "device:hal.device byte_length:i64", "",                                                      \
    "buffer:hal.buffer",                                                                          \
    "the context's dispatch instrumentation ring on `device` (hal/instrumentation.h): made on "   \
    "the first call (the module initializer) holding a new ring's header and zeroed records, "    \
    "registered in HalModuleOptions::instrumentation, and the same buffer on every later call; "  \
    "INVALID_ARGUMENT when byte_length is not a ring's size (at least 64, a multiple of 32) or "  \
    "differs from the first call's")                                                              \
  X(AllocatorAllocate, "allocator.allocate", "riiI_r",                                            \
    "allocator:hal.allocator memory_types:i32 buffer_usage:i32 byte_length:i64", "",              \
    "buffer:hal.buffer",                                                                          \
    "a new buffer; memory_types 0 and buffer_usage 0 select the defaults (device-local; "         \
    "transfer, dispatch and mapping)")                                                            \
  X(AllocatorAllocateInitialized, "allocator.allocate.initialized", "rr_r",                       \
    "allocator:hal.allocator source:vm.buffer", "",                                               \
    "buffer:hal.buffer",                                                                          \
    "a new buffer (default memory and usage) holding a copy of the source's bytes (a program's "  \
    "constant tensors): written directly where the device has host-visible device memory, else "  \
    "through a staging copy on the device's queue, waited for (hal/transfer.h)")                  \
  X(AllocatorAllocateParameter, "allocator.allocate.parameter", "rrriI*_r",                       \
    "allocator:hal.allocator scope:vm.buffer key:vm.buffer element_type:i32 byte_length:i64",     \
    "dims: one i64 per dimension of the tensor the parameter holds",                              \
    "buffer:hal.buffer",                                                                          \
    "a new buffer (default memory and usage) holding the bytes of parameter `key` of scope "      \
    "`scope` (#flow.parameter.named), read from the files given for the scope "                   \
    "(hal/parameters/parameter_index.h) and uploaded as allocator.allocate.initialized does; "    \
    "NOT_FOUND naming the scope when no files were given for it, or the key and the files when "  \
    "none holds it; INVALID_ARGUMENT naming the scope, key and file when its dtype or shape is "  \
    "not element_type and dims or its size is not byte_length")                                   \
  X(BufferLength, "buffer.length", "r_I",                                                         \
    "buffer:hal.buffer", "",                                                                      \
    "length:i64",                                                                                 \
    "the buffer's byte length")                                                                   \
  X(BufferSubspan, "buffer.subspan", "rII_r",                                                     \
    "buffer:hal.buffer offset:i64 length:i64", "",                                                \
    "subspan:hal.buffer",                                                                         \
    "a subspan sharing the buffer's storage")                                                     \
  X(BufferAssert, "buffer.assert", "rrI_",                                                        \
    "buffer:hal.buffer message:vm.buffer minimum_length:i64", "",                                 \
    "",                                                                                           \
    "the buffer holds at least minimum_length bytes; else INVALID_ARGUMENT `<message>: needs N "  \
    "bytes, but its buffer holds M` (the size check of dispatch operands)")                       \
  X(BufferLoad, "buffer.load", "rrIi_I",                                                          \
    "device:hal.device buffer:hal.buffer offset:i64 length:i32", "",                              \
    "value:i64",                                                                                  \
    "the `length` (1, 2, 4 or 8) bytes at `offset`, little-endian, zero-extended to 64 bits: a "  \
    "tensor element the host reads (tensor.extract), read back from the buffer on `device` "      \
    "directly where the host can map it, else through a staging copy on the device's queue, "     \
    "waited for (hal/transfer.h); OUT_OF_RANGE past the buffer's end")                            \
  X(BufferViewCreate, "buffer_view.create", "ri*_r",                                              \
    "buffer:hal.buffer element_type:i32", "dims: one i64 per dimension (rank = their count)",     \
    "view:hal.buffer_view",                                                                       \
    "a buffer view of the buffer with that element type and shape")                               \
  X(BufferViewBuffer, "buffer_view.buffer", "r_r",                                                \
    "view:hal.buffer_view", "",                                                                   \
    "buffer:hal.buffer",                                                                          \
    "the view's buffer")                                                                          \
  X(BufferViewRank, "buffer_view.rank", "r_i",                                                    \
    "view:hal.buffer_view", "",                                                                   \
    "rank:i32",                                                                                   \
    "the view's rank")                                                                            \
  X(BufferViewDim, "buffer_view.dim", "ri_I",                                                     \
    "view:hal.buffer_view index:i32", "",                                                         \
    "dim:i64",                                                                                    \
    "dimension `index` (OUT_OF_RANGE if index >= rank)")                                          \
  X(BufferViewElementType, "buffer_view.element_type", "r_i",                                     \
    "view:hal.buffer_view", "",                                                                   \
    "element_type:i32",                                                                           \
    "the view's element type encoding")                                                           \
  X(BufferViewAssert, "buffer_view.assert", "rri*_",                                              \
    "view:hal.buffer_view? message:vm.buffer element_type:i32",                                   \
    "dims: one i64 per dimension, -1 for any size",                                               \
    "",                                                                                           \
    "the view is non-null with that element type, rank and dims; else INVALID_ARGUMENT "          \
    "`<message>: expected tensor<?x4xf32>, got 8x4xi32`")                                         \
  X(ExecutableLoad, "executable.load", "rr*_r",                                                   \
    "device:hal.device name:vm.buffer",                                                           \
    "variants: (format vm.buffer, data vm.buffer) pairs",                                         \
    "executable:hal.executable",                                                                  \
    "the executable from the first variant whose format the device runs "                         \
    "(DeviceProperties::executable_formats)")                                                     \
  X(ChannelDefault, "channel.default", "rr_r",                                                    \
    "device:hal.device group:vm.buffer", "",                                                      \
    "channel:hal.channel",                                                                        \
    "joins the collective group the hal module was given (HalModuleOptions::collectives: rank, "  \
    "world size, rendezvous; a group of one without a rendezvous) as a channel on `device`, "     \
    "named `group` (flow.channel.default's group; empty for the default) among the group's "      \
    "channels (Device::CreateChannel): every participant makes it together, once per context "    \
    "and group (the module initializer)")                                                         \
  X(ChannelSplit, "channel.split", "rii_r",                                                       \
    "channel:hal.channel color:i32 key:i32", "",                                                  \
    "channel:hal.channel",                                                                        \
    "the subgroup of the participants that pass the same color, ranked by key (Channel::Split): " \
    "collective over the channel; a null ref for a color of -1")                                  \
  X(ChannelRankAndCount, "channel.rank_and_count", "r_ii",                                        \
    "channel:hal.channel", "",                                                                    \
    "rank:i32 count:i32",                                                                         \
    "this participant's rank in the channel and the channel's participant count")                 \
  X(CommandBufferCreate, "command_buffer.create", "ri_r",                                         \
    "device:hal.device mode:i32", "",                                                             \
    "command_buffer:hal.command_buffer",                                                          \
    "a command buffer, already begun; mode 0 is one-shot, 1 reusable")                            \
  X(CommandBufferEnd, "command_buffer.end", "r_",                                                 \
    "command_buffer:hal.command_buffer", "",                                                      \
    "",                                                                                           \
    "ends recording")                                                                             \
  X(CommandBufferDispatch, "command_buffer.dispatch", "rriiiii*_",                                \
    "command_buffer:hal.command_buffer executable:hal.executable export_ordinal:i32 "             \
    "workgroups_x:i32 workgroups_y:i32 workgroups_z:i32 constant_count:i32",                      \
    "constant_count i32 constants, then (buffer hal.buffer, offset i64, length i64) per binding", \
    "",                                                                                           \
    "records a dispatch; a workgroup count with a zero component records nothing")                \
  X(CommandBufferDispatchIndirect, "command_buffer.dispatch.indirect", "rriiiii*_",               \
    "command_buffer:hal.command_buffer executable:hal.executable export_ordinal:i32 "             \
    "workgroups_x:i32 workgroups_y:i32 workgroups_z:i32 constant_count:i32",                      \
    "constant_count i32 constants, then (slot i32, offset i64, length i64) per binding",          \
    "",                                                                                           \
    "as command_buffer.dispatch, but each binding is a range of binding-table slot `slot`, whose " \
    "buffer comes with each submission (reusable command buffers; checked at submit)")            \
  X(CommandBufferFillBuffer, "command_buffer.fill_buffer", "rrIIii_",                             \
    "command_buffer:hal.command_buffer target:hal.buffer target_offset:i64 length:i64 "           \
    "pattern:i32 pattern_length:i32", "",                                                         \
    "",                                                                                           \
    "records a fill of the range with the 1, 2 or 4 byte pattern")                                \
  X(CommandBufferCopyBuffer, "command_buffer.copy_buffer", "rrIrII_",                             \
    "command_buffer:hal.command_buffer source:hal.buffer source_offset:i64 target:hal.buffer "    \
    "target_offset:i64 length:i64", "",                                                           \
    "",                                                                                           \
    "records a copy between the ranges")                                                          \
  X(CommandBufferExecutionBarrier, "command_buffer.execution_barrier", "r_",                      \
    "command_buffer:hal.command_buffer", "",                                                      \
    "",                                                                                           \
    "records an execution barrier: commands after it see what commands before it wrote")          \
  X(CommandBufferCollective, "command_buffer.collective", "rriiiirIIrIII_",                       \
    "command_buffer:hal.command_buffer channel:hal.channel op:i32 element_type:i32 "              \
    "send_rank:i32 recv_rank:i32 send_buffer:hal.buffer send_offset:i64 send_length:i64 "         \
    "recv_buffer:hal.buffer recv_offset:i64 recv_length:i64 element_count:i64", "",               \
    "",                                                                                           \
    "records this participant's share of collective `op` (kind | reduction << 8) of "             \
    "element_count elements of element_type over the channel (CommandBuffer::Collective): it "    \
    "reads the send range and writes the recv range, whose lengths (-1: exactly what the op "     \
    "needs) must be what the op needs; send_rank and recv_rank are send_recv's peers (-1: "       \
    "none), -1 for other kinds")                                                                  \
  X(CommandBufferCollectiveIndirect, "command_buffer.collective.indirect", "rriiiiiIIiIII_",      \
    "command_buffer:hal.command_buffer channel:hal.channel op:i32 element_type:i32 "              \
    "send_rank:i32 recv_rank:i32 send_slot:i32 send_offset:i64 send_length:i64 recv_slot:i32 "    \
    "recv_offset:i64 recv_length:i64 element_count:i64", "",                                      \
    "",                                                                                           \
    "as command_buffer.collective, but the send and recv ranges are ranges of binding-table "     \
    "slots, whose buffers come with each submission (reusable command buffers; checked at "       \
    "submit)")                                                                                    \
  X(FenceCreate, "fence.create", "r_r",                                                           \
    "device:hal.device", "",                                                                      \
    "fence:hal.fence",                                                                            \
    "a fence of one timepoint not yet reached, on a semaphore only this context's fences use: "   \
    "new (timepoint 1), or the last one once all its fences are reached (its value + 1)")         \
  X(FenceAwait, "fence.await", "rI_",                                                             \
    "fence:hal.fence timeout_ms:i64", "",                                                         \
    "",                                                                                           \
    "waits (-1 = without limit): OK, the failure of the work that signals the fence, or "         \
    "DEADLINE_EXCEEDED")                                                                          \
  X(DeviceQueueExecute, "device.queue.execute", "rrrr_",                                          \
    "device:hal.device wait_fence:hal.fence? signal_fence:hal.fence "                             \
    "command_buffer:hal.command_buffer", "",                                                      \
    "",                                                                                           \
    "submits the command buffer after the wait fence; it signals the signal fence")               \
  X(DeviceQueueExecuteIndirect, "device.queue.execute.indirect", "rrrr*_",                        \
    "device:hal.device wait_fence:hal.fence? signal_fence:hal.fence "                             \
    "command_buffer:hal.command_buffer",                                                          \
    "the binding table: one hal.buffer per slot (slot i is argument 4 + i; null an empty slot)",  \
    "",                                                                                           \
    "as device.queue.execute, with that binding table (Device::QueueExecute)")                    \
  X(DeviceQueueAlloca, "device.queue.alloca", "rrrI_r",                                           \
    "device:hal.device wait_fence:hal.fence? signal_fence:hal.fence byte_length:i64", "",         \
    "buffer:hal.buffer",                                                                          \
    "a buffer (default memory and usage) allocated in queue order")                               \
  X(DeviceQueueDealloca, "device.queue.dealloca", "rrrr_",                                        \
    "device:hal.device wait_fence:hal.fence? signal_fence:hal.fence buffer:hal.buffer", "",       \
    "",                                                                                           \
    "frees the buffer in queue order")
// clang-format on

enum class HalImport : uint8_t {
#define KILN_HAL_IMPORT_ENUM(id, ...) k##id,
  KILN_FOR_EACH_HAL_IMPORT(KILN_HAL_IMPORT_ENUM)
#undef KILN_HAL_IMPORT_ENUM
};

struct HalImportInfo {
  HalImport id;
  std::string_view name;       // "buffer.length": the export's name in "hal".
  std::string_view signature;  // "r_I"; may end its arguments with '*'.
  std::string_view arguments;  // "buffer:hal.buffer ..." (fixed arguments).
  std::string_view tail;       // The variadic tail's description, or "".
  std::string_view results;    // "length:i64".
  std::string_view meaning;
};

inline constexpr std::array kHalImports = {
#define KILN_HAL_IMPORT_INFO(id, name, signature, arguments, tail, results, meaning) \
  HalImportInfo{HalImport::k##id, name, signature, arguments, tail, results, meaning},
    KILN_FOR_EACH_HAL_IMPORT(KILN_HAL_IMPORT_INFO)
#undef KILN_HAL_IMPORT_INFO
};

inline constexpr size_t kHalImportCount = kHalImports.size();

constexpr const HalImportInfo& GetHalImport(HalImport id) {
  return kHalImports[static_cast<size_t>(id)];
}

// The module every entry belongs to: programs import "hal.<name>".
inline constexpr std::string_view kHalModuleName = "hal";

// One "name:type" of an entry's arguments or results.
struct HalImportValue {
  std::string_view name;
  std::string_view type;  // "i32", "i64", "f32", "hal.buffer", "vm.buffer", ...
  bool nullable = false;  // A ref type written with a trailing '?'.
  constexpr bool is_ref() const { return type != "i32" && type != "i64" && type != "f32"; }
  // The calling-convention character of the value (vm/signature.h).
  constexpr char signature_char() const {
    return type == "i32" ? 'i' : type == "i64" ? 'I' : type == "f32" ? 'f' : 'r';
  }
};

// The `index`th value of a "name:type name:type" list; {} past the end.
constexpr HalImportValue HalImportValueAt(std::string_view list, size_t index) {
  size_t begin = 0;
  for (size_t i = 0;; ++i) {
    while (begin < list.size() && list[begin] == ' ') ++begin;
    if (begin >= list.size()) return {};
    size_t end = list.find(' ', begin);
    if (end == std::string_view::npos) end = list.size();
    if (i == index) {
      std::string_view item = list.substr(begin, end - begin);
      const size_t colon = item.find(':');
      HalImportValue value{item.substr(0, colon), colon == std::string_view::npos
                                                      ? std::string_view()
                                                      : item.substr(colon + 1)};
      if (!value.type.empty() && value.type.back() == '?') {
        value.type.remove_suffix(1);
        value.nullable = true;
      }
      return value;
    }
    begin = end;
  }
}

// The number of values of a "name:type ..." list.
constexpr size_t HalImportValueCount(std::string_view list) {
  size_t n = 0;
  while (!HalImportValueAt(list, n).name.empty()) ++n;
  return n;
}

// Whether `import` is variadic (its signature's arguments end with '*').
// (Also for the entries of other import tables with the same fields, such as
// check_imports.h.)
template <typename ImportInfo>
constexpr bool IsVariadic(const ImportInfo& import) {
  const size_t underscore = import.signature.find('_');
  return underscore > 0 && import.signature[underscore - 1] == '*';
}

namespace hal_imports_detail {

// The signature the typed arguments and results spell (for any table whose
// entries have these fields).
template <typename ImportInfo>
constexpr bool SignatureMatches(const ImportInfo& import) {
  std::string_view signature = import.signature;
  const size_t underscore = signature.find('_');
  if (underscore == std::string_view::npos) return false;
  std::string_view arguments = signature.substr(0, underscore);
  const std::string_view results = signature.substr(underscore + 1);
  const bool variadic = !arguments.empty() && arguments.back() == '*';
  if (variadic) arguments.remove_suffix(1);
  if (variadic != !import.tail.empty()) return false;
  if (HalImportValueCount(import.arguments) != arguments.size() ||
      HalImportValueCount(import.results) != results.size()) {
    return false;
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const HalImportValue value = HalImportValueAt(import.arguments, i);
    if (value.type.empty() || value.signature_char() != arguments[i]) return false;
    if (value.nullable && !value.is_ref()) return false;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const HalImportValue value = HalImportValueAt(import.results, i);
    if (value.type.empty() || value.signature_char() != results[i] || value.nullable) return false;
  }
  return true;
}

constexpr bool AllSignaturesMatch() {
  for (size_t i = 0; i < kHalImports.size(); ++i) {
    if (static_cast<size_t>(kHalImports[i].id) != i || !SignatureMatches(kHalImports[i])) {
      return false;
    }
  }
  return true;
}

constexpr bool NamesAreUnique() {
  for (size_t i = 0; i < kHalImports.size(); ++i) {
    for (size_t j = i + 1; j < kHalImports.size(); ++j) {
      if (kHalImports[i].name == kHalImports[j].name) return false;
    }
  }
  return true;
}

}  // namespace hal_imports_detail

static_assert(hal_imports_detail::AllSignaturesMatch(),
              "a hal import's signature disagrees with its typed arguments or results");
static_assert(hal_imports_detail::NamesAreUnique(), "two hal imports share a name");

}  // namespace kiln::hal
