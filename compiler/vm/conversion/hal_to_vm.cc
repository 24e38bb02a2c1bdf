#include "compiler/vm/conversion/hal_to_vm.h"

#include <algorithm>
#include <functional>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/instrumentation.h"
#include "compiler/vm/conversion/import_builder.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/conversion/selection_builder.h"
#include "compiler/vm/conversion/vm_type_converter.h"
#include "hal/module/hal_imports.h"

namespace kiln::compiler {
namespace {

using hal::HalImport;
using kiln::vm::Bank;
using kiln::vm::Opcode;
using mlir::Operation;
using mlir::Type;
using mlir::Value;

// The import of `id` in the hal contract table.
NativeImport HalImportOf(HalImport id) {
  return NativeImport::Of(hal::kHalModuleName, hal::GetHalImport(id));
}

// What one hal op calls.
struct ImportCall {
  HalImport id;
  llvm::SmallVector<Value> arguments;
  mlir::SymbolRefAttr dispatch = {};
  // An instrumented dispatch's site id (kiln.dispatch_site_id), for the
  // module's dispatch-site table.
  mlir::IntegerAttr dispatch_site_id = {};
};

// One hal op -> one import call (or none: `Build` may return nullopt after
// emitting the call(s) itself), the results fitted to the converted types.
template <typename OpT>
class HalImportPattern : public mlir::OpConversionPattern<OpT> {
 public:
  using Adaptor = typename OpT::Adaptor;
  using Build = std::function<std::optional<ImportCall>(OpT, Adaptor, ImportBuilder&)>;

  HalImportPattern(const mlir::TypeConverter& converter, mlir::MLIRContext* context, Build build)
      : mlir::OpConversionPattern<OpT>(converter, context), build_(std::move(build)) {}

  mlir::LogicalResult matchAndRewrite(OpT op, Adaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    ImportBuilder ib(rewriter, op);
    std::optional<ImportCall> call = build_(op, adaptor, ib);
    if (!call) {
      rewriter.eraseOp(op);
      return mlir::success();
    }
    mlir::FailureOr<Operation*> made =
        ib.Call(HalImportOf(call->id), call->arguments, call->dispatch, call->dispatch_site_id);
    if (mlir::failed(made)) return mlir::failure();
    llvm::SmallVector<Value> results;
    for (auto [result, value] : llvm::zip(op->getResults(), (*made)->getResults())) {
      Type type = this->getTypeConverter()->convertType(result.getType());
      if (!type) return mlir::failure();
      results.push_back(ib.Fit(value, type));
    }
    rewriter.replaceOp(op, results);
    return mlir::success();
  }

