// TieDispatchResults (--kiln-tie-dispatch-results): an elementwise dispatch
// writes its result over an operand that dies there, instead of into a
// buffer of its own. The flow.dispatch ties the result to the operand
// (`-> %operand`), which --kiln-hal-bufferize-dispatches honours by binding
// the operand's buffer once, read-write, for both; the kernel reads and
// writes that one binding. Memory planning cannot do this by itself
// (plan_memory.cc): by then the kernels are binaries, and only here, with
// the kernel still linalg on tensors, can it be proved that each element is
// read before it is written.
//
//   hal.executable.source private @f_dispatch_1 {
//     hal.executable.export public @f_dispatch_1 ordinal(0) layout(
//         #hal.pipeline.layout<bindings = [<storage_buffer, ReadOnly>, <storage_buffer>]>)
//     builtin.module {
//       func.func @f_dispatch_1() {
//         %in = hal.interface.binding.subspan ... binding(0) ... flags(ReadOnly)
//             : memref<64x64xf32>
//         %x = bufferization.to_tensor %in restrict : ...
//         %out = hal.interface.binding.subspan ... binding(1) ... : memref<64x64xf32>
//         %init = bufferization.to_tensor %out restrict writable : ...
//         %r = linalg.generic {indexing_maps = [#id, #id], ...} ins(%x) outs(%init) ...
//         bufferization.materialize_in_destination %r in restrict writable %out
//       }
//     }
//   }
//   %mm = flow.dispatch @f_dispatch_0::@f_dispatch_0(...) : (...) -> tensor<64x64xf32>
//   %e = flow.dispatch @f_dispatch_1::@f_dispatch_1(%mm) : (tensor<64x64xf32>)
//       -> tensor<64x64xf32>
// ->
//   hal.executable.export public @f_dispatch_1 ordinal(0) layout(
//       #hal.pipeline.layout<bindings = [<storage_buffer>]>)
//   ...
//         %in = hal.interface.binding.subspan ... binding(0) ... : memref<64x64xf32>
//         %x = bufferization.to_tensor %in restrict : ...
//         %out = hal.interface.binding.subspan ... binding(0) ... : memref<64x64xf32>
//         %init = bufferization.to_tensor %out restrict writable : ...
//         (the rest as before)
//   %e = flow.dispatch @f_dispatch_1::@f_dispatch_1(%mm) : (tensor<64x64xf32>) -> %mm
//
// The binding order stays the one every target and the host agree on
// (flow.dispatch, form_dispatches.cc): the tensor operands in order, then
// one binding per result not tied to an operand. So the tied result's
// binding goes, the operand's binding loses ReadOnly (the scheduler then
// sees the dispatch write it), and the bindings of the later results move
// down by one; the export's layout and every hal.interface op of the kernel
// get the new layout.
//
// The kernel keeps two subspans of the one binding, one read and one
// written, each behind a `restrict` to_tensor: One-Shot Bufferize then
// bufferizes the read and the write as it did before (no copy, the output
// tile written in place), and CSE makes them one memref once they are
// equal. `restrict` promises that nothing else reaches the buffer; what is
// proved below makes that harmless: the root alone reads the operand, each
// element at the very iteration that writes the same element of the result,
// so no iteration reads an element another one has written (the GPU
// targets' threads, the CPU's vectors and the workgroups all split the root
// by iterations).
//
// A result is tied to an operand only when all of this holds:
//   - the export is a generated kernel (hal.executable.source) dispatched
//     from this one place, that no library call computes (no
//     `kiln.library_call`: the library writes its output on its own terms),
//     and the dispatch has no tied results yet;
//   - the kernel's root (`kiln.workgroup_tiles`) is a linalg.generic whose
//     loops are all parallel;
//   - the operand's binding has one subspan, read by one to_tensor, whose
//     one use is an input of the root with the identity indexing map (not
//     a producer fused into the dispatch, not a reshape, slice or second
//     input);
//   - the result's binding has one subspan, whose to_tensor is the root's
//     init for it, with the identity indexing map and not read by the
//     payload, and which the root's result is materialized into as is (an
//     init made by a tensor.empty that another op's init shares, which
//     --kiln-form-dispatches leaves, becomes that to_tensor: the empty has
//     no contents to keep);
//   - the operand and the result have the same type (shape and element
//     type) and the same dynamic dims (the same values, in the kernel and
//     on the host);
//   - on the host the operand is a result of another flow.dispatch in the
//     same block, used once by this dispatch and otherwise only by
//     dispatches before it in the block that read it through a ReadOnly
//     binding (and by tensor.dim, which reads no data): its buffer is a
//     fresh allocation that nothing reads afterwards, and
//     --kiln-hal-schedule-command-buffers puts a barrier between those
//     reads and this write (a write after a read of one buffer). (A result
//     tied in turn is followed to the operand it was written over, which
//     must satisfy the same.) Never a function argument, a global, a
//     parameter, a constant, a value used again later or returned. The result itself may be
//     returned: the shared buffer escapes, and --kiln-hal-plan-memory leaves it its own allocation.
// Each operand takes at most one result and each result at most one operand
// (the first that qualifies, in operand order).
//
// Where in the pipeline: after --kiln-form-dispatches (which outlines the
// kernels) and --kiln-select-library-calls (which marks the kernels this
// pass must leave alone), before --kiln-distribute-to-workgroups tiles and
// bufferizes the kernels: the root is still one linalg op on tensors.
#include <optional>

