#include "compiler/dispatch/library_calls.h"

#include <cmath>
#include <iterator>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

// A matmul's loops as a library sees them: D[b, m, n] = sum_k A[b, m, k]
// B[b, k, n], where each of b, m, n and k is a group of loops stored next
// to each other in the same order in every operand that has it (so that
// the group is one dimension of the row-major matrices: the heads and the
// head size of attention, a reshape that fusion moved into the op). A is
// stored [b, k, m] where transpose_a (B [b, n, k] where transpose_b); an
// operand without the batch loops is one matrix for every batch.
struct MatmulLoops {
  llvm::SmallVector<unsigned> batch, m, n, k;
  bool transpose_a = false, transpose_b = false;
  bool a_batched = true, b_batched = true;
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

// Whether `dims` is the groups one after the other.
bool IsConcatenation(llvm::ArrayRef<unsigned> dims,
                     std::initializer_list<llvm::ArrayRef<unsigned>> groups) {
  for (llvm::ArrayRef<unsigned> group : groups) {
    if (dims.size() < group.size() || dims.take_front(group.size()) != group) return false;
    dims = dims.drop_front(group.size());
  }
  return dims.empty();
}

// Orders `group` as `dims` (an operand's) stores its loops.
void SortAs(llvm::SmallVector<unsigned>& group, llvm::ArrayRef<unsigned> dims) {
  auto position = [&](unsigned loop) { return llvm::find(dims, loop) - dims.begin(); };
  llvm::sort(group, [&](unsigned x, unsigned y) { return position(x) < position(y); });
}

// Whether the operands store `loops`' groups as a matmul's; sets the
// transposes.
bool StoresAsMatmul(MatmulLoops& loops, llvm::ArrayRef<unsigned> a, llvm::ArrayRef<unsigned> b,
                    llvm::ArrayRef<unsigned> d) {
  SortAs(loops.batch, d);
  SortAs(loops.m, d);
  SortAs(loops.n, d);
  SortAs(loops.k, a);
  if (!IsConcatenation(d, {loops.batch, loops.m, loops.n})) return false;
  llvm::ArrayRef<unsigned> a_batch =
      loops.a_batched ? llvm::ArrayRef<unsigned>(loops.batch) : llvm::ArrayRef<unsigned>();
  llvm::ArrayRef<unsigned> b_batch =
      loops.b_batched ? llvm::ArrayRef<unsigned>(loops.batch) : llvm::ArrayRef<unsigned>();
  if (IsConcatenation(a, {a_batch, loops.m, loops.k})) {
    loops.transpose_a = false;
  } else if (IsConcatenation(a, {a_batch, loops.k, loops.m})) {
    loops.transpose_a = true;
  } else {
    return false;
  }
  if (IsConcatenation(b, {b_batch, loops.k, loops.n})) {
    loops.transpose_b = false;
  } else if (IsConcatenation(b, {b_batch, loops.n, loops.k})) {
    loops.transpose_b = true;
  } else {
    return false;
  }
  return true;
}

std::optional<MatmulLoops> MatmulLoopsOf(mlir::linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !mlir::linalg::isaContractionOpInterface(op)) {
    return std::nullopt;
  }
  mlir::FailureOr<mlir::linalg::ContractionDimensions> dims =
      mlir::linalg::inferContractionDims(op);
  if (mlir::failed(dims) || dims->k.empty()) return std::nullopt;
  llvm::SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  const llvm::SmallVector<unsigned> a = DimsOf(maps[0]), b = DimsOf(maps[1]), d = DimsOf(maps[2]);
  MatmulLoops loops;
  loops.batch.assign(dims->batch.begin(), dims->batch.end());
  loops.m.assign(dims->m.begin(), dims->m.end());
  loops.n.assign(dims->n.begin(), dims->n.end());
  loops.k.assign(dims->k.begin(), dims->k.end());
  if (StoresAsMatmul(loops, a, b, d)) return loops;
  // A batch that one operand does not read is an m (or n) loop to
  // inferContractionDims: where the groups do not line up as they are, the
  // result's leading loop of that group is the batch, B (or A) one matrix
  // for every batch.
  if (!dims->batch.empty()) return std::nullopt;
  for (bool from_m : {true, false}) {
    MatmulLoops broadcast = loops;
    llvm::SmallVector<unsigned>& group = from_m ? broadcast.m : broadcast.n;
    if (group.size() < 2) continue;
    broadcast.batch.assign(1, group.front());
    group.erase(group.begin());
    (from_m ? broadcast.b_batched : broadcast.a_batched) = false;
    if (StoresAsMatmul(broadcast, a, b, d)) return broadcast;
  }
  return std::nullopt;
}

