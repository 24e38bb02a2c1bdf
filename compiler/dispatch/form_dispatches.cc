// FormDispatches (--kiln-form-dispatches): every linalg op on tensors left in
// a host function (after elementwise fusion, see pipeline.cc) becomes a
// dispatch of a generated executable:
//
//   %e = tensor.empty(%n) : tensor<?xf32>
//   %r = linalg.generic {...} ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
//                             outs(%e : tensor<?xf32>) {...} -> tensor<?xf32>
// ->
//   hal.executable.source private @f_dispatch_0 {
//     hal.executable.export public @f_dispatch_0 ordinal(0) layout(#layout)
//     builtin.module {
//       func.func @f_dispatch_0() {
//         %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
//         %a = hal.interface.binding.subspan ... binding(0) ... : memref<?xf32>{%n}
//         ...
//         %out = hal.interface.binding.subspan ... binding(2) ... : memref<?xf32>{%n}
//         %init = bufferization.to_tensor %out restrict writable : ...
//         %r = linalg.generic {..., kiln.workgroup_tiles = array<i64: 1024>} ... outs(%init)
//         bufferization.materialize_in_destination %r in restrict writable %out
//         return
//       }
//     }
//   }
//   %count = (%n + 1023) / 1024 (arith.addi, arith.divui)
//   %r = flow.dispatch @f_dispatch_0::@f_dispatch_0[%count, %c1, %c1](%n, %a, %b)
//       : (index, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
//
// What a dispatch takes: the tensors its ops read from outside become
// read-only bindings (their dynamic dims travel as constants), scalars from
// outside become 32-bit constants, and constants (scalar or tensor) and the
// producers that only shape the result (tensor.empty, linalg.fill) are cloned
// into it. Each result of the root gets a binding after the inputs; an init
// made by tensor.empty (or filled from one) is replaced by that binding, so
// that the kernel writes in place.
//
// With library calls, the transposes around a contraction that a library
// takes are first folded into it (library_permutations.h): the library
// reads and writes its operands as strided views of the bindings
// (strided_matmul.h), and the transposes form no dispatches.
//
// The workgroup tiles are chosen here, once for every target: the parallel
// loops of the root are cut into tiles of about kElementsPerWorkgroup
// elements of work, and the host computes the workgroup count from the loop
// ranges (the innermost tiled loop is x, the next y, the rest z). How one
// tile runs (one CPU call, one GPU block) is each target's business;
// --kiln-distribute-to-workgroups then tiles the kernel to match.
#include <optional>
#include <string>

#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dispatch/dispatch_groups.h"
#include "compiler/dispatch/library_permutations.h"
#include "compiler/dispatch/passes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::compiler {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;

// About how many elements of work one workgroup gets: enough to amortize a
// CPU call, or 8 elements for each thread of a GPU workgroup.
constexpr int64_t kElementsPerWorkgroup = 1024;

// The threads of a GPU workgroup (the export's workgroup_size, and the
// kernel's `kiln.workgroup_size` for the GPU targets): Vulkan guarantees 128
// invocations per workgroup on every device. The CPU runs a workgroup as one
// call and ignores it.
constexpr int64_t kThreadsPerWorkgroup = 128;

// Producers cloned into the dispatch that reads them instead of being passed
// in: they only make or fill the buffer the dispatch writes, or are constants.
// The tensor ops that only reshape, slice, pad or assemble tensors: they
// join the dispatch of the linalg op that reads them (inside a kernel they
// are views of its bindings, or fuse into its tiles) instead of running on
// the host, which has no kernels of its own. (tensor.cast stays on the host:
// it only retypes a buffer, see --kiln-hal-bufferize-dispatches.)
bool ShapesTensors(Operation* op) {
  return llvm::isa<mlir::tensor::ExtractSliceOp, mlir::tensor::InsertSliceOp,
                   mlir::tensor::ExpandShapeOp, mlir::tensor::CollapseShapeOp,
                   mlir::tensor::ReshapeOp, mlir::tensor::PadOp, mlir::tensor::ConcatOp,
                   mlir::tensor::SplatOp, mlir::tensor::FromElementsOp>(op);
}