#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dispatch/passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::Operation;
using mlir::Value;

// Whether `a` and `b` are the same index value: one SSA value or equal
// constants.
bool SameIndex(Value a, Value b) {
  if (a == b) return true;
  llvm::APInt ca, cb;
  return mlir::matchPattern(a, mlir::m_ConstantInt(&ca)) &&
         mlir::matchPattern(b, mlir::m_ConstantInt(&cb)) && ca == cb;
}

bool SameIndices(mlir::ValueRange a, mlir::ValueRange b) {
  if (a.size() != b.size()) return false;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (!SameIndex(x, y)) return false;
  }
  return true;
}

// Whether `use` is a read of its value by a flow.dispatch before `user` in
// `user`'s block, through a binding its export marks ReadOnly (so it never
// writes the buffer) and without a result tied to it: --kiln-hal-schedule-
// command-buffers orders that read before `user`'s write of the same buffer
// (a write after a read is a hazard it puts a barrier on).
bool IsEarlierRead(mlir::OpOperand& use, Operation* user) {
  auto reader = llvm::dyn_cast<Flow::DispatchOp>(use.getOwner());
  if (!reader || reader == user || reader->getBlock() != user->getBlock() ||
      !reader->isBeforeInBlock(user)) {
    return false;
  }
  // The argument it is (not the workload), and the binding that argument
  // gets: tensor arguments take bindings in order.
  mlir::OperandRange arguments = reader.getArguments();
  const int64_t index = static_cast<int64_t>(use.getOperandNumber()) -
                        static_cast<int64_t>(arguments.getBeginOperandIndex());
  if (index < 0 || index >= static_cast<int64_t>(arguments.size())) return false;
  for (unsigned r = 0; r < reader->getNumResults(); ++r) {
    if (reader.getTiedOperandIndex(r) == static_cast<unsigned>(index)) return false;
  }
  const int64_t binding = llvm::count_if(arguments.take_front(index), [](Value argument) {
    return llvm::isa<mlir::RankedTensorType>(argument.getType());
  });
  HAL::ExecutableExportOp export_op = reader.lookupExport();
  if (!export_op) return false;
  HAL::PipelineLayoutAttr layout = export_op.getLayout();
  return binding < static_cast<int64_t>(layout.getBindings().size()) &&
         layout.getBinding(binding).isReadOnly();
}

// Whether `value`, an operand of `user`, lives in a buffer that nothing but
// `user` reads from now on: a result of a flow.dispatch in `user`'s block
// that `user` uses once and nothing else uses but dispatches that read it
// before `user` (IsEarlierRead) (a fresh allocation, or, for a tied result,
// the buffer of an operand that satisfies the same at that dispatch). A
// tensor.dim of it is no read: bufferization answers it from the dims the
// dispatch declared, which the tied result keeps.
bool DiesAt(Value value, Operation* user) {
  while (true) {
    int uses = 0;
    for (mlir::OpOperand& use : value.getUses()) {
      if (llvm::isa<mlir::tensor::DimOp>(use.getOwner())) continue;
      if (use.getOwner() == user) {
        if (++uses > 1) return false;
        continue;
      }
      if (!IsEarlierRead(use, user)) return false;
    }
    auto producer = value.getDefiningOp<Flow::DispatchOp>();
    if (uses != 1 || !producer || producer->getBlock() != user->getBlock()) return false;
    std::optional<unsigned> tied =
        producer.getTiedOperandIndex(llvm::cast<mlir::OpResult>(value).getResultNumber());
    if (!tied) return true;
    value = producer.getArguments()[*tied];
    user = producer;
  }
}

