// A GLSL compute shader with a fixed workgroup size, compiled by glslc at
// build time: spirv_module_info_test reads its entry point ("main") and
// LocalSize (16, 2, 1) back from real compiler output.
#version 450
layout(local_size_x = 16, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer Data { float values[]; };
void main() { values[gl_GlobalInvocationID.x] *= 2.0; }
