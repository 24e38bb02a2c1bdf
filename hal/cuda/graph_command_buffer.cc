#include "hal/cuda/graph_command_buffer.h"

namespace kiln::hal::cuda {

GraphCommandBuffer::~GraphCommandBuffer() { DestroyGraph(); }

void GraphCommandBuffer::DestroyGraph() {
  if (!graph_ && !exec_) return;
  if (context().MakeCurrent().ok()) {
    const CudaSymbols& s = context().symbols();
    if (exec_) s.cuGraphExecDestroy(exec_);
    if (graph_) s.cuGraphDestroy(graph_);
  }
  exec_ = nullptr;
  graph_ = nullptr;
  nodes_.clear();
}

bool GraphCommandBuffer::NeedsTableToBuild() const {
  for (const Command& command : commands_) {
    const bool transfer =
        command.kind == Command::Kind::kFill || command.kind == Command::Kind::kCopy;
    if (transfer && command.uses_slots) return true;
  }
  return false;
}

Status GraphCommandBuffer::EndImpl() {
  transfers_use_slots_ = NeedsTableToBuild();
  if (transfers_use_slots_) return OkStatus();  // Built at the first submit.
  // Slots (if any) get address 0 until the first submit patches them.
  return Build({});
}

bool GraphCommandBuffer::Resolve(Node& node, std::span<const Ref<Buffer>> table) const {
  const Command& command = commands_[node.command];
  switch (command.kind) {
    case Command::Kind::kDispatch: {
      bool changed = false;
      for (uint32_t i = 0; i < command.binding_count; ++i) {
        const Range& range = ranges_[command.first_range + i];
        const uint64_t address = Address(range, table);
        changed |= node.values[i] != address;
        node.values[i] = address;
      }
      return changed;
    }
    case Command::Kind::kFill: {
      const Range& target = ranges_[command.first_range];
      const CUdeviceptr dst = Address(target, table);
      const bool changed = node.memset.dst != dst;
      node.memset.dst = dst;
      return changed;
    }
    case Command::Kind::kCopy: {
      const Range& source = ranges_[command.first_range];
      const Range& target = ranges_[command.first_range + 1];
      const CUdeviceptr src = Address(source, table);
      const CUdeviceptr dst = Address(target, table);
      const bool changed = node.memcpy.srcDevice != src || node.memcpy.dstDevice != dst;
      node.memcpy.srcDevice = src;
      node.memcpy.dstDevice = dst;
      return changed;
    }
    case Command::Kind::kBarrier:
      break;
  }
  return false;
}

bool GraphCommandBuffer::ShapeChanged(std::span<const Ref<Buffer>> table) const {
  for (uint32_t c = 0; c < commands_.size(); ++c) {
    const Command& command = commands_[c];
    if (!command.uses_slots || command.length != kWholeBuffer) continue;
    if (command.kind != Command::Kind::kFill && command.kind != Command::Kind::kCopy) continue;
    if (ResolvedLength(command, table) != built_lengths_[c]) return true;
  }
  return false;
}

Status GraphCommandBuffer::Build(std::span<const Ref<Buffer>> table) {
  DestroyGraph();
  KILN_RETURN_IF_ERROR(context().health());
  KILN_RETURN_IF_ERROR(context().MakeCurrent());
  const CudaSymbols& s = context().symbols();
  KILN_RETURN_IF_ERROR(context().Check(s.cuGraphCreate(&graph_, 0), "cuGraphCreate"));
  // Dependencies: `previous` are the nodes every new node waits for (the
  // group before the last barrier, or its join node); `current` the nodes
  // recorded since that barrier.
  std::vector<CUgraphNode> previous, current;
  built_lengths_.assign(commands_.size(), 0);
  for (uint32_t c = 0; c < commands_.size(); ++c) {
    const Command& command = commands_[c];
    if (command.kind == Command::Kind::kBarrier) {
      if (current.empty()) continue;
      if (current.size() > 1 && !previous.empty()) {
        // Join: later nodes get one edge instead of one per node here.
        CUgraphNode join = nullptr;
        KILN_RETURN_IF_ERROR(
            context().Check(s.cuGraphAddEmptyNode(&join, graph_, current.data(), current.size()),
                            "cuGraphAddEmptyNode"));
        previous.assign(1, join);
      } else {
        previous = std::move(current);
      }
      current.clear();
      continue;
    }
    size_t length = 0;
    if (command.kind == Command::Kind::kFill || command.kind == Command::Kind::kCopy) {
      // CUDA has no empty memset/memcpy nodes: an empty transfer is no node.
      length = built_lengths_[c] = ResolvedLength(command, table);
      if (length == 0) continue;
    }
    Node& node = nodes_.emplace_back();
    node.command = c;
    if (command.kind != Command::Kind::kDispatch) Resolve(node, table);  // Addresses.
    switch (command.kind) {
      case Command::Kind::kDispatch: {
        const uint32_t params = command.binding_count + command.constant_count;
        node.values.assign(params, 0);
        node.pointers.assign(params, nullptr);
        // Built at End, slots get address 0 until the first submit patches
        // them; constants are final.
        PackKernelParams(command, table, node.values.data(), node.pointers.data());
        CUDA_KERNEL_NODE_PARAMS& k = node.kernel;
        k.func = command.function;
        k.gridDimX = command.grid[0];
        k.gridDimY = command.grid[1];
        k.gridDimZ = command.grid[2];
        k.blockDimX = command.block[0];
        k.blockDimY = command.block[1];
        k.blockDimZ = command.block[2];
        k.sharedMemBytes = command.shared_memory_bytes;
        k.kernelParams = node.pointers.data();
        KILN_RETURN_IF_ERROR(context().Check(
            s.cuGraphAddKernelNode(&node.node, graph_, previous.data(), previous.size(), &k),
            "cuGraphAddKernelNode"));
        break;
      }
      case Command::Kind::kFill: {
        CUDA_MEMSET_NODE_PARAMS& m = node.memset;
        m.value = command.pattern;
        m.elementSize = command.pattern_length;
        m.width = length / command.pattern_length;
        m.height = 1;
        m.pitch = 0;
        KILN_RETURN_IF_ERROR(
            context().Check(s.cuGraphAddMemsetNode(&node.node, graph_, previous.data(),
                                                   previous.size(), &m, context().context()),
                            "cuGraphAddMemsetNode"));
        break;
      }
      case Command::Kind::kCopy: {
        CUDA_MEMCPY3D& m = node.memcpy;
        m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.WidthInBytes = length;
        m.Height = 1;
        m.Depth = 1;
        KILN_RETURN_IF_ERROR(
            context().Check(s.cuGraphAddMemcpyNode(&node.node, graph_, previous.data(),
                                                   previous.size(), &m, context().context()),
                            "cuGraphAddMemcpyNode"));
        break;
      }
      case Command::Kind::kBarrier:
        break;
    }
    current.push_back(node.node);
  }
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuGraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiate"));
  ++instantiations_;
  // Uploading now keeps the first launch from paying for it.
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuGraphUpload(exec_, context().stream()), "cuGraphUpload"));
  return OkStatus();
}