// A tensor constant of distinct elements: it stays on the host, which
// uploads it from the module's data into a buffer that the dispatches
// reading it bind (inside a kernel it would need a global of its own, which
// not every target has: SPIR-V kernels cannot hold initialized arrays in
// device memory). Splat constants are one value: kernels compute them.
bool IsHostConstant(Operation* op) {
  auto constant = llvm::dyn_cast<mlir::arith::ConstantOp>(op);
  if (!constant || !llvm::isa<RankedTensorType>(constant.getType())) return false;
  auto elements = llvm::dyn_cast<mlir::DenseElementsAttr>(constant.getValue());
  return !elements || !elements.isSplat();
}

bool IsClonedIntoDispatch(Operation* op, const DispatchGroups& groups) {
  if (IsHostConstant(op)) return false;
  if (llvm::isa<mlir::tensor::EmptyOp, mlir::arith::ConstantOp>(op)) return true;
  if (ShapesTensors(op)) return true;
  if (auto fill = llvm::dyn_cast<mlir::linalg::FillOp>(op)) {
    return fill.hasPureTensorSemantics();
  }
  return groups.JoinsConsumers(op);
}

// A linalg.fill that only initializes the outputs of other linalg ops is
// cloned into them; one whose result is used otherwise is a dispatch itself.
// An op that joins its consumers (DispatchGroups) is part of their dispatch.
bool IsRoot(mlir::linalg::LinalgOp op, const DispatchGroups& groups) {
  if (!op.hasPureTensorSemantics() || groups.JoinsConsumers(op)) return false;
  if (!llvm::isa<mlir::linalg::FillOp>(op.getOperation())) return true;
  // Its uses, through the reshapes fusion puts between a fill and the
  // reduction it initializes (a reduction's init reshaped as its result is).
  llvm::SmallVector<Value> values = {op->getResult(0)};
  for (size_t i = 0; i < values.size(); ++i) {
    for (mlir::OpOperand& use : values[i].getUses()) {
      Operation* user = use.getOwner();
      if (llvm::isa<mlir::tensor::ExpandShapeOp, mlir::tensor::CollapseShapeOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      auto consumer = llvm::dyn_cast<mlir::linalg::LinalgOp>(user);
      if (!consumer || !consumer.isDpsInit(&use)) return true;
    }
  }
  return false;
}

// The tile size of each loop of `root` (0: not tiled, a workgroup takes the
// whole loop): the reduction loops and those `kept_whole` are not tiled. A
// tile covers about kElementsPerWorkgroup elements of what it computes: of
// the root's loops taken whole, and of each op joined into its dispatch,
// which computes up to `untiled_elements` per element of the tiled loops (a
// GPU workgroup keeps them in workgroup memory) and reduces up to
// `joined_reduction` elements into each of its own (a matmul that its
// epilogue's dispatch computes: a matrix-vector product of K = 1024 then
// gets a workgroup per output element, whose threads share the dot
// product, rather than one workgroup for every output).
llvm::SmallVector<int64_t> ChooseWorkgroupTiles(mlir::linalg::LinalgOp root,
                                                llvm::ArrayRef<bool> kept_whole,
                                                int64_t untiled_elements,
                                                int64_t joined_reduction) {
  llvm::SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  llvm::SmallVector<mlir::utils::IteratorType> iterators = root.getIteratorTypesArray();
  int64_t reduction_work =
      std::min(std::max(untiled_elements, joined_reduction), kElementsPerWorkgroup);
  int64_t root_work = 1;
  for (auto [range, iterator, whole] : llvm::zip(ranges, iterators, kept_whole)) {
    if (iterator != mlir::utils::IteratorType::reduction && !whole) continue;
    root_work *= mlir::ShapedType::isDynamic(range) ? kElementsPerWorkgroup : range;
    root_work = std::min(root_work, kElementsPerWorkgroup);
  }
  reduction_work = std::max(reduction_work, root_work);
  int64_t budget = std::max<int64_t>(1, kElementsPerWorkgroup / reduction_work);
  llvm::SmallVector<int64_t> tiles(ranges.size(), 0);
  for (int64_t l = static_cast<int64_t>(ranges.size()) - 1; l >= 0; --l) {
    if (iterators[l] != mlir::utils::IteratorType::parallel || kept_whole[l]) continue;
    int64_t extent = mlir::ShapedType::isDynamic(ranges[l]) ? INT64_MAX : ranges[l];
    int64_t tile = std::max<int64_t>(1, std::min(extent, budget));
    budget = std::max<int64_t>(1, budget / tile);
    // A tile that covers a static loop whole is no tile: the loop stays in
    // the workgroup (a one-trip workgroup loop would be folded away in the
    // kernel, and the host and the kernel must count the same loops).
    tiles[l] = tile >= extent ? 0 : tile;
  }
  return tiles;
}

// Whether `a` and `b` are the same host value: the same SSA value, equal
// constants, or the same pure op of the same values (the tensor.dim ops that
// the dims of inputs and results are computed with, made one per use).
bool SameHostValue(Value a, Value b, int depth = 0) {
  if (a == b) return true;
  if (a.getType() != b.getType() || depth > 4) return false;
  llvm::APInt ca, cb;
  if (mlir::matchPattern(a, mlir::m_ConstantInt(&ca)) &&
      mlir::matchPattern(b, mlir::m_ConstantInt(&cb))) {
    return ca == cb;
  }
  Operation* da = a.getDefiningOp();
  Operation* db = b.getDefiningOp();
  if (!da || !db || da->getName() != db->getName() || da->getNumRegions() != 0 ||
      !mlir::isPure(da) || da->getAttrDictionary() != db->getAttrDictionary() ||
      da->getNumOperands() != db->getNumOperands() ||
      llvm::cast<mlir::OpResult>(a).getResultNumber() !=
          llvm::cast<mlir::OpResult>(b).getResultNumber()) {
    return false;
  }
  for (auto [x, y] : llvm::zip(da->getOperands(), db->getOperands())) {
    if (!SameHostValue(x, y, depth + 1)) return false;
  }
  return true;
}

class DispatchFormer {
 public:
  DispatchFormer(mlir::ModuleOp module, mlir::func::FuncOp func, bool library_calls)
      : module_(module), func_(func), symbols_(module), library_calls_(library_calls) {}

  // Outlines every root of the function; `formed` says whether there was any.
  mlir::LogicalResult Run(bool& formed) {
    // Transposes a library reads through its strided operands fold into
    // their contraction (library_permutations.h): they form no dispatch.
    if (library_calls_) FoldPermutationsIntoLibraryContractions(func_);
    MaterializeHostConstants();
    groups_.emplace(func_, library_calls_);
    llvm::SmallVector<mlir::linalg::LinalgOp> roots;
    func_.walk([&](mlir::linalg::LinalgOp op) {
      if (IsRoot(op, *groups_)) roots.push_back(op);
      return mlir::WalkResult::skip();
    });
    formed = !roots.empty();
    for (mlir::linalg::LinalgOp root : roots) {
      if (mlir::failed(Outline(root))) return mlir::failure();
    }
    return mlir::success();
  }

 private:
  mlir::LogicalResult Outline(mlir::linalg::LinalgOp root);
  void MaterializeHostConstants();

  mlir::ModuleOp module_;
  mlir::func::FuncOp func_;
  mlir::SymbolTable symbols_;
  // Made once the host constants are materialized, before any dispatch is
  // outlined (the ops it names are those of the function as it was then).
  std::optional<DispatchGroups> groups_;
  bool library_calls_;
  int next_ordinal_ = 0;
};

// A tensor constant, or the result of a tensor-shaping op (a slice, a
// reshape, a pad, ...), that the host itself needs (returned, passed to a
// call or to a hand-written dispatch) is written into a buffer by a
// generated kernel: a linalg.copy of it, into which the op is cloned like any
// other producer. Where only linalg ops read them they stay: they are cloned
// into those ops' dispatches.
void DispatchFormer::MaterializeHostConstants() {
  // Tensor constants and the tensor-shaping ops (ShapesTensors): their
  // results are only ever computed inside dispatches.
  llvm::SmallVector<Operation*> made_in_dispatches;
  func_.walk([&](Operation* op) {
    bool constant = llvm::isa<mlir::arith::ConstantOp>(op) && !IsHostConstant(op) &&
                    llvm::isa<RankedTensorType>(op->getResult(0).getType());
    if (constant || (ShapesTensors(op) && op->getNumResults() == 1 &&
                     llvm::isa<RankedTensorType>(op->getResult(0).getType()))) {
      made_in_dispatches.push_back(op);
    }
  });
  for (Operation* op : made_in_dispatches) {
    Value value = op->getResult(0);
    auto type = llvm::cast<RankedTensorType>(value.getType());
    llvm::SmallVector<mlir::OpOperand*> host_uses;
    for (mlir::OpOperand& use : value.getUses()) {
      Operation* user = use.getOwner();
      if (!llvm::isa<mlir::linalg::LinalgOp>(user) && !ShapesTensors(user)) {
        host_uses.push_back(&use);
      }
    }
    if (host_uses.empty()) continue;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    // The copy's size from what the op was made of (a tensor.dim of its
    // result would be one more host use of it).
    llvm::SmallVector<mlir::OpFoldResult> sizes;
    mlir::ReifiedRankedShapedTypeDims reified;
    if (type.hasStaticShape()) {
      for (int64_t d : type.getShape()) sizes.push_back(b.getIndexAttr(d));
    } else if (mlir::succeeded(mlir::reifyResultShapes(b, op, reified))) {
      sizes = reified[0];
    } else {
      continue;  // Left to bufferization, which names the op it cannot place.
    }
    Value empty = mlir::tensor::EmptyOp::create(b, op->getLoc(), sizes, type.getElementType());
    if (empty.getType() != type) empty = mlir::tensor::CastOp::create(b, op->getLoc(), type, empty);
    Value copy = mlir::linalg::CopyOp::create(b, op->getLoc(), value, empty).getResult(0);
    for (mlir::OpOperand* use : host_uses) use->set(copy);
  }
}

mlir::LogicalResult DispatchFormer::Outline(mlir::linalg::LinalgOp root) {
  const Location loc = root.getLoc();
  mlir::MLIRContext* context = root->getContext();

  // The ops of the dispatch: the root and the producers cloned with it, in
  // program order.
  llvm::SetVector<Operation*> cloned;
  llvm::SmallVector<Operation*> worklist = {root};
  while (!worklist.empty()) {
    Operation* op = worklist.pop_back_val();
    llvm::SetVector<Value> used;
    for (Value v : op->getOperands()) used.insert(v);
    mlir::getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value v : used) {
      Operation* producer = v.getDefiningOp();
      if (producer && IsClonedIntoDispatch(producer, *groups_) && !cloned.contains(producer)) {
        cloned.insert(producer);
        worklist.push_back(producer);
      }
    }
  }
  llvm::SmallVector<Operation*> ops(cloned.begin(), cloned.end());
  ops.push_back(root);
  llvm::sort(ops, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });
  llvm::DenseSet<Operation*> inside(ops.begin(), ops.end());

  // What the dispatch takes from outside: tensors (bindings) and scalars
  // (32-bit constants), in order of first use.
  llvm::SetVector<Value> tensors, scalars;
  for (Operation* op : ops) {
    llvm::SetVector<Value> used;
    for (Value v : op->getOperands()) used.insert(v);
    mlir::getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value v : used) {
      if (v.getDefiningOp() && inside.contains(v.getDefiningOp())) continue;
      if (llvm::isa<mlir::TensorType>(v.getType())) {
        if (!llvm::isa<RankedTensorType>(v.getType())) {
          return mlir::emitError(loc)
                 << "unranked tensor operand of type " << v.getType() << " is not supported";
        }
        tensors.insert(v);
      } else {
        scalars.insert(v);
      }
    }
  }

  // The host side: dims of the inputs and of the results, workgroup counts.
  OpBuilder host(root);
  llvm::MapVector<Value, unsigned> constant_ordinals;  // host value -> ordinal
  // The host value to pass for `v`: an equal one already passed, else `v`.
  auto constant_of = [&](Value v) {
    for (auto& [passed, ordinal] : constant_ordinals) {
      if (SameHostValue(passed, v)) return passed;
    }
    constant_ordinals.try_emplace(v, constant_ordinals.size());
    return v;
  };
  llvm::DenseMap<Value, Value> scalar_passed_as;
  for (Value v : scalars) scalar_passed_as[v] = constant_of(v);
  llvm::SmallVector<llvm::SmallVector<Value>> tensor_dims;
  llvm::SmallVector<Value> argument_dims;
  for (Value t : tensors) {
    auto type = llvm::cast<RankedTensorType>(t.getType());
    llvm::SmallVector<Value>& dims = tensor_dims.emplace_back();
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i)) continue;
      Value dim = constant_of(mlir::tensor::DimOp::create(host, loc, t, i));
      dims.push_back(dim);
      argument_dims.push_back(dim);
    }
  }
  mlir::ReifiedRankedShapedTypeDims reified;
  if (mlir::failed(mlir::reifyResultShapes(host, root, reified))) {
    return root->emitOpError() << "has result shapes kiln cannot compute on the host";
  }
  llvm::SmallVector<llvm::SmallVector<Value>> result_dims;
  llvm::SmallVector<Value> all_result_dims;
  for (auto [result, shape] : llvm::zip(root->getResults(), reified)) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    llvm::SmallVector<Value>& dims = result_dims.emplace_back();
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i)) continue;
      Value dim = constant_of(mlir::getValueOrCreateConstantIndexOp(host, loc, shape[i]));
      dims.push_back(dim);
      all_result_dims.push_back(dim);
    }
  }
  for (auto [v, ordinal] : constant_ordinals) {
    Type t = v.getType();
    if (!t.isIndex() && !t.isF32() && !(t.isInteger() && t.getIntOrFloatBitWidth() <= 32)) {
      return mlir::emitError(loc) << "reads a scalar of type " << t
                                  << " from outside its dispatch, which takes index, f32 and "
                                     "integers of up to 32 bits";
    }
  }

  llvm::SmallVector<int64_t> tiles = ChooseWorkgroupTiles(
      root, groups_->LoopsKeptWhole(root), groups_->UntiledElementsPerTileElement(root),
      groups_->JoinedReductionLength(root));
  llvm::SmallVector<mlir::Range> ranges = root.createLoopRanges(host, loc);
  llvm::SmallVector<Value> counts;  // Of the tiled loops, outer to inner.
  for (auto [range, tile] : llvm::zip(ranges, tiles)) {
    if (tile == 0) continue;
    // (size + tile - 1) / tile: what the VM runs in two instructions.
    Value size = mlir::getValueOrCreateConstantIndexOp(host, loc, range.size);
    Value rounded = mlir::arith::AddIOp::create(
        host, loc, size, mlir::arith::ConstantIndexOp::create(host, loc, tile - 1));
    Value step = mlir::arith::ConstantIndexOp::create(host, loc, tile);
    counts.push_back(mlir::arith::DivUIOp::create(host, loc, rounded, step));
  }
  Value one = mlir::arith::ConstantIndexOp::create(host, loc, 1);
  llvm::SmallVector<Value> workload = {one, one, one};
  for (size_t i = 0; i < counts.size(); ++i) {
    Value count = counts[counts.size() - 1 - i];
    if (i < 2) {
      workload[i] = count;
    } else {
      workload[2] =
          i == 2 ? count : Value(mlir::arith::MulIOp::create(host, loc, workload[2], count));
    }
  }

  // The executable: layout, export and the kernel.
  const std::string name = (func_.getSymName() + "_dispatch_" + llvm::Twine(next_ordinal_++)).str();
  llvm::SmallVector<HAL::PipelineBindingAttr> bindings;
  for (size_t i = 0; i < tensors.size(); ++i) {
    bindings.push_back(HAL::PipelineBindingAttr::get(context, HAL::DescriptorType::StorageBuffer,
                                                     HAL::DescriptorFlags::ReadOnly));
  }
  for (size_t i = 0; i < root->getNumResults(); ++i) {
    bindings.push_back(HAL::PipelineBindingAttr::get(context, HAL::DescriptorType::StorageBuffer,
                                                     HAL::DescriptorFlags::None));
  }
  auto layout = HAL::PipelineLayoutAttr::get(context, constant_ordinals.size(), bindings,
                                             HAL::PipelineLayoutFlags::None);

  OpBuilder top(func_);
  auto executable = HAL::ExecutableSourceOp::create(top, loc, top.getStringAttr("private"),
                                                    top.getStringAttr(name), nullptr);
  symbols_.insert(executable);
  const std::string unique_name = executable.getSymName().str();
  mlir::Block* executable_body = new mlir::Block();
  executable.getBody().push_back(executable_body);
  OpBuilder in_executable = OpBuilder::atBlockEnd(executable_body);
  const llvm::SmallVector<int64_t, 3> workgroup_size = {kThreadsPerWorkgroup, 1, 1};
  llvm::SmallVector<mlir::Attribute, 3> workgroup_size_attrs;
  for (int64_t size : workgroup_size) {
    workgroup_size_attrs.push_back(in_executable.getIndexAttr(size));
  }
  HAL::ExecutableExportOp::create(
      in_executable, loc, in_executable.getStringAttr("public"),
      in_executable.getStringAttr(unique_name), in_executable.getIndexAttr(0), layout,
      in_executable.getArrayAttr(workgroup_size_attrs), nullptr, nullptr);
  auto kernels = mlir::ModuleOp::create(in_executable, loc);
  OpBuilder in_kernels = OpBuilder::atBlockEnd(kernels.getBody());
  auto kernel =
      mlir::func::FuncOp::create(in_kernels, loc, unique_name, in_kernels.getFunctionType({}, {}));
  kernel->setAttr("kiln.workgroup_size", in_kernels.getDenseI64ArrayAttr(workgroup_size));
  OpBuilder b = OpBuilder::atBlockBegin(kernel.addEntryBlock());

  mlir::IRMapping mapping;
  for (auto [v, ordinal] : constant_ordinals) {
    Type t = v.getType();
    Type load_type = t.isIndex() || t.isF32() ? t : b.getI32Type();
    Value loaded = HAL::InterfaceConstantLoadOp::create(b, loc, load_type, layout,
                                                        b.getIndexAttr(ordinal), nullptr);
    if (t.isInteger() && t.getIntOrFloatBitWidth() < 32) {
      loaded = mlir::arith::TruncIOp::create(b, loc, t, loaded);
    }
    mapping.map(v, loaded);
  }
  for (auto [v, passed] : scalar_passed_as) mapping.map(v, mapping.lookup(passed));
  Value zero = mlir::arith::ConstantIndexOp::create(b, loc, 0);
  auto subspan = [&](unsigned binding, RankedTensorType type, llvm::ArrayRef<Value> host_dims,
                     bool read_only) {
    llvm::SmallVector<Value> dims;
    for (Value d : host_dims) dims.push_back(mapping.lookup(d));
    auto memref_type = mlir::MemRefType::get(type.getShape(), type.getElementType());
    return HAL::InterfaceBindingSubspanOp::create(
        b, loc, memref_type, layout, b.getIndexAttr(binding), zero, dims, b.getIndexAttr(64),
        read_only ? HAL::DescriptorFlagsAttr::get(context, HAL::DescriptorFlags::ReadOnly)
                  : nullptr);
  };
  for (auto [i, t] : llvm::enumerate(tensors)) {
    auto type = llvm::cast<RankedTensorType>(t.getType());
    Value memref = subspan(i, type, tensor_dims[i], /*read_only=*/true);
    mapping.map(
        t, mlir::bufferization::ToTensorOp::create(b, loc, type, memref, b.getUnitAttr(), nullptr));
  }
  llvm::SmallVector<Value> outputs, output_tensors;
  for (auto [r, result] : llvm::enumerate(root->getResults())) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    Value memref = subspan(tensors.size() + r, type, result_dims[r], /*read_only=*/false);
    outputs.push_back(memref);
    output_tensors.push_back(mlir::bufferization::ToTensorOp::create(
        b, loc, type, memref, b.getUnitAttr(), b.getUnitAttr()));
  }
  Operation* kernel_root = nullptr;
  for (Operation* op : ops) {
    Operation* copy = b.clone(*op, mapping);
    if (op == root.getOperation()) kernel_root = copy;
  }
  // Inits made for the result write into the result's binding directly.
  auto kernel_linalg = llvm::cast<mlir::linalg::LinalgOp>(kernel_root);
  for (auto [r, init] : llvm::enumerate(kernel_linalg.getDpsInitsMutable())) {
    Operation* producer = init.get().getDefiningOp();
    if (!producer || !init.get().hasOneUse()) continue;
    if (llvm::isa<mlir::tensor::EmptyOp>(producer) &&
        init.get().getType() == output_tensors[r].getType()) {
      init.set(output_tensors[r]);
    } else if (auto fill = llvm::dyn_cast<mlir::linalg::FillOp>(producer)) {
      mlir::OpOperand& fill_init = fill.getDpsInitsMutable()[0];
      if (fill_init.get().getDefiningOp<mlir::tensor::EmptyOp>() && fill_init.get().hasOneUse() &&
          fill_init.get().getType() == output_tensors[r].getType()) {
        fill_init.set(output_tensors[r]);
      }
    }
  }
  kernel_root->setAttr("kiln.workgroup_tiles", b.getDenseI64ArrayAttr(tiles));
  kernel->setAttr("kiln.workgroup_loops", b.getIndexAttr(counts.size()));
  for (auto [r, result] : llvm::enumerate(kernel_root->getResults())) {
    Value value = result;
    if (value.getType() != output_tensors[r].getType()) {
      value = mlir::tensor::CastOp::create(b, loc, output_tensors[r].getType(), value);
    }
    mlir::bufferization::MaterializeInDestinationOp::create(b, loc, /*result=*/Type(), value,
                                                            outputs[r], /*restrict=*/true,
                                                            /*writable=*/true);
  }
  mlir::func::ReturnOp::create(b, loc);
  // Host values that nothing in the kernel reads any more (an init's dims).
  for (Operation& op : llvm::make_early_inc_range(llvm::reverse(kernel.getBody().front()))) {
    if (mlir::isOpTriviallyDead(&op)) op.erase();
  }

  // The dispatch.
  llvm::SmallVector<Value> arguments;
  for (auto [v, ordinal] : constant_ordinals) arguments.push_back(v);
  arguments.append(tensors.begin(), tensors.end());
  auto entry = mlir::SymbolRefAttr::get(context, unique_name,
                                        {mlir::FlatSymbolRefAttr::get(context, unique_name)});
  auto dispatch = Flow::DispatchOp::create(host, loc, root->getResultTypes(), workload, entry,
                                           arguments, argument_dims, all_result_dims,
                                           /*tied_operands=*/nullptr);
  root->replaceAllUsesWith(dispatch.getResults());
  root->erase();
  for (Operation* op : llvm::reverse(ops)) {
    if (op != root.getOperation() && mlir::isOpTriviallyDead(op)) op->erase();
  }
  return mlir::success();
}