// A generated kernel as --kiln-form-dispatches made it: its root and the
// subspans of each binding.
struct Kernel {
  mlir::func::FuncOp func;
  mlir::linalg::GenericOp root;
  llvm::DenseMap<int64_t, llvm::SmallVector<HAL::InterfaceBindingSubspanOp, 1>> subspans;
};

std::optional<Kernel> FindKernel(HAL::ExecutableExportOp export_op) {
  auto executable = llvm::dyn_cast<HAL::ExecutableSourceOp>(export_op->getParentOp());
  if (!executable) return std::nullopt;
  Kernel kernel;
  for (auto kernels : executable.getBlock().getOps<mlir::ModuleOp>()) {
    if (auto func = kernels.lookupSymbol<mlir::func::FuncOp>(export_op.getSymName())) {
      kernel.func = func;
    }
  }
  if (!kernel.func || kernel.func.isExternal()) return std::nullopt;
  Operation* root = nullptr;
  int roots = 0;
  kernel.func.walk([&](Operation* op) {
    if (op->hasAttr("kiln.workgroup_tiles")) root = op, ++roots;
  });
  kernel.root = llvm::dyn_cast_if_present<mlir::linalg::GenericOp>(root);
  if (roots != 1 || !kernel.root) return std::nullopt;
  kernel.func.walk([&](HAL::InterfaceBindingSubspanOp subspan) {
    kernel.subspans[subspan.getBinding().getSExtValue()].push_back(subspan);
  });
  return kernel;
}

// The one subspan of `binding` in the kernel, or null (none, or several).
HAL::InterfaceBindingSubspanOp OnlySubspan(const Kernel& kernel, int64_t binding) {
  auto it = kernel.subspans.find(binding);
  if (it == kernel.subspans.end() || it->second.size() != 1) return nullptr;
  return it->second.front();
}

// Whether the binding of a tensor operand is read by the root alone, as one
// input with the identity indexing map.
bool ReadElementwiseByRootAlone(const Kernel& kernel, int64_t binding) {
  HAL::InterfaceBindingSubspanOp subspan = OnlySubspan(kernel, binding);
  if (!subspan || !subspan->hasOneUse()) return false;
  auto read = llvm::dyn_cast<mlir::bufferization::ToTensorOp>(*subspan->getUsers().begin());
  if (!read || !read.getRestrict() || read.getWritable() || !read->hasOneUse()) return false;
  mlir::OpOperand& use = *read->getUses().begin();
  mlir::linalg::GenericOp root = kernel.root;
  return use.getOwner() == root.getOperation() && root.isDpsInput(&use) &&
         root.getMatchingIndexingMap(&use).isIdentity();
}

// How the root writes the binding of result `r`, if it writes it only
// elementwise and never reads it: through the binding's to_tensor as its
// init (what --kiln-form-dispatches makes), or through a tensor.empty init
// materialized into the binding (what it leaves where the empty is also
// another op's init, e.g. a fused contraction's accumulator fill). A tied
// result is written the first way; Run turns the second into it.
enum class Output { kRefused, kBindingInit, kEmptyInit };

