#include "compiler/dispatch/library_calls.h"

#include <cmath>
#include <iterator>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dispatch/strided_matmul.h"
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

// A contraction of a host function as the strided matmul its dispatch
// would compute: the views between each input and the tensor it reads are
// cloned into the dispatch (form_dispatches.cc), the tensor and the result
// become whole bindings. An input whose views are not strided is taken as
// the packed copy a dispatch would read.
std::optional<StridedMatmul> HostMatmulOf(mlir::linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) return std::nullopt;
  auto layout = [](Value value) {
    std::optional<StridedLayout> strided = StridedLayoutOf(value);
    return strided ? strided : RowMajorLayout(value);
  };
  std::optional<StridedLayout> a = layout(op.getDpsInputs()[0]), b = layout(op.getDpsInputs()[1]),
                               d = RowMajorLayout(op->getResult(0));
  if (!a || !b || !d) return std::nullopt;
  return MatchStridedMatmul(op, *a, *b, *d);
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
  if (!IsConvolution(op) && !HostMatmulOf(op)) return false;
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
  // contraction's init and what views the bindings (reshapes; slices of a
  // matmul's strided operands); nothing else.
  mlir::linalg::LinalgOp contraction, epilogue;
  for (Operation& op : kernel.getBody().front()) {
    if (llvm::isa<mlir::arith::ConstantOp, mlir::tensor::EmptyOp, HAL::InterfaceBindingSubspanOp,
                  mlir::bufferization::ToTensorOp, mlir::tensor::CollapseShapeOp,
                  mlir::tensor::ExpandShapeOp, mlir::tensor::ExtractSliceOp,
                  mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp, mlir::linalg::FillOp,
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
    // Each operand a strided view of its binding (strided_matmul.h).
    auto binding_layout = [](Value value) -> std::optional<std::pair<int64_t, StridedLayout>> {
      std::optional<StridedLayout> layout = StridedLayoutOf(value);
      auto subspan = layout ? layout->base.getDefiningOp<HAL::InterfaceBindingSubspanOp>()
                            : HAL::InterfaceBindingSubspanOp();
      if (!subspan) return std::nullopt;
      return std::make_pair(static_cast<int64_t>(subspan.getBinding().getZExtValue()), *layout);
    };
    auto store = result.hasOneUse()
                     ? llvm::dyn_cast<mlir::bufferization::MaterializeInDestinationOp>(
                           *result.getUsers().begin())
                     : nullptr;
    if (!store) return std::nullopt;
    auto a = binding_layout(lhs), w = binding_layout(rhs), d = binding_layout(store.getDest());
    if (!a || !w || !d) return std::nullopt;
    std::optional<StridedMatmul> matmul =
        MatchStridedMatmul(contraction, a->second, w->second, d->second);
    if (!matmul) return std::nullopt;
    const int64_t m = matmul->m, n = matmul->n, k = matmul->k;
    add("kind", b.getStringAttr("matmul"));
    add_int("m", m);
    add_int("n", n);
    add_int("k", k);
    add_int("batch_count", matmul->batch_count);
    add("transpose_a", b.getBoolAttr(matmul->a.transposed));
    add("transpose_b", b.getBoolAttr(matmul->b.transposed));
    add_int("a", a->first);
    add_int("b", w->first);
    add_int("d", d->first);
    add_int("batch_stride_a", matmul->a.batch_stride);
    add_int("batch_stride_b", matmul->b.batch_stride);
    add_int("batch_stride_d", matmul->d.batch_stride);
    // What a packed operand leaves out (schemas/library_call.fbs): an ld
    // other than the stored row length, an offset other than 0.
    auto add_layout = [&](llvm::StringRef operand, const MatrixLayout& layout, int64_t packed_ld) {
      if (layout.ld != packed_ld) add_int(("ld" + operand).str(), layout.ld);
      if (layout.offset != 0) add_int(("offset_" + operand).str(), layout.offset);
    };
    add_layout("a", matmul->a, matmul->a.transposed ? m : k);
    add_layout("b", matmul->b, matmul->b.transposed ? k : n);
    add_layout("d", matmul->d, n);
    // Batch loops, even of one element, make no matrix-vector product.
    mlir::FailureOr<mlir::linalg::ContractionDimensions> dims =
        mlir::linalg::inferContractionDims(contraction);
    const bool batched = mlir::succeeded(dims) && !dims->batch.empty();
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
      std::optional<std::pair<int64_t, StridedLayout>> c = binding_layout(parts.addend->get());
      std::optional<MatrixLayout> layout =
          c ? ResultShapedLayout(*matmul, contraction, c->second) : std::nullopt;
      if (!layout) return std::nullopt;
      add_int("c", c->first);
      add_int("batch_stride_c", layout->batch_stride);
      add_layout("c", *layout, n);
    }
  }
  return b.getDictionaryAttr(fields);
}

}  // namespace kiln::compiler
