#include "compiler/dispatch/strided_matmul.h"

#include "compiler/dialects/hal/hal_dialect.h"
#include "llvm/ADT/SmallBitVector.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace kiln::compiler {
namespace {

using mlir::Operation;
using mlir::Value;

llvm::SmallVector<int64_t> RowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape[d + 1];
  }
  return strides;
}

llvm::ArrayRef<int64_t> StaticShape(Value value) {
  return llvm::cast<mlir::ShapedType>(value.getType()).getShape();
}

// expand_shape: each source dimension splits into its group, row-major.
StridedLayout Expand(StridedLayout layout, llvm::ArrayRef<mlir::ReassociationIndices> groups,
                     llvm::ArrayRef<int64_t> result_shape) {
  llvm::SmallVector<int64_t> strides(result_shape.size());
  for (auto [source, group] : llvm::enumerate(groups)) {
    int64_t stride = layout.strides[source];
    for (int64_t d : llvm::reverse(group)) {
      strides[d] = stride;
      stride *= result_shape[d];
    }
  }
  layout.strides = std::move(strides);
  return layout;
}

// collapse_shape: each group merges into one dimension where its
// dimensions of more than one element are contiguous, outer to inner.
std::optional<StridedLayout> Collapse(StridedLayout layout,
                                      llvm::ArrayRef<mlir::ReassociationIndices> groups,
                                      llvm::ArrayRef<int64_t> source_shape) {
  llvm::SmallVector<int64_t> strides;
  for (const mlir::ReassociationIndices& group : groups) {
    std::optional<int64_t> innermost;  // The stride of the group's innermost long dimension.
    int64_t next = 0;                  // The stride the next long dimension out must have.
    for (int64_t d : llvm::reverse(group)) {
      if (source_shape[d] == 1) continue;
      if (innermost && layout.strides[d] != next) return std::nullopt;
      if (!innermost) innermost = layout.strides[d];
      next = layout.strides[d] * source_shape[d];
    }
    strides.push_back(innermost.value_or(1));
  }
  layout.strides = std::move(strides);
  return layout;
}

// The stride each loop of `map`'s operand steps by (nullopt: not read), or
// nullopt where a result is not a plain loop or a loop is read twice.
std::optional<llvm::SmallVector<std::optional<int64_t>>> LoopStrides(
    mlir::AffineMap map, llvm::ArrayRef<int64_t> strides) {
  if (map.getNumResults() != strides.size()) return std::nullopt;
  llvm::SmallVector<std::optional<int64_t>> loops(map.getNumDims());
  for (auto [expr, stride] : llvm::zip(map.getResults(), strides)) {
    auto dim = llvm::dyn_cast<mlir::AffineDimExpr>(expr);
    if (!dim || loops[dim.getPosition()]) return std::nullopt;
    loops[dim.getPosition()] = stride;
  }
  return loops;
}

// A group of loops as one dimension of an operand: kAbsent where the
// operand reads none of them (or the group is one element long), else the
// stride of its innermost loop.
struct GroupStride {
  enum { kAbsent, kStrided } kind = kAbsent;
  int64_t stride = 0;
};

// The group (outer to inner) as `strides` read it: every loop or none,
// each loop stepping over the ones inside it.
std::optional<GroupStride> StrideOfGroup(llvm::ArrayRef<unsigned> group,
                                         llvm::ArrayRef<std::optional<int64_t>> strides,
                                         llvm::ArrayRef<int64_t> ranges) {
  const int64_t read = llvm::count_if(group, [&](unsigned l) { return strides[l].has_value(); });
  if (read == 0) return GroupStride{};
  if (read != static_cast<int64_t>(group.size())) return std::nullopt;
  for (size_t i = 0; i + 1 < group.size(); ++i) {
    if (*strides[group[i]] != *strides[group[i + 1]] * ranges[group[i + 1]]) return std::nullopt;
  }
  return GroupStride{GroupStride::kStrided, *strides[group.back()]};
}

