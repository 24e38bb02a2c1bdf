// --kiln-hal-memoize-command-buffers: "record once, replay many" for the
// one-shot command buffers a function records on every call.
//
// A submission is memoizable when its command buffer (one-shot, made on the
// device global) is used only by dispatches, collectives and barriers, then
// finalized and submitted, all in its block; the device, every executable
// and every collective's channel are loads of immutable globals (set by
// initializers only: a default channel, not a split made per call); and
// every ordinal, workgroup count, constant, binding offset and binding
// length, and every collective's ranges, element count and send_recv ranks,
// is an arith.constant (static shapes). Such a submission
//
//   %cmd = hal.command_buffer.create device(%device) mode(OneShot)
//   hal.command_buffer.dispatch<%cmd> target(%exe)[%c0] workgroups([%c1, %c1, %c1])
//       constants([%c4_i32]) bindings([(%a)[%c0, %c16], (%r)[%c0, %c16]])
//   hal.command_buffer.finalize<%cmd>
//   hal.device.queue.execute<%device> signal(%fence) commands(%cmd)
//
// becomes a reusable command buffer in a mutable global, recorded by a
// private function on first use, whose dispatches bind binding-table slots
// (slot i = the i-th distinct buffer the submission binds, in first-use
// order) instead of buffers:
//
//   util.global private mutable @__hal_command_buffer_0 : !hal.command_buffer
//   func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
//     (the device and executable loads and the constants, cloned)
//     %cmd = hal.command_buffer.create device(%device) mode(None)
//     hal.command_buffer.dispatch<%cmd> ... bindings([(%c0 : index)[%c0, %c16],
//                                                  (%c1 : index)[%c0, %c16]])
//     hal.command_buffer.finalize<%cmd>
//     return %cmd : !hal.command_buffer
//   }
//   ... at the submit point:
//   %memo = util.global.load @__hal_command_buffer_0 : !hal.command_buffer
//   %null = util.null : !hal.command_buffer
//   %unrecorded = util.cmp.eq %memo, %null : !hal.command_buffer
//   %cmd = scf.if %unrecorded -> !hal.command_buffer {
//     %new = func.call @__hal_record_command_buffer_0() : () -> !hal.command_buffer
//     util.global.store %new, @__hal_command_buffer_0 : !hal.command_buffer
//     scf.yield %new : !hal.command_buffer
//   } else {
//     scf.yield %memo : !hal.command_buffer
//   }
//   hal.device.queue.execute.indirect<%device> signal(%fence) commands(%cmd)
//       bindings([%a, %r])
//
// Fixed buffers are recorded, not slotted: a load of an immutable !hal.buffer
// global (weights, constants, the function's memory arena of
// --kiln-hal-plan-memory), or a hal.buffer.subspan of one at a constant
// offset and length (an arena range), is the same buffer on every call. A
// dispatch whose bindings are all fixed binds the global itself, at the
// subspan's offset plus the binding's, so a CUDA graph keeps its addresses
// and a submission patches nothing for it. The VM's dispatch imports take
// all buffers or all slots, so a dispatch that also binds one of the call's
// own buffers (arguments, results, buffers that escape) binds slots for all:
// a fixed buffer then gets one slot per global (the arena: one slot for all
// its ranges, at their offsets), whose table entry is the same buffer every
// call, so the graph's addresses for it never change either:
//
//   %arena = util.global.load immutable @__hal_arena_f : !hal.buffer
//   %t = hal.buffer.subspan<%arena : !hal.buffer>[%c256, %c16] : !hal.buffer
//   hal.command_buffer.dispatch<%cmd> ... bindings([(%a)[%c0, %c16], (%t)[%c0, %c16]])
//   hal.command_buffer.dispatch<%cmd> ... bindings([(%t)[%c0, %c16], (%w)[%c0, %c16]])
// (%w the load of an immutable weight global) records
//   hal.command_buffer.dispatch<%cmd> ... bindings([(%c0 : index)[%c0, %c16],
//                                                  (%c1 : index)[%c256, %c16]])
//   hal.command_buffer.dispatch<%cmd> ... bindings([(%arena_copy)[%c256, %c16],
//                                                  (%w_copy)[%c0, %c16]])
// and submits with bindings([%a, %arena]).
//
// A collective's send and recv buffers are bound exactly as a dispatch's
// two bindings would be (both fixed, or both slots), so an all_reduce of an
// argument into an arena range records
//   hal.command_buffer.collective<%cmd> channel(%channel_copy) op(<all_reduce with sum : f32>)
//       send(%c0 : index)[%c0, %c16] recv(%c1 : index)[%c256, %c16] count(%c4)
// and the channel, like the device, is the context's own default channel.
//
// Why this is correct: a recording only captures buffer references (the
// commands run at submission in both forms), the barriers were placed
// treating buffers from outside the function as possibly aliased (so they
// hold for any buffers), and everything else the recording reads is a
// constant or a global fixed by the initializers (immutable globals are
// stored only there). Globals are per VM context, so each context records
// its own command buffer (and binds its own arena). A failing
// recording stops the call inside the recording function, before the store:
// no half-recorded command buffer is kept, and the next call records again.
// The dispatches keep their locations, entry points and site ids
// (kiln.dispatch_site_id), so the module's dispatch sites (now in the
// recording function) keep their source lines and instrumentation ids.
//
// The instrumentation ring (compiler/host/instrumentation.h) is the load of
// an immutable global, so it is a fixed buffer like the weights: a
// replayed command buffer binds the same ring on every call.
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/passes.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::Value;

