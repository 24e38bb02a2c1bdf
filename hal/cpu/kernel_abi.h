/* The CPU kernel ABI: what a kernel compiled into a shared object for kiln's
 * CPU driver receives.
 *
 * This header is C (it also compiles as C++) so that kernels can be written
 * in plain C and built by any toolchain:
 *
 *   #include "hal/cpu/kernel_abi.h"
 *   int simple_mul(const kiln_hal_dispatch_state_t* state) {
 *     const float* lhs = (const float*)state->bindings[0];
 *     const float* rhs = (const float*)state->bindings[1];
 *     float* out = (float*)state->bindings[2];
 *     uint32_t n = state->constants[0];
 *     uint32_t begin = state->workgroup_id[0] * state->workgroup_size[0];
 *     for (uint32_t i = begin; i < begin + state->workgroup_size[0] && i < n; ++i)
 *       out[i] = lhs[i] * rhs[i];
 *     return 0;
 *   }
 *
 * The driver calls the kernel once per workgroup, for every workgroup id in
 * [0, workgroup_count) along each dimension, possibly from several threads at
 * once and in any order (a kernel must not assume that workgroups run
 * sequentially). The workgroup size is the export's, from the executable's
 * export table: a CPU "workgroup" is one call, and the kernel loops over the
 * invocations of the workgroup itself.
 *
 * The state and everything it points to are valid only during the call.
 * bindings[i] points at the first byte of binding i's range (the buffer plus
 * the dispatch's offset), binding_lengths[i] is the range's length in bytes;
 * the binding and constant counts are those of the export's pipeline layout.
 *
 * Return 0 on success. Any other value fails the dispatch: the driver stops
 * starting new workgroups, and the submission's signal semaphores fail with
 * an error naming the export, the workgroup id and the returned value.
 */
#ifndef KILN_HAL_CPU_KERNEL_ABI_H_
#define KILN_HAL_CPU_KERNEL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_hal_dispatch_state {
  uint32_t workgroup_id[3];
  uint32_t workgroup_count[3];
  uint32_t workgroup_size[3];
  uint32_t constant_count;
  const uint32_t* constants;
  uint32_t binding_count;
  void* const* bindings;
  const size_t* binding_lengths;
} kiln_hal_dispatch_state_t;

/* One workgroup of an export; 0 = success. */
typedef int (*kiln_hal_kernel_fn)(const kiln_hal_dispatch_state_t* state);

/* The [*begin, *end) range of x invocations that this workgroup covers,
 * clipped to `count`: the loop bounds of a 1-D elementwise kernel, whose
 * workgroup i handles elements [i * size, (i + 1) * size). */
static inline void kiln_hal_workgroup_range_x(const kiln_hal_dispatch_state_t* state,
                                              uint32_t count, uint32_t* begin, uint32_t* end) {
  uint64_t first = (uint64_t)state->workgroup_id[0] * state->workgroup_size[0];
  uint64_t last = first + state->workgroup_size[0];
  *begin = (uint32_t)(first < count ? first : count);
  *end = (uint32_t)(last < count ? last : count);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_HAL_CPU_KERNEL_ABI_H_ */
