#include "hal/cpu/onednn_matmul.h"

#include <vector>

#include "hal/cpu/onednn_call.h"

namespace kiln::hal::cpu {

namespace lib = ::kiln::schema::library;

Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnMatmul(Ref<OnednnLibrary> library,
                                                           const MatmulSpec& mm) {
  if (mm.element_type != lib::LibraryElementType::F32) {
    return UnimplementedError(mm.description + ": the CPU driver's oneDNN calls are f32 only");
  }
  const OnednnSymbols& s = library->symbols();
  const std::string& d = mm.description;
  const int64_t m = static_cast<int64_t>(mm.m), n = static_cast<int64_t>(mm.n),
                k = static_cast<int64_t>(mm.k);
  const bool batched = mm.batch_count > 1;
  // A matrix of `rows` x `cols` with row and column strides (a strided
  // operand's ld is one of them: the spec checked that its elements lie
  // inside the binding), batched with `batch_stride` (0: one matrix for
  // every batch, a batch dimension of 1).
  auto matrix = [&](int64_t rows, int64_t cols, uint64_t row_stride, uint64_t col_stride,
                    uint64_t batch_stride, const char* what) -> Result<dnnl_memory_desc_t> {
    const int64_t rs = static_cast<int64_t>(row_stride), cs = static_cast<int64_t>(col_stride);
    if (!batched) return PlainDesc(s, {rows, cols}, {rs, cs}, d + " " + what);
    const int64_t batch = batch_stride == 0 ? 1 : static_cast<int64_t>(mm.batch_count);
    // The one matrix's stride is never stepped: past its last element.
    const int64_t stride = batch_stride == 0 ? (rows - 1) * rs + (cols - 1) * cs + 1
                                             : static_cast<int64_t>(batch_stride);
    return PlainDesc(s, {batch, rows, cols}, {stride, rs, cs}, d + " " + what);
  };
  // A stored k x m when transposed: element (i, p) at p * lda + i.
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t a,
                        mm.transpose_a ? matrix(m, k, 1, mm.lda, mm.batch_stride_a, "(a)")
                                       : matrix(m, k, mm.lda, 1, mm.batch_stride_a, "(a)"));
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t b,
                        mm.transpose_b ? matrix(k, n, 1, mm.ldb, mm.batch_stride_b, "(b)")
                                       : matrix(k, n, mm.ldb, 1, mm.batch_stride_b, "(b)"));
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, matrix(m, n, mm.ldd, 1, mm.batch_stride_d, "(d)"));
  dnnl_memory_desc_t bias = {};  // Zero: no bias.
  if (mm.bias >= 0) {
    KILN_ASSIGN_OR_RETURN(bias, batched ? PlainDesc(s, {1, 1, n}, {n, n, 1}, d + " (bias)")
                                        : PlainDesc(s, {1, n}, {n, 1}, d + " (bias)"));
  }
  dnnl_matmul_desc_t op = {};
  Status described =
      s.Check(s.dnnl_matmul_desc_init(&op, &a, &b, mm.bias >= 0 ? &bias : nullptr, &dst),
              d + ": dnnl_matmul_desc_init");
  if (!described.ok()) return UnimplementedError(described.message());

  OnednnCallParams params;
  params.description = mm.description;
  params.required = mm.required;
  params.op_desc = &op;
  params.operands = {
      {DNNL_ARG_SRC, mm.a, a}, {DNNL_ARG_WEIGHTS, mm.b, b}, {DNNL_ARG_DST, mm.d, dst}};
  params.operands[0].offset_bytes = mm.offset_a * mm.element_bytes;
  params.operands[1].offset_bytes = mm.offset_b * mm.element_bytes;
  params.operands[2].offset_bytes = mm.offset_d * mm.element_bytes;
  params.result = 2;
  if (mm.bias >= 0) params.operands.push_back({DNNL_ARG_BIAS, mm.bias, bias});
  // C's own layout where it is not D (its batch stride may differ).
  dnnl_memory_desc_t c = dst;
  if (mm.c >= 0 && mm.c != mm.d) {
    KILN_ASSIGN_OR_RETURN(c, matrix(m, n, mm.ldc, 1, mm.batch_stride_c, "(c)"));
  }
  AppendEpilogue(params, mm.c, mm.d, c, mm.activation);
  if (params.addend >= 0)
    params.operands[params.addend].offset_bytes = mm.offset_c * mm.element_bytes;
  return CreateOnednnCall(std::move(library), std::move(params));
}

}  // namespace kiln::hal::cpu
