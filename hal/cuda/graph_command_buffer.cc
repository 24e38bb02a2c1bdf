#include "hal/cuda/graph_command_buffer.h"

namespace kiln::hal::cuda {

GraphCommandBuffer::~GraphCommandBuffer() {
  DestroyGraph();
  if (capture_stream_ && context().MakeCurrent().ok()) {
    context().symbols().cuStreamDestroy(capture_stream_);
  }
}

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
  const utils::CommandList& list = command_list();
  for (size_t c = 0; c < list.size(); ++c) {
    const bool transfer = !std::holds_alternative<utils::DispatchCommand>(list[c]) &&
                          !std::holds_alternative<utils::BarrierCommand>(list[c]);
    if ((transfer || PlanOf(c) != nullptr) && uses_slots_[c]) return true;
  }
  return false;
}

Status GraphCommandBuffer::EndImpl() {
  KILN_RETURN_IF_ERROR(CudaCommandBuffer::EndImpl());
  const utils::CommandList& list = command_list();
  uses_slots_.resize(list.size());
  for (size_t c = 0; c < list.size(); ++c) uses_slots_[c] = list.UsesSlots(list[c]);
  built_at_first_submit_ = NeedsTableToBuild();
  if (built_at_first_submit_) return OkStatus();
  // Slots (if any) get address 0 until the first submit patches them.
  return Build({});
}

bool GraphCommandBuffer::Resolve(Node& node, std::span<const Ref<Buffer>> table) const {
  if (node.kind == NodeKind::kKernel || node.kind == NodeKind::kLibraryCall) {
    const auto& dispatch = std::get<utils::DispatchCommand>(command_list()[node.command]);
    bool changed = false;
    uint32_t i = 0;
    for (const BufferRef& binding : command_list().bindings(dispatch)) {
      const uint64_t address = Address(binding, table);
      changed |= node.values[i] != address;
      node.values[i++] = address;
    }
    return changed;
  }
  Transfer transfer;
  TransferOf(node.command, table, &transfer);
  if (node.kind == NodeKind::kMemset) {
    const bool changed = node.memset.dst != transfer.target;
    node.memset.dst = transfer.target;
    return changed;
  }
  const bool changed =
      node.memcpy.srcDevice != transfer.source || node.memcpy.dstDevice != transfer.target;
  node.memcpy.srcDevice = transfer.source;
  node.memcpy.dstDevice = transfer.target;
  return changed;
}

bool GraphCommandBuffer::ShapeChanged(std::span<const Ref<Buffer>> table) const {
  for (uint32_t c = 0; c < command_list().size(); ++c) {
    Transfer transfer;
    if (!uses_slots_[c] || !TransferOf(c, table, &transfer)) continue;
    if (transfer.length != built_lengths_[c]) return true;
  }
  return false;
}

