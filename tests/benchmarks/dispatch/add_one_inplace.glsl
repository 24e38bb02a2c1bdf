// Vulkan compute shader of the GPU dispatch benchmark: data[i] += 1 for i < n
// (kiln's Vulkan ABI: set 0 binding 0, the constant in the push-constant block).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer Data { float values[]; } data;
layout(push_constant) uniform Constants { uint n; } constants;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < constants.n) data.values[i] += 1.0;
}
