// --kiln-hal-schedule-command-buffers: a block's adjacent one-shot
// submissions become one command buffer, with an execution barrier wherever
// a command may touch memory an earlier command of the same command buffer
// touched, one of them writing it.
//
// --kiln-hal-bufferize-dispatches submits every dispatch on its own:
//
//   %cmd0 = hal.command_buffer.create device(%device) mode(OneShot)
//   hal.command_buffer.dispatch<%cmd0> ... bindings([(%a)..., (%t)...])   (writes %t)
//   hal.command_buffer.finalize<%cmd0>
//   %f0 = hal.fence.create device(%device)
//   hal.device.queue.execute<%device> signal(%f0) commands(%cmd0)
//   hal.fence.await until([%f0]) timeout_millis(%c-1)
//   %r = hal.allocator.allocate ...
//   %cmd1 = hal.command_buffer.create ...
//   hal.command_buffer.dispatch<%cmd1> ... bindings([(%t)..., (%r)...])   (reads %t)
//   ... submit %cmd1 and wait
//
// becomes one recording, submitted once at the end:
//
//   %cmd0 = hal.command_buffer.create device(%device) mode(OneShot)
//   hal.command_buffer.dispatch<%cmd0> ... (writes %t)
//   %r = hal.allocator.allocate ...
//   hal.command_buffer.execution_barrier<%cmd0>
//   hal.command_buffer.dispatch<%cmd0> ... (reads %t)
//   hal.command_buffer.finalize<%cmd0>
//   ... submit %cmd0 and wait
//
// Only host work that touches no buffer contents may lie between two
// submissions that merge (allocation, size checks, buffer views, constants,
// global loads); anything else (a call, a region, a terminator, an op with
// other effects) ends the recording, so every result is ready before the
// host can look at it.
//
// Hazards: a binding the export's layout marks ReadOnly is read, the
// instrumentation ring (the Instrumentation binding, compiler/host/
// instrumentation.h) is neither (its records are claimed atomically, one per
// workgroup: no dispatch waits for another because of it), every other
// binding is read and written (fill and copy write their target, copy reads
// its source, a collective reads its send buffer and writes its recv
// buffer). Two buffers conflict when they are the same value, or both
// come from outside the function's own allocations (arguments, call
// results: they may be one buffer), so the barriers hold for any buffers the
// function is given; memoization relies on that. Buffers of the function's
// memory arena (--kiln-hal-plan-memory, which runs before: ranges of one
// buffer that buffers with disjoint lifetimes share) conflict when their
// byte ranges overlap, and with nothing else (no other buffer reaches the
// arena). That is what orders a dispatch that reuses arena memory after the
// last reader of the buffer that held it before, once their submissions
// share a command buffer.
//
// Collectives are also ordered among themselves: a barrier separates any
// two of one command buffer, even on disjoint buffers. Every participant
// must run a channel's collectives in the same order, and a driver may
// overlap the commands between two barriers (a CUDA graph runs nodes with
// no edge between them concurrently), which could start them in different
// orders on different participants and deadlock the group. Between barriers a collective still
// overlaps the dispatches that do not touch its buffers.
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::Operation;
using mlir::Value;

// One submission of one command buffer, as bufferization makes them: the
// create, the commands, then finalize, execute (waiting on nothing) and an
// await of its signal fence, all in one block and in that order.
struct Submission {
  HAL::CommandBufferCreateOp create;
  llvm::SmallVector<Operation*> commands;
  HAL::CommandBufferFinalizeOp finalize;
  HAL::DeviceQueueExecuteOp execute;
  HAL::FenceAwaitOp await;
};

// Which buffers a recording's commands since its last barrier read and
// wrote, and whether one of them is a collective.
struct Accesses {
  llvm::SmallVector<Value> reads, writes;
  bool collective = false;
};

bool IsOwnAllocation(Value buffer) {
  return buffer.getDefiningOp<HAL::AllocatorAllocateOp>() != nullptr;
}

bool MayAlias(Value a, Value b) {
  if (a == b) return true;
  std::optional<host::ArenaRange> arena_a = host::ArenaRangeOf(a);
  std::optional<host::ArenaRange> arena_b = host::ArenaRangeOf(b);
  if (arena_a || arena_b) return arena_a && arena_b && arena_a->Overlaps(*arena_b);
  return !IsOwnAllocation(a) && !IsOwnAllocation(b);
}

