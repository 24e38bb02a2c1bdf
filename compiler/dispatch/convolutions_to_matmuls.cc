// ConvolutionsToMatmuls (--kiln-convolutions-to-matmuls): NCHW convolutions
// that a library takes become matmuls where a GEMM library does them far
// better than a convolution library: every 1x1 convolution of stride 1 (a
// matmul of the filter and the image as they are stored), and convolutions
// whose output has few pixels (at most `im2col-max-pixels` over the batch),
// through an im2col copy of the image. Where the image is a zero padding
// (tensor.pad) of another, the copy reads through the padding: the padded
// image is not made.
//
// Why: at batch 1 the late layers of a CNN have a few dozen output pixels
// and thousands of input channels. cuDNN's implicit-GEMM kernels tile the
// pixels and the output channels and do not split the reduction, so a
// ResNet-50 stage-4 convolution (512x3x3 filters over 7x7 pixels) keeps a
// handful of the H100's 132 SMs busy: 170 µs for 0.23 GFLOP in f32
// (--print_statistics on the lent H100). cuBLASLt splits the reduction of
// the same product. The im2col copy it needs is at most a few hundred KB
// at that size. (IREE's and TVM's GPU pipelines lower convolutions to
// matmuls through im2col for the same reason.)
//
// For cpu alone only the 1x1 convolutions of stride 1 become matmuls by
// default (im2col-max-pixels 0). Keeping them convolutions too (-1) with
// their activations in oneDNN's blocked layout from one call to the next
// (--blocked-activations) saves the reorders but not the time on the lent
// machine. ResNet-50's first two stages (tests/benchmarks/resnet_stage, 23
// convolutions, 15 of them 1x1 of stride 1) on the 2-core AVX-512 machine,
// kiln-benchmark-module, median ms per call over interleaved runs, 2
// threads / 1 thread:
//   1x1 ones matmuls, the rest convolutions, NCHW between calls   14.6 / 21.3
//   every one a convolution, NCHW between calls                   15.6 / 26
//   every one a convolution, blocked between calls                13.7 / 21.4
// and the whole ResNet-50 on the lent machine's 16 cores (ms, alternating
// runs of kiln-benchmark-module --task_topology_group_count=16, two
// sessions): 1x1 ones matmuls 13.1, 13.6 | 14.5, 14.4, 13.3, 15.1 against
// every one a blocked convolution 13.9, 12.9 | 14.8, 16.3, 15.5, 15.2.
//
//   %y = linalg.conv_2d_nchw_fchw {strides = 1} ins(%x, %w : 1xCxHxW, KxCx1x1)
//   ->
//   %wc = tensor.collapse_shape %w [[0], [1, 2, 3]] : KxCx1x1 into KxC
//   %y = linalg.generic (n, k, h, w, c): wc(k, c) * x(n, c, h, w) -> y(n, k, h, w)
//
//   and otherwise (R x S filters, strides, dilations)
//   %xc = linalg.generic (n, c, r, s, p, q):
//           x(n, c, p * sh + r * dh, q * sw + s * dw) -> xc(n, c, r, s, p, q)
//   %y = linalg.generic (n, k, p, q, c, r, s):
//           w(k, c, r, s) * xc(n, c, r, s, p, q) -> y(n, k, p, q)
//
// The contraction is a batched matmul to the library selection (the filter
// one matrix for every image, the pixels one dimension and (c, r, s) the
// reduction): library_calls.h. Its init is the convolution's (a fill of
// zero), its result the same tensor, so the epilogue that followed the
// convolution follows the matmul; a bias along the output channels is not
// an epilogue a GEMM library fuses there (it broadcasts along the rows of
// the stored matrix), so it stays a generated kernel. Runs only where
// library calls are compiled (cuda, cpu targets), before the tensor input
// pipeline (which lowers tensor.pad into a copy of its own); a convolution the library would not
// take (kiln.library = "none", too small, not static) is left as it is, and `kiln.library` carries
// over to the matmul.
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dispatch/library_calls.h"
#include "compiler/dispatch/passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::AffineExpr;
using mlir::AffineMap;
using mlir::Value;

