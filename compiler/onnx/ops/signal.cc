// Signal ops (opset 17): the window functions (HannWindow, HammingWindow,
// BlackmanWindow), MelWeightMatrix, DFT and STFT.
//
// Windows and MelWeightMatrix whose sizes are known at import time fold into
// constants; otherwise each is one linalg.generic over sizes read from the
// scalar inputs (tensor.extract). DFT and STFT are direct O(n^2) sums: one
// generic whose reduction loop runs over the transformed axis, the twiddle
// factor computed in f64 from (f * k) mod n so that the angles of
// multiples of pi/2 are exact and the sums of real signals keep their exact
// zeros, accumulated in f64 and rounded once to the signal's type.
#include <cmath>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/misc_helpers.h"
#include "compiler/onnx/ops/misc_registration.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using misc::IndexConstant;

constexpr double kPi = 3.14159265358979323846;

// A generalized cosine window a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N),
// N the size (periodic) or the size - 1 (symmetric).
struct CosineWindow {
  double a0, a1, a2;
};

// The scalar value of a size input (int32/int64), as an index.
mlir::Value SizeScalar(NodeImporter& node, int64_t index) {
  mlir::OpBuilder& b = node.builder();
  // Through i32: the compiler may move the index_cast into a kernel, whose
  // scalar operands are index, f32 or integers of up to 32 bits.
  mlir::Value value = misc::ExtractScalar(b, node.loc(), node.Input(index));
  value =
      ConvertScalar(b, node.loc(), value, node.InputElementType(index), onnx::TensorProto::INT32);
  return misc::IntToIndex(b, node.loc(), value);
}

// The float type of an output_datatype attribute, or failure (reported).
mlir::FailureOr<OnnxElementType> OutputDatatype(NodeImporter& node) {
  const OnnxElementType type = node.IntAttribute("output_datatype", onnx::TensorProto::FLOAT);
  if (!ConvertElementType(node.context(), type) || type == onnx::TensorProto::BOOL) {
    return node.Fail("output_datatype " + OnnxElementTypeName(type) + " is not supported");
  }
  return type;
}

mlir::LogicalResult ConvertWindow(NodeImporter& node, CosineWindow window) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::FailureOr<OnnxElementType> out_type = OutputDatatype(node);
  if (mlir::failed(out_type)) return mlir::failure();
  const bool periodic = node.IntAttribute("periodic", 1) != 0;
  mlir::Type element_type = ConvertElementType(node.context(), *out_type);
  if (auto sizes = node.InputInts(0);
      sizes && sizes->size() == 1 &&
      (*out_type == onnx::TensorProto::FLOAT || *out_type == onnx::TensorProto::DOUBLE)) {
    // Known size: a constant.
    const int64_t size = (*sizes)[0];
    if (size < 0) return node.Fail("the window size is negative");
    const double n = periodic ? size : size - 1;
    llvm::SmallVector<llvm::APFloat> values;
    for (int64_t i = 0; i < size; ++i) {
      const double angle = 2 * kPi * i / n;
      const double value =
          window.a0 - window.a1 * std::cos(angle) + window.a2 * std::cos(2 * angle);
      llvm::APFloat element(value);
      if (*out_type == onnx::TensorProto::FLOAT) element = llvm::APFloat(static_cast<float>(value));
      values.push_back(element);
    }
    auto type = mlir::RankedTensorType::get({size}, element_type);
    node.SetConstantOutput(0, mlir::DenseElementsAttr::get(type, values), *out_type);
    return mlir::success();
  }
  mlir::Value size = SizeScalar(node, 0);
  mlir::Value n = size;
  if (!periodic) n = b.create<mlir::arith::SubIOp>(loc, size, IndexConstant(b, loc, 1));
  mlir::Value result =
      misc::BuildIndexed(b, loc, {size}, element_type, {}, {},
                         [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange) {
                           mlir::Value i = nb.create<mlir::linalg::IndexOp>(l, 0);
                           // Host scalars enter a kernel as index, f32 or narrow integers: the
                           // f64 conversions happen inside.
                           mlir::Value n_float = misc::IndexToFloat(nb, l, n, nb.getF64Type());
                           mlir::Value f = misc::IndexToFloat(nb, l, i, nb.getF64Type());
                           mlir::Value angle = nb.create<mlir::arith::MulFOp>(
                               l, ScalarConstant(nb, l, nb.getF64Type(), 2 * kPi), f);
                           angle = nb.create<mlir::arith::DivFOp>(l, angle, n_float);
                           mlir::Value angle2 = nb.create<mlir::arith::AddFOp>(l, angle, angle);
                           mlir::Value c1 = nb.create<mlir::math::CosOp>(l, angle);
                           mlir::Value c2 = nb.create<mlir::math::CosOp>(l, angle2);
                           mlir::Value value = ScalarConstant(nb, l, nb.getF64Type(), window.a0);
                           value = nb.create<mlir::arith::SubFOp>(
                               l, value,
                               nb.create<mlir::arith::MulFOp>(
                                   l, ScalarConstant(nb, l, nb.getF64Type(), window.a1), c1));
                           if (window.a2 != 0) {
                             value = nb.create<mlir::arith::AddFOp>(
                                 l, value,
                                 nb.create<mlir::arith::MulFOp>(
                                     l, ScalarConstant(nb, l, nb.getF64Type(), window.a2), c2));
                           }
                           return ConvertScalar(nb, l, value, onnx::TensorProto::DOUBLE, *out_type);
                         });
  node.SetOutput(0, result, *out_type);
  return mlir::success();
}