struct FormDispatchesPass
    : mlir::PassWrapper<FormDispatchesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FormDispatchesPass)
  FormDispatchesPass() = default;
  FormDispatchesPass(const FormDispatchesPass& other) : PassWrapper(other) {}
  explicit FormDispatchesPass(bool library_calls) { library_calls_ = library_calls; }
  llvm::StringRef getArgument() const override { return "kiln-form-dispatches"; }
  llvm::StringRef getDescription() const override {
    return "Each linalg op on tensors in a host function (with the producers that only make "
           "its outputs) into a generated executable and a flow.dispatch of it";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<HAL::HALDialect, Flow::FlowDialect, mlir::bufferization::BufferizationDialect,
                    mlir::memref::MemRefDialect, mlir::tensor::TensorDialect,
                    mlir::arith::ArithDialect>();
  }
  void runOnOperation() override {
    // The host code a function's dispatches leave (dims computed twice, the
    // producers they cloned) is folded in that function alone.
    // (The dims a dispatch's host side took of ops now cloned into it become
    // dims of what those ops were made of, so that the ops go.)
    mlir::OpPassManager cleanup(mlir::func::FuncOp::getOperationName());
    cleanup.addPass(mlir::memref::createResolveRankedShapeTypeResultDimsPass());
    cleanup.addPass(mlir::createCanonicalizerPass());
    cleanup.addPass(mlir::createCSEPass());
    llvm::SmallVector<mlir::func::FuncOp> functions(getOperation().getOps<mlir::func::FuncOp>());
    for (mlir::func::FuncOp func : functions) {
      if (func.isExternal()) continue;
      bool formed = false;
      if (mlir::failed(DispatchFormer(getOperation(), func, library_calls_).Run(formed))) {
        return signalPassFailure();
      }
      if (formed && mlir::failed(runPipeline(cleanup, func))) return signalPassFailure();
    }
  }

 private:
  Option<bool> library_calls_{
      *this, "library-calls",
      llvm::cl::desc("Keep a contraction that a library would take apart from a consumer the "
                     "library cannot compute (library_calls.h), and fold the transposes of its "
                     "operands and result into it (library_permutations.h)"),
      llvm::cl::init(false)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createFormDispatchesPass(bool library_calls) {
  return std::make_unique<FormDispatchesPass>(library_calls);
}

}  // namespace kiln::compiler