// The product of `op`'s static ranges of `loops`.
int64_t Extent(mlir::linalg::LinalgOp op, llvm::ArrayRef<unsigned> loops) {
  llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = 1;
  for (unsigned loop : loops) extent *= ranges[loop];
  return extent;
}

bool IsZero(Value value) { return mlir::matchPattern(value, mlir::m_AnyZeroFloat()); }

// Whether the op's init is a fill of zero (what the library's beta = 0
// computes from).
bool InitIsZeroFill(mlir::linalg::LinalgOp op) {
  Value init = op.getDpsInits()[0];
  while (Operation* reshape = init.getDefiningOp()) {
    if (!llvm::isa<mlir::tensor::ExpandShapeOp, mlir::tensor::CollapseShapeOp>(reshape)) break;
    init = reshape->getOperand(0);
  }
  auto fill = init.getDefiningOp<mlir::linalg::FillOp>();
  return fill && IsZero(fill.getInputs()[0]);
}

// The convolutions a library takes (cuDNN's and oneDNN's NCHW/KCRS, one
// group).
bool IsConvolution(mlir::linalg::LinalgOp op) {
  return llvm::isa<mlir::linalg::Conv2DNchwFchwOp>(op.getOperation());
}

// The result dimension that a library broadcasts its bias along every
// other dimension of: the output channel (n of a matmul, k of an NCHW
// convolution).
unsigned ChannelDimension(mlir::linalg::LinalgOp contraction) {
  if (IsConvolution(contraction)) return 1;
  auto type = llvm::cast<mlir::RankedTensorType>(contraction->getResult(0).getType());
  return static_cast<unsigned>(type.getRank() - 1);
}

// What an epilogue adds to the contraction's result, and the activation.
struct Epilogue {
  mlir::OpOperand* bias = nullptr;
  mlir::OpOperand* addend = nullptr;
  std::string activation = "none";
};

// The value of `result`, a scalar function of `sum` that `body` computes,
// at sum = x, or nullopt where it reads anything but `sum` and constants or
// uses an op this does not evaluate. The body's ops are evaluated once each,
// in order (a value used many times is not computed again per use).
std::optional<double> Evaluate(Value result, Value sum, double x, mlir::Block* body) {
  llvm::DenseMap<Value, double> known;
  known[sum] = x;
  auto value_of = [&](Value value) -> std::optional<double> {
    auto it = known.find(value);
    if (it != known.end()) return it->second;
    mlir::FloatAttr constant;
    if (mlir::matchPattern(value, mlir::m_Constant(&constant))) {
      return constant.getValue().convertToDouble();
    }
    return std::nullopt;
  };
  for (Operation& op : *body) {
    if (op.getNumResults() != 1 || known.count(op.getResult(0))) continue;
    llvm::SmallVector<double, 2> in;
    for (Value operand : op.getOperands()) {
      std::optional<double> v = value_of(operand);
      if (!v) break;
      in.push_back(*v);
    }
    if (in.size() != op.getNumOperands()) continue;
    const std::optional<double> out =
        llvm::TypeSwitch<Operation*, std::optional<double>>(&op)
            .Case([&](mlir::arith::AddFOp) { return in[0] + in[1]; })
            .Case([&](mlir::arith::SubFOp) { return in[0] - in[1]; })
            .Case([&](mlir::arith::MulFOp) { return in[0] * in[1]; })
            .Case([&](mlir::arith::DivFOp) { return in[0] / in[1]; })
            .Case([&](mlir::arith::NegFOp) { return -in[0]; })
            .Case<mlir::arith::MaximumFOp, mlir::arith::MaxNumFOp>(
                [&](Operation*) { return std::max(in[0], in[1]); })
            .Case<mlir::arith::MinimumFOp, mlir::arith::MinNumFOp>(
                [&](Operation*) { return std::min(in[0], in[1]); })
            .Case<mlir::arith::ExtFOp, mlir::arith::TruncFOp>([&](Operation*) { return in[0]; })
            .Case([&](mlir::math::TanhOp) { return std::tanh(in[0]); })
            .Case([&](mlir::math::ErfOp) { return std::erf(in[0]); })
            .Case([&](mlir::math::ExpOp) { return std::exp(in[0]); })
            .Case([&](mlir::math::SqrtOp) { return std::sqrt(in[0]); })
            .Case([&](mlir::math::RsqrtOp) { return 1.0 / std::sqrt(in[0]); })
            .Case([&](mlir::math::AbsFOp) { return std::fabs(in[0]); })
            .Case([&](mlir::math::PowFOp) { return std::pow(in[0], in[1]); })
            .Default([](Operation*) { return std::nullopt; });
    if (out) known[op.getResult(0)] = *out;
  }
  return value_of(result);
}

