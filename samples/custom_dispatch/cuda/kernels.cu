// Hand-authored CUDA kernels for samples/custom_dispatch/cuda, compiled by
// nvcc to PTX (one file per target architecture) that example.mlir declares
// as the objects of its executable.
//
// kiln's CUDA dispatch ABI (DESIGN.md): the kernel parameters are the binding
// device pointers in the order of the export's pipeline layout, then the
// 32-bit constants; the block size is the export's workgroup_size. Kernels
// are extern "C" so their PTX .entry names are the export names.

// binding2 = binding0 * binding1
extern "C" __global__ void simple_mul(const float* __restrict__ binding0,
                                      const float* __restrict__ binding1,
                                      float* __restrict__ binding2, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding2[tid] = binding0[tid] * binding1[tid];
}

// binding2 = binding0 + binding1
extern "C" __global__ void simple_add(const float* __restrict__ binding0,
                                      const float* __restrict__ binding1,
                                      float* __restrict__ binding2, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding2[tid] = binding0[tid] + binding1[tid];
}

// binding1 *= binding0, in place
extern "C" __global__ void simple_mul_inplace(const float* __restrict__ binding0,
                                              float* __restrict__ binding1, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding1[tid] *= binding0[tid];
}

// Dispatch instrumentation by hand (the ABI is in hal/cpu/kernel_abi.h and
// is the same on every target): an instrumented export's layout ends in an
// Instrumentation binding, which the program binds to the context's ring, and
// one more constant, the dispatch site's id. The block's first thread appends
// one record per block: the site id, the block id, and %globaltimer (ns) when
// the block began and, after every thread is done, when it ended.
#include "hal/cpu/kernel_abi.h"

__device__ unsigned long long GlobalTimerNs() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// binding2 = binding0 * binding1, recording into `ring` as site `site_id`.
extern "C" __global__ void simple_mul_instrumented(const float* __restrict__ binding0,
                                                   const float* __restrict__ binding1,
                                                   float* __restrict__ binding2,
                                                   kiln_hal_instrument_ring_header_t* ring,
                                                   int dim, unsigned site_id) {
  const unsigned long long start = GlobalTimerNs();
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding2[tid] = binding0[tid] * binding1[tid];
  __syncthreads();
  if (threadIdx.x != 0 || threadIdx.y != 0 || threadIdx.z != 0 || ring->capacity == 0) return;
  const unsigned slot = atomicAdd(&ring->next, 1u) % ring->capacity;
  kiln_hal_instrument_record_t* record =
      reinterpret_cast<kiln_hal_instrument_record_t*>(ring + 1) + slot;
  record->site_id = site_id;
  record->workgroup_id[0] = blockIdx.x;
  record->workgroup_id[1] = blockIdx.y;
  record->workgroup_id[2] = blockIdx.z;
  record->start = start;
  record->end = GlobalTimerNs();
}
