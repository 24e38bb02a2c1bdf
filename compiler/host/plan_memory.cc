// --kiln-hal-plan-memory: a function's intermediate buffers of static size
// come from one arena, allocated once per VM context, instead of one
// allocation per buffer per call (seed 002: static memory planning, so that
// a memoized command buffer replays at the same addresses every call).
//
//   %t = hal.allocator.allocate<%allocator> type(%c0_i32) usage(%c0_i32)
//       : !hal.buffer{%c1024}
//   ... %t bound by dispatches, awaited, never returned ...
// becomes
//   util.global private @__hal_arena_f {kiln.memory_arena} : !hal.buffer
//   util.initializer {                  (the one that sets the device)
//     ... hal.devices.get, util.global.store @__hal_device, executables ...
//     %device = util.global.load immutable @__hal_device : !hal.device
//     %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
//     %arena = hal.allocator.allocate<%allocator> type(%c0_i32) usage(%c0_i32)
//         : !hal.buffer{%c4096}
//     util.global.store %arena, @__hal_arena_f : !hal.buffer
//     util.return
//   }
//   func.func @f(...) attributes {kiln.reflection = {arena_size = "4096"}} {
//     %arena = util.global.load immutable @__hal_arena_f : !hal.buffer
//     ...
//     %t = hal.buffer.subspan<%arena : !hal.buffer>[%c2048, %c1024] : !hal.buffer
//
// Which buffers: in a func.func that cannot be re-entered while it runs (not
// on a cycle of func.call; no indirect calls in the module; imports, native
// module functions, do not call back into the module), the results of
// hal.allocator.allocate of a constant, non-zero size, from the allocator
// of an immutable device global, whose every use is one the pass
// understands, in the allocation's own block:
//   - a binding of hal.command_buffer.dispatch, the target of fill_buffer,
//     the source or target of copy_buffer, the send or recv buffer of
//     hal.command_buffer.collective, on a one-shot command buffer that is
//     submitted once by hal.device.queue.execute in that block, with the
//     submission's signal fence awaited (timeout -1) by the first op after
//     the execute that is not a constant or a fence.create;
//   - hal.buffer.assert, hal.buffer.length, hal.buffer.load (read at that
//     point, once the submissions before it were awaited).
// Anything else (a return, a call, a global store, a branch or yield, a
// subspan, a buffer view: what a function returns or a check compares, a
// use in another block) lets the buffer escape, and it keeps its own
// allocation. The allocations planned together
// share the device global, memory types and usage of the function's first
// candidate (one arena per function); others are left alone.
//
// Lifetimes: ops are numbered in pre-order over the function. A buffer lives
// from its first use to the last of: its point uses, and for each command
// that binds it, the await of that command buffer's submission (the device
// may touch it until then). Since every use lies in the allocation's block,
// an interval either contains a nested region op's whole numbering or none
// of it, so intervals in a loop body (re-run per iteration, but over and
// done within one) compare correctly with the enclosing block's. Two
// buffers may share bytes only when their intervals are disjoint.
//
// Where in the pipeline: after bufferization (and its canonicalization,
// which makes sizes constants) and before --kiln-hal-schedule-command-buffers.
// Before scheduling, every dispatch is its own submission awaited at once,
// so the lifetimes above are per dispatch, and a buffer can reuse memory
// whose last reader was the previous dispatch. Scheduling then merges the
// submissions into one command buffer and, because it knows arena ranges
// (host::ArenaRangeOf), puts an execution barrier wherever a dispatch
// writes arena bytes an earlier one of the same barrier group read or wrote.
// Run after scheduling, the same rule would see one submission per block
// and keep every intermediate alive across it (no reuse at all).
// Memoization (after scheduling) then records the arena into the reusable
// command buffer directly: the arena is the same buffer on every call.
//
// Packing: greedy by size (largest first; ties by first use), each buffer
// at the lowest-waste gap (best fit) among the buffers already placed whose
// lifetimes overlap its own, else above them. Offsets and sizes are rounded
// to 256 bytes: Vulkan binds storage buffers at multiples of
// minStorageBufferOffsetAlignment (at most 256 by the specification), CUDA
// allocations are 256-byte aligned and generated kernels assume aligned
// bindings, and the CPU driver's 64.
//
// In place (a result written over a dead operand's bytes) is left out: the
// pass sees a dispatch's bindings but not what the kernel computes (the
// executables are binaries by now, and hand-written ones are opaque), so it
// cannot prove that a kernel reads each element before it writes it. Where
// that holds, flow.dispatch says so by tying the result to the operand
// (`-> %operand`), which bufferization honours by binding one buffer.
//
// The arena is allocated once per context by the initializer that sets the
// device (before the program's initializers, which may call the function),
// so it is an immutable global: memoization may capture it. Every
// submission that touches it is awaited within the call, and nothing
// between the execute and the await can fail, so no call (not even a
// failing one) leaves work on the arena in flight for the next.
//
// The function gets `kiln.reflection = {arena_size = "N"}` (bytes), which
// the module's export reflection carries to kiln-dump-module.
#include <limits>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::Operation;
using mlir::Value;

