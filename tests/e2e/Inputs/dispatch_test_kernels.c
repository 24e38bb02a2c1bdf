/* CPU kernels for the end-to-end dispatch tests (tests/e2e/dispatch/), built
 * into dispatch_test_kernels.so. The same kernels exist for CUDA
 * (dispatch_test_kernels.cu, built to PTX) and Vulkan (glsl/<kernel>.glsl,
 * one SPIR-V module each) and compute exactly the same results: one IEEE
 * operation per float element, wrapping 32-bit integer arithmetic.
 *
 * Each handles workgroup_size[0] elements per workgroup; constants[0] is the
 * element count.
 *
 *   simple_mul         out = lhs * rhs
 *   simple_add         out = lhs + rhs
 *   simple_mul_inplace inout = inout * lhs
 *   mul_add            out0 = lhs * rhs, out1 = lhs + rhs (two results)
 *   scale_i32          out = in * constants[1] on i32 elements (wrapping)
 *   fail_on_negative   returns 7 from the workgroup that sees a negative
 *                      input; writes nothing. A GPU kernel cannot return a
 *                      status, so its CUDA and Vulkan versions only leave
 *                      the buffer as it is.
 */
#include <stdint.h>

#include "hal/cpu/kernel_abi.h"

int simple_mul(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* out = (float*)state->bindings[2];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = lhs[i] * rhs[i];
  return 0;
}

int simple_add(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* out = (float*)state->bindings[2];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = lhs[i] + rhs[i];
  return 0;
}

int simple_mul_inplace(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  float* inout = (float*)state->bindings[1];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) inout[i] = inout[i] * lhs[i];
  return 0;
}

int mul_add(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* product = (float*)state->bindings[2];
  float* sum = (float*)state->bindings[3];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    product[i] = lhs[i] * rhs[i];
    sum[i] = lhs[i] + rhs[i];
  }
  return 0;
}

int scale_i32(const kiln_hal_dispatch_state_t* state) {
  const int32_t* in = (const int32_t*)state->bindings[0];
  int32_t* out = (int32_t*)state->bindings[1];
  uint32_t factor = state->constants[1];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  /* Unsigned, so that overflow wraps as it does on the GPUs (signed overflow
   * is undefined in C). */
  for (uint32_t i = begin; i < end; ++i) out[i] = (int32_t)((uint32_t)in[i] * factor);
  return 0;
}

int fail_on_negative(const kiln_hal_dispatch_state_t* state) {
  const float* in = (const float*)state->bindings[0];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    if (in[i] < 0) return 7;
  }
  return 0;
}
