// The Bufferizer of --kiln-hal-bufferize-dispatches (passes.h), shared by
// the files that lower its parts:
//
//   bufferize_dispatches.cc  functions, calls, tensor.dim/empty/extract and
//                            flow.dispatch into hal ops (the pass itself)
//   bufferize_globals.cc     the device, executable and tensor globals, the
//                            module initializer, host tensor constants
//   bufferize_checks.cc      the check dialect's comparisons of tensors
//   bufferize_collectives.cc flow's channels and collectives into hal
//                            channels and collective commands
//   bufferize_instrumentation.cc  site ids, the instrumentation ring and the
//                            extras of instrumented dispatches
//
// Each tensor value on the host becomes a TensorState (its buffer and dims);
// the Bufferizer holds them per function.
#pragma once

#include <string>

#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln::compiler::bufferize {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;

// A tensor value on the host: its buffer and dims (index values; constants
// for the static ones), and the buffer view it arrived as, if any.
struct TensorState {
  RankedTensorType type;
  Value buffer;
  llvm::SmallVector<Value> dims;
  Value view;
  // The buffer holds at least the bytes of `dims` (made or asserted so).
  bool sized = true;
  // The buffer of an immutable global (a tensor constant among them), which
  // nothing may write: a dispatch that would write it in place, and a
  // function, caller or mutable global it escapes to, get a copy instead.
  bool read_only = false;
};

// Whether an op in `root` (or `root` itself) has a tensor operand or result.
bool TakesOrMakesTensors(Operation* root);

// `type` as MLIR prints it, for messages.
std::string TypeText(Type type);

// Whether `op` is a flow.channel.* op, and whether `root` holds one.
bool IsChannelOp(Operation* op);
bool UsesChannels(Operation* root);

class Bufferizer {
 public:
  explicit Bufferizer(mlir::ModuleOp module) : module_(module), symbols_(module) {}

  mlir::LogicalResult Run();

 private:
  mlir::InFlightDiagnostic Error(Location loc) {
    failed_ = true;
    return mlir::emitError(loc);
  }

  // Module-level symbols, made on first use.
  llvm::StringRef DeviceGlobal();
  mlir::FailureOr<llvm::StringRef> ExecutableGlobal(Location loc, mlir::SymbolRefAttr entry);
  void RetypeTensorGlobals();
  std::string ConstantGlobal(mlir::ElementsAttr value, Location loc);
  void BuildInitializer();
  // `value` is an ElementsAttr or a #flow.parameter.named.
  void InitializeBuffer(OpBuilder& b, Location loc, Value device, Value allocator,
                        llvm::StringRef global, mlir::Attribute value);
  // !flow.channel -> !hal.channel on every value, signature and global.
  void RetypeChannels();
  // The !hal.channel global of flow.channel.default `group`, made on first
  // use (at `loc`); InitializeChannels joins each in the module initializer.
  llvm::StringRef ChannelGlobal(llvm::StringRef group, Location loc);
  void InitializeChannels(OpBuilder& b, Value device);
  // Dispatch instrumentation (compiler/host/instrumentation.h): numbers the
  // dispatches of instrumented exports that have no site id yet and, when
  // the module has any, makes the ring's global.
  void NumberDispatchSites();
  // When `layout` is instrumented, appends the dispatch's site id to
  // `constants` and the ring to the bindings; false when that failed
  // (already reported).
  bool AppendInstrumentation(OpBuilder& b, Flow::DispatchOp op, HAL::PipelineLayoutAttr layout,
                             llvm::SmallVectorImpl<Value>& constants,
                             llvm::SmallVectorImpl<Value>& binding_buffers,
                             llvm::SmallVectorImpl<Value>& binding_lengths);
  // The module initializer's ring (hal.device.instrumentation_ring), if the
  // module has one.
  void InitializeInstrumentationRing(OpBuilder& b, Value device);

  // `owner` is a func.func or a util.initializer that computes on tensors.
  void LowerFunction(Operation* owner);
  void LowerOp(Operation* op);
  void LowerDispatch(Flow::DispatchOp op);
  void LowerChannelOp(Operation* op);
  void LowerCollective(Operation* op);
  void LowerConstant(Operation* op, mlir::Attribute value);
  void LowerGlobalAccess(Operation* op);
  void LowerExtract(mlir::tensor::ExtractOp op);
  void LowerCheck(Operation* op);
  mlir::FailureOr<Value> CheckedView(OpBuilder& b, Operation* op, Value value);
  TensorState* StateOf(Operation* user, Value tensor);
  TensorState& Adopt(OpBuilder& b, Location loc, Value key, Value view, RankedTensorType type);
  Value ByteLength(OpBuilder& b, Location loc, Type element_type, llvm::ArrayRef<Value> dims);
  Value ViewOf(OpBuilder& b, Location loc, TensorState& state);
  Value Allocate(OpBuilder& b, Location loc, Value length);
  // A one-shot command buffer on the function's device with the commands
  // `record` adds, submitted and awaited (scheduling merges neighbours).
  void Submit(OpBuilder& b, Location loc, Value device,
              llvm::function_ref<void(Value command_buffer)> record);
  // A writable copy of a read-only tensor (a new buffer; the state as it is
  // otherwise).
  TensorState WritableCopy(OpBuilder& b, Location loc, const TensorState& state);
  Value Device(OpBuilder& b, Location loc);

  mlir::ModuleOp module_;
  mlir::SymbolTable symbols_;
  bool failed_ = false;
  std::string device_global_;
  // hal.executable symbol -> its global, in first-use order.
  llvm::MapVector<mlir::StringAttr, std::string> executable_globals_;
  // Tensor globals, now !hal.buffer globals: name -> tensor type, mutability.
  llvm::DenseMap<mlir::StringAttr, std::pair<RankedTensorType, bool>> tensor_globals_;
  // The buffers the module initializer fills, in order: (global, value),
  // the value an ElementsAttr or a #flow.parameter.named.
  llvm::SmallVector<std::pair<std::string, mlir::Attribute>> initial_buffers_;
  // Host tensor constants made immutable globals: value -> global.
  llvm::DenseMap<mlir::Attribute, std::string> constant_globals_;
  // The default channels: each flow.channel.default group's global and
  // first use, in first-use order.
  struct ChannelGlobalInfo {
    std::string group;
    std::string global;
    Location loc;
  };
  llvm::SmallVector<ChannelGlobalInfo> channel_globals_;
  // The instrumentation ring's global (empty: the module dispatches no
  // instrumented export) and its size in bytes.
  std::string ring_global_;
  int64_t ring_bytes_ = 0;

  // Per function (or initializer): "@f" in messages.
  std::string function_name_;
  Value device_, allocator_;
  llvm::DenseMap<mlir::StringAttr, Value> executables_;
  llvm::DenseMap<Value, TensorState> tensors_;
  // Results of dispatches that failed (already reported): their uses are
  // skipped instead of cascading into more errors.
  llvm::DenseSet<Value> poisoned_;
  llvm::DenseSet<Operation*> rejected_;
  llvm::SmallVector<Operation*> erased_;
  // Tensor arguments and call results, which become buffer views once every
  // op is lowered (until then the flow ops see their tensor types).
  llvm::SmallVector<Value> retyped_;
};

}  // namespace kiln::compiler::bufferize