// The attribute's two values (strides, dilations), 1 when absent.
std::pair<int64_t, int64_t> PairOf(mlir::DenseIntElementsAttr attr) {
  if (!attr) return {1, 1};
  auto values = attr.getValues<int64_t>();
  return {values[0], values[1]};
}

// The zero padding of `x` on its spatial dimensions that im2col can read
// through instead of a padded copy: x = tensor.pad(source) with a constant
// zero and static low/high on H and W only. Null when x is not one.
mlir::tensor::PadOp FoldablePad(Value x) {
  auto pad = x.getDefiningOp<mlir::tensor::PadOp>();
  if (!pad || !pad.getSourceType().hasStaticShape()) return nullptr;
  Value padding = pad.getConstantPaddingValue();
  if (!padding || !mlir::matchPattern(padding, mlir::m_AnyZeroFloat())) return nullptr;
  llvm::ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (low.size() != 4 || llvm::is_contained(low, mlir::ShapedType::kDynamic) ||
      llvm::is_contained(high, mlir::ShapedType::kDynamic) || low[0] != 0 || low[1] != 0 ||
      high[0] != 0 || high[1] != 0) {
    return nullptr;
  }
  return pad;
}

// The im2col copy reading through a zero padding: each element of
// xc[n, c, r, s, p, q] is source[n, c, h, w] at h = p * sh + r * dh - low_h
// (w likewise) where that lies inside the source, else zero (the padded
// copy the convolution read is not made).
Value BuildPaddedColumns(mlir::OpBuilder& b, mlir::Location loc, mlir::tensor::PadOp pad,
                         mlir::RankedTensorType columns_type, int64_t stride_h, int64_t stride_w,
                         int64_t dilation_h, int64_t dilation_w) {
  Value source = pad.getSource();
  const int64_t height = pad.getSourceType().getDimSize(2);
  const int64_t width = pad.getSourceType().getDimSize(3);
  const int64_t low_h = pad.getStaticLow()[2], low_w = pad.getStaticLow()[3];
  Value empty =
      mlir::tensor::EmptyOp::create(b, loc, columns_type.getShape(), columns_type.getElementType());
  llvm::SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(6, b.getContext())};
  auto body = [&](mlir::OpBuilder& nb, mlir::Location nloc, mlir::ValueRange args) {
    auto index = [&](int64_t value) {
      return mlir::arith::ConstantIndexOp::create(nb, nloc, value).getResult();
    };
    auto loop = [&](unsigned dim) {
      return mlir::linalg::IndexOp::create(nb, nloc, dim).getResult();
    };
    // position * stride + window * dilation - low, and whether it is inside.
    auto coordinate = [&](unsigned position, unsigned window, int64_t stride, int64_t dilation,
                          int64_t low, int64_t extent, Value* inside) {
      Value at = mlir::arith::AddIOp::create(
          nb, nloc, mlir::arith::MulIOp::create(nb, nloc, loop(position), index(stride)),
          mlir::arith::MulIOp::create(nb, nloc, loop(window), index(dilation)));
      at = mlir::arith::SubIOp::create(nb, nloc, at, index(low));
      Value above =
          mlir::arith::CmpIOp::create(nb, nloc, mlir::arith::CmpIPredicate::sge, at, index(0));
      Value below =
          mlir::arith::CmpIOp::create(nb, nloc, mlir::arith::CmpIPredicate::slt, at, index(extent));
      *inside = mlir::arith::AndIOp::create(nb, nloc, above, below);
      return at;
    };
    Value inside_h, inside_w;
    Value h = coordinate(4, 2, stride_h, dilation_h, low_h, height, &inside_h);
    Value w = coordinate(5, 3, stride_w, dilation_w, low_w, width, &inside_w);
    Value inside = mlir::arith::AndIOp::create(nb, nloc, inside_h, inside_w);
    // Never read outside the source: a coordinate outside reads 0 instead.
    // Each is clamped by its own bound only, so that along a row (q, the
    // innermost loop) the row's coordinate is invariant and the column's is
    // the loop's own: the CPU's loops over such a row then run about 4x
    // faster than with both clamped by the joint condition (measured on the
    // 56x56 3x3 layer's copy here).
    Value zero_index = index(0);
    Value safe_h = mlir::arith::SelectOp::create(nb, nloc, inside_h, h, zero_index);
    Value safe_w = mlir::arith::SelectOp::create(nb, nloc, inside_w, w, zero_index);
    Value element = mlir::tensor::ExtractOp::create(
        nb, nloc, source, mlir::ValueRange{loop(0), loop(1), safe_h, safe_w});
    Value zero =
        mlir::arith::ConstantOp::create(nb, nloc, nb.getZeroAttr(columns_type.getElementType()));
    mlir::linalg::YieldOp::create(
        nb, nloc, mlir::arith::SelectOp::create(nb, nloc, inside, element, zero).getResult());
  };
  return mlir::linalg::GenericOp::create(
             b, loc, columns_type, mlir::ValueRange{}, mlir::ValueRange{empty}, maps,
             llvm::SmallVector<mlir::utils::IteratorType>(6, mlir::utils::IteratorType::parallel),
             body)
      .getResult(0);
}

