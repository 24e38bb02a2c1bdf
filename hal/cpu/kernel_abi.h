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
 *
 * Dispatch instrumentation (kiln-compile --instrument-dispatches; the same
 * ABI on every target). An instrumented export's layout ends in an
 * Instrumentation binding, `#hal.pipeline.binding<storage_buffer,
 * Instrumentation>`, and one more constant than its kernel uses: the
 * program binds the context's ring (below) as that last binding and passes
 * the dispatch site's id as that last constant. Each workgroup appends one
 * record: it claims a slot by atomically adding 1 to the header's `next`,
 * and writes its site id, workgroup id and the device clock when it began
 * and ended at records[slot % capacity] (nothing when capacity is 0). The
 * ring keeps the last `capacity` records. Clocks: cpu CLOCK_MONOTONIC in
 * ns (kiln_hal_instrument_now_ns), cuda %globaltimer in ns, vulkan the
 * device clock of VK_KHR_shader_clock in ticks. A hand-written kernel opts
 * in by declaring the binding and the constant; on the CPU:
 *
 *   int my_kernel(const kiln_hal_dispatch_state_t* state) {
 *     uint64_t start = kiln_hal_instrument_now_ns();
 *     ...the work...
 *     kiln_hal_instrument_record(state, start, kiln_hal_instrument_now_ns());
 *     return 0;
 *   }
 */
#ifndef KILN_HAL_CPU_KERNEL_ABI_H_
#define KILN_HAL_CPU_KERNEL_ABI_H_

#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/* The instrumentation ring: a 32-byte header, then `capacity` records. */
#define KILN_HAL_INSTRUMENT_RING_MAGIC 0x534E494Bu /* the bytes "KINS" */

typedef struct kiln_hal_instrument_ring_header {
  uint32_t next;        /* records claimed so far (kernels add 1 atomically) */
  uint32_t capacity;    /* records the ring holds, set by the runtime */
  uint32_t magic;       /* KILN_HAL_INSTRUMENT_RING_MAGIC, set by the runtime */
  uint32_t record_size; /* 32, set by the runtime */
  uint32_t reserved[4];
} kiln_hal_instrument_ring_header_t;

typedef struct kiln_hal_instrument_record {
  uint32_t site_id; /* the dispatch site: the instrumented export's last constant */
  uint32_t workgroup_id[3];
  uint64_t start; /* the device clock when the workgroup began */
  uint64_t end;   /* and when it ended */
} kiln_hal_instrument_record_t;

/* The CPU's instrumentation clock: CLOCK_MONOTONIC in nanoseconds (the
 * clock of C++'s std::chrono::steady_clock on Linux). */
static inline uint64_t kiln_hal_instrument_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Appends this workgroup's record to the ring bound last, with the site id
 * passed as the last constant (an instrumented export's layout). */
static inline void kiln_hal_instrument_record(const kiln_hal_dispatch_state_t* state,
                                              uint64_t start, uint64_t end) {
  if (state->binding_count == 0 || state->constant_count == 0) return;
  kiln_hal_instrument_ring_header_t* header =
      (kiln_hal_instrument_ring_header_t*)state->bindings[state->binding_count - 1];
  if (header->capacity == 0) return;
  uint32_t slot = __atomic_fetch_add(&header->next, 1u, __ATOMIC_RELAXED);
  kiln_hal_instrument_record_t* record =
      (kiln_hal_instrument_record_t*)(header + 1) + slot % header->capacity;
  record->site_id = state->constants[state->constant_count - 1];
  record->workgroup_id[0] = state->workgroup_id[0];
  record->workgroup_id[1] = state->workgroup_id[1];
  record->workgroup_id[2] = state->workgroup_id[2];
  record->start = start;
  record->end = end;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_HAL_CPU_KERNEL_ABI_H_ */
