// data[i] = 3 * i for i < dim, instrumented by hand (hal/cpu/kernel_abi.h's
// instrumentation ABI): the ring is the last binding, the site id the last
// constant, and the workgroup's first invocation appends one record with
// the device clock (VK_KHR_shader_clock, GL_EXT_shader_realtime_clock) read
// at its start and, after the workgroup's barrier, at its end.
#version 450
#extension GL_EXT_shader_realtime_clock : require

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer Data { uint data[]; };
// kiln_hal_instrument_ring_header_t, then 8 words per record.
layout(set = 0, binding = 1) buffer Ring {
  uint next;
  uint capacity;
  uint magic;
  uint record_size;
  uint reserved[4];
  uint records[];
} ring;
layout(push_constant) uniform Constants {
  uint dim;
  uint site_id;
};

void main() {
  uvec2 start = clockRealtime2x32EXT();
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) data[i] = 3u * i;
  barrier();
  if (gl_LocalInvocationIndex == 0u && ring.capacity != 0u) {
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
}