// MelWeightMatrix as ONNX's reference computes it: num_mel_bins + 2 band
// edges equally spaced in mel (f32, 2595 log10(1 + hz / 700)), mapped back
// to hertz and to spectrogram bins floor((dft_length + 1) * hz /
// sample_rate) (f64); each mel bin a triangle rising from its lower edge to
// its center and falling to its upper edge.
mlir::LogicalResult ConvertMelWeightMatrix(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::FailureOr<OnnxElementType> out_type = OutputDatatype(node);
  if (mlir::failed(out_type)) return mlir::failure();
  for (int64_t i = 0; i < 5; ++i) {
    if (!node.HasInput(i)) return node.Fail("needs 5 inputs");
  }
  mlir::Value num_mel_bins = SizeScalar(node, 0);
  mlir::Value dft_length = SizeScalar(node, 1);
  mlir::Value sample_rate = SizeScalar(node, 2);
  mlir::Type f32 = b.getF32Type(), f64 = b.getF64Type();
  mlir::Value lower =
      misc::ToF32(b, loc, misc::ExtractScalar(b, loc, node.Input(3)), node.InputElementType(3));
  mlir::Value upper =
      misc::ToF32(b, loc, misc::ExtractScalar(b, loc, node.Input(4)), node.InputElementType(4));
  mlir::Value edges = b.create<mlir::arith::AddIOp>(loc, num_mel_bins, IndexConstant(b, loc, 2));
  mlir::Value dft_plus_one_index =
      b.create<mlir::arith::AddIOp>(loc, dft_length, IndexConstant(b, loc, 1));
  mlir::Value bins = b.create<mlir::arith::AddIOp>(
      loc, b.create<mlir::arith::DivSIOp>(loc, dft_length, IndexConstant(b, loc, 2)),
      IndexConstant(b, loc, 1));
  mlir::Type element_type = ConvertElementType(node.context(), *out_type);
  mlir::Value result = misc::BuildIndexed(
      b, loc, {bins, num_mel_bins}, element_type, {}, {},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange) {
        mlir::Value j = nb.create<mlir::linalg::IndexOp>(l, 0);
        mlir::Value m = nb.create<mlir::linalg::IndexOp>(l, 1);
        // The band edges in mel, in f32 as the reference computes them
        // (log10 through f64 log: kiln's kernels have no log10). Computed
        // here, not on the host, which has no math.
        auto to_mel = [&](mlir::Value hz) -> mlir::Value {
          mlir::Value ratio =
              nb.create<mlir::arith::DivFOp>(l, hz, ScalarConstant(nb, l, f32, 700));
          mlir::Value one_plus =
              nb.create<mlir::arith::AddFOp>(l, ratio, ScalarConstant(nb, l, f32, 1));
          mlir::Value log =
              nb.create<mlir::math::LogOp>(l, nb.create<mlir::arith::ExtFOp>(l, f64, one_plus));
          log = nb.create<mlir::arith::DivFOp>(l, log, ScalarConstant(nb, l, f64, std::log(10.0)));
          log = nb.create<mlir::arith::TruncFOp>(l, f32, log);
          return nb.create<mlir::arith::MulFOp>(l, ScalarConstant(nb, l, f32, 2595), log);
        };
        mlir::Value low_mel = to_mel(lower);
        mlir::Value high_mel = to_mel(upper);
        mlir::Value mel_step =
            nb.create<mlir::arith::DivFOp>(l, nb.create<mlir::arith::SubFOp>(l, high_mel, low_mel),
                                           misc::IndexToFloat(nb, l, edges, f32));
        // Host scalars enter a kernel as index or f32: widened here.
        mlir::Value low_mel64 = nb.create<mlir::arith::ExtFOp>(l, f64, low_mel);
        mlir::Value mel_step64 = nb.create<mlir::arith::ExtFOp>(l, f64, mel_step);
        mlir::Value dft_plus_one = misc::IndexToFloat(nb, l, dft_plus_one_index, f64);
        mlir::Value rate = misc::IndexToFloat(nb, l, sample_rate, f64);
        // The spectrogram bin of band edge `k` (an index), as an f64.
        auto edge = [&](int64_t offset) -> mlir::Value {
          mlir::Value k = nb.create<mlir::arith::AddIOp>(l, m, IndexConstant(nb, l, offset));
          mlir::Value mel = nb.create<mlir::arith::AddFOp>(
              l, nb.create<mlir::arith::MulFOp>(l, misc::IndexToFloat(nb, l, k, f64), mel_step64),
              low_mel64);
          mlir::Value power = nb.create<mlir::math::PowFOp>(
              l, ScalarConstant(nb, l, f64, 10),
              nb.create<mlir::arith::DivFOp>(l, mel, ScalarConstant(nb, l, f64, 2595)));
          mlir::Value hz = nb.create<mlir::arith::MulFOp>(
              l, ScalarConstant(nb, l, f64, 700),
              nb.create<mlir::arith::SubFOp>(l, power, ScalarConstant(nb, l, f64, 1)));
          mlir::Value scaled = nb.create<mlir::arith::DivFOp>(
              l, nb.create<mlir::arith::MulFOp>(l, dft_plus_one, hz), rate);
          return nb.create<mlir::math::FloorOp>(l, scaled);
        };
        mlir::Value lo = edge(0), center = edge(1), hi = edge(2);
        mlir::Value jf = misc::IndexToFloat(nb, l, j, f64);
        mlir::Value zero = ScalarConstant(nb, l, f64, 0), one = ScalarConstant(nb, l, f64, 1);
        using P = mlir::arith::CmpFPredicate;
        auto cmp = [&](P p, mlir::Value a, mlir::Value c) {
          return nb.create<mlir::arith::CmpFOp>(l, p, a, c);
        };
        // Rising side (or a spike at the center when it meets the lower
        // edge).
        mlir::Value rising =
            nb.create<mlir::arith::DivFOp>(l, nb.create<mlir::arith::SubFOp>(l, jf, lo),
                                           nb.create<mlir::arith::SubFOp>(l, center, lo));
        mlir::Value in_rise =
            nb.create<mlir::arith::AndIOp>(l, cmp(P::OGE, jf, lo), cmp(P::OLE, jf, center));
        mlir::Value value = nb.create<mlir::arith::SelectOp>(l, in_rise, rising, zero);
        mlir::Value spike = nb.create<mlir::arith::SelectOp>(l, cmp(P::OEQ, jf, center), one, zero);
        value = nb.create<mlir::arith::SelectOp>(l, cmp(P::OEQ, center, lo), spike, value);
        // Falling side, written after (and over) the rising one.
        mlir::Value falling =
            nb.create<mlir::arith::DivFOp>(l, nb.create<mlir::arith::SubFOp>(l, hi, jf),
                                           nb.create<mlir::arith::SubFOp>(l, hi, center));
        mlir::Value in_fall =
            nb.create<mlir::arith::AndIOp>(l, cmp(P::OGE, jf, center), cmp(P::OLT, jf, hi));
        value = nb.create<mlir::arith::SelectOp>(l, in_fall, falling, value);
        return ConvertScalar(nb, l, value, onnx::TensorProto::DOUBLE, *out_type);
      });
  node.SetOutput(0, result, *out_type);
  return mlir::success();
}

