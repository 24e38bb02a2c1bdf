// CUDA kernels for the end-to-end dispatch tests (tests/e2e/dispatch/),
// compiled by nvcc to dispatch_test_kernels_sm_75.ptx. They compute exactly
// what dispatch_test_kernels.c computes (see there for the list).
//
// kiln's CUDA dispatch ABI (DESIGN.md): the parameters are the binding
// device pointers in layout order, then the 32-bit constants (constants[0]
// is the element count); the block size is the export's workgroup_size.
// extern "C" keeps the PTX .entry names equal to the export names.
#include <stdint.h>

__device__ uint32_t GlobalIndex() { return blockDim.x * blockIdx.x + threadIdx.x; }

extern "C" __global__ void simple_mul(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs, float* __restrict__ out,
                                      uint32_t n) {
  const uint32_t i = GlobalIndex();
  // __fmul_rn: one correctly rounded multiply, never contracted.
  if (i < n) out[i] = __fmul_rn(lhs[i], rhs[i]);
}

extern "C" __global__ void simple_add(const float* __restrict__ lhs,
                                      const float* __restrict__ rhs, float* __restrict__ out,
                                      uint32_t n) {
  const uint32_t i = GlobalIndex();
  if (i < n) out[i] = __fadd_rn(lhs[i], rhs[i]);
}

extern "C" __global__ void simple_mul_inplace(const float* __restrict__ lhs,
                                              float* __restrict__ inout, uint32_t n) {
  const uint32_t i = GlobalIndex();
  if (i < n) inout[i] = __fmul_rn(inout[i], lhs[i]);
}

extern "C" __global__ void mul_add(const float* __restrict__ lhs, const float* __restrict__ rhs,
                                   float* __restrict__ product, float* __restrict__ sum,
                                   uint32_t n) {
  const uint32_t i = GlobalIndex();
  if (i < n) {
    product[i] = __fmul_rn(lhs[i], rhs[i]);
    sum[i] = __fadd_rn(lhs[i], rhs[i]);
  }
}

extern "C" __global__ void scale_i32(const int32_t* __restrict__ in, int32_t* __restrict__ out,
                                     uint32_t n, uint32_t factor) {
  const uint32_t i = GlobalIndex();
  // Unsigned, so that overflow wraps (as in the C and GLSL versions).
  if (i < n) out[i] = static_cast<int32_t>(static_cast<uint32_t>(in[i]) * factor);
}

// A GPU kernel cannot fail a dispatch the way the CPU one returns 7: this
// one only leaves its buffer as it is (the test that expects the failure
// runs on the CPU only).
extern "C" __global__ void fail_on_negative(float* __restrict__ inout, uint32_t n) {
  (void)inout;
  (void)n;
}