struct Segment {
  HAL::CommandBufferCreateOp create;
  llvm::SmallVector<Operation*> commands;  // Dispatches and barriers, in order.
  HAL::CommandBufferFinalizeOp finalize;
  HAL::DeviceQueueExecuteOp execute;
};

class Memoizer {
 public:
  explicit Memoizer(mlir::ModuleOp module) : module_(module), symbols_(module) {}

  void Run();

 private:
  // A binding of a buffer that is the same on every call: the load of an
  // immutable buffer global, and where in that buffer the binding's range
  // starts and (for a subspan) ends.
  struct Fixed {
    Util::GlobalLoadOp load;
    int64_t offset = 0;
    std::optional<int64_t> length;  // nullopt: to the end of the global's buffer.
  };
  bool IsStableLoad(Value value) const;
  std::optional<Fixed> FixedBufferOf(Value buffer) const;
  bool IsStatic(HAL::CommandBufferDispatchOp dispatch) const;
  bool IsStatic(HAL::CommandBufferCollectiveOp collective) const;
  bool Collect(HAL::CommandBufferCreateOp create, Segment& segment) const;
  void Rewrite(Segment segment);

  mlir::ModuleOp module_;
  mlir::SymbolTable symbols_;
  llvm::DenseSet<mlir::StringAttr> stable_globals_;
};

// A load of a global that only initializers store (immutable): fixed once
// the module is initialized, so a recording may capture it.
bool Memoizer::IsStableLoad(Value value) const {
  auto load = value.getDefiningOp<Util::GlobalLoadOp>();
  return load && stable_globals_.contains(load.getGlobalAttr().getAttr());
}

std::optional<Memoizer::Fixed> Memoizer::FixedBufferOf(Value buffer) const {
  if (!llvm::isa<HAL::BufferType>(buffer.getType())) return std::nullopt;
  if (IsStableLoad(buffer)) return Fixed{buffer.getDefiningOp<Util::GlobalLoadOp>(), 0, {}};
  auto subspan = buffer.getDefiningOp<HAL::BufferSubspanOp>();
  if (!subspan || !IsStableLoad(subspan.getSourceBuffer())) return std::nullopt;
  std::optional<int64_t> offset = host::ConstantIntOf(subspan.getSourceOffset());
  std::optional<int64_t> length = host::ConstantIntOf(subspan.getLength());
  if (!offset || !length || *offset < 0 || *length < 0) return std::nullopt;
  return Fixed{subspan.getSourceBuffer().getDefiningOp<Util::GlobalLoadOp>(), *offset, *length};
}