// One term of a DFT sum: (re, im) of x[k] e^(-+2 pi i f k / n) for output
// frequency `f`, input position `k` (indices), length `n` (index), `re`/`im`
// f64 (im null for a real signal).
std::pair<mlir::Value, mlir::Value> Twiddle(mlir::OpBuilder& b, mlir::Location l, mlir::Value f,
                                            mlir::Value k, mlir::Value n, mlir::Value re,
                                            mlir::Value im, bool inverse) {
  mlir::Type f64 = b.getF64Type();
  mlir::Value product = b.create<mlir::arith::MulIOp>(l, f, k);
  mlir::Value wrapped = b.create<mlir::arith::RemUIOp>(l, product, n);
  mlir::Value angle = b.create<mlir::arith::DivFOp>(
      l,
      b.create<mlir::arith::MulFOp>(l, ScalarConstant(b, l, f64, 2 * kPi),
                                    misc::IndexToFloat(b, l, wrapped, f64)),
      misc::IndexToFloat(b, l, n, f64));
  mlir::Value cos = b.create<mlir::math::CosOp>(l, angle);
  mlir::Value sin = b.create<mlir::math::SinOp>(l, angle);
  // Forward: (re + i im)(cos - i sin); inverse: (re + i im)(cos + i sin).
  if (inverse) sin = b.create<mlir::arith::NegFOp>(l, sin);
  mlir::Value out_re = b.create<mlir::arith::MulFOp>(l, re, cos);
  mlir::Value out_im = b.create<mlir::arith::NegFOp>(l, b.create<mlir::arith::MulFOp>(l, re, sin));
  if (im) {
    out_re = b.create<mlir::arith::AddFOp>(l, out_re, b.create<mlir::arith::MulFOp>(l, im, sin));
    out_im = b.create<mlir::arith::AddFOp>(l, out_im, b.create<mlir::arith::MulFOp>(l, im, cos));
  }
  return {out_re, out_im};
}