// A multiply-accumulate body: out + a * b.
void BuildMultiplyAdd(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange args) {
  Value product = mlir::arith::MulFOp::create(b, loc, args[0], args[1]);
  Value sum = mlir::arith::AddFOp::create(b, loc, args[2], product);
  mlir::linalg::YieldOp::create(b, loc, sum);
}

// Rewrites `conv` (static, a library contraction) into a matmul, through
// im2col unless its filter is 1x1 of stride 1; left as it is when im2col
// would need more than `im2col_max_pixels` output pixels.
void Rewrite(mlir::linalg::Conv2DNchwFchwOp conv, int64_t im2col_max_pixels) {
  auto x_type = llvm::cast<mlir::RankedTensorType>(conv.getInputs()[0].getType());
  auto w_type = llvm::cast<mlir::RankedTensorType>(conv.getInputs()[1].getType());
  auto y_type = llvm::cast<mlir::RankedTensorType>(conv.getResult(0).getType());
  const int64_t n = y_type.getDimSize(0), k = y_type.getDimSize(1), p = y_type.getDimSize(2),
                q = y_type.getDimSize(3);
  const int64_t c = w_type.getDimSize(1), r = w_type.getDimSize(2), s = w_type.getDimSize(3);
  const auto [stride_h, stride_w] = PairOf(conv.getStrides());
  const auto [dilation_h, dilation_w] = PairOf(conv.getDilations());
  const bool pointwise = r == 1 && s == 1 && stride_h == 1 && stride_w == 1;
  if (!pointwise && n * p * q > im2col_max_pixels) return;

  mlir::OpBuilder b(conv);
  mlir::MLIRContext* context = conv.getContext();
  const mlir::Location loc = conv.getLoc();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1], init = conv.getOutputs()[0];
  auto par = mlir::utils::IteratorType::parallel;
  auto red = mlir::utils::IteratorType::reduction;
  auto d = [&](unsigned i) { return mlir::getAffineDimExpr(i, context); };
  mlir::linalg::GenericOp matmul;
  if (pointwise) {
    // Loops (n, k, h, w, c).
    Value filter = mlir::tensor::CollapseShapeOp::create(
        b, loc, mlir::RankedTensorType::get({k, c}, w_type.getElementType()), w,
        llvm::ArrayRef<mlir::ReassociationIndices>{{0}, {1, 2, 3}});
    llvm::SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {d(1), d(4)}, context),
                                         AffineMap::get(5, 0, {d(0), d(4), d(2), d(3)}, context),
                                         AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, context)};
    matmul = mlir::linalg::GenericOp::create(
        b, loc, y_type, mlir::ValueRange{filter, x}, mlir::ValueRange{init}, maps,
        llvm::ArrayRef{par, par, par, par, red}, BuildMultiplyAdd);
  } else {
    // im2col, loops (n, c, r, s, p, q).
    auto columns_type = mlir::RankedTensorType::get({n, c, r, s, p, q}, x_type.getElementType());
    Value columns;
    if (mlir::tensor::PadOp pad = FoldablePad(x)) {
      columns =
          BuildPaddedColumns(b, loc, pad, columns_type, stride_h, stride_w, dilation_h, dilation_w);
    } else {
      Value empty = mlir::tensor::EmptyOp::create(b, loc, columns_type.getShape(),
                                                  columns_type.getElementType());
      llvm::SmallVector<AffineMap> copy_maps = {
          AffineMap::get(6, 0,
                         {d(0), d(1), d(4) * stride_h + d(2) * dilation_h,
                          d(5) * stride_w + d(3) * dilation_w},
                         context),
          AffineMap::getMultiDimIdentityMap(6, context)};
      auto copy = mlir::linalg::GenericOp::create(
          b, loc, columns_type, mlir::ValueRange{x}, mlir::ValueRange{empty}, copy_maps,
          llvm::SmallVector<mlir::utils::IteratorType>(6, par),
          [](mlir::OpBuilder& nb, mlir::Location nloc, mlir::ValueRange args) {
            mlir::linalg::YieldOp::create(nb, nloc, args[0]);
          });
      columns = copy.getResult(0);
    }
    // Loops (n, k, p, q, c, r, s).
    llvm::SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0, {d(1), d(4), d(5), d(6)}, context),
        AffineMap::get(7, 0, {d(0), d(4), d(5), d(6), d(2), d(3)}, context),
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, context)};
    matmul = mlir::linalg::GenericOp::create(
        b, loc, y_type, mlir::ValueRange{w, columns}, mlir::ValueRange{init}, maps,
        llvm::ArrayRef{par, par, par, par, red, red, red}, BuildMultiplyAdd);
  }
  if (mlir::Attribute choice = conv->getAttr("kiln.library")) {
    matmul->setAttr("kiln.library", choice);
  }
  conv.getResult(0).replaceAllUsesWith(matmul.getResult(0));
  conv.erase();
}