bool Memoizer::IsStatic(HAL::CommandBufferDispatchOp dispatch) const {
  if (!IsStableLoad(dispatch.getExecutable())) return false;
  auto constant = [](Value v) { return host::ConstantIntOf(v).has_value(); };
  if (!constant(dispatch.getEntryPoint()) || !constant(dispatch.getWorkgroupX()) ||
      !constant(dispatch.getWorkgroupY()) || !constant(dispatch.getWorkgroupZ())) {
    return false;
  }
  for (Value v : dispatch.getConstants()) {
    if (!constant(v)) return false;
  }
  for (Value v : dispatch.getBindingBuffers()) {
    if (!llvm::isa<HAL::BufferType>(v.getType())) return false;
  }
  for (Value v : dispatch.getBindingOffsets()) {
    if (!constant(v)) return false;
  }
  for (Value v : dispatch.getBindingLengths()) {
    if (!constant(v)) return false;
  }
  return true;
}

// A collective records the same way on every call when its channel is a
// default channel (a global the initializer set; a split made per call is
// not) and its ranges, count and ranks are constants.
bool Memoizer::IsStatic(HAL::CommandBufferCollectiveOp collective) const {
  if (!IsStableLoad(collective.getChannel())) return false;
  auto constant = [](Value v) { return !v || host::ConstantIntOf(v).has_value(); };
  return llvm::isa<HAL::BufferType>(collective.getSendBuffer().getType()) &&
         llvm::isa<HAL::BufferType>(collective.getRecvBuffer().getType()) &&
         constant(collective.getSendOffset()) && constant(collective.getSendLength()) &&
         constant(collective.getRecvOffset()) && constant(collective.getRecvLength()) &&
         constant(collective.getElementCount()) && constant(collective.getSendRank()) &&
         constant(collective.getRecvRank());
}

bool Memoizer::Collect(HAL::CommandBufferCreateOp create, Segment& segment) const {
  if (create.getModes() != HAL::CommandBufferModeBitfield::OneShot ||
      !IsStableLoad(create.getDevice())) {
    return false;
  }
  segment.create = create;
  Value cmd = create.getResult();
  mlir::Block* block = create->getBlock();
  size_t seen = 0;
  for (Operation* op = create->getNextNode(); op && !segment.execute; op = op->getNextNode()) {
    if (!llvm::is_contained(op->getOperands(), cmd)) continue;
    ++seen;
    if (auto dispatch = llvm::dyn_cast<HAL::CommandBufferDispatchOp>(op);
        dispatch && !segment.finalize) {
      if (!IsStatic(dispatch)) return false;
      segment.commands.push_back(op);
    } else if (auto collective = llvm::dyn_cast<HAL::CommandBufferCollectiveOp>(op);
               collective && !segment.finalize) {
      if (!IsStatic(collective)) return false;
      segment.commands.push_back(op);
    } else if (llvm::isa<HAL::CommandBufferExecutionBarrierOp>(op) && !segment.finalize) {
      segment.commands.push_back(op);
    } else if (auto finalize = llvm::dyn_cast<HAL::CommandBufferFinalizeOp>(op);
               finalize && !segment.finalize) {
      segment.finalize = finalize;
    } else if (auto execute = llvm::dyn_cast<HAL::DeviceQueueExecuteOp>(op);
               execute && segment.finalize && execute.getCommandBuffer() == cmd) {
      segment.execute = execute;
    } else {
      return false;
    }
  }
  if (!segment.execute) return false;
  // Nothing else uses the command buffer (in this block or another).
  size_t uses = 0;
  for (mlir::OpOperand& use : cmd.getUses()) {
    if (use.getOwner()->getBlock() != block) return false;
    ++uses;
  }
  if (uses != seen) return false;
  // The submission goes to the device the command buffer was made on.
  Value device = segment.execute.getDevice();
  auto load = [](Value v) { return v.getDefiningOp<Util::GlobalLoadOp>(); };
  return device == create.getDevice() ||
         (IsStableLoad(device) && load(device).getGlobal() == load(create.getDevice()).getGlobal());
}