Status GraphCommandBuffer::Issue(std::span<const Ref<Buffer>> binding_table) {
  const CudaSymbols& s = context().symbols();
  bool rebuild = !exec_ || (transfers_use_slots_ && ShapeChanged(binding_table));
  if (!rebuild && uses_slots_) {
    for (Node& node : nodes_) {
      const Command& command = commands_[node.command];
      if (!command.uses_slots || !Resolve(node, binding_table)) continue;
      CUresult result = CUDA_SUCCESS;
      switch (command.kind) {
        case Command::Kind::kDispatch:
          result = s.cuGraphExecKernelNodeSetParams(exec_, node.node, &node.kernel);
          break;
        case Command::Kind::kFill:
          result =
              s.cuGraphExecMemsetNodeSetParams(exec_, node.node, &node.memset, context().context());
          break;
        case Command::Kind::kCopy:
          result =
              s.cuGraphExecMemcpyNodeSetParams(exec_, node.node, &node.memcpy, context().context());
          break;
        case Command::Kind::kBarrier:
          break;
      }
      if (result != CUDA_SUCCESS && !IsStickyError(result) &&
          command.kind != Command::Kind::kDispatch) {
        // CUDA may refuse to move a memset/memcpy to another kind of memory.
        rebuild = true;
        break;
      }
      Status patched = context().Check(result, "patching a graph node's buffer addresses");
      if (!patched.ok()) {
        // The nodes already hold the new addresses: the next Issue must not
        // take the graph for patched. It is built again instead.
        DestroyGraph();
        return patched;
      }
      ++patched_nodes_;
    }
  }
  if (rebuild) KILN_RETURN_IF_ERROR(Build(binding_table));
  if (nodes_.empty()) return OkStatus();
  return context().Check(s.cuGraphLaunch(exec_, context().stream()), "cuGraphLaunch");
}

}  // namespace kiln::hal::cuda