Output ElementwiseOutput(const Kernel& kernel, int64_t binding, unsigned r) {
  HAL::InterfaceBindingSubspanOp subspan = OnlySubspan(kernel, binding);
  mlir::linalg::GenericOp root = kernel.root;
  if (!subspan || r >= root->getNumResults()) return Output::kRefused;
  mlir::OpOperand* init = root.getDpsInitOperand(r);
  if (!root.getMatchingIndexingMap(init).isIdentity() || root.payloadUsesValueFromOperand(init)) {
    return Output::kRefused;
  }
  bool initialized = false, materialized = false;
  for (Operation* user : subspan->getUsers()) {
    if (auto write = llvm::dyn_cast<mlir::bufferization::ToTensorOp>(user)) {
      if (initialized || !write.getRestrict() || !write.getWritable() || !write->hasOneUse() ||
          init->get() != write.getResult()) {
        return Output::kRefused;
      }
      initialized = true;
    } else if (auto store = llvm::dyn_cast<mlir::bufferization::MaterializeInDestinationOp>(user)) {
      if (materialized || store.getDest() != subspan.getResult() ||
          store.getSource() != root->getResult(r)) {
        return Output::kRefused;
      }
      materialized = true;
    } else {
      return Output::kRefused;
    }
  }
  if (!materialized) return Output::kRefused;
  if (initialized) return Output::kBindingInit;
  auto memref = llvm::cast<mlir::MemRefType>(subspan.getType());
  const bool empty = init->get().getDefiningOp<mlir::tensor::EmptyOp>() &&
                     init->get().getType() ==
                         mlir::RankedTensorType::get(memref.getShape(), memref.getElementType());
  return empty ? Output::kEmptyInit : Output::kRefused;
}

class DispatchTier {
 public:
  explicit DispatchTier(mlir::ModuleOp module) {
    module.walk([&](Flow::DispatchOp dispatch) { ++dispatches_of_[dispatch.getEntryPoint()]; });
  }

  void Run(Flow::DispatchOp dispatch);

 private:
  // How many flow.dispatch ops name each entry point.
  llvm::DenseMap<mlir::SymbolRefAttr, int> dispatches_of_;
};