void Memoizer::Rewrite(Segment segment) {
  mlir::MLIRContext* context = module_.getContext();
  const Location loc = segment.create.getLoc();
  auto cmd_type = HAL::CommandBufferType::get(context);
  OpBuilder m = OpBuilder::atBlockEnd(module_.getBody());
  // The first N whose global and recording function are both free.
  std::string global, recorder;
  for (int n = 0;; ++n) {
    global = "__hal_command_buffer_" + std::to_string(n);
    recorder = "__hal_record_command_buffer_" + std::to_string(n);
    if (!symbols_.lookup(global) && !symbols_.lookup(recorder)) break;
  }
  symbols_.insert(Util::GlobalOp::create(m, loc, global, m.getStringAttr("private"), cmd_type,
                                         /*is_mutable=*/true, nullptr));

  // The recording function.
  auto record = mlir::func::FuncOp::create(m, loc, recorder,
                                           mlir::FunctionType::get(context, {}, {cmd_type}));
  record.setPrivate();
  symbols_.insert(record);
  OpBuilder b = OpBuilder::atBlockBegin(record.addEntryBlock());
  mlir::IRMapping copies;
  // A constant or global load of the function, cloned into the recording.
  auto copy_of = [&](Value value) -> Value {
    if (Value copy = copies.lookupOrNull(value)) return copy;
    Operation* copy = b.clone(*value.getDefiningOp());
    copies.map(value, copy->getResult(0));
    return copy->getResult(0);
  };
  auto copies_of = [&](mlir::ValueRange values) {
    llvm::SmallVector<Value> out;
    for (Value v : values) out.push_back(copy_of(v));
    return out;
  };
  Value cmd = HAL::CommandBufferCreateOp::create(
      b, loc, cmd_type, copy_of(segment.create.getDevice()),
      HAL::CommandBufferModeBitfieldAttr::get(context, HAL::CommandBufferModeBitfield::None),
      /*binding_capacity=*/nullptr);
  // Slot i's buffer, in the submitting function.
  llvm::MapVector<Value, int64_t> slots;
  llvm::SmallVector<Value> slot_constants;  // One index constant per slot.
  // The load, in the submitting function, that stands for each fixed global.
  llvm::DenseMap<mlir::StringAttr, Value> global_entries;
  // The fixed bindings' offsets and lengths, one constant per value.
  llvm::DenseMap<int64_t, Value> index_constants;
  auto index_constant = [&](Location at, int64_t value) {
    Value& constant = index_constants[value];
    if (!constant) constant = host::IndexConstant(b, at, value);
    return constant;
  };
  // A command's buffer ranges, as recorded: all fixed buffers (ranges of
  // their globals) or all slots.
  struct Ranges {
    llvm::SmallVector<Value> buffers, offsets, lengths;
  };
  auto record_ranges = [&](Location at, mlir::ValueRange buffers, mlir::ValueRange offsets,
                           mlir::ValueRange lengths) {
    // Fixed bindings are ranges of their global's buffer.
    llvm::SmallVector<std::optional<Fixed>> fixed;
    bool all_fixed = true;
    for (Value buffer : buffers) {
      fixed.push_back(FixedBufferOf(buffer));
      all_fixed &= fixed.back().has_value();
    }
    Ranges out;
    for (auto [i, buffer] : llvm::enumerate(buffers)) {
      Value offset = offsets[i];
      Value length = lengths[i];
      Value table_entry = buffer;
      if (std::optional<Fixed> f = fixed[i]) {
        const int64_t binding_offset = *host::ConstantIntOf(offset);
        int64_t binding_length = *host::ConstantIntOf(length);
        // -1 ("to the end") of a subspan ends where the subspan does.
        if (binding_length == -1 && f->length) binding_length = *f->length - binding_offset;
        offset = index_constant(at, f->offset + binding_offset);
        length = index_constant(at, binding_length);
        // One table entry per global, whichever load of it came first.
        table_entry =
            global_entries.try_emplace(f->load.getGlobalAttr().getAttr(), f->load.getResult())
                .first->second;
        if (all_fixed) buffer = copy_of(table_entry);
      } else {
        offset = copy_of(offset);
        length = copy_of(length);
      }
      if (!all_fixed) {
        auto [it, added] = slots.insert({table_entry, static_cast<int64_t>(slots.size())});
        if (added) slot_constants.push_back(host::IndexConstant(b, at, it->second));
        buffer = slot_constants[it->second];
      }
      out.buffers.push_back(buffer);
      out.offsets.push_back(offset);
      out.lengths.push_back(length);
    }
    return out;
  };
  auto copy_or_null = [&](Value value) { return value ? copy_of(value) : Value(); };
  for (Operation* command : segment.commands) {
    const Location at = command->getLoc();
    if (llvm::isa<HAL::CommandBufferExecutionBarrierOp>(command)) {
      HAL::CommandBufferExecutionBarrierOp::create(b, at, cmd);
      continue;
    }
    if (auto collective = llvm::dyn_cast<HAL::CommandBufferCollectiveOp>(command)) {
      // Its send and recv buffers are bound as a dispatch's two bindings are.
      Ranges r = record_ranges(at, {collective.getSendBuffer(), collective.getRecvBuffer()},
                               {collective.getSendOffset(), collective.getRecvOffset()},
                               {collective.getSendLength(), collective.getRecvLength()});
      HAL::CommandBufferCollectiveOp::create(
          b, at, cmd, copy_of(collective.getChannel()), collective.getOp(),
          copy_or_null(collective.getSendRank()), copy_or_null(collective.getRecvRank()),
          r.buffers[0], r.offsets[0], r.lengths[0], r.buffers[1], r.offsets[1], r.lengths[1],
          copy_of(collective.getElementCount()));
      continue;
    }
    auto dispatch = llvm::cast<HAL::CommandBufferDispatchOp>(command);
    Ranges r = record_ranges(at, dispatch.getBindingBuffers(), dispatch.getBindingOffsets(),
                             dispatch.getBindingLengths());
    auto recorded = HAL::CommandBufferDispatchOp::create(
        b, at, cmd, copy_of(dispatch.getExecutable()), copy_of(dispatch.getEntryPoint()),
        copy_of(dispatch.getWorkgroupX()), copy_of(dispatch.getWorkgroupY()),
        copy_of(dispatch.getWorkgroupZ()), copies_of(dispatch.getConstants()), r.buffers, r.offsets,
        r.lengths, dispatch.getDispatchAttr());
    // What else the dispatch carries (an instrumented one's site id, for the
    // module's dispatch-site table) goes with it into the recording.
    recorded->setDiscardableAttrs(dispatch->getDiscardableAttrDictionary());
  }
  HAL::CommandBufferFinalizeOp::create(b, segment.finalize.getLoc(), cmd);
  mlir::func::ReturnOp::create(b, segment.finalize.getLoc(), cmd);

  // The submit point: record on first use, then submit with this call's
  // buffers as the binding table.
  HAL::DeviceQueueExecuteOp execute = segment.execute;
  OpBuilder s(execute);
  const Location at = execute.getLoc();
  Value memo = Util::GlobalLoadOp::create(s, at, cmd_type, global, /*is_immutable=*/false);
  Value null = Util::NullOp::create(s, at, cmd_type);
  Value unrecorded = Util::CmpEQOp::create(s, at, s.getI1Type(), memo, null);
  auto if_op = mlir::scf::IfOp::create(s, at, mlir::TypeRange{cmd_type}, unrecorded,
                                       /*withElseRegion=*/true);
  {
    OpBuilder then_b = if_op.getThenBodyBuilder();
    Value recorded =
        mlir::func::CallOp::create(then_b, at, record, mlir::ValueRange{}).getResult(0);
    Util::GlobalStoreOp::create(then_b, at, recorded, global);
    mlir::scf::YieldOp::create(then_b, at, recorded);
    OpBuilder else_b = if_op.getElseBodyBuilder();
    mlir::scf::YieldOp::create(else_b, at, memo);
  }
  llvm::SmallVector<Value> table;
  for (auto& [buffer, slot] : slots) table.push_back(buffer);
  HAL::DeviceQueueExecuteIndirectOp::create(s, at, execute.getDevice(), execute.getWaitFence(),
                                            execute.getSignalFence(), if_op.getResult(0), table);

  // The one-shot recording goes away, and with it the loads, constants and
  // arena ranges only it used.
  llvm::SmallVector<Operation*> erased = {execute, segment.finalize};
  for (Operation* command : llvm::reverse(segment.commands)) erased.push_back(command);
  erased.push_back(segment.create);
  llvm::SmallVector<Operation*> maybe_dead;
  auto note_operands = [&](Operation* op) {
    for (Value v : op->getOperands()) {
      if (Operation* def = v.getDefiningOp();
          def &&
          llvm::isa<Util::GlobalLoadOp, mlir::arith::ConstantOp, HAL::BufferSubspanOp>(def)) {
        maybe_dead.push_back(def);
      }
    }
  };
  for (Operation* op : erased) {
    note_operands(op);
    op->erase();
  }
  // A def noted twice is looked at again once its last user has gone.
  llvm::DenseSet<Operation*> gone;
  while (!maybe_dead.empty()) {
    Operation* def = maybe_dead.pop_back_val();
    if (gone.contains(def) || !def->use_empty()) continue;
    note_operands(def);
    gone.insert(def);
    def->erase();
  }
}