 private:
  Build build_;
};

// The vm.rodata of an executable's binaries (one per format), each
// described for the executables debug table; made once.
void MaterializeExecutable(mlir::ConversionPatternRewriter& rewriter, VM::ModuleOp m,
                           HAL::ExecutableOp executable) {
  mlir::MLIRContext* context = rewriter.getContext();
  const llvm::StringRef name = executable.getSymName();
  for (auto rodata : m.getBody().front().getOps<VM::RodataOp>()) {
    if (auto variant = rodata.getExecutableAttr(); variant && variant.getName() == name) return;
  }
  llvm::SmallVector<mlir::Attribute> exports;
  for (HAL::ExecutableExportOp exported : executable.getExportOps()) {
    std::string layout;
    llvm::raw_string_ostream os(layout);
    mlir::Attribute(exported.getLayout()).print(os);
    llvm::SmallVector<int64_t, 3> size = exported.getWorkgroupSizeValues();
    exports.push_back(VM::ExecutableExportAttr::get(
        context, exported.getSymName(),
        static_cast<uint32_t>(exported.getOrdinal() ? exported.getOrdinal()->getZExtValue() : 0),
        layout, size));
  }
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(&m.getBody().front());
  for (HAL::ExecutableBinaryOp binary : executable.getBinaryOps()) {
    std::string base = ("__hal_executable_" + name + "_" + binary.getFormat()).str();
    std::replace(base.begin(), base.end(), '-', '_');
    auto text = [&](llvm::StringRef attr) {
      auto value = binary->getAttrOfType<mlir::StringAttr>(attr);
      return value ? value.getValue() : llvm::StringRef();
    };
    auto variant =
        VM::ExecutableVariantAttr::get(context, name, text("kiln.backend"), binary.getFormat(),
                                       text("kiln.config"), rewriter.getArrayAttr(exports));
    mlir::OperationState state(binary.getLoc(), VM::RodataOp::getOperationName());
    state.addAttribute("sym_name", rewriter.getStringAttr(ImportBuilder::UniqueName(m, base)));
    state.addAttribute("value", binary.getData());
    state.addAttribute("executable", variant);
    rewriter.create(state);
  }
}

struct ExecutablePattern : mlir::OpConversionPattern<HAL::ExecutableOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(HAL::ExecutableOp op, OpAdaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    auto m = op->getParentOfType<VM::ModuleOp>();
    if (!m) return mlir::failure();
    MaterializeExecutable(rewriter, m, op);
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

// hal.buffer.load: the import reads 1, 2, 4 or 8 bytes zero-extended into an
// i64; the element's register is made from it (narrow integers canonical:
// i8/i16 sign-extended, i1 0 or 1; floats bitcast).
struct BufferLoadPattern : mlir::OpConversionPattern<HAL::BufferLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(HAL::BufferLoadOp op, OpAdaptor a,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    const Type type = op.getType();
    const int64_t bytes = type.isIndex() ? 8 : (type.getIntOrFloatBitWidth() + 7) / 8;
    ImportBuilder ib(rewriter, op);
    mlir::FailureOr<Operation*> call =
        ib.Call(HalImportOf(HalImport::kBufferLoad),
                {a.getDevice(), a.getSourceBuffer(), a.getSourceOffset(), ib.I32(bytes)});
    if (mlir::failed(call)) return mlir::failure();
    Value bits = (*call)->getResult(0);
    SelectionBuilder& sb = ib.sb();
    Value value;
    if (bytes == 8) {
      value = type.isF64() ? sb.Def(Opcode::kBitcastI64F64, rewriter.getF64Type(), bits) : bits;
    } else {
      Value low = sb.Def(Opcode::kTruncI64I32, rewriter.getI32Type(), bits);
      if (type.isF32()) {
        value = sb.Def(Opcode::kBitcastI32F32, rewriter.getF32Type(), low);
      } else {
        value = sb.Canonicalize(low, type.getIntOrFloatBitWidth());
      }
    }
    rewriter.replaceOp(op, value);
    return mlir::success();
  }
};

// The runtime's element type encoding (hal/element_type.h) of a
// collective element type: si/ui integers keep their signedness, which
// decides what minimum, maximum and average compute.
std::optional<uint32_t> CollectiveElementTypeCode(HAL::CollectiveElementType type) {
  using E = HAL::CollectiveElementType;
  constexpr uint32_t kSigned = 0x11u << 24, kUnsigned = 0x12u << 24, kFloat = 0x20u << 24;
  switch (type) {
    case E::Sint8:
      return kSigned | 8;
    case E::Uint8:
      return kUnsigned | 8;
    case E::Sint16:
      return kSigned | 16;
    case E::Uint16:
      return kUnsigned | 16;
    case E::Sint32:
      return kSigned | 32;
    case E::Uint32:
      return kUnsigned | 32;
    case E::Sint64:
      return kSigned | 64;
    case E::Uint64:
      return kUnsigned | 64;
    case E::Float16:
      return kFloat | 16;
    case E::Float32:
      return kFloat | 32;
    case E::Float64:
      return kFloat | 64;
    case E::BFloat16:
      return (0x21u << 24) | 16;
  }
  return std::nullopt;
}

template <typename OpT>
void Add(mlir::RewritePatternSet& patterns, const mlir::TypeConverter& converter,
         typename HalImportPattern<OpT>::Build build) {
  patterns.add<HalImportPattern<OpT>>(converter, patterns.getContext(), std::move(build));
}

}  // namespace

void PopulateHALToVMPatterns(const mlir::TypeConverter& converter,
                             mlir::RewritePatternSet& patterns) {
  patterns.add<ExecutablePattern, BufferLoadPattern>(converter, patterns.getContext());
  using IB = ImportBuilder;
  using HI = HalImport;

  // Devices and allocation.
  Add<HAL::DevicesCountOp>(patterns, converter, [](auto, auto, IB&) {
    return ImportCall{HI::kDevicesCount, {}};
  });
  Add<HAL::DevicesGetOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kDevicesGet, {a.getIndex()}};
  });
  Add<HAL::DeviceAllocatorOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kDeviceAllocator, {a.getDevice()}};
  });
  Add<HAL::DeviceInstrumentationRingOp>(patterns, converter, [](auto, auto a, IB& ib) {
    return ImportCall{HI::kDeviceInstrumentationRing, {a.getDevice(), ib.AsI64(a.getByteLength())}};
  });
  Add<HAL::AllocatorAllocateOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{
        HI::kAllocatorAllocate,
        {a.getAllocator(), a.getMemoryTypes(), a.getBufferUsage(), a.getResultSize()}};
  });
  // The constant's bytes as a rodata.
  Add<HAL::AllocatorAllocateInitializedOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    return ImportCall{HI::kAllocatorAllocateInitialized,
                      {a.getAllocator(), ib.Data(op.getValue())}};
  });

  // A parameter: the scope and key as rodata, then what the runtime checks
  // the stored tensor against (element type, byte size, dims).
  Add<HAL::AllocatorAllocateParameterOp>(
      patterns, converter, [](auto op, auto a, IB& ib) -> std::optional<ImportCall> {
        auto type = llvm::cast<mlir::RankedTensorType>(op.getTensorType());
        std::optional<uint32_t> code = host::ElementTypeCode(type.getElementType());
        if (!code) {
          op.emitOpError("element type ") << type.getElementType() << " has no runtime encoding";
          return ImportCall{HI::kAllocatorAllocateParameter, {}};
        }
        llvm::SmallVector<Value> args = {
            a.getAllocator(), ib.Text(op.getScope()), ib.Text(op.getKey()),
            ib.I32(static_cast<int32_t>(*code)),
            ib.I64(type.getNumElements() * host::ElementByteSize(type.getElementType()))};
        for (int64_t dim : type.getShape()) args.push_back(ib.I64(dim));
        return ImportCall{HI::kAllocatorAllocateParameter, args};
      });
  // Buffers and buffer views.
  Add<HAL::BufferLengthOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kBufferLength, {a.getBuffer()}};
  });
  Add<HAL::BufferSubspanOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kBufferSubspan,
                      {a.getSourceBuffer(), a.getSourceOffset(), a.getLength()}};
  });
  Add<HAL::BufferAssertOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    return ImportCall{HI::kBufferAssert,
                      {a.getBuffer(), ib.Text(op.getMessage()), a.getMinimumLength()}};
  });
  Add<HAL::BufferViewCreateOp>(
      patterns, converter, [](auto op, auto a, IB& ib) -> std::optional<ImportCall> {
        if (a.getSourceOffset() || a.getEncodingType()) {
          op.emitOpError("with an offset or an encoding has no hal import");
          return ImportCall{HI::kBufferViewCreate, {}};
        }
        llvm::SmallVector<Value> args = {a.getSourceBuffer(), a.getElementType()};
        for (Value dim : a.getShape()) args.push_back(ib.AsI64(dim));
        return ImportCall{HI::kBufferViewCreate, args};
      });
  Add<HAL::BufferViewBufferOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kBufferViewBuffer, {a.getBufferView()}};
  });
  Add<HAL::BufferViewRankOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kBufferViewRank, {a.getBufferView()}};
  });
  Add<HAL::BufferViewElementTypeOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kBufferViewElementType, {a.getBufferView()}};
  });
  Add<HAL::BufferViewDimOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    return ImportCall{
        HI::kBufferViewDim,
        {a.getBufferView(), ib.I32(static_cast<int64_t>(op.getIndex().getZExtValue()))}};
  });
  Add<HAL::BufferViewAssertOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    llvm::SmallVector<Value> args = {a.getBufferView(), ib.Text(op.getMessage()),
                                     a.getElementType()};
    for (Value dim : a.getShape()) args.push_back(ib.AsI64(dim));
    return ImportCall{HI::kBufferViewAssert, args};
  });

  // Executables: the name, then (format, bytes) of every binary.
  Add<HAL::ExecutableCreateOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    const mlir::StringAttr name = op.getExecutableTarget().getRootReference();
    VM::ModuleOp m = ib.module();
    llvm::SmallVector<Value> args = {a.getDevice(), ib.Text(name.getValue())};
    if (m) {
      // The executable may not be converted yet (materializing is idempotent).
      if (auto executable = llvm::dyn_cast_or_null<HAL::ExecutableOp>(
              mlir::SymbolTable::lookupSymbolIn(m, name))) {
        MaterializeExecutable(ib.rewriter(), m, executable);
      }
      for (auto rodata : m.getBody().front().template getOps<VM::RodataOp>()) {
        auto variant = rodata.getExecutableAttr();
        if (!variant || variant.getName() != name.getValue()) continue;
        args.push_back(ib.Text(variant.getFormat()));
        args.push_back(ib.Rodata(rodata.getSymName()));
      }
    }
    return ImportCall{HI::kExecutableLoad, args};
  });

  // Channels: the group's name as rodata; colors and keys are i32 already.
  Add<HAL::ChannelDefaultOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    return ImportCall{HI::kChannelDefault,
                      {a.getDevice(), ib.Text(op.getGroup().value_or(llvm::StringRef()))}};
  });
  Add<HAL::ChannelSplitOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kChannelSplit, {a.getChannel(), a.getColor(), a.getKey()}};
  });
  Add<HAL::ChannelRankAndCountOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kChannelRankAndCount, {a.getChannel()}};
  });

  // Command buffers.
  Add<HAL::CommandBufferCreateOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    const bool one_shot =
        HAL::bitEnumContainsAll(op.getModes(), HAL::CommandBufferModeBitfield::OneShot);
    return ImportCall{HI::kCommandBufferCreate, {a.getDevice(), ib.I32(one_shot ? 0 : 1)}};
  });
  Add<HAL::CommandBufferFinalizeOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kCommandBufferEnd, {a.getCommandBuffer()}};
  });
  Add<HAL::CommandBufferExecutionBarrierOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kCommandBufferExecutionBarrier, {a.getCommandBuffer()}};
  });
  Add<HAL::CommandBufferFillBufferOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    const int64_t pattern_bytes = op.getPattern().getType().getIntOrFloatBitWidth() / 8;
    return ImportCall{HI::kCommandBufferFillBuffer,
                      {a.getCommandBuffer(), a.getTargetBuffer(), a.getTargetOffset(),
                       a.getLength(), a.getPattern(), ib.I32(pattern_bytes)}};
  });
  Add<HAL::CommandBufferCopyBufferOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kCommandBufferCopyBuffer,
                      {a.getCommandBuffer(), a.getSourceBuffer(), a.getSourceOffset(),
                       a.getTargetBuffer(), a.getTargetOffset(), a.getLength()}};
  });
  // (cmd, executable, ordinal, x, y, z, constant count, constants..., then
  // (buffer or slot, offset, length) per binding).
  Add<HAL::CommandBufferDispatchOp>(patterns, converter, [](auto op, auto a, IB& ib) {
    llvm::SmallVector<Value> args = {a.getCommandBuffer(),
                                     a.getExecutable(),
                                     ib.AsI32(a.getEntryPoint()),
                                     ib.AsI32(a.getWorkgroupX()),
                                     ib.AsI32(a.getWorkgroupY()),
                                     ib.AsI32(a.getWorkgroupZ()),
                                     ib.I32(static_cast<int64_t>(a.getConstants().size()))};
    args.append(a.getConstants().begin(), a.getConstants().end());
    const bool slots = op.usesBindingTable();
    for (auto [buffer, offset, length] :
         llvm::zip(a.getBindingBuffers(), a.getBindingOffsets(), a.getBindingLengths())) {
      args.push_back(slots ? ib.AsI32(buffer) : buffer);
      args.push_back(ib.AsI64(offset));
      args.push_back(ib.AsI64(length));
    }
    return ImportCall{slots ? HI::kCommandBufferDispatchIndirect : HI::kCommandBufferDispatch, args,
                      op.getDispatchAttr(),
                      op->template getAttrOfType<mlir::IntegerAttr>(host::kDispatchSiteIdAttrName)};
  });

  // (cmd, channel, op = kind | reduction << 8, element type, send rank,
  // recv rank, (send buffer or slot, offset, length), (recv ...), count);
  // ranks -1 for the kinds other than send_recv.
  Add<HAL::CommandBufferCollectiveOp>(
      patterns, converter, [](auto op, auto a, IB& ib) -> std::optional<ImportCall> {
        HAL::CollectiveAttr collective = op.getOp();
        const int64_t encoded = static_cast<int64_t>(collective.getKind()) |
                                (static_cast<int64_t>(collective.getReduction()) << 8);
        const bool slots = op.usesBindingTable();
        const HI id = slots ? HI::kCommandBufferCollectiveIndirect : HI::kCommandBufferCollective;
        std::optional<uint32_t> element_type =
            CollectiveElementTypeCode(collective.getElementType());
        if (!element_type) {
          op.emitOpError("collective element type ")
              << HAL::stringifyCollectiveElementType(collective.getElementType())
              << " has no runtime encoding";
          return ImportCall{id, {}};
        }
        auto rank = [&](Value value) { return value ? value : ib.I32(-1); };
        auto buffer = [&](Value value) { return slots ? ib.AsI32(value) : value; };
        return ImportCall{
            id,
            {a.getCommandBuffer(), a.getChannel(), ib.I32(encoded),
             ib.I32(static_cast<int32_t>(*element_type)), rank(a.getSendRank()),
             rank(a.getRecvRank()), buffer(a.getSendBuffer()), ib.AsI64(a.getSendOffset()),
             ib.AsI64(a.getSendLength()), buffer(a.getRecvBuffer()), ib.AsI64(a.getRecvOffset()),
             ib.AsI64(a.getRecvLength()), ib.AsI64(a.getElementCount())}};
      });

  // Fences and queues. A missing wait fence is null.
  auto wait = [](Value fence, IB& ib) {
    return fence ? fence : ib.Null(HAL::FenceType::get(ib.context()));
  };
  Add<HAL::FenceCreateOp>(patterns, converter, [](auto, auto a, IB&) {
    return ImportCall{HI::kFenceCreate, {a.getDevice()}};
  });
  Add<HAL::FenceAwaitOp>(
      patterns, converter, [](auto op, auto a, IB& ib) -> std::optional<ImportCall> {
        // One await per fence (the import takes one).
        for (size_t i = 0; i + 1 < a.getFences().size(); ++i) {
          (void)ib.Call(HalImportOf(HI::kFenceAwait), {a.getFences()[i], a.getTimeoutMillis()});
        }
        if (a.getFences().empty()) return std::nullopt;
        return ImportCall{HI::kFenceAwait, {a.getFences().back(), a.getTimeoutMillis()}};
      });
  Add<HAL::DeviceQueueExecuteOp>(patterns, converter, [wait](auto, auto a, IB& ib) {
    return ImportCall{
        HI::kDeviceQueueExecute,
        {a.getDevice(), wait(a.getWaitFence(), ib), a.getSignalFence(), a.getCommandBuffer()}};
  });
  Add<HAL::DeviceQueueExecuteIndirectOp>(patterns, converter, [wait](auto, auto a, IB& ib) {
    llvm::SmallVector<Value> args = {a.getDevice(), wait(a.getWaitFence(), ib), a.getSignalFence(),
                                     a.getCommandBuffer()};
    args.append(a.getBindingBuffers().begin(), a.getBindingBuffers().end());
    return ImportCall{HI::kDeviceQueueExecuteIndirect, args};
  });
  Add<HAL::DeviceQueueAllocaOp>(patterns, converter, [wait](auto, auto a, IB& ib) {
    return ImportCall{
        HI::kDeviceQueueAlloca,
        {a.getDevice(), wait(a.getWaitFence(), ib), a.getSignalFence(), a.getResultSize()}};
  });
  Add<HAL::DeviceQueueDeallocaOp>(patterns, converter, [wait](auto, auto a, IB& ib) {
    return ImportCall{
        HI::kDeviceQueueDealloca,
        {a.getDevice(), wait(a.getWaitFence(), ib), a.getSignalFence(), a.getBuffer()}};
  });
}

void RegisterHALToVMConversion() {
  static const bool registered = [] {
    RegisterVMConversionExtension([](VMTypeConverter& converter, mlir::RewritePatternSet& patterns,
                                     mlir::ConversionTarget& target) {
      PopulateHALToVMPatterns(converter, patterns);
      target.addIllegalDialect<HAL::HALDialect>();
    });
    return true;
  }();
  (void)registered;
}

}  // namespace kiln::compiler