void DispatchTier::Run(Flow::DispatchOp dispatch) {
  if (dispatch.getTiedOperands() || dispatches_of_.lookup(dispatch.getEntryPoint()) != 1) return;
  HAL::ExecutableExportOp export_op = dispatch.lookupExport();
  if (!export_op || export_op->hasAttr("kiln.library_call")) return;
  std::optional<Kernel> kernel = FindKernel(export_op);
  if (!kernel) return;
  mlir::linalg::GenericOp root = kernel->root;
  if (!root.hasPureTensorSemantics() || root.getNumLoops() != root.getNumParallelLoops()) return;
  HAL::PipelineLayoutAttr layout = export_op.getLayout();

  // Binding of each tensor operand (by argument index), in order.
  llvm::SmallVector<int64_t> binding_of(dispatch.getArguments().size(), -1);
  int64_t tensors = 0;
  for (auto [index, argument] : llvm::enumerate(dispatch.getArguments())) {
    if (llvm::isa<mlir::RankedTensorType>(argument.getType())) binding_of[index] = tensors++;
  }
  if (static_cast<int64_t>(layout.getBindings().size()) !=
      tensors + static_cast<int64_t>(dispatch->getNumResults())) {
    return;
  }

  llvm::SmallVector<int64_t> tied(dispatch->getNumResults(), -1);
  llvm::SmallVector<Output> outputs(dispatch->getNumResults(), Output::kRefused);
  llvm::DenseSet<unsigned> taken;
  for (unsigned r = 0; r < dispatch->getNumResults(); ++r) {
    const int64_t output = tensors + r;
    outputs[r] = ElementwiseOutput(*kernel, output, r);
    if (outputs[r] == Output::kRefused) continue;
    HAL::InterfaceBindingSubspanOp written = OnlySubspan(*kernel, output);
    for (auto [index, argument] : llvm::enumerate(dispatch.getArguments())) {
      const int64_t input = binding_of[index];
      if (input < 0 || taken.contains(index)) continue;
      if (argument.getType() != dispatch.getResult(r).getType() ||
          !SameIndices(dispatch.getArgumentDynamicDims(index), dispatch.getResultDynamicDims(r))) {
        continue;
      }
      if (!ReadElementwiseByRootAlone(*kernel, input)) continue;
      HAL::InterfaceBindingSubspanOp read = OnlySubspan(*kernel, input);
      if (read.getType() != written.getType() ||
          !SameIndices(read.getDynamicDims(), written.getDynamicDims()) ||
          !read.getByteOffset() != !written.getByteOffset() ||
          (read.getByteOffset() && !SameIndex(read.getByteOffset(), written.getByteOffset()))) {
        continue;
      }
      if (!DiesAt(argument, dispatch)) continue;
      tied[r] = static_cast<int64_t>(index);
      taken.insert(index);
      break;
    }
  }
  if (taken.empty()) return;

  // The new binding of each old one: operands keep theirs, a tied result
  // takes its operand's, the other results close up behind.
  mlir::MLIRContext* context = dispatch->getContext();
  llvm::SmallVector<int64_t> renumbered(layout.getBindings().size());
  llvm::SmallVector<HAL::PipelineBindingAttr> bindings;
  llvm::DenseSet<int64_t> written_operands;
  for (int64_t r = 0; r < static_cast<int64_t>(tied.size()); ++r) {
    if (tied[r] >= 0) written_operands.insert(binding_of[tied[r]]);
  }
  for (int64_t b = 0; b < tensors; ++b) {
    renumbered[b] = b;
    HAL::PipelineBindingAttr binding = layout.getBinding(b);
    if (written_operands.contains(b)) {
      binding = HAL::PipelineBindingAttr::get(
          context, binding.getType(),
          HAL::bitEnumClear(binding.getFlags(), HAL::DescriptorFlags::ReadOnly));
    }
    bindings.push_back(binding);
  }
  for (int64_t r = 0; r < static_cast<int64_t>(tied.size()); ++r) {
    if (tied[r] >= 0) {
      renumbered[tensors + r] = binding_of[tied[r]];
      continue;
    }
    renumbered[tensors + r] = static_cast<int64_t>(bindings.size());
    bindings.push_back(layout.getBinding(tensors + r));
  }
  auto new_layout =
      HAL::PipelineLayoutAttr::get(context, layout.getConstants(), bindings, layout.getFlags());

  mlir::OpBuilder b(context);
  // A tied result written through an empty init: the init becomes the
  // binding's to_tensor, as --kiln-form-dispatches makes it where the empty
  // has one use (the empty has no contents the payload reads).
  for (int64_t r = 0; r < static_cast<int64_t>(tied.size()); ++r) {
    if (tied[r] < 0 || outputs[r] != Output::kEmptyInit) continue;
    HAL::InterfaceBindingSubspanOp subspan = OnlySubspan(*kernel, tensors + r);
    mlir::OpOperand* init = root.getDpsInitOperand(r);
    b.setInsertionPoint(root);
    auto write = mlir::bufferization::ToTensorOp::create(
        b, root.getLoc(), init->get().getType(), subspan.getResult(), /*restrict=*/b.getUnitAttr(),
        /*writable=*/b.getUnitAttr());
    Operation* empty = init->get().getDefiningOp();
    init->set(write.getResult());
    if (empty->use_empty()) empty->erase();
  }
  export_op.setLayoutAttr(new_layout);
  kernel->func.walk([&](Operation* op) {
    if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
      const int64_t old = subspan.getBinding().getSExtValue();
      subspan.setBindingAttr(b.getIndexAttr(renumbered[old]));
      std::optional<HAL::DescriptorFlags> flags = subspan.getDescriptorFlags();
      if (written_operands.contains(old) && flags) {
        const HAL::DescriptorFlags kept = HAL::bitEnumClear(*flags, HAL::DescriptorFlags::ReadOnly);
        if (kept == HAL::DescriptorFlags::None) {
          subspan.removeDescriptorFlagsAttr();
        } else {
          subspan.setDescriptorFlagsAttr(HAL::DescriptorFlagsAttr::get(context, kept));
        }
      }
      subspan.setLayoutAttr(new_layout);
    } else if (auto load = llvm::dyn_cast<HAL::InterfaceConstantLoadOp>(op)) {
      load.setLayoutAttr(new_layout);
    }
  });
  dispatch.setTiedOperandsAttr(b.getDenseI64ArrayAttr(tied));
}

struct TieDispatchResultsPass
    : mlir::PassWrapper<TieDispatchResultsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TieDispatchResultsPass)
  llvm::StringRef getArgument() const override { return "kiln-tie-dispatch-results"; }
  llvm::StringRef getDescription() const override {
    return "Ties the result of an elementwise generated dispatch to an operand that dies there "
           "(`-> %operand`), the kernel writing it over that operand's binding";
  }
  void runOnOperation() override {
    DispatchTier tier(getOperation());
    llvm::SmallVector<Flow::DispatchOp> dispatches;
    getOperation().walk([&](Flow::DispatchOp dispatch) { dispatches.push_back(dispatch); });
    for (Flow::DispatchOp dispatch : dispatches) tier.Run(dispatch);
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createTieDispatchResultsPass() {
  return std::make_unique<TieDispatchResultsPass>();
}

}  // namespace kiln::compiler