// A rows×cols matrix whose rows and columns step by `row` and `col` (absent
// where one element long): row-major with ld = the row stride, or (where
// `may_transpose`) stored transposed with ld = the column stride. The
// stored rows must not overlap (ld at least the stored row length).
std::optional<MatrixLayout> Matrix(GroupStride row, GroupStride col, int64_t rows, int64_t cols,
                                   bool may_transpose) {
  const bool col_unit = col.kind == GroupStride::kAbsent || col.stride == 1;
  const bool row_unit = row.kind == GroupStride::kAbsent || row.stride == 1;
  if (col_unit) {
    const int64_t ld = row.kind == GroupStride::kAbsent ? cols : row.stride;
    if (ld >= cols) return MatrixLayout{false, ld};
  }
  if (may_transpose && row_unit) {
    const int64_t ld = col.kind == GroupStride::kAbsent ? rows : col.stride;
    if (ld >= rows) return MatrixLayout{true, ld};
  }
  return std::nullopt;
}

int64_t Extent(llvm::ArrayRef<unsigned> group, llvm::ArrayRef<int64_t> ranges) {
  int64_t extent = 1;
  for (unsigned l : group) extent *= ranges[l];
  return extent;
}

// Orders `group` by `strides` (every loop read), outermost first; false
// where a loop is not read.
bool SortByStride(llvm::SmallVector<unsigned>& group,
                  llvm::ArrayRef<std::optional<int64_t>> strides) {
  for (unsigned l : group) {
    if (!strides[l]) return false;
  }
  llvm::stable_sort(group, [&](unsigned x, unsigned y) { return *strides[x] > *strides[y]; });
  return true;
}

struct Groups {
  llvm::SmallVector<unsigned> batch, m, n, k;
};

// The loop strides of A, B and D.
struct OperandStrides {
  llvm::SmallVector<std::optional<int64_t>> a, b, d;
};

std::optional<StridedMatmul> Assemble(Groups g, const OperandStrides& s,
                                      llvm::ArrayRef<int64_t> ranges, const StridedLayout& a,
                                      const StridedLayout& b, const StridedLayout& d) {
  if (!SortByStride(g.batch, s.d) || !SortByStride(g.m, s.d) || !SortByStride(g.n, s.d) ||
      !SortByStride(g.k, s.a)) {
    return std::nullopt;
  }
  StridedMatmul mm;
  mm.batch_count = Extent(g.batch, ranges);
  mm.m = Extent(g.m, ranges);
  mm.n = Extent(g.n, ranges);
  mm.k = Extent(g.k, ranges);
  auto stride = [&](llvm::ArrayRef<unsigned> group, llvm::ArrayRef<std::optional<int64_t>> of) {
    return StrideOfGroup(group, of, ranges);
  };
  std::optional<GroupStride> a_batch = stride(g.batch, s.a), a_m = stride(g.m, s.a),
                             a_k = stride(g.k, s.a), b_batch = stride(g.batch, s.b),
                             b_k = stride(g.k, s.b), b_n = stride(g.n, s.b),
                             d_batch = stride(g.batch, s.d), d_m = stride(g.m, s.d),
                             d_n = stride(g.n, s.d);
  if (!a_batch || !a_m || !a_k || !b_batch || !b_k || !b_n || !d_batch || !d_m || !d_n) {
    return std::nullopt;
  }
  // A reads no n loop, B no m loop (inferContractionDims' groups); the
  // result reads every group it has.
  if ((!g.batch.empty() && d_batch->kind == GroupStride::kAbsent) ||
      (!g.k.empty() && (a_k->kind == GroupStride::kAbsent || b_k->kind == GroupStride::kAbsent))) {
    return std::nullopt;
  }
  std::optional<MatrixLayout> ma = Matrix(*a_m, *a_k, mm.m, mm.k, /*may_transpose=*/true);
  std::optional<MatrixLayout> mb = Matrix(*b_k, *b_n, mm.k, mm.n, /*may_transpose=*/true);
  std::optional<MatrixLayout> md = Matrix(*d_m, *d_n, mm.m, mm.n, /*may_transpose=*/false);
  if (!ma || !mb || !md) return std::nullopt;
  // One batch: no strides (a library never steps).
  if (mm.batch_count > 1) {
    ma->batch_stride = a_batch->kind == GroupStride::kStrided ? a_batch->stride : 0;
    mb->batch_stride = b_batch->kind == GroupStride::kStrided ? b_batch->stride : 0;
    md->batch_stride = d_batch->stride;
  }
  ma->offset = a.offset;
  mb->offset = b.offset;
  md->offset = d.offset;
  mm.a = *ma;
  mm.b = *mb;
  mm.d = *md;
  mm.batch_loops = std::move(g.batch);
  mm.m_loops = std::move(g.m);
  mm.n_loops = std::move(g.n);
  return mm;
}

}  // namespace

