/* Kernels for the shared-object test: plain C against hal/cpu/kernel_abi.h,
 * compiled by CMake into a shared object as a user's toolchain would. */
#include "hal/cpu/kernel_abi.h"

/* out[i] = lhs[i] * rhs[i] for i < constants[0]; bindings lhs, rhs, out. */
int simple_mul(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* out = (float*)state->bindings[2];
  uint32_t n = state->constants[0];
  uint32_t begin = state->workgroup_id[0] * state->workgroup_size[0];
  for (uint32_t i = begin; i < begin + state->workgroup_size[0] && i < n; ++i) {
    out[i] = lhs[i] * rhs[i];
  }
  return 0;
}

/* rhs[i] *= lhs[i]; bindings lhs, rhs (in place); the element count comes
 * from the binding length. */
int simple_mul_inplace(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  float* rhs = (float*)state->bindings[1];
  size_t n = state->binding_lengths[1] / sizeof(float);
  size_t begin = (size_t)state->workgroup_id[0] * state->workgroup_size[0];
  for (size_t i = begin; i < begin + state->workgroup_size[0] && i < n; ++i) {
    rhs[i] *= lhs[i];
  }
  return 0;
}

/* Always fails with code 42. */
int always_fail(const kiln_hal_dispatch_state_t* state) {
  (void)state;
  return 42;
}

/* Writes -7.0f to every float of binding constants[0] (workgroup count 1):
 * the kernel of the library-call tests' exports, so a test sees whether the
 * call or the kernel ran. */
int fill_sentinel(const kiln_hal_dispatch_state_t* state) {
  uint32_t binding = state->constants[0];
  float* out = (float*)state->bindings[binding];
  size_t n = state->binding_lengths[binding] / sizeof(float);
  for (size_t i = 0; i < n; ++i) out[i] = -7.0f;
  return 0;
}
