#include "compiler/dispatch/library_calls.h"

#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace kiln::compiler {
namespace {

using mlir::AffineMap;
using mlir::Operation;
using mlir::Value;

// The library's name of an element type, or "" for one it does not take.
std::string ElementTypeName(mlir::Type type) {
  if (type.isF32()) return "f32";
  if (type.isF16()) return "f16";
  if (type.isBF16()) return "bf16";
  return "";
}

// A matmul's loops as a library sees them: C[b, m, n] += A[b, m, k] B[b, k, n]
// with A stored [b, k, m] where transpose_a (B [b, n, k] where transpose_b),
// and an operand without the batch loop read for every batch.
struct MatmulLoops {
  std::optional<unsigned> batch;
  unsigned m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
  bool a_batched = false, b_batched = false;
};

// The loop each result dimension of `map` reads (all plain dims), or empty.
llvm::SmallVector<unsigned> DimsOf(AffineMap map) {
  llvm::SmallVector<unsigned> dims;
  for (mlir::AffineExpr expr : map.getResults()) {
    auto dim = llvm::dyn_cast<mlir::AffineDimExpr>(expr);
    if (!dim) return {};
    dims.push_back(dim.getPosition());
  }
  return dims;
}

// Whether `dims` is [batch?] followed by (first, second) or (second, first);
// `swapped` says which, `batched` whether the batch loop leads.
bool ReadsPair(llvm::ArrayRef<unsigned> dims, std::optional<unsigned> batch, unsigned first,
               unsigned second, bool& swapped, bool& batched) {
  batched = batch && !dims.empty() && dims.front() == *batch;
  if (batched) dims = dims.drop_front();
  if (dims.size() != 2) return false;
  swapped = dims[0] == second && dims[1] == first;
  return swapped || (dims[0] == first && dims[1] == second);
}

std::optional<MatmulLoops> MatmulLoopsOf(mlir::linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !mlir::linalg::isaContractionOpInterface(op)) {
    return std::nullopt;
  }
  mlir::FailureOr<mlir::linalg::ContractionDimensions> dims =
      mlir::linalg::inferContractionDims(op);
  if (mlir::failed(dims)) return std::nullopt;
  // A batch loop that one operand does not read (one matrix for every
  // batch) is an m (or n) loop to inferContractionDims: the leading one,
  // when the result leads with it too, is the batch.
  if (dims->batch.empty() && (dims->m.size() == 2 || dims->n.size() == 2)) {
    auto& outer = dims->m.size() == 2 ? dims->m : dims->n;
    llvm::SmallVector<unsigned> result_dims = DimsOf(op.getIndexingMapsArray()[2]);
    if (!result_dims.empty() && result_dims.front() == outer[0]) {
      dims->batch.push_back(outer[0]);
      outer.erase(outer.begin());
    }
  }
  if (dims->batch.size() > 1 || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1) {
    return std::nullopt;
  }
  MatmulLoops loops;
  if (!dims->batch.empty()) loops.batch = dims->batch[0];
  loops.m = dims->m[0];
  loops.n = dims->n[0];
  loops.k = dims->k[0];
  llvm::SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  llvm::SmallVector<unsigned> out = DimsOf(maps[2]);
  llvm::SmallVector<unsigned> expected;
  if (loops.batch) expected.push_back(*loops.batch);
  expected.append({loops.m, loops.n});
  if (out != expected) return std::nullopt;
  if (!ReadsPair(DimsOf(maps[0]), loops.batch, loops.m, loops.k, loops.transpose_a,
                 loops.a_batched) ||
      !ReadsPair(DimsOf(maps[1]), loops.batch, loops.k, loops.n, loops.transpose_b,
                 loops.b_batched)) {
    return std::nullopt;
  }
  // A batch loop that neither operand reads is no matmul batch.
  if (loops.batch && !loops.a_batched && !loops.b_batched) return std::nullopt;
  return loops;
}

bool IsZero(Value value) { return mlir::matchPattern(value, mlir::m_AnyZeroFloat()); }

// Whether the op's init is a fill of zero (what the library's beta = 0
// computes from).
bool InitIsZeroFill(mlir::linalg::LinalgOp op) {
  auto fill = op.getDpsInits()[0].getDefiningOp<mlir::linalg::FillOp>();
  return fill && IsZero(fill.getInputs()[0]);
}

