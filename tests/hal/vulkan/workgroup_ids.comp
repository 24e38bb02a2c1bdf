// Each workgroup writes its id (+1, so unwritten slots stay 0) and the
// number of workgroups to its own four words: out[linear id * 4 + 0..3].
#version 450

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) writeonly buffer Out { uint ids[]; };

void main() {
  uvec3 id = gl_WorkGroupID;
  uvec3 count = gl_NumWorkGroups;
  uint linear = id.x + count.x * (id.y + count.y * id.z);
  ids[linear * 4 + 0] = id.x + 1;
  ids[linear * 4 + 1] = id.y + 1;
  ids[linear * 4 + 2] = id.z + 1;
  ids[linear * 4 + 3] = count.x * count.y * count.z;
}