constexpr int64_t kArenaAlignment = 256;

int64_t AlignUp(int64_t value) {
  return (value + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// One planned buffer.
struct Interval {
  HAL::AllocatorAllocateOp allocation;
  int64_t size = 0;   // Bytes, rounded up to the alignment.
  int64_t start = 0;  // Pre-order numbers, inclusive.
  int64_t end = 0;
  int64_t offset = 0;  // In the arena, once packed.
  bool Overlaps(const Interval& other) const { return start <= other.end && other.start <= end; }
};

// What the allocations of one arena share.
struct ArenaKey {
  mlir::FlatSymbolRefAttr device;
  int64_t memory_types = 0;
  int64_t buffer_usage = 0;
  bool operator==(const ArenaKey& other) const {
    return device == other.device && memory_types == other.memory_types &&
           buffer_usage == other.buffer_usage;
  }
};

// Functions that may run again while they run: on a cycle of func.call, or
// every function when the module calls indirectly (the callee unknown).
llvm::DenseSet<mlir::StringAttr> ReentrantFunctions(mlir::ModuleOp module) {
  llvm::DenseMap<mlir::StringAttr, llvm::SmallVector<mlir::StringAttr>> callees;
  llvm::DenseSet<mlir::StringAttr> all;
  bool indirect = false;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    all.insert(func.getSymNameAttr());
    func.walk([&](mlir::CallOpInterface call) {
      auto callee = llvm::dyn_cast_if_present<mlir::SymbolRefAttr>(call.getCallableForCallee());
      if (!callee) {
        indirect = true;
        return;
      }
      callees[func.getSymNameAttr()].push_back(callee.getLeafReference());
    });
  }
  if (indirect) return all;
  llvm::DenseSet<mlir::StringAttr> reentrant;
  for (mlir::StringAttr root : all) {
    // Whether root reaches itself.
    llvm::SmallVector<mlir::StringAttr> stack(callees[root].begin(), callees[root].end());
    llvm::DenseSet<mlir::StringAttr> seen;
    while (!stack.empty()) {
      mlir::StringAttr next = stack.pop_back_val();
      if (next == root) {
        reentrant.insert(root);
        break;
      }
      if (!seen.insert(next).second) continue;
      auto it = callees.find(next);
      if (it != callees.end()) stack.append(it->second.begin(), it->second.end());
    }
  }
  return reentrant;
}

class FunctionPlanner {
 public:
  FunctionPlanner(mlir::func::FuncOp func, mlir::SymbolTable& symbols)
      : func_(func), symbols_(symbols) {}

  // Plans the function's buffers; returns the arena's size (0: none).
  int64_t Run();

 private:
  std::optional<ArenaKey> KeyOf(HAL::AllocatorAllocateOp allocation) const;
  std::optional<std::pair<int64_t, int64_t>> Lifetime(Value buffer, mlir::Block* block);
  struct Submission {
    Operation* execute = nullptr;
    Operation* await = nullptr;
  };
  Operation* AwaitOf(Value command_buffer, Operation* command, mlir::Block* block);
  Submission SubmissionOf(Value command_buffer);
  void Pack(llvm::SmallVector<Interval>& intervals) const;
  void Rewrite(llvm::ArrayRef<Interval> intervals, const ArenaKey& key, int64_t arena_size);

  mlir::func::FuncOp func_;
  mlir::SymbolTable& symbols_;
  llvm::DenseMap<Operation*, int64_t> position_;
  // Each command buffer's submission (nulls: none the pass understands).
  llvm::DenseMap<Value, Submission> submissions_;
};

std::optional<ArenaKey> FunctionPlanner::KeyOf(HAL::AllocatorAllocateOp allocation) const {
  auto allocator = allocation.getAllocator().getDefiningOp<HAL::DeviceAllocatorOp>();
  if (!allocator) return std::nullopt;
  auto device = allocator.getDevice().getDefiningOp<Util::GlobalLoadOp>();
  if (!device) return std::nullopt;
  auto global = symbols_.lookup<Util::GlobalOp>(device.getGlobalAttr().getAttr());
  if (!global || global.isMutable()) return std::nullopt;
  std::optional<int64_t> types = host::ConstantIntOf(allocation.getMemoryTypes());
  std::optional<int64_t> usage = host::ConstantIntOf(allocation.getBufferUsage());
  if (!types || !usage) return std::nullopt;
  return ArenaKey{device.getGlobalAttr(), *types, *usage};
}

// The await after which the submission of `command_buffer` (recorded by
// `command`, in `block`) has completed, or null.
Operation* FunctionPlanner::AwaitOf(Value command_buffer, Operation* command, mlir::Block* block) {
  auto [it, added] = submissions_.try_emplace(command_buffer);
  Submission& submission = it->second;
  if (added) submission = SubmissionOf(command_buffer);
  if (!submission.await || submission.execute->getBlock() != block ||
      !command->isBeforeInBlock(submission.execute)) {
    return nullptr;
  }
  return submission.await;
}

// The one submission of a one-shot command buffer, and the await that ends
// it; nulls when there is not exactly that.
FunctionPlanner::Submission FunctionPlanner::SubmissionOf(Value command_buffer) {
  auto create = command_buffer.getDefiningOp<HAL::CommandBufferCreateOp>();
  if (!create || create.getModes() != HAL::CommandBufferModeBitfield::OneShot) return {};
  HAL::DeviceQueueExecuteOp execute;
  for (Operation* user : command_buffer.getUsers()) {
    if (llvm::isa<HAL::CommandBufferDispatchOp, HAL::CommandBufferFillBufferOp,
                  HAL::CommandBufferCopyBufferOp, HAL::CommandBufferCollectiveOp,
                  HAL::CommandBufferExecutionBarrierOp, HAL::CommandBufferFinalizeOp>(user)) {
      continue;
    }
    auto submit = llvm::dyn_cast<HAL::DeviceQueueExecuteOp>(user);
    // Submitted once (a one-shot command buffer runs once), and nothing else
    // (a call, a store) can submit it later.
    if (!submit || execute || submit.getCommandBuffer() != command_buffer) return {};
    execute = submit;
  }
  if (!execute) return {};
  // The await comes next: nothing between can fail and leave the work in
  // flight when the call returns.
  Value fence = execute.getSignalFence();
  for (Operation* op = execute->getNextNode(); op; op = op->getNextNode()) {
    if (llvm::isa<mlir::arith::ConstantOp, HAL::FenceCreateOp>(op)) continue;
    auto await = llvm::dyn_cast<HAL::FenceAwaitOp>(op);
    if (await && llvm::is_contained(await.getFences(), fence) &&
        host::ConstantIntOf(await.getTimeoutMillis()) == -1) {
      return {execute, await};
    }
    break;
  }
  return {};
}

// [first use, end of the last use] of `buffer`, all of whose uses must be in
// `block` and understood; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> FunctionPlanner::Lifetime(Value buffer,
                                                                     mlir::Block* block) {
  int64_t start = std::numeric_limits<int64_t>::max();
  int64_t end = std::numeric_limits<int64_t>::min();
  auto touch = [&](Operation* op) {
    start = std::min(start, position_.lookup(op));
    end = std::max(end, position_.lookup(op));
  };
  for (mlir::OpOperand& use : buffer.getUses()) {
    Operation* user = use.getOwner();
    if (user->getBlock() != block) return std::nullopt;
    Value command_buffer;
    if (auto dispatch = llvm::dyn_cast<HAL::CommandBufferDispatchOp>(user)) {
      command_buffer = dispatch.getCommandBuffer();
    } else if (auto fill = llvm::dyn_cast<HAL::CommandBufferFillBufferOp>(user)) {
      command_buffer = fill.getCommandBuffer();
    } else if (auto copy = llvm::dyn_cast<HAL::CommandBufferCopyBufferOp>(user)) {
      command_buffer = copy.getCommandBuffer();
    } else if (auto collective = llvm::dyn_cast<HAL::CommandBufferCollectiveOp>(user)) {
      command_buffer = collective.getCommandBuffer();
    } else if (llvm::isa<HAL::BufferAssertOp, HAL::BufferLengthOp, HAL::BufferLoadOp>(user)) {
      touch(user);
      continue;
    } else {
      return std::nullopt;
    }
    touch(user);
    Operation* await = AwaitOf(command_buffer, user, block);
    if (!await) return std::nullopt;
    touch(await);
  }
  if (start > end) return std::nullopt;  // No uses: nothing to plan.
  return std::make_pair(start, end);
}

