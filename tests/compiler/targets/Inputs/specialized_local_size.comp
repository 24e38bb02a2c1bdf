// A GLSL compute shader whose workgroup size is a specialization constant
// (default 32 x 1 x 1): glslc emits it through a spec constant composite
// decorated BuiltIn WorkgroupSize, which overrides the LocalSize mode.
#version 450
layout(local_size_x_id = 0) in;
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; };
void main() { values[gl_GlobalInvocationID.x] += 1u; }