// An f64 accumulator of `sizes` filled with 0.
mlir::Value ZeroAccumulator(mlir::OpBuilder& b, mlir::Location loc,
                            llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  return FilledTensor(b, loc, sizes, ScalarConstant(b, loc, b.getF64Type(), 0));
}

// `acc` (f64) / `divisor` (an index, or null) rounded to ONNX type `type`.
mlir::Value FinishAccumulator(NodeImporter& node, mlir::Value acc, mlir::Value divisor,
                              OnnxElementType type) {
  mlir::OpBuilder& b = node.builder();
  const int64_t rank = llvm::cast<mlir::RankedTensorType>(acc.getType()).getRank();
  return misc::BuildIndexed(b, node.loc(), TensorSizes(b, node.loc(), acc),
                            ConvertElementType(node.context(), type), acc,
                            {misc::IdentityMap(&node.context(), rank)},
                            [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                              mlir::Value value = args[0];
                              if (divisor) {
                                value = nb.create<mlir::arith::DivFOp>(
                                    l, value, misc::IndexToFloat(nb, l, divisor, nb.getF64Type()));
                              }
                              return ConvertScalar(nb, l, value, onnx::TensorProto::DOUBLE, type);
                            });
}

mlir::LogicalResult ConvertDFT(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  mlir::Value x = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("the signal must be a float tensor");
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 3) return node.Fail("the signal must have rank 3 or more");
  const int64_t rank = x_type.getRank();
  const int64_t components = x_type.getDimSize(rank - 1);
  if (components != 1 && components != 2) {
    return node.Fail("the signal's last dimension must be 1 (real) or 2 (complex), statically");
  }
  const bool inverse = node.IntAttribute("inverse", 0) != 0;
  const bool onesided = node.IntAttribute("onesided", 0) != 0;
  if (onesided && inverse) return node.Fail("an inverse one-sided DFT is not supported");
  int64_t axis = node.IntAttribute("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis > rank - 2) {
    return node.Fail("axis " + std::to_string(node.IntAttribute("axis", 1)) +
                     " must name a signal dimension (not the batch or the last)");
  }
  llvm::SmallVector<mlir::OpFoldResult> x_sizes = TensorSizes(b, loc, x);
  // The transform length: dft_length, else the axis' size.
  mlir::OpFoldResult length = x_sizes[axis];
  if (node.HasInput(1)) {
    if (auto ints = node.InputInts(1); ints && ints->size() == 1) {
      if ((*ints)[0] < 1) return node.Fail("dft_length must be positive");
      length = b.getIndexAttr((*ints)[0]);
    } else {
      length = SizeScalar(node, 1);
    }
  }
  mlir::Value n = mlir::getValueOrCreateConstantIndexOp(b, loc, length);
  // A longer signal is cut to the transform length; a shorter one is zero-
  // padded (its missing terms add nothing, so the sum just runs over it).
  std::optional<int64_t> static_n = mlir::getConstantIntValue(length);
  if (static_n && !x_type.isDynamicDim(axis) && x_type.getDimSize(axis) > *static_n) {
    llvm::SmallVector<mlir::OpFoldResult> offsets(rank, b.getIndexAttr(0));
    llvm::SmallVector<mlir::OpFoldResult> strides(rank, b.getIndexAttr(1));
    llvm::SmallVector<mlir::OpFoldResult> sizes = x_sizes;
    sizes[axis] = length;
    x = b.create<mlir::tensor::ExtractSliceOp>(loc, x, offsets, sizes, strides);
  } else if (!static_n || x_type.isDynamicDim(axis)) {
    if (node.HasInput(1)) {
      return node.Fail("a dft_length or signal length unknown at import time is not supported");
    }
  }
  mlir::OpFoldResult out_length = length;
  if (onesided) {
    if (static_n) {
      out_length = b.getIndexAttr(*static_n / 2 + 1);
    } else {
      out_length = b.create<mlir::arith::AddIOp>(
                        loc, b.create<mlir::arith::DivUIOp>(loc, n, IndexConstant(b, loc, 2)),
                        IndexConstant(b, loc, 1))
                       .getResult();
    }
  }
  // Loops: the output's dimensions (the last the component), then k.
  llvm::SmallVector<mlir::OpFoldResult> out_sizes(x_sizes.begin(), x_sizes.end() - 1);
  out_sizes[axis] = out_length;
  out_sizes.push_back(b.getIndexAttr(2));
  const int64_t loops = rank + 1;
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  auto input_map = [&](int64_t component) {
    llvm::SmallVector<mlir::AffineExpr> exprs;
    for (int64_t d = 0; d < rank - 1; ++d) exprs.push_back(d == axis ? dim(rank) : dim(d));
    exprs.push_back(mlir::getAffineConstantExpr(component, context));
    return mlir::AffineMap::get(loops, 0, exprs, context);
  };
  llvm::SmallVector<mlir::Value> inputs{x};
  llvm::SmallVector<mlir::AffineMap> maps{input_map(0)};
  if (components == 2) {
    inputs.push_back(x);
    maps.push_back(input_map(1));
  }
  maps.push_back(mlir::AffineMap::getMultiDimIdentityMap(loops, context).getMajorSubMap(rank));
  llvm::SmallVector<mlir::utils::IteratorType> iterators = misc::Parallel(loops);
  iterators[rank] = mlir::utils::IteratorType::reduction;
  mlir::Value acc = misc::Generic(
      b, loc, inputs, ZeroAccumulator(b, loc, out_sizes), maps, iterators,
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        mlir::Value f = nb.create<mlir::linalg::IndexOp>(l, axis);
        mlir::Value c = nb.create<mlir::linalg::IndexOp>(l, rank - 1);
        mlir::Value k = nb.create<mlir::linalg::IndexOp>(l, rank);
        mlir::Value re = ConvertScalar(nb, l, args[0], type, onnx::TensorProto::DOUBLE);
        mlir::Value im = components == 2
                             ? ConvertScalar(nb, l, args[1], type, onnx::TensorProto::DOUBLE)
                             : mlir::Value();
        auto [out_re, out_im] = Twiddle(nb, l, f, k, n, re, im, inverse);
        mlir::Value is_re = nb.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq, c,
                                                           IndexConstant(nb, l, 0));
        mlir::Value term = nb.create<mlir::arith::SelectOp>(l, is_re, out_re, out_im);
        return llvm::SmallVector<mlir::Value>{
            nb.create<mlir::arith::AddFOp>(l, args.back(), term).getResult()};
      })[0];
  node.SetOutput(0, FinishAccumulator(node, acc, inverse ? n : mlir::Value(), type), type);
  return mlir::success();
}