std::optional<StridedLayout> RowMajorLayout(Value value) {
  auto type = llvm::dyn_cast<mlir::ShapedType>(value.getType());
  if (!type || !type.hasStaticShape()) return std::nullopt;
  return StridedLayout{value, 0, RowMajorStrides(type.getShape())};
}

std::optional<StridedLayout> StridedLayoutOf(Value value) {
  auto type = llvm::dyn_cast<mlir::ShapedType>(value.getType());
  if (!type || !type.hasStaticShape()) return std::nullopt;
  Operation* op = value.getDefiningOp();
  if (!op) return RowMajorLayout(value);
  if (auto slice = llvm::dyn_cast<mlir::tensor::ExtractSliceOp>(op)) {
    std::optional<StridedLayout> source = StridedLayoutOf(slice.getSource());
    if (!source) return std::nullopt;
    llvm::ArrayRef<int64_t> offsets = slice.getStaticOffsets(), steps = slice.getStaticStrides();
    if (llvm::any_of(offsets, mlir::ShapedType::isDynamic) ||
        llvm::any_of(steps, mlir::ShapedType::isDynamic) ||
        llvm::any_of(slice.getStaticSizes(), mlir::ShapedType::isDynamic)) {
      return std::nullopt;
    }
    const llvm::SmallBitVector dropped = slice.getDroppedDims();
    StridedLayout layout{source->base, source->offset, {}};
    for (size_t d = 0; d < offsets.size(); ++d) {
      layout.offset += offsets[d] * source->strides[d];
      if (!dropped.test(d)) layout.strides.push_back(source->strides[d] * steps[d]);
    }
    return layout;
  }
  if (llvm::isa<mlir::tensor::ExpandShapeOp, mlir::memref::ExpandShapeOp>(op)) {
    std::optional<StridedLayout> source = StridedLayoutOf(op->getOperand(0));
    if (!source) return std::nullopt;
    auto groups = llvm::isa<mlir::tensor::ExpandShapeOp>(op)
                      ? llvm::cast<mlir::tensor::ExpandShapeOp>(op).getReassociationIndices()
                      : llvm::cast<mlir::memref::ExpandShapeOp>(op).getReassociationIndices();
    return Expand(*source, groups, type.getShape());
  }
  if (llvm::isa<mlir::tensor::CollapseShapeOp, mlir::memref::CollapseShapeOp>(op)) {
    std::optional<StridedLayout> source = StridedLayoutOf(op->getOperand(0));
    if (!source) return std::nullopt;
    auto groups = llvm::isa<mlir::tensor::CollapseShapeOp>(op)
                      ? llvm::cast<mlir::tensor::CollapseShapeOp>(op).getReassociationIndices()
                      : llvm::cast<mlir::memref::CollapseShapeOp>(op).getReassociationIndices();
    return Collapse(*source, groups, StaticShape(op->getOperand(0)));
  }
  if (auto to_tensor = llvm::dyn_cast<mlir::bufferization::ToTensorOp>(op)) {
    return StridedLayoutOf(to_tensor.getBuffer());
  }
  if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
    auto memref = llvm::dyn_cast<mlir::MemRefType>(subspan.getType());
    if (!memref || !memref.getLayout().isIdentity()) return std::nullopt;
    if (Value offset = subspan.getByteOffset();
        offset && !mlir::matchPattern(offset, mlir::m_Zero())) {
      return std::nullopt;
    }
  }
  return RowMajorLayout(value);
}