bool Conflicts(llvm::ArrayRef<Value> mine, llvm::ArrayRef<Value> theirs) {
  for (Value a : mine) {
    for (Value b : theirs) {
      if (MayAlias(a, b)) return true;
    }
  }
  return false;
}

// The buffers a command reads and writes.
void AccessesOf(Operation* command, Accesses& out) {
  if (auto dispatch = llvm::dyn_cast<HAL::CommandBufferDispatchOp>(command)) {
    HAL::PipelineLayoutAttr layout;
    if (mlir::SymbolRefAttr entry = dispatch.getDispatchAttr()) {
      if (auto exported =
              mlir::SymbolTable::lookupNearestSymbolFrom<HAL::ExecutableExportOp>(command, entry)) {
        layout = exported.getLayout();
      }
    }
    for (auto [i, buffer] : llvm::enumerate(dispatch.getBindingBuffers())) {
      HAL::PipelineBindingAttr binding = layout ? layout.getBinding(i) : nullptr;
      // The instrumentation ring: every workgroup claims a record of its own
      // atomically, so dispatches that share it need no order.
      if (binding && binding.isInstrumentation()) continue;
      out.reads.push_back(buffer);
      if (!binding || !binding.isReadOnly()) out.writes.push_back(buffer);
    }
  } else if (auto fill = llvm::dyn_cast<HAL::CommandBufferFillBufferOp>(command)) {
    out.writes.push_back(fill.getTargetBuffer());
  } else if (auto copy = llvm::dyn_cast<HAL::CommandBufferCopyBufferOp>(command)) {
    out.reads.push_back(copy.getSourceBuffer());
    out.writes.push_back(copy.getTargetBuffer());
  } else if (auto collective = llvm::dyn_cast<HAL::CommandBufferCollectiveOp>(command)) {
    out.reads.push_back(collective.getSendBuffer());
    out.writes.push_back(collective.getRecvBuffer());
    out.collective = true;
  }
}

// Whether `mine` (one command) must wait for the commands of `theirs`.
bool MustFollow(const Accesses& mine, const Accesses& theirs) {
  return Conflicts(mine.reads, theirs.writes) || Conflicts(mine.writes, theirs.reads) ||
         Conflicts(mine.writes, theirs.writes) || (mine.collective && theirs.collective);
}

// Collects the submission `create` starts; false when its command buffer is
// used any other way.
bool CollectSubmission(HAL::CommandBufferCreateOp create, Submission& s) {
  if (create.getModes() != HAL::CommandBufferModeBitfield::OneShot) return false;
  s.create = create;
  mlir::Block* block = create->getBlock();
  Value cmd = create.getResult();
  for (Operation* op = create->getNextNode(); op; op = op->getNextNode()) {
    const bool uses = llvm::is_contained(op->getOperands(), cmd);
    if (!uses) continue;
    if (!s.finalize && llvm::isa<HAL::CommandBufferDispatchOp, HAL::CommandBufferFillBufferOp,
                                 HAL::CommandBufferCopyBufferOp, HAL::CommandBufferCollectiveOp,
                                 HAL::CommandBufferExecutionBarrierOp>(op)) {
      s.commands.push_back(op);
    } else if (!s.finalize && llvm::isa<HAL::CommandBufferFinalizeOp>(op)) {
      s.finalize = llvm::cast<HAL::CommandBufferFinalizeOp>(op);
    } else if (s.finalize && !s.execute && llvm::isa<HAL::DeviceQueueExecuteOp>(op)) {
      s.execute = llvm::cast<HAL::DeviceQueueExecuteOp>(op);
      if (s.execute.getCommandBuffer() != cmd) return false;
      // Waits on nothing, so it may move later.
      if (s.execute.getWaitFence()) return false;
    } else {
      return false;
    }
  }
  if (!s.execute) return false;
  // Every use is in the block, in order (the walk above saw them all).
  size_t uses = 0;
  for (mlir::OpOperand& use : cmd.getUses()) {
    if (use.getOwner()->getBlock() != block) return false;
    ++uses;
  }
  if (uses != s.commands.size() + 2) return false;
  // The signal fence is awaited right after, and used for nothing else.
  Value fence = s.execute.getSignalFence();
  for (Operation* op = s.execute->getNextNode(); op; op = op->getNextNode()) {
    if (auto await = llvm::dyn_cast<HAL::FenceAwaitOp>(op)) {
      if (llvm::is_contained(await->getOperands(), fence)) {
        s.await = await;
        break;
      }
    }
    if (llvm::is_contained(op->getOperands(), fence)) return false;
  }
  return s.await && llvm::range_size(fence.getUses()) == 2;
}