mlir::LogicalResult ConvertSTFT(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  mlir::Value signal = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("the signal must be a float tensor");
  auto signal_type = llvm::dyn_cast<mlir::RankedTensorType>(signal.getType());
  if (!signal_type || signal_type.getRank() != 3 ||
      (signal_type.getDimSize(2) != 1 && signal_type.getDimSize(2) != 2)) {
    return node.Fail("the signal must be [batch, length, 1 or 2] (the last static)");
  }
  const bool complex = signal_type.getDimSize(2) == 2;
  const bool onesided = node.IntAttribute("onesided", 1) != 0;
  if (onesided && complex) return node.Fail("a one-sided STFT of a complex signal is undefined");
  if (!node.HasInput(1)) return node.Fail("frame_step is required");
  mlir::Value step = SizeScalar(node, 1);
  // The window (ones when absent: its length is frame_length).
  mlir::Value window;
  mlir::Value frame_length;
  if (node.HasInput(2)) {
    window = node.Input(2);
    auto window_type = llvm::dyn_cast<mlir::RankedTensorType>(window.getType());
    if (!window_type || window_type.getRank() != 1) return node.Fail("the window must be 1-D");
    frame_length = mlir::getValueOrCreateConstantIndexOp(b, loc, TensorSizes(b, loc, window)[0]);
    window = ConvertTensor(node, window, node.InputElementType(2), type);
  } else if (node.HasInput(3)) {
    mlir::OpFoldResult length;
    if (auto ints = node.InputInts(3); ints && ints->size() == 1) {
      length = b.getIndexAttr((*ints)[0]);
    } else {
      length = SizeScalar(node, 3);
    }
    frame_length = mlir::getValueOrCreateConstantIndexOp(b, loc, length);
    window = FilledTensor(b, loc, {length},
                          ScalarConstant(b, loc, ConvertElementType(node.context(), type), 1));
  } else {
    return node.Fail("needs a window or a frame_length");
  }
  llvm::SmallVector<mlir::OpFoldResult> signal_sizes = TensorSizes(b, loc, signal);
  mlir::Value signal_length = mlir::getValueOrCreateConstantIndexOp(b, loc, signal_sizes[1]);
  // frames = (length - frame_length) / step + 1.
  mlir::Value frames = b.create<mlir::arith::AddIOp>(
      loc,
      b.create<mlir::arith::DivSIOp>(
          loc, b.create<mlir::arith::SubIOp>(loc, signal_length, frame_length), step),
      IndexConstant(b, loc, 1));
  mlir::Value bins = frame_length;
  if (onesided) {
    bins = b.create<mlir::arith::AddIOp>(
        loc, b.create<mlir::arith::DivUIOp>(loc, frame_length, IndexConstant(b, loc, 2)),
        IndexConstant(b, loc, 1));
  }
  llvm::SmallVector<mlir::OpFoldResult> out_sizes{signal_sizes[0], frames, bins, b.getIndexAttr(2)};
  // Loops: batch, frame, bin, component, k. The signal is read at frame *
  // step + k (step known only at run time: tensor.extract in the body).
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  llvm::SmallVector<mlir::AffineMap> maps{
      mlir::AffineMap::get(5, 0, {dim(4)}, context),
      mlir::AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, context)};
  llvm::SmallVector<mlir::utils::IteratorType> iterators = misc::Parallel(5);
  iterators[4] = mlir::utils::IteratorType::reduction;
  mlir::Value acc = misc::Generic(
      b, loc, window, ZeroAccumulator(b, loc, out_sizes), maps, iterators,
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        mlir::Value batch = nb.create<mlir::linalg::IndexOp>(l, 0);
        mlir::Value frame = nb.create<mlir::linalg::IndexOp>(l, 1);
        mlir::Value f = nb.create<mlir::linalg::IndexOp>(l, 2);
        mlir::Value c = nb.create<mlir::linalg::IndexOp>(l, 3);
        mlir::Value k = nb.create<mlir::linalg::IndexOp>(l, 4);
        mlir::Value position =
            nb.create<mlir::arith::AddIOp>(l, nb.create<mlir::arith::MulIOp>(l, frame, step), k);
        mlir::Value w = ConvertScalar(nb, l, args[0], type, onnx::TensorProto::DOUBLE);
        auto read = [&](int64_t component) {
          mlir::Value value = nb.create<mlir::tensor::ExtractOp>(
              l, signal, mlir::ValueRange{batch, position, IndexConstant(nb, l, component)});
          return nb.create<mlir::arith::MulFOp>(
              l, ConvertScalar(nb, l, value, type, onnx::TensorProto::DOUBLE), w);
        };
        mlir::Value re = read(0);
        mlir::Value im = complex ? read(1) : mlir::Value();
        auto [out_re, out_im] = Twiddle(nb, l, f, k, frame_length, re, im, /*inverse=*/false);
        mlir::Value is_re = nb.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq, c,
                                                           IndexConstant(nb, l, 0));
        mlir::Value term = nb.create<mlir::arith::SelectOp>(l, is_re, out_re, out_im);
        return llvm::SmallVector<mlir::Value>{
            nb.create<mlir::arith::AddFOp>(l, args.back(), term).getResult()};
      })[0];
  node.SetOutput(0, FinishAccumulator(node, acc, mlir::Value(), type), type);
  return mlir::success();
}

}  // namespace

void RegisterSignalOps(OpRegistry& registry) {
  registry.Register(
      "HannWindow",
      [](NodeImporter& node) {
        return ConvertWindow(node, {0.5, 0.5, 0.0});
      },
      17);
  registry.Register(
      "HammingWindow",
      [](NodeImporter& node) {
        return ConvertWindow(node, {25.0 / 46, 21.0 / 46, 0.0});
      },
      17);
  registry.Register(
      "BlackmanWindow",
      [](NodeImporter& node) {
        return ConvertWindow(node, {0.42, 0.5, 0.08});
      },
      17);
  registry.Register("MelWeightMatrix", ConvertMelWeightMatrix, 17);
  registry.Register("DFT", ConvertDFT, 17);
  registry.Register("STFT", ConvertSTFT, 17);
}

}  // namespace kiln::onnx_import