std::optional<StridedMatmul> MatchStridedMatmul(mlir::linalg::LinalgOp op, const StridedLayout& a,
                                                const StridedLayout& b, const StridedLayout& d) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !mlir::linalg::isaContractionOpInterface(op)) {
    return std::nullopt;
  }
  mlir::FailureOr<mlir::linalg::ContractionDimensions> dims =
      mlir::linalg::inferContractionDims(op);
  if (mlir::failed(dims) || dims->k.empty()) return std::nullopt;
  const llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, mlir::ShapedType::isDynamic)) return std::nullopt;
  llvm::SmallVector<mlir::AffineMap> maps = op.getIndexingMapsArray();
  auto sa = LoopStrides(maps[0], a.strides), sb = LoopStrides(maps[1], b.strides),
       sd = LoopStrides(maps[2], d.strides);
  if (!sa || !sb || !sd) return std::nullopt;
  const OperandStrides strides{*sa, *sb, *sd};
  // Loops of one element select nothing: left out of every group.
  auto long_loops = [&](llvm::ArrayRef<unsigned> loops) {
    llvm::SmallVector<unsigned> out;
    for (unsigned l : loops) {
      if (ranges[l] != 1) out.push_back(l);
    }
    return out;
  };
  Groups groups{long_loops(dims->batch), long_loops(dims->m), long_loops(dims->n),
                long_loops(dims->k)};
  if (std::optional<StridedMatmul> mm = Assemble(groups, strides, ranges, a, b, d)) return mm;
  // A batch that one operand does not read is an m (or n) loop to
  // inferContractionDims: where the groups do not line up as they are, the
  // result's outermost loop of that group is the batch, B (or A) one matrix
  // for every batch.
  if (!groups.batch.empty()) return std::nullopt;
  for (bool from_m : {true, false}) {
    Groups broadcast = groups;
    llvm::SmallVector<unsigned>& group = from_m ? broadcast.m : broadcast.n;
    if (group.size() < 2 || !SortByStride(group, strides.d)) continue;
    broadcast.batch.assign(1, group.front());
    group.erase(group.begin());
    if (std::optional<StridedMatmul> mm = Assemble(broadcast, strides, ranges, a, b, d)) return mm;
  }
  return std::nullopt;
}

std::optional<MatrixLayout> ResultShapedLayout(const StridedMatmul& matmul,
                                               mlir::linalg::LinalgOp op, const StridedLayout& c) {
  auto strides = LoopStrides(op.getIndexingMapsArray()[2], c.strides);
  if (!strides) return std::nullopt;
  const llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<GroupStride> batch = StrideOfGroup(matmul.batch_loops, *strides, ranges),
                             rows = StrideOfGroup(matmul.m_loops, *strides, ranges),
                             cols = StrideOfGroup(matmul.n_loops, *strides, ranges);
  if (!batch || !rows || !cols) return std::nullopt;
  std::optional<MatrixLayout> layout =
      Matrix(*rows, *cols, matmul.m, matmul.n, /*may_transpose=*/false);
  if (!layout) return std::nullopt;
  if (matmul.batch_count > 1 && batch->kind == GroupStride::kStrided) {
    layout->batch_stride = batch->stride;
  }
  layout->offset = c.offset;
  return layout;
}

}  // namespace kiln::compiler