// The activation a library computes that `result` is of `sum` (by value,
// at points across the range where they differ: "none", "relu",
// "gelu_tanh"; GELU's erf form is not its tanh approximation), or "".
// Values agree within `tolerance` (relative, at least 1 absolute): the
// precision of the element type, whose constants (0.044715, sqrt(2/pi)
// rounded to f16) move the expression by more than f32's would.
std::string ActivationOf(Value result, Value sum, mlir::Block* body, double tolerance) {
  struct Candidate {
    const char* name;
    double (*f)(double);
  };
  static constexpr Candidate kCandidates[] = {
      {"none", [](double x) { return x; }},
      {"relu", [](double x) { return std::max(x, 0.0); }},
      {"gelu_tanh",
       [](double x) {
         return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
       }},
  };
  static constexpr double kPoints[] = {-8,  -4,  -2.5, -1.5, -1,  -0.5, -0.1, 0,
                                       0.1, 0.5, 1,    1.5,  2.5, 4,    8};
  double values[std::size(kPoints)];
  for (size_t i = 0; i < std::size(kPoints); ++i) {
    std::optional<double> value = Evaluate(result, sum, kPoints[i], body);
    if (!value) return "";
    values[i] = *value;
  }
  for (const Candidate& candidate : kCandidates) {
    bool same = true;
    for (size_t i = 0; i < std::size(kPoints) && same; ++i) {
      const double expected = candidate.f(kPoints[i]);
      same = std::fabs(values[i] - expected) <= tolerance * std::max(1.0, std::fabs(expected));
    }
    if (same) return candidate.name;
  }
  return "";
}