void FunctionPlanner::Pack(llvm::SmallVector<Interval>& intervals) const {
  llvm::SmallVector<Interval*> order;
  for (Interval& interval : intervals) order.push_back(&interval);
  llvm::stable_sort(order, [](const Interval* a, const Interval* b) {
    if (a->size != b->size) return a->size > b->size;
    return a->start < b->start;
  });
  llvm::SmallVector<const Interval*> placed;
  for (Interval* interval : order) {
    // The placed buffers live at the same time, by offset.
    llvm::SmallVector<const Interval*> live;
    for (const Interval* other : placed) {
      if (other->Overlaps(*interval)) live.push_back(other);
    }
    llvm::stable_sort(live,
                      [](const Interval* a, const Interval* b) { return a->offset < b->offset; });
    int64_t best = -1, best_waste = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;  // The first byte above the buffers seen so far.
    for (const Interval* other : live) {
      const int64_t gap = other->offset - cursor;
      if (gap >= interval->size && gap - interval->size < best_waste) {
        best = cursor;
        best_waste = gap - interval->size;
      }
      cursor = std::max(cursor, other->offset + other->size);
    }
    interval->offset = best >= 0 ? best : cursor;
    placed.push_back(interval);
  }
}

void FunctionPlanner::Rewrite(llvm::ArrayRef<Interval> intervals, const ArenaKey& key,
                              int64_t arena_size) {
  mlir::MLIRContext* context = func_.getContext();
  const mlir::Location loc = func_.getLoc();
  auto buffer_type = HAL::BufferType::get(context);
  mlir::ModuleOp module = func_->getParentOfType<mlir::ModuleOp>();

  // The global, next to the function.
  mlir::OpBuilder m(func_);
  const std::string name =
      host::UniqueSymbolName(symbols_, ("__hal_arena_" + func_.getSymName()).str());
  auto global = Util::GlobalOp::create(m, loc, name, m.getStringAttr("private"), buffer_type,
                                       /*is_mutable=*/false, nullptr);
  global->setAttr(host::kArenaAttrName, m.getUnitAttr());
  symbols_.insert(global);

  // Allocated at the end of the initializer that sets the device (the
  // device's own, which bufferization puts before the program's), or by a
  // new one where that initializer is not one block, or at the end of the
  // module where no initializer sets the device.
  Util::InitializerOp setter;
  for (auto initializer : module.getOps<Util::InitializerOp>()) {
    initializer.walk([&](Util::GlobalStoreOp store) {
      if (store.getGlobalAttr() == key.device) setter = initializer;
    });
  }
  mlir::OpBuilder i(context);
  if (setter && setter.getBody().hasOneBlock()) {
    i.setInsertionPoint(setter.getBody().front().getTerminator());
  } else {
    i.setInsertionPointToEnd(module.getBody());
    if (setter) i.setInsertionPointAfter(setter);
    auto initializer = Util::InitializerOp::create(i, loc);
    i.setInsertionPointToStart(&initializer.getBody().emplaceBlock());
    Util::ReturnOp::create(i, loc);
    i.setInsertionPointToStart(&initializer.getBody().front());
  }
  Value device = Util::GlobalLoadOp::create(i, loc, HAL::DeviceType::get(context),
                                            key.device.getValue(), /*is_immutable=*/true);
  Value allocator =
      HAL::DeviceAllocatorOp::create(i, loc, HAL::AllocatorType::get(context), device);
  // (One statement each: argument evaluation order would decide their order.)
  Value memory_types = host::I32Constant(i, loc, key.memory_types);
  Value buffer_usage = host::I32Constant(i, loc, key.buffer_usage);
  Value size = host::IndexConstant(i, loc, arena_size);
  Value arena = HAL::AllocatorAllocateOp::create(i, loc, buffer_type, allocator, memory_types,
                                                 buffer_usage, size);
  Util::GlobalStoreOp::create(i, loc, arena, name);

  // The function loads it once; each planned buffer is a range of it.
  mlir::OpBuilder f = mlir::OpBuilder::atBlockBegin(&func_.getBody().front());
  Value loaded = Util::GlobalLoadOp::create(f, loc, buffer_type, name, /*is_immutable=*/true);
  for (const Interval& interval : intervals) {
    HAL::AllocatorAllocateOp allocation = interval.allocation;
    mlir::OpBuilder b(allocation);
    Value subspan = HAL::BufferSubspanOp::create(
        b, allocation.getLoc(), buffer_type, loaded,
        host::IndexConstant(b, allocation.getLoc(), interval.offset), allocation.getResultSize());
    allocation.getResult().replaceAllUsesWith(subspan);
    allocation->erase();
  }

  // Reflection: merged into what the function already carries.
  mlir::NamedAttrList reflection;
  if (auto existing = func_->getAttrOfType<mlir::DictionaryAttr>("kiln.reflection")) {
    reflection.append(existing.getValue());
  }
  reflection.set("arena_size", m.getStringAttr(std::to_string(arena_size)));
  func_->setAttr("kiln.reflection", reflection.getDictionary(context));
}