// Host ops that touch no buffer contents: a submission may move past them.
bool TouchesNoBufferContents(Operation* op) {
  if (llvm::isa<HAL::AllocatorAllocateOp, HAL::BufferAssertOp, HAL::BufferViewCreateOp,
                HAL::BufferViewBufferOp, HAL::BufferViewDimOp, HAL::BufferViewAssertOp,
                HAL::BufferLengthOp, HAL::DeviceAllocatorOp, HAL::FenceCreateOp,
                HAL::CommandBufferCreateOp, Util::GlobalLoadOp, Util::NullOp>(op)) {
    return true;
  }
  return op->getNumRegions() == 0 && mlir::isMemoryEffectFree(op);
}

void ScheduleBlock(mlir::Block& block) {
  std::optional<Submission> open;
  Accesses accesses;
  for (Operation* op = &block.front(); op;) {
    Operation* next = op->getNextNode();
    auto create = llvm::dyn_cast<HAL::CommandBufferCreateOp>(op);
    Submission s;
    if (!create || !CollectSubmission(create, s)) {
      // The open submission's own ops, and what it may move past, keep it open.
      const bool own = open && (op == open->finalize || op == open->execute || op == open->await ||
                                llvm::is_contained(open->commands, op));
      if (open && !own && !TouchesNoBufferContents(op)) open.reset();
      op = next;
      continue;
    }
    mlir::OpBuilder b(op->getContext());
    if (open && s.create.getDevice() == open->create.getDevice() &&
        s.create->getAttrDictionary() == open->create->getAttrDictionary()) {
      // Merge: the open submission's tail goes, its command buffer records on.
      Value fence = open->execute.getSignalFence();
      Operation* fence_def = fence.getDefiningOp();
      open->await->erase();
      open->execute->erase();
      open->finalize->erase();
      if (fence_def && fence.use_empty()) fence_def->erase();
      s.create.getResult().replaceAllUsesWith(open->create.getResult());
      s.create->erase();
      for (Operation* command : s.commands) {
        if (llvm::isa<HAL::CommandBufferExecutionBarrierOp>(command)) {
          accesses = Accesses();
          continue;
        }
        Accesses mine;
        AccessesOf(command, mine);
        if (MustFollow(mine, accesses)) {
          b.setInsertionPoint(command);
          HAL::CommandBufferExecutionBarrierOp::create(b, command->getLoc(),
                                                       open->create.getResult());
          accesses = Accesses();
        }
        accesses.reads.append(mine.reads);
        accesses.writes.append(mine.writes);
        accesses.collective |= mine.collective;
      }
      open->commands.append(s.commands);
      open->finalize = s.finalize;
      open->execute = s.execute;
      open->await = s.await;
    } else {
      open = s;
      accesses = Accesses();
      for (Operation* command : s.commands) {
        if (llvm::isa<HAL::CommandBufferExecutionBarrierOp>(command)) {
          accesses = Accesses();
          continue;
        }
        AccessesOf(command, accesses);
      }
    }
    op = next;
  }
}

struct ScheduleCommandBuffersPass
    : mlir::PassWrapper<ScheduleCommandBuffersPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScheduleCommandBuffersPass)
  llvm::StringRef getArgument() const override { return "kiln-hal-schedule-command-buffers"; }
  llvm::StringRef getDescription() const override {
    return "Merges a block's adjacent one-shot submissions into one command buffer, with "
           "execution barriers between conflicting commands";
  }
  void runOnOperation() override {
    getOperation().walk([](mlir::Block* block) {
      if (!block->empty()) ScheduleBlock(*block);
    });
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createScheduleCommandBuffersPass() {
  return std::make_unique<ScheduleCommandBuffersPass>();
}

}  // namespace kiln::compiler