std::optional<Epilogue> AnalyzeEpilogue(mlir::linalg::LinalgOp consumer, mlir::OpOperand& use,
                                        unsigned channel, bool convolution) {
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
  const AffineMap bias_map = AffineMap::get(
      rank, 0, mlir::getAffineDimExpr(channel, consumer->getContext()), consumer->getContext());

  // The sum: the contraction's element plus what the chain of additions
  // above it adds (a bias, a residual; a folded zero), each at most once.
  Epilogue epilogue;
  Value sum = consumer.getMatchingBlockArgument(&use);
  auto add_term = [&](Value term) {
    if (IsZero(term)) return true;
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(term);
    if (!arg || arg.getOwner() != &body) return false;
    mlir::OpOperand* operand = consumer.getMatchingOpOperand(arg);
    if (consumer.isDpsInit(operand) || operand == &use || !arg.hasOneUse() ||
        mlir::getElementTypeOrSelf(operand->get().getType()) !=
            mlir::getElementTypeOrSelf(use.get().getType())) {
      return false;
    }
    AffineMap map = consumer.getMatchingIndexingMap(operand);
    if (map.isIdentity() && !epilogue.addend) {
      epilogue.addend = operand;
      return true;
    }
    if (map == bias_map && !epilogue.bias) {
      epilogue.bias = operand;
      return true;
    }
    return false;
  };
  while (sum.hasOneUse()) {
    auto add = llvm::dyn_cast<mlir::arith::AddFOp>(*sum.getUsers().begin());
    if (!add || add->getBlock() != &body) break;
    Value term = add.getLhs() == sum ? add.getRhs() : add.getLhs();
    if (!add_term(term)) break;
    sum = add.getResult();
  }
  // f32 constants are within 1e-7 of their values; f16's and bf16's within
  // half their epsilon (2^-11, 2^-8), which the library's f32 constants
  // differ from by less than the result's rounding.
  mlir::Type element = mlir::getElementTypeOrSelf(use.get().getType());
  const double tolerance = element.isF16() ? 1e-3 : element.isBF16() ? 8e-3 : 1e-5;
  std::string activation = ActivationOf(yield->getOperand(0), sum, &body, tolerance);
  // cuDNN's fused convolution takes no GELU.
  if (activation.empty() || (convolution && activation == "gelu_tanh")) {
    return std::nullopt;
  }
  epilogue.activation = activation;
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
  if (!IsConvolution(op) && !MatmulLoopsOf(op)) return false;
  if (choice && choice.getValue() == "always") return true;
  int64_t work = 1;
  for (int64_t range : op.getStaticLoopRanges()) work *= range;
  return work >= kMinLibraryWork;
}

bool IsLibraryEpilogue(mlir::linalg::LinalgOp consumer, mlir::OpOperand& use) {
  auto contraction = use.get().getDefiningOp<mlir::linalg::LinalgOp>();
  if (!contraction) return false;
  return AnalyzeEpilogue(consumer, use, ChannelDimension(contraction), IsConvolution(contraction))
      .has_value();
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
        AnalyzeEpilogue(epilogue, use, ChannelDimension(contraction), IsConvolution(contraction));
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
    const int64_t m = Extent(contraction, loops->m), n = Extent(contraction, loops->n),
                  k = Extent(contraction, loops->k);
    add("kind", b.getStringAttr("matmul"));
    add_int("m", m);
    add_int("n", n);
    add_int("k", k);
    add_int("batch_count", Extent(contraction, loops->batch));
    add("transpose_a", b.getBoolAttr(loops->transpose_a));
    add("transpose_b", b.getBoolAttr(loops->transpose_b));
    if (!add_binding("a", lhs) || !add_binding("b", rhs)) return std::nullopt;
    add_int("d", *destination);
    // One matrix (no batch loops) has no batch strides.
    const bool batched = !loops->batch.empty();
    add_int("batch_stride_a", batched && loops->a_batched ? m * k : 0);
    add_int("batch_stride_b", batched && loops->b_batched ? k * n : 0);
    add_int("batch_stride_d", batched ? m * n : 0);
    // A matrix-vector product reads its matrix once: the generated kernel
    // whose threads share each dot product reads it at full bandwidth, where
    // a GEMM library's tiles idle (cooperative_reduction.h). GPU targets
    // keep that kernel unless the op insists on the library.
    auto choice = contraction->getAttrOfType<mlir::StringAttr>("kiln.library");
    const bool forced = choice && choice.getValue() == "always";
    if (!batched && (m == 1 || n == 1) && k >= kMinSharedDotProduct && !forced) {
      add("generated_on_gpu", b.getBoolAttr(true));
    }
    if (parts.bias && !add_binding("bias", parts.bias->get())) return std::nullopt;
    if (parts.addend) {
      if (!add_binding("c", parts.addend->get())) return std::nullopt;
      add_int("batch_stride_c", batched ? m * n : 0);
    }
  }
  return b.getDictionaryAttr(fields);
}

}  // namespace kiln::compiler