struct ConvolutionsToMatmulsPass
    : mlir::PassWrapper<ConvolutionsToMatmulsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ConvolutionsToMatmulsPass)
  ConvolutionsToMatmulsPass() = default;
  ConvolutionsToMatmulsPass(const ConvolutionsToMatmulsPass& other) : PassWrapper(other) {}
  explicit ConvolutionsToMatmulsPass(int64_t im2col_max_pixels) {
    im2col_max_pixels_ = im2col_max_pixels;
  }

  llvm::StringRef getArgument() const override { return "kiln-convolutions-to-matmuls"; }
  llvm::StringRef getDescription() const override {
    return "Rewrites the NCHW convolutions a library takes into matmuls (1x1 of stride 1 "
           "directly, small outputs through im2col), which a GEMM library does better";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::linalg::LinalgDialect,
                    mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::linalg::Conv2DNchwFchwOp> convolutions;
    getOperation().walk([&](mlir::linalg::Conv2DNchwFchwOp conv) {
      // Only hosts' convolutions: a kernel inside an executable is already
      // formed.
      if (!conv->getParentOfType<HAL::ExecutableSourceOp>() &&
          IsLibraryContraction(llvm::cast<mlir::linalg::LinalgOp>(conv.getOperation()))) {
        convolutions.push_back(conv);
      }
    });
    for (mlir::linalg::Conv2DNchwFchwOp conv : convolutions) Rewrite(conv, im2col_max_pixels_);
  }

 private:
  Option<int64_t> im2col_max_pixels_{
      *this, "im2col-max-pixels",
      llvm::cl::desc("Largest output (batch x height x width) a strided or RxS convolution is "
                     "rewritten for through im2col; 1x1 convolutions of stride 1 always are"),
      llvm::cl::init(kDefaultIm2colMaxPixels)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createConvolutionsToMatmulsPass(int64_t im2col_max_pixels) {
  return std::make_unique<ConvolutionsToMatmulsPass>(im2col_max_pixels);
}

}  // namespace kiln::compiler
