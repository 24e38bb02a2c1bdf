// ret = lhs * rhs, for i < dim, instrumented by hand.
//
// Dispatch instrumentation (its ABI is in hal/cpu/kernel_abi.h and is the
// same on every target): an instrumented export's layout ends in an
// Instrumentation binding, which the program binds to the context's ring,
// and one more push constant, the dispatch site's id. The workgroup's first
// invocation appends one record: the site id, the workgroup id, and the
// device clock (VK_KHR_shader_clock: GL_EXT_shader_realtime_clock's
// clockRealtime2x32EXT, in device ticks) when the workgroup began and, after
// its barrier, when it ended. kiln enables the device clock where the Vulkan
// device offers it, and refuses the shader where it does not.
#version 450
#extension GL_EXT_shader_realtime_clock : require

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) readonly buffer Rhs { float rhs[]; };
layout(set = 0, binding = 2) writeonly buffer Ret { float ret[]; };
// kiln_hal_instrument_ring_header_t, then records of 8 words:
// site id, workgroup id x, y, z, start (low, high), end (low, high).
layout(set = 0, binding = 3) buffer Ring {
  uint next;
  uint capacity;
  uint magic;
  uint record_size;
  uint reserved[4];
  uint records[];
} ring;

layout(push_constant) uniform Constants {
  int dim;
  uint site_id;
};

void main() {
  uvec2 start = clockRealtime2x32EXT();
  int i = int(gl_GlobalInvocationID.x);
  if (i < dim) ret[i] = lhs[i] * rhs[i];
  barrier();
  if (gl_LocalInvocationIndex != 0u || ring.capacity == 0u) return;
  uvec2 end = clockRealtime2x32EXT();
  uint base = (atomicAdd(ring.next, 1u) % ring.capacity) * 8u;
  ring.records[base + 0u] = site_id;
  ring.records[base + 1u] = gl_WorkGroupID.x;
  ring.records[base + 2u] = gl_WorkGroupID.y;
  ring.records[base + 3u] = gl_WorkGroupID.z;
  ring.records[base + 4u] = start.x;
  ring.records[base + 5u] = start.y;
  ring.records[base + 6u] = end.x;
  ring.records[base + 7u] = end.y;
}