// The result dimension that a library broadcasts its bias along every
// other dimension of: the output channel (n of a matmul, k of an NCHW
// convolution).
unsigned ChannelDimension(mlir::linalg::LinalgOp contraction) {
  if (llvm::isa<mlir::linalg::Conv2DNchwFchwOp>(contraction.getOperation())) return 1;
  auto type = llvm::cast<mlir::RankedTensorType>(contraction->getResult(0).getType());
  return static_cast<unsigned>(type.getRank() - 1);
}

// What an epilogue adds to the contraction's result, and the activation.
struct Epilogue {
  mlir::OpOperand* bias = nullptr;
  mlir::OpOperand* addend = nullptr;
  std::string activation = "none";
};

// Collects the leaves of the addf tree at `value` (inside `block`).
void AddLeaves(Value value, mlir::Block* block, llvm::SmallVector<Value>& leaves,
               int64_t& ops_used) {
  auto add = value.getDefiningOp<mlir::arith::AddFOp>();
  if (add && add->getBlock() == block) {
    ++ops_used;
    AddLeaves(add.getLhs(), block, leaves, ops_used);
    AddLeaves(add.getRhs(), block, leaves, ops_used);
    return;
  }
  leaves.push_back(value);
}

std::optional<Epilogue> AnalyzeEpilogue(mlir::linalg::LinalgOp consumer, mlir::OpOperand& use,
                                        unsigned channel) {
  if (!consumer.hasPureTensorSemantics() || consumer.isDpsInit(&use) ||
      consumer.getNumDpsInits() != 1 || consumer->getNumResults() != 1 ||
      consumer.getNumReductionLoops() != 0 || consumer->getNumRegions() != 1 ||
      consumer.getNumDpsInputs() > 3) {
    return std::nullopt;
  }
  const unsigned rank = consumer.getNumLoops();
  if (!consumer.getMatchingIndexingMap(&use).isIdentity() ||
      !consumer.getIndexingMapMatchingResult(consumer->getResult(0)).isIdentity() ||
      mlir::getElementTypeOrSelf(consumer->getResult(0).getType()) !=
          mlir::getElementTypeOrSelf(use.get().getType())) {
    return std::nullopt;
  }
  mlir::Block& body = consumer->getRegion(0).front();
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body.getTerminator());
  if (!yield || yield->getNumOperands() != 1) return std::nullopt;
  Epilogue epilogue;
  int64_t ops_used = 0;
  Value sum = yield->getOperand(0);
  Operation* max = sum.getDefiningOp();
  if (max && max->getBlock() == &body &&
      llvm::isa<mlir::arith::MaximumFOp, mlir::arith::MaxNumFOp>(max)) {
    Value other;
    if (IsZero(max->getOperand(1))) other = max->getOperand(0);
    if (IsZero(max->getOperand(0))) other = max->getOperand(1);
    if (!other) return std::nullopt;
    epilogue.activation = "relu";
    ++ops_used;
    sum = other;
  }
  llvm::SmallVector<Value> leaves;
  AddLeaves(sum, &body, leaves, ops_used);
  // Every op of the body is the sum or the activation.
  if (static_cast<int64_t>(body.getOperations().size()) != ops_used + 1) return std::nullopt;
  const AffineMap bias_map = AffineMap::get(
      rank, 0, mlir::getAffineDimExpr(channel, consumer->getContext()), consumer->getContext());
  int contraction_leaves = 0;
  for (Value leaf : leaves) {
    if (IsZero(leaf)) continue;  // A folded zero bias.
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(leaf);
    if (!arg || arg.getOwner() != &body) return std::nullopt;
    mlir::OpOperand* operand = consumer.getMatchingOpOperand(arg);
    if (consumer.isDpsInit(operand)) return std::nullopt;
    if (operand == &use) {
      ++contraction_leaves;
      continue;
    }
    if (mlir::getElementTypeOrSelf(operand->get().getType()) !=
        mlir::getElementTypeOrSelf(use.get().getType())) {
      return std::nullopt;
    }
    AffineMap map = consumer.getMatchingIndexingMap(operand);
    if (map.isIdentity() && !epilogue.addend) {
      epilogue.addend = operand;
    } else if (map == bias_map && !epilogue.bias) {
      epilogue.bias = operand;
    } else {
      return std::nullopt;
    }
  }
  if (contraction_leaves != 1) return std::nullopt;
  return epilogue;
}