void Memoizer::Run() {
  for (auto global : module_.getOps<Util::GlobalOp>()) {
    if (!global.isMutable() &&
        llvm::isa<HAL::DeviceType, HAL::ExecutableType, HAL::BufferType, HAL::ChannelType>(
            global.getType())) {
      stable_globals_.insert(global.getSymNameAttr());
    }
  }
  llvm::SmallVector<Segment> segments;
  module_.walk([&](HAL::CommandBufferCreateOp create) {
    // Not inside the recording functions this pass makes (none yet) nor in
    // initializers: those run once anyway.
    if (create->getParentOfType<Util::InitializerOp>()) return;
    Segment segment;
    if (Collect(create, segment)) segments.push_back(std::move(segment));
  });
  for (Segment& segment : segments) Rewrite(segment);
}

struct MemoizeCommandBuffersPass
    : mlir::PassWrapper<MemoizeCommandBuffersPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MemoizeCommandBuffersPass)
  llvm::StringRef getArgument() const override { return "kiln-hal-memoize-command-buffers"; }
  llvm::StringRef getDescription() const override {
    return "Records static submissions once into reusable command buffers, replayed with a "
           "binding table";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::scf::SCFDialect, mlir::func::FuncDialect, Util::UtilDialect>();
  }
  void runOnOperation() override { Memoizer(getOperation()).Run(); }
};

}  // namespace

std::unique_ptr<mlir::Pass> createMemoizeCommandBuffersPass() {
  return std::make_unique<MemoizeCommandBuffersPass>();
}

}  // namespace kiln::compiler