Result<CUgraph> GraphCommandBuffer::CaptureLibraryCall(uint32_t command,
                                                       std::span<const Ref<Buffer>> table) {
  const CudaSymbols& s = context().symbols();
  if (!capture_stream_) {
    // Non-blocking: the capture must not join the legacy default stream.
    KILN_RETURN_IF_ERROR(context().Check(s.cuStreamCreate(&capture_stream_, CU_STREAM_NON_BLOCKING),
                                         "cuStreamCreate (library-call capture)"));
  }
  // Thread-local: another thread's unsafe CUDA calls (a synchronous copy)
  // do not invalidate this capture, only this thread's would.
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuStreamBeginCapture(capture_stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "cuStreamBeginCapture"));
  Status enqueued = EnqueueLibraryCall(command, table, capture_stream_);
  CUgraph captured = nullptr;
  // Ended even when the enqueue failed, so the stream is usable again.
  CUresult ended = s.cuStreamEndCapture(capture_stream_, &captured);
  if (enqueued.ok()) enqueued = context().Check(ended, "cuStreamEndCapture");
  if (!enqueued.ok()) {
    if (captured) s.cuGraphDestroy(captured);
    return enqueued;
  }
  return captured;
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
  const utils::CommandList& list = command_list();
  built_lengths_.assign(list.size(), 0);
  uint32_t c = 0;
  // Copies, fills and updates: memcpy and memset nodes.
  auto add_transfer = [&]() -> Status {
    Transfer transfer;
    TransferOf(c, table, &transfer);
    // CUDA has no empty memset/memcpy nodes: an empty transfer is
    // no node.
    built_lengths_[c] = transfer.length;
    if (transfer.length == 0) return OkStatus();
    Node& node = nodes_.emplace_back();
    node.command = c;
    if (transfer.fill) {
      node.kind = NodeKind::kMemset;
      CUDA_MEMSET_NODE_PARAMS& m = node.memset;
      m.dst = transfer.target;
      m.value = transfer.pattern;
      m.elementSize = transfer.pattern_length;
      m.width = transfer.length / transfer.pattern_length;
      m.height = 1;
      m.pitch = 0;
      KILN_RETURN_IF_ERROR(
          context().Check(s.cuGraphAddMemsetNode(&node.node, graph_, previous.data(),
                                                 previous.size(), &m, context().context()),
                          "cuGraphAddMemsetNode"));
    } else {
      node.kind = NodeKind::kMemcpy;
      CUDA_MEMCPY3D& m = node.memcpy;
      m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      m.srcDevice = transfer.source;
      m.dstDevice = transfer.target;
      m.WidthInBytes = transfer.length;
      m.Height = 1;
      m.Depth = 1;
      KILN_RETURN_IF_ERROR(
          context().Check(s.cuGraphAddMemcpyNode(&node.node, graph_, previous.data(),
                                                 previous.size(), &m, context().context()),
                          "cuGraphAddMemcpyNode"));
    }
    current.push_back(node.node);
    return OkStatus();
  };
  for (c = 0; c < list.size(); ++c) {
    Status added = std::visit(
        utils::Overloaded{
            [&](const utils::BarrierCommand&) -> Status {
              if (current.empty()) return OkStatus();
              if (current.size() > 1 && !previous.empty()) {
                // Join: later nodes get one edge instead of one per node here.
                CUgraphNode join = nullptr;
                KILN_RETURN_IF_ERROR(context().Check(
                    s.cuGraphAddEmptyNode(&join, graph_, current.data(), current.size()),
                    "cuGraphAddEmptyNode"));
                previous.assign(1, join);
              } else {
                previous = std::move(current);
              }
              current.clear();
              return OkStatus();
            },
            [&](const utils::DispatchCommand& dispatch) -> Status {
              if (PlanOf(c) != nullptr) {
                Node& node = nodes_.emplace_back();
                node.command = c;
                node.kind = NodeKind::kLibraryCall;
                node.values.assign(dispatch.bindings.count, 0);
                Resolve(node, table);
                KILN_ASSIGN_OR_RETURN(CUgraph child, CaptureLibraryCall(c, table));
                // The node embeds a copy of the child graph.
                Status added =
                    context().Check(s.cuGraphAddChildGraphNode(&node.node, graph_, previous.data(),
                                                               previous.size(), child),
                                    "cuGraphAddChildGraphNode");
                s.cuGraphDestroy(child);
                KILN_RETURN_IF_ERROR(added);
                current.push_back(node.node);
                return OkStatus();
              }
              Node& node = nodes_.emplace_back();
              node.command = c;
              node.kind = NodeKind::kKernel;
              const uint32_t params = dispatch.bindings.count + dispatch.constants.count;
              node.values.assign(params, 0);
              node.pointers.assign(params, nullptr);
              // Built at End, slots get address 0 until the first submit
              // patches them; constants are final.
              PackKernelParams(dispatch, table, node.values.data(), node.pointers.data());
              const CudaKernel& kernel = KernelOf(dispatch);
              const ExecutableExport& info =
                  dispatch.executable->export_at(dispatch.export_ordinal);
              CUDA_KERNEL_NODE_PARAMS& k = node.kernel;
              k.func = kernel.function;
              k.gridDimX = dispatch.workgroup_count[0];
              k.gridDimY = dispatch.workgroup_count[1];
              k.gridDimZ = dispatch.workgroup_count[2];
              k.blockDimX = info.workgroup_size[0];
              k.blockDimY = info.workgroup_size[1];
              k.blockDimZ = info.workgroup_size[2];
              k.sharedMemBytes = kernel.shared_memory_bytes;
              k.kernelParams = node.pointers.data();
              KILN_RETURN_IF_ERROR(context().Check(
                  s.cuGraphAddKernelNode(&node.node, graph_, previous.data(), previous.size(), &k),
                  "cuGraphAddKernelNode"));
              current.push_back(node.node);
              return OkStatus();
            },
            [&](const utils::CopyCommand&) { return add_transfer(); },
            [&](const utils::FillCommand&) { return add_transfer(); },
            [&](const utils::UpdateCommand&) { return add_transfer(); },
        },
        list[c]);
    KILN_RETURN_IF_ERROR(added);
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
  bool rebuild = !exec_ || (built_at_first_submit_ && ShapeChanged(binding_table));
  if (!rebuild && command_list().uses_slots()) {
    for (Node& node : nodes_) {
      if (!uses_slots_[node.command] || !Resolve(node, binding_table)) continue;
      CUresult result = CUDA_SUCCESS;
      switch (node.kind) {
        case NodeKind::kKernel:
          result = s.cuGraphExecKernelNodeSetParams(exec_, node.node, &node.kernel);
          break;
        case NodeKind::kMemset:
          result =
              s.cuGraphExecMemsetNodeSetParams(exec_, node.node, &node.memset, context().context());
          break;
        case NodeKind::kMemcpy:
          result =
              s.cuGraphExecMemcpyNodeSetParams(exec_, node.node, &node.memcpy, context().context());
          break;
        case NodeKind::kLibraryCall: {
          Result<CUgraph> child = CaptureLibraryCall(node.command, binding_table);
          if (!child.ok()) {
            DestroyGraph();  // The node already holds the new addresses.
            return child.status();
          }
          // The exec node takes the child's parameters; the child is ours.
          result = s.cuGraphExecChildGraphNodeSetParams(exec_, node.node, *child);
          s.cuGraphDestroy(*child);
          break;
        }
      }
      if (result != CUDA_SUCCESS && !IsStickyError(result) && node.kind != NodeKind::kKernel) {
        // CUDA may refuse to move a memset/memcpy to another kind of memory,
        // or a library call whose new capture has another topology.
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