// The binding whose whole contents `value` is, through reshapes (the same
// bytes in row-major order): its ordinal, or nullopt.
std::optional<int64_t> BindingOf(Value value) {
  while (true) {
    Operation* op = value.getDefiningOp();
    if (!op) return std::nullopt;
    if (llvm::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp,
                  mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp>(op)) {
      value = op->getOperand(0);
      continue;
    }
    if (auto to_tensor = llvm::dyn_cast<mlir::bufferization::ToTensorOp>(op)) {
      value = to_tensor.getBuffer();
      continue;
    }
    auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op);
    if (!subspan) return std::nullopt;
    auto type = llvm::dyn_cast<mlir::MemRefType>(subspan.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity()) return std::nullopt;
    if (Value offset = subspan.getByteOffset();
        offset && !mlir::matchPattern(offset, mlir::m_Zero())) {
      return std::nullopt;
    }
    return static_cast<int64_t>(subspan.getBinding().getZExtValue());
  }
}

// The binding a kernel writes `result` into (materialize_in_destination).
std::optional<int64_t> DestinationOf(Value result) {
  if (!result.hasOneUse()) return std::nullopt;
  auto store =
      llvm::dyn_cast<mlir::bufferization::MaterializeInDestinationOp>(*result.getUsers().begin());
  if (!store) return std::nullopt;
  return BindingOf(store.getDest());
}

int64_t StaticSize(Value value, int64_t dim) {
  return llvm::cast<mlir::ShapedType>(value.getType()).getDimSize(dim);
}

}  // namespace

bool IsLibraryContraction(mlir::linalg::LinalgOp op) {
  auto choice = op->getAttrOfType<mlir::StringAttr>("kiln.library");
  if (choice && choice.getValue() == "none") return false;
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 || op->getNumResults() != 1) {
    return false;
  }
  std::string element;
  for (Value operand : op->getOperands()) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape()) return false;
    std::string name = ElementTypeName(type.getElementType());
    if (name.empty() || (!element.empty() && name != element)) return false;
    element = name;
  }
  if (!InitIsZeroFill(op)) return false;
  if (llvm::isa<mlir::linalg::Conv2DNchwFchwOp>(op.getOperation())) return true;
  std::optional<MatmulLoops> loops = MatmulLoopsOf(op);
  if (!loops) return false;
  if (choice && choice.getValue() == "always") return true;
  int64_t work = 1;
  for (int64_t range : op.getStaticLoopRanges()) work *= range;
  return work >= kMinLibraryMatmulWork;
}

bool IsLibraryEpilogue(mlir::linalg::LinalgOp consumer, mlir::OpOperand& use) {
  auto contraction = use.get().getDefiningOp<mlir::linalg::LinalgOp>();
  if (!contraction) return false;
  return AnalyzeEpilogue(consumer, use, ChannelDimension(contraction)).has_value();
}