int64_t FunctionPlanner::Run() {
  int64_t n = 0;
  func_->walk<mlir::WalkOrder::PreOrder>([&](Operation* op) { position_[op] = n++; });

  std::optional<ArenaKey> key;
  llvm::SmallVector<Interval> intervals;
  func_.walk([&](HAL::AllocatorAllocateOp allocation) {
    std::optional<int64_t> size = host::ConstantIntOf(allocation.getResultSize());
    if (!size || *size <= 0) return;
    std::optional<ArenaKey> mine = KeyOf(allocation);
    if (!mine || (key && !(*key == *mine))) return;
    std::optional<std::pair<int64_t, int64_t>> lifetime =
        Lifetime(allocation.getResult(), allocation->getBlock());
    if (!lifetime) return;
    key = mine;
    intervals.push_back(
        Interval{allocation, AlignUp(*size), lifetime->first, lifetime->second, /*offset=*/0});
  });
  if (intervals.empty()) return 0;
  Pack(intervals);
  int64_t arena_size = 0;
  for (const Interval& interval : intervals) {
    arena_size = std::max(arena_size, interval.offset + interval.size);
  }
  Rewrite(intervals, *key, arena_size);
  return arena_size;
}

struct PlanMemoryPass : mlir::PassWrapper<PlanMemoryPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanMemoryPass)
  llvm::StringRef getArgument() const override { return "kiln-hal-plan-memory"; }
  llvm::StringRef getDescription() const override {
    return "Places a function's intermediate buffers of static size in one arena allocated "
           "once per context, packed by lifetime";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::arith::ArithDialect, Util::UtilDialect, HAL::HALDialect>();
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    llvm::DenseSet<mlir::StringAttr> reentrant = ReentrantFunctions(module);
    for (auto func : llvm::to_vector(module.getOps<mlir::func::FuncOp>())) {
      if (func.isExternal() || reentrant.contains(func.getSymNameAttr())) continue;
      FunctionPlanner(func, symbols).Run();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createPlanMemoryPass() { return std::make_unique<PlanMemoryPass>(); }

}  // namespace kiln::compiler