std::optional<mlir::DictionaryAttr> MatchLibraryCall(mlir::func::FuncOp kernel, bool allow_tf32) {
  if (kernel.isExternal() || !kernel.getBody().hasOneBlock()) return std::nullopt;
  // The kernel holds one contraction, at most one epilogue, the fill of the
  // contraction's init and what views the bindings; nothing else.
  mlir::linalg::LinalgOp contraction, epilogue;
  for (Operation& op : kernel.getBody().front()) {
    if (llvm::isa<mlir::arith::ConstantOp, mlir::tensor::EmptyOp, HAL::InterfaceBindingSubspanOp,
                  mlir::bufferization::ToTensorOp, mlir::tensor::CollapseShapeOp,
                  mlir::tensor::ExpandShapeOp, mlir::memref::CollapseShapeOp,
                  mlir::memref::ExpandShapeOp, mlir::linalg::FillOp,
                  mlir::bufferization::MaterializeInDestinationOp, mlir::func::ReturnOp>(op)) {
      continue;
    }
    auto linalg = llvm::dyn_cast<mlir::linalg::LinalgOp>(op);
    if (!linalg) return std::nullopt;
    if (!contraction && IsLibraryContraction(linalg)) {
      contraction = linalg;
    } else if (contraction && !epilogue) {
      epilogue = linalg;
    } else {
      return std::nullopt;
    }
  }
  if (!contraction) return std::nullopt;
  Value contraction_result = contraction->getResult(0);
  Epilogue parts;
  Value result = contraction_result;
  if (epilogue) {
    if (!contraction_result.hasOneUse()) return std::nullopt;
    mlir::OpOperand& use = *contraction_result.getUses().begin();
    if (use.getOwner() != epilogue.getOperation()) return std::nullopt;
    std::optional<Epilogue> analyzed =
        AnalyzeEpilogue(epilogue, use, ChannelDimension(contraction));
    if (!analyzed) return std::nullopt;
    parts = *analyzed;
    result = epilogue->getResult(0);
  }

  mlir::MLIRContext* context = kernel.getContext();
  mlir::Builder b(context);
  llvm::SmallVector<mlir::NamedAttribute> fields;
  auto add = [&](llvm::StringRef name, mlir::Attribute value) {
    fields.push_back(b.getNamedAttr(name, value));
  };
  auto add_int = [&](llvm::StringRef name, int64_t value) {
    add(name, b.getI64IntegerAttr(value));
  };
  auto add_binding = [&](llvm::StringRef name, Value value) -> bool {
    std::optional<int64_t> binding = BindingOf(value);
    if (!binding) return false;
    add_int(name, *binding);
    return true;
  };
  std::optional<int64_t> destination = DestinationOf(result);
  if (!destination) return std::nullopt;
  Value lhs = contraction.getDpsInputs()[0];
  Value rhs = contraction.getDpsInputs()[1];
  add("element_type", b.getStringAttr(ElementTypeName(mlir::getElementTypeOrSelf(lhs.getType()))));
  add("activation", b.getStringAttr(parts.activation));
  add("allow_tf32", b.getBoolAttr(allow_tf32));

  if (auto conv = llvm::dyn_cast<mlir::linalg::Conv2DNchwFchwOp>(contraction.getOperation())) {
    add("kind", b.getStringAttr("convolution"));
    add_int("n", StaticSize(lhs, 0));
    add_int("c", StaticSize(lhs, 1));
    add_int("h", StaticSize(lhs, 2));
    add_int("w", StaticSize(lhs, 3));
    add_int("k", StaticSize(rhs, 0));
    add_int("r", StaticSize(rhs, 2));
    add_int("s", StaticSize(rhs, 3));
    auto strides = conv.getStrides().getValues<int64_t>();
    auto dilations = conv.getDilations().getValues<int64_t>();
    add_int("stride_h", strides[0]);
    add_int("stride_w", strides[1]);
    add_int("dilation_h", dilations[0]);
    add_int("dilation_w", dilations[1]);
    if (!add_binding("x", lhs) || !add_binding("filter", rhs)) return std::nullopt;
    add_int("y", *destination);
    if (parts.bias && !add_binding("bias", parts.bias->get())) return std::nullopt;
    if (parts.addend && !add_binding("z", parts.addend->get())) return std::nullopt;
  } else {
    std::optional<MatmulLoops> loops = MatmulLoopsOf(contraction);
    if (!loops) return std::nullopt;
    llvm::SmallVector<int64_t> ranges = contraction.getStaticLoopRanges();
    const int64_t m = ranges[loops->m], n = ranges[loops->n], k = ranges[loops->k];
    add("kind", b.getStringAttr("matmul"));
    add_int("m", m);
    add_int("n", n);
    add_int("k", k);
    add_int("batch_count", loops->batch ? ranges[*loops->batch] : 1);
    add("transpose_a", b.getBoolAttr(loops->transpose_a));
    add("transpose_b", b.getBoolAttr(loops->transpose_b));
    if (!add_binding("a", lhs) || !add_binding("b", rhs)) return std::nullopt;
    add_int("d", *destination);
    add_int("batch_stride_a", loops->a_batched ? m * k : 0);
    add_int("batch_stride_b", loops->b_batched ? k * n : 0);
    add_int("batch_stride_d", m * n);
    if (parts.bias && !add_binding("bias", parts.bias->get())) return std::nullopt;
    if (parts.addend) {
      if (!add_binding("c", parts.addend->get())) return std::nullopt;
      add_int("batch_stride_c", m * n);
    }
  }
  return b.getDictionaryAttr(fields);
}

}  // namespace kiln::compiler
