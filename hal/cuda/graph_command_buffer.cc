#include "hal/cuda/graph_command_buffer.h"

#include <algorithm>
#include <utility>

#include "hal/utils/dispatch_spans.h"

namespace kiln::hal::cuda {

// What the GraphCache keeps of a one-shot command buffer's graph: the
// instantiated graph with its nodes' last parameters, and the library-call
// captures, which stay valid for whoever adopts the graph next (the
// captures' workspace ids say whose workspace they use).
struct GraphCommandBuffer::CachedGraph final : GraphCache::Entry {
  explicit CachedGraph(Ref<const CudaContext> context) : context(std::move(context)) {}
  ~CachedGraph() override {
    // A launch still running keeps what it uses: CUDA frees an exec
    // destroyed in flight when the launch completes.
    if (!context->MakeCurrent().ok()) return;
    const CudaSymbols& s = context->symbols();
    if (graph.exec) s.cuGraphExecDestroy(graph.exec);
    if (graph.graph) s.cuGraphDestroy(graph.graph);
    for (std::vector<Capture>& cache : captures) {
      for (Capture& capture : cache) s.cuGraphDestroy(capture.graph);
    }
  }

  Ref<const CudaContext> context;
  Graph graph;
  std::vector<std::vector<Capture>> captures;  // Per command, as captures_.
  // The channels whose communicators the collectives' captures embed:
  // released after the graph and the captures (members go after the
  // destructor's body), and keeping the channel addresses the key names.
  std::vector<Ref<NcclChannel>> channels;
};

GraphCommandBuffer::~GraphCommandBuffer() {
  DestroyGraph(plain_);
  DestroyGraph(other_plain_);
  DestroyGraph(traced_);
  ClearCaptures();
  if (!context().MakeCurrent().ok()) return;
  const CudaSymbols& s = context().symbols();
  // After the graphs that record them. Lent sets are given back before the
  // command buffer can go (each timer holds a reference to it); a launch
  // still running may record them: CUDA frees pending events once they
  // complete.
  for (TimingEvents& set : timing_sets_) {
    for (CUevent event : set.events) s.cuEventDestroy(event);
  }
  if (capture_stream_) s.cuStreamDestroy(capture_stream_);
}

void GraphCommandBuffer::DestroyGraph(Graph& g) {
  if (!g.graph && !g.exec) return;
  if (context().MakeCurrent().ok()) {
    const CudaSymbols& s = context().symbols();
    if (g.exec) s.cuGraphExecDestroy(g.exec);
    if (g.graph) s.cuGraphDestroy(g.graph);
  }
  g.exec = nullptr;
  g.graph = nullptr;
  g.nodes.clear();
  g.event_nodes.clear();
  g.span_names.clear();
  g.event_set = kNoEventSet;
  g.slot_addresses.clear();
  // A rebuild starts from fresh captures.
  ClearCaptures();
}

void GraphCommandBuffer::ClearCaptures() {
  bool any = false;
  for (const std::vector<Capture>& cache : captures_) any = any || !cache.empty();
  if (!any) return;
  const bool current = context().MakeCurrent().ok();
  for (std::vector<Capture>& cache : captures_) {
    if (current) {
      for (Capture& capture : cache) context().symbols().cuGraphDestroy(capture.graph);
    }
    cache.clear();
  }
}

bool GraphCommandBuffer::NeedsTableToBuild() const {
  const utils::CommandList& list = command_list();
  for (size_t c = 0; c < list.size(); ++c) {
    // Transfers and collectives (every kind but dispatches and barriers),
    // and dispatches that run a library call.
    const bool addressed = !std::holds_alternative<utils::DispatchCommand>(list[c]) &&
                           !std::holds_alternative<utils::BarrierCommand>(list[c]);
    if ((addressed || PlanOf(c) != nullptr) && slot_masks_[c] != 0) return true;
  }
  return false;
}

Status GraphCommandBuffer::EndImpl() {
  KILN_RETURN_IF_ERROR(CudaCommandBuffer::EndImpl());
  const utils::CommandList& list = command_list();
  slot_masks_.assign(list.size(), 0);
  timed_count_ = 0;
  for (size_t c = 0; c < list.size(); ++c) {
    list.ForEachRef(list[c], [&](const BufferRef& ref) {
      if (ref.is_slot()) slot_masks_[c] |= SlotBit(ref.slot);
    });
    timed_count_ += std::holds_alternative<utils::DispatchCommand>(list[c]) ||
                    std::holds_alternative<utils::CollectiveCommand>(list[c]);
  }
  captures_.resize(list.size());
  // A capture embeds the workspace's address: tagged so that only this
  // command buffer reuses it once it travels with a cached graph. Without
  // a cache captures never travel, and any tag will do.
  workspace_id_ = 0;
  if (workspace_bytes() != 0)
    workspace_id_ = one_shot_cache_ ? one_shot_cache_->NewWorkspaceId() : 1;
  built_at_first_submit_ = NeedsTableToBuild();
  // A one-shot graph comes from the cache, or is built, at the submit.
  if (built_at_first_submit_ || one_shot_cache_) return OkStatus();
  // Slots (if any) get address 0 until the first submit patches them.
  return Build(plain_, {}, kNoEventSet);
}

bool GraphCommandBuffer::Resolve(Node& node, std::span<const Ref<Buffer>> table) const {
  if (node.kind == NodeKind::kKernel || node.kind == NodeKind::kCaptured) {
    // A dispatch's bindings (the first kernel parameters); a collective's
    // send and recv.
    bool changed = false;
    uint32_t i = 0;
    command_list().ForEachRef(command_list()[node.command], [&](const BufferRef& ref) {
      const uint64_t address = Address(ref, table);
      changed |= node.values[i] != address;
      node.values[i++] = address;
    });
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

void GraphCommandBuffer::SlotAddresses(std::span<const Ref<Buffer>> table,
                                       std::vector<CUdeviceptr>* out) {
  out->resize(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    const Buffer* buffer = table[i].get();
    // Validated at submit: a slot's buffer is this device's (CudaBuffer).
    (*out)[i] = buffer == nullptr
                    ? 0
                    : static_cast<const CudaBuffer*>(buffer->allocated_buffer())->device_pointer() +
                          buffer->byte_offset();
  }
}

bool GraphCommandBuffer::ResolveAdopted(Node& node, std::span<const Ref<Buffer>> table) const {
  bool changed = Resolve(node, table);
  if (node.kind != NodeKind::kKernel) return changed;
  // The constants follow the bindings among the kernel's parameters
  // (PackKernelParams).
  const auto& dispatch = std::get<utils::DispatchCommand>(command_list()[node.command]);
  size_t p = dispatch.bindings.count;
  for (uint32_t constant : command_list().constants(dispatch)) {
    changed |= node.values[p] != constant;
    node.values[p++] = constant;
  }
  return changed;
}

bool GraphCommandBuffer::ShapeChanged(const Graph& g, std::span<const Ref<Buffer>> table) const {
  for (uint32_t c = 0; c < command_list().size(); ++c) {
    Transfer transfer;
    if (slot_masks_[c] == 0 || !TransferOf(c, table, &transfer)) continue;
    if (transfer.length != g.built_lengths[c]) return true;
  }
  return false;
}

Result<CUgraph> GraphCommandBuffer::CaptureNode(uint32_t command,
                                                std::span<const Ref<Buffer>> table) {
  const CudaSymbols& s = context().symbols();
  if (!capture_stream_) {
    // Non-blocking: the capture must not join the legacy default stream.
    KILN_RETURN_IF_ERROR(context().Check(s.cuStreamCreate(&capture_stream_, CU_STREAM_NON_BLOCKING),
                                         "cuStreamCreate (the capture stream)"));
  }
  const bool collective = std::holds_alternative<utils::CollectiveCommand>(command_list()[command]);
  // Thread-local: another thread's unsafe CUDA calls (a synchronous copy)
  // do not invalidate this capture, only this thread's would (NCCL makes
  // its own allocations under capture in relaxed mode).
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuStreamBeginCapture(capture_stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "cuStreamBeginCapture"));
  Status enqueued = collective ? EnqueueCollective(command, table, capture_stream_)
                               : EnqueueLibraryCall(command, table, capture_stream_);
  CUgraph captured = nullptr;
  // Ended even when the enqueue failed, so the stream is usable again.
  CUresult ended = s.cuStreamEndCapture(capture_stream_, &captured);
  if (enqueued.ok()) enqueued = context().Check(ended, "cuStreamEndCapture");
  if (!enqueued.ok()) {
    if (captured) s.cuGraphDestroy(captured);
    return enqueued;
  }
  ++(collective ? collective_captures_ : library_captures_);
  return captured;
}

Result<CUgraph> GraphCommandBuffer::CapturedNode(uint32_t command,
                                                 std::span<const uint64_t> addresses,
                                                 std::span<const Ref<Buffer>> table) {
  std::vector<Capture>& cache = captures_[command];
  const uint64_t workspace_id = CaptureWorkspaceId(command);
  for (size_t i = 0; i < cache.size(); ++i) {
    if (cache[i].workspace_id != workspace_id ||
        !std::equal(addresses.begin(), addresses.end(), cache[i].addresses.begin(),
                    cache[i].addresses.end())) {
      continue;
    }
    // Most recently used first.
    std::rotate(cache.begin(), cache.begin() + static_cast<ptrdiff_t>(i),
                cache.begin() + static_cast<ptrdiff_t>(i) + 1);
    return cache.front().graph;
  }
  KILN_ASSIGN_OR_RETURN(CUgraph graph, CaptureNode(command, table));
  if (cache.size() == kLibraryCaptureCacheSize) {
    context().symbols().cuGraphDestroy(cache.back().graph);
    cache.pop_back();
  }
  cache.insert(cache.begin(), Capture{std::vector<uint64_t>(addresses.begin(), addresses.end()),
                                      workspace_id, graph});
  return graph;
}

Result<size_t> GraphCommandBuffer::AcquireEventSet() {
  // The set the traced graph holds first: no event node to re-point.
  if (traced_.event_set != kNoEventSet && !timing_sets_[traced_.event_set].lent) {
    return traced_.event_set;
  }
  for (size_t i = 0; i < timing_sets_.size(); ++i) {
    if (!timing_sets_[i].lent) return i;
  }
  const CudaSymbols& s = context().symbols();
  TimingEvents& set = timing_sets_.emplace_back();
  // Timing events: the timer reads the elapsed time between them.
  set.events.reserve(2 * timed_count_);
  for (size_t i = 0; i < 2 * timed_count_; ++i) {
    CUevent event = nullptr;
    Status created = context().Check(s.cuEventCreate(&event, CU_EVENT_DEFAULT),
                                     "cuEventCreate (dispatch timing in a graph)");
    if (!created.ok()) {
      for (CUevent e : set.events) s.cuEventDestroy(e);
      timing_sets_.pop_back();
      return created;
    }
    set.events.push_back(event);
  }
  return timing_sets_.size() - 1;
}

Status GraphCommandBuffer::Build(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set) {
  DestroyGraph(g);
  KILN_RETURN_IF_ERROR(context().health());
  KILN_RETURN_IF_ERROR(context().MakeCurrent());
  const CudaSymbols& s = context().symbols();
  KILN_RETURN_IF_ERROR(context().Check(s.cuGraphCreate(&g.graph, 0), "cuGraphCreate"));
  const bool traced = event_set != kNoEventSet;
  // Dependencies: `previous` are the nodes every new node waits for (the
  // group before the last barrier, or its join node); `current` the nodes
  // recorded since that barrier.
  std::vector<CUgraphNode> previous, current;
  const utils::CommandList& list = command_list();
  g.built_lengths.assign(list.size(), 0);
  uint32_t c = 0;
  // Copies, fills and updates: memcpy and memset nodes.
  auto add_transfer = [&]() -> Status {
    Transfer transfer;
    TransferOf(c, table, &transfer);
    // CUDA has no empty memset/memcpy nodes: an empty transfer is
    // no node.
    g.built_lengths[c] = transfer.length;
    if (transfer.length == 0) return OkStatus();
    Node& node = g.nodes.emplace_back();
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
          context().Check(s.cuGraphAddMemsetNode(&node.node, g.graph, previous.data(),
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
          context().Check(s.cuGraphAddMemcpyNode(&node.node, g.graph, previous.data(),
                                                 previous.size(), &m, context().context()),
                          "cuGraphAddMemcpyNode"));
    }
    current.push_back(node.node);
    return OkStatus();
  };
  // A timed node (a dispatch or a collective), added by `add` after
  // `deps`; in the traced graph between a begin and an end event-record
  // node, the end taking the node's place for what follows, the span named
  // by `span_name()`.
  auto add_timed = [&](std::span<const CUgraphNode> deps, Node& node, const auto& span_name,
                       const auto& add) -> Status {
    if (!traced) {
      KILN_RETURN_IF_ERROR(add(deps.data(), deps.size()));
      current.push_back(node.node);
      return OkStatus();
    }
    const std::vector<CUevent>& events = timing_sets_[event_set].events;
    const size_t pair = g.span_names.size();
    CUgraphNode begin = nullptr, end = nullptr;
    KILN_RETURN_IF_ERROR(context().Check(
        s.cuGraphAddEventRecordNode(&begin, g.graph, deps.data(), deps.size(), events[2 * pair]),
        "cuGraphAddEventRecordNode (before a dispatch)"));
    KILN_RETURN_IF_ERROR(add(&begin, 1));
    KILN_RETURN_IF_ERROR(context().Check(
        s.cuGraphAddEventRecordNode(&end, g.graph, &node.node, 1, events[2 * pair + 1]),
        "cuGraphAddEventRecordNode (after a dispatch)"));
    g.event_nodes.push_back(begin);
    g.event_nodes.push_back(end);
    g.span_names.push_back(span_name());
    current.push_back(end);
    return OkStatus();
  };
  auto add_dispatch = [&](const utils::DispatchCommand& dispatch, Node& node,
                          const auto& add) -> Status {
    return add_timed(
        previous, node,
        [&] { return utils::DispatchSpanName(*dispatch.executable, dispatch.export_ordinal); },
        add);
  };
  // The collective node added last since the last barrier (the next one
  // runs after it), and the next one's dependencies.
  CUgraphNode last_collective = nullptr;
  std::vector<CUgraphNode> collective_deps;
  for (c = 0; c < list.size(); ++c) {
    Status added = std::visit(
        utils::Overloaded{
            [&](const utils::BarrierCommand&) -> Status {
              // What follows the barrier runs after every node before it.
              last_collective = nullptr;
              if (current.empty()) return OkStatus();
              if (current.size() > 1 && !previous.empty()) {
                // Join: later nodes get one edge instead of one per node here.
                CUgraphNode join = nullptr;
                KILN_RETURN_IF_ERROR(context().Check(
                    s.cuGraphAddEmptyNode(&join, g.graph, current.data(), current.size()),
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
                Node& node = g.nodes.emplace_back();
                node.command = c;
                node.kind = NodeKind::kCaptured;
                node.values.assign(dispatch.bindings.count, 0);
                Resolve(node, table);
                KILN_ASSIGN_OR_RETURN(CUgraph child, CapturedNode(c, node.values, table));
                return add_dispatch(dispatch, node, [&](const CUgraphNode* deps, size_t count) {
                  // The node embeds a copy of the child graph.
                  return context().Check(
                      s.cuGraphAddChildGraphNode(&node.node, g.graph, deps, count, child),
                      "cuGraphAddChildGraphNode");
                });
              }
              Node& node = g.nodes.emplace_back();
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
              return add_dispatch(dispatch, node, [&](const CUgraphNode* deps, size_t count) {
                return context().Check(s.cuGraphAddKernelNode(&node.node, g.graph, deps, count, &k),
                                       "cuGraphAddKernelNode");
              });
            },
            [&](const utils::CopyCommand&) { return add_transfer(); },
            [&](const utils::FillCommand&) { return add_transfer(); },
            [&](const utils::UpdateCommand&) { return add_transfer(); },
            [&](const utils::CollectiveCommand& collective) -> Status {
              Node& node = g.nodes.emplace_back();
              node.command = c;
              node.kind = NodeKind::kCaptured;
              node.values.assign(2, 0);  // Send and recv.
              Resolve(node, table);
              KILN_ASSIGN_OR_RETURN(CUgraph child, CapturedNode(c, node.values, table));
              // After the collective before it (the header says why).
              collective_deps.assign(previous.begin(), previous.end());
              if (last_collective != nullptr) collective_deps.push_back(last_collective);
              KILN_RETURN_IF_ERROR(add_timed(
                  collective_deps, node, [&] { return DescribeCollective(collective.op); },
                  [&](const CUgraphNode* deps, size_t count) {
                    return context().Check(
                        s.cuGraphAddChildGraphNode(&node.node, g.graph, deps, count, child),
                        "cuGraphAddChildGraphNode (a collective)");
                  }));
              last_collective = node.node;
              return OkStatus();
            },
        },
        list[c]);
    KILN_RETURN_IF_ERROR(added);
  }
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuGraphInstantiateWithFlags(&g.exec, g.graph, 0),
                      traced ? "cuGraphInstantiate (the traced graph)" : "cuGraphInstantiate"));
  ++(traced ? traced_instantiations_ : plain_instantiations_);
  if (!traced) plain_node_count_ = g.nodes.size();
  g.event_set = event_set;
  g.workspace_id = workspace_id_;
  // Uploading now keeps the first launch from paying for it.
  KILN_RETURN_IF_ERROR(
      context().Check(s.cuGraphUpload(g.exec, context().stream()), "cuGraphUpload"));
  return OkStatus();
}

Result<CUresult> GraphCommandBuffer::SetNodeParams(Graph& g, Node& node,
                                                   std::span<const Ref<Buffer>> table) {
  const CudaSymbols& s = context().symbols();
  switch (node.kind) {
    case NodeKind::kKernel:
      return s.cuGraphExecKernelNodeSetParams(g.exec, node.node, &node.kernel);
    case NodeKind::kMemset:
      return s.cuGraphExecMemsetNodeSetParams(g.exec, node.node, &node.memset, context().context());
    case NodeKind::kMemcpy:
      return s.cuGraphExecMemcpyNodeSetParams(g.exec, node.node, &node.memcpy, context().context());
    case NodeKind::kCaptured: {
      KILN_ASSIGN_OR_RETURN(CUgraph child, CapturedNode(node.command, node.values, table));
      // The exec node takes a copy of the child's nodes; the cache keeps
      // the child for the next time these addresses come back.
      return s.cuGraphExecChildGraphNodeSetParams(g.exec, node.node, child);
    }
  }
  return CUDA_ERROR_INVALID_VALUE;  // Unreachable: every kind is handled.
}

Status GraphCommandBuffer::Prepare(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set) {
  bool rebuild = !g.exec || (built_at_first_submit_ && ShapeChanged(g, table));
  // The nodes hold the addresses of the last table this graph ran: only
  // those of the slots whose address changed (lengths were checked above)
  // can change. A model called on the same input, output and arena patches
  // nothing (nor one whose output alternates between two buffers: each has
  // its graph, SelectPlainGraph). slot_scratch_ holds the table's addresses.
  uint64_t changed = 0;
  for (size_t i = 0; i < slot_scratch_.size(); ++i) {
    if (i >= g.slot_addresses.size() || slot_scratch_[i] != g.slot_addresses[i]) {
      changed |= SlotBit(i);
    }
  }
  if (!rebuild && changed != 0) {
    for (Node& node : g.nodes) {
      if ((slot_masks_[node.command] & changed) == 0 || !Resolve(node, table)) continue;
      Result<CUresult> set = SetNodeParams(g, node, table);
      if (!set.ok()) {
        DestroyGraph(g);  // The node already holds the new addresses.
        return set.status();
      }
      const CUresult result = *set;
      if (result != CUDA_SUCCESS && !IsStickyError(result) && node.kind != NodeKind::kKernel) {
        // CUDA may refuse to move a memset/memcpy to another kind of memory,
        // or a library call whose capture has another topology.
        rebuild = true;
        break;
      }
      Status patched = context().Check(result, "patching a graph node's buffer addresses");
      if (!patched.ok()) {
        // The nodes already hold the new addresses: the next Issue must not
        // take the graph for patched. It is built again instead.
        DestroyGraph(g);
        return patched;
      }
      ++patched_nodes_;
    }
  }
  if (rebuild) KILN_RETURN_IF_ERROR(Build(g, table, event_set));
  g.slot_addresses.swap(slot_scratch_);
  return OkStatus();
}

std::optional<GraphCache::Key> GraphCommandBuffer::StructureKey(
    std::span<const Ref<Buffer>> table) const {
  // One kind word per command, then what a patch cannot change about its
  // node. The kind words keep commands of different kinds from reading
  // alike; barriers are their kind word only.
  GraphCache::Key key;
  const utils::CommandList& list = command_list();
  for (uint32_t c = 0; c < list.size(); ++c) {
    key.Add(list[c].index());
    if (const auto* dispatch = std::get_if<utils::DispatchCommand>(&list[c])) {
      // The executable and ordinal decide the kernel (function, block size,
      // shared memory, parameter count) and the library call; whether the
      // call was planned (or its kernel runs) is this command buffer's.
      key.AddExecutable(dispatch->executable);
      key.Add(uint64_t{dispatch->export_ordinal} << 1 | (PlanOf(c) != nullptr));
      key.Add(uint64_t{dispatch->workgroup_count[0]} << 32 | dispatch->workgroup_count[1]);
      key.Add(dispatch->workgroup_count[2]);
      continue;
    }
    if (const auto* collective = std::get_if<utils::CollectiveCommand>(&list[c])) {
      // The capture embeds the channel's communicator, the op and the
      // counts; only the addresses are patched (captured again). The entry
      // keeps the channel (CachedGraph::channels), so its address names it.
      key.Add(reinterpret_cast<uintptr_t>(collective->channel.get()));
      const CollectiveOp& op = collective->op;
      key.Add(uint64_t{static_cast<uint8_t>(op.kind)} << 40 |
              uint64_t{static_cast<uint8_t>(op.reduction)} << 32 |
              static_cast<uint32_t>(op.element_type));
      key.Add(uint64_t{static_cast<uint32_t>(op.send_rank)} << 32 |
              static_cast<uint32_t>(op.recv_rank));
      key.Add(collective->element_count);
      continue;
    }
    Transfer transfer;
    if (!TransferOf(c, table, &transfer)) continue;  // A barrier.
    // Memset/memcpy nodes cannot change length (and an empty transfer has
    // no node); a memset's pattern is its value and element size.
    key.Add(transfer.length);
    if (transfer.fill) key.Add(uint64_t{transfer.pattern} << 32 | transfer.pattern_length);
    // Nor the kind of memory they read and write. CUDA accepts a memcpy or
    // memset node patched to another pinned host or managed allocation,
    // but the patched graph then faults or writes where the first
    // allocation was (on the H100 and H200: kernels failing with
    // CUDA_ERROR_LAUNCH_FAILED and segfaults in the e2e tests that read
    // results back, in graph mode only), so such a command list takes no
    // key. Device and pool memory patch cleanly; they stay apart in the key.
    bool host_memory = false;
    list.ForEachRef(list[c], [&](const BufferRef& ref) {
      const utils::ResolvedRef resolved = utils::CommandList::Resolve(ref, table);
      const auto* allocation =
          resolved.buffer == nullptr
              ? nullptr
              : static_cast<const CudaBuffer*>(resolved.buffer->allocated_buffer());
      if (allocation == nullptr) {
        key.Add(0);
        return;
      }
      host_memory |= allocation->kind() == CudaBuffer::Kind::kManaged ||
                     allocation->kind() == CudaBuffer::Kind::kPinnedHost;
      key.Add(1 + static_cast<uint64_t>(allocation->kind()));
    });
    if (host_memory) return std::nullopt;
  }
  return key;
}

void GraphCommandBuffer::DropForeignCaptures() {
  const bool current = context().MakeCurrent().ok();
  for (uint32_t c = 0; c < captures_.size(); ++c) {
    const uint64_t workspace_id = CaptureWorkspaceId(c);
    std::erase_if(captures_[c], [&](Capture& capture) {
      if (capture.workspace_id == workspace_id) return false;
      if (current) context().symbols().cuGraphDestroy(capture.graph);
      return true;
    });
  }
}

Result<bool> GraphCommandBuffer::PatchAdopted(Graph& g, std::span<const Ref<Buffer>> table) {
  // Library-call nodes that run another workspace's captures are set to
  // this command buffer's, whatever their addresses (a collective's capture
  // embeds no workspace).
  const bool foreign_captures = g.workspace_id != workspace_id_;
  for (Node& node : g.nodes) {
    const bool changed = ResolveAdopted(node, table);
    const bool foreign =
        foreign_captures && node.kind == NodeKind::kCaptured && PlanOf(node.command) != nullptr;
    if (!changed && !foreign) continue;
    KILN_ASSIGN_OR_RETURN(const CUresult result, SetNodeParams(g, node, table));
    if (result != CUDA_SUCCESS) {
      // A lost device fails the submit; any other refusal (another kind of
      // memory, a capture of another topology) means building afresh.
      if (IsStickyError(result)) {
        return context().Check(result, "patching a cached graph's node");
      }
      return false;
    }
    ++patched_nodes_;
  }
  g.workspace_id = workspace_id_;
  return true;
}

Status GraphCommandBuffer::LaunchPlain() {
  if (plain_.nodes.empty()) return OkStatus();
  return context().Check(context().symbols().cuGraphLaunch(plain_.exec, context().stream()),
                         "cuGraphLaunch");
}

Status GraphCommandBuffer::IssueOneShot(std::span<const Ref<Buffer>> table) {
  KILN_RETURN_IF_ERROR(context().health());
  KILN_RETURN_IF_ERROR(CheckChannels());
  KILN_RETURN_IF_ERROR(context().MakeCurrent());
  std::optional<GraphCache::Key> key = StructureKey(table);
  if (!key) {
    // Built for this submit alone, and destroyed with the command buffer.
    if (!plain_.exec) KILN_RETURN_IF_ERROR(Build(plain_, table, kNoEventSet));
    return LaunchPlain();
  }
  if (std::unique_ptr<GraphCache::Entry> entry = one_shot_cache_->Take(*key)) {
    auto& cached = static_cast<CachedGraph&>(*entry);
    // Nothing was built at End: plain_ and captures_ are empty. The entry
    // is left empty, so destroying it destroys nothing adopted.
    plain_ = std::exchange(cached.graph, Graph{});
    captures_ = std::exchange(cached.captures, {});
    DropForeignCaptures();
    Result<bool> patched = PatchAdopted(plain_, table);
    // Nodes already hold this submit's parameters: the graph is not
    // reusable as it is. Built afresh below (or, on an error, never).
    if (!patched.ok() || !*patched) DestroyGraph(plain_);
    if (!patched.ok()) return patched.status();
    adopted_cached_graph_ = *patched;
    plain_node_count_ = plain_.nodes.size();
  }
  if (!plain_.exec) KILN_RETURN_IF_ERROR(Build(plain_, table, kNoEventSet));
  KILN_RETURN_IF_ERROR(LaunchPlain());
  // Patching never affects a launch already enqueued (CUDA's rule): the next
  // command buffer of this structure may take the graph and patch it now.
  auto cached = std::make_unique<CachedGraph>(Ref<const CudaContext>(&context()));
  cached->channels.assign(collective_channels().begin(), collective_channels().end());
  cached->graph = std::exchange(plain_, Graph{});
  cached->captures =
      std::exchange(captures_, std::vector<std::vector<Capture>>(command_list().size()));
  one_shot_cache_->Put(std::move(*key), std::move(cached));
  return OkStatus();
}

bool GraphCommandBuffer::SameAddresses(std::span<const CUdeviceptr> a,
                                       std::span<const CUdeviceptr> b) {
  // A few slots: a loop here touches less code than memcmp (vector's ==).
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool GraphCommandBuffer::SelectPlainGraph(std::span<const Ref<Buffer>> table) {
  // Only a graph that has run a table of this size can be compared with
  // it; one built at End holds no addresses yet and is patched.
  if (!plain_.exec || plain_.slot_addresses.size() != table.size()) return false;
  if (SameAddresses(slot_scratch_, plain_.slot_addresses)) return true;
  if (!other_plain_.exec) {
    // The first change of addresses: the graph that ran the old ones is
    // kept, and this table gets a graph of its own (Prepare builds the
    // empty one swapped in).
    swap(plain_, other_plain_);
    return false;
  }
  // The graph whose addresses differ in fewer slots (none: the other one
  // holds this table) is patched; on a tie, the one run last.
  auto differing = [&](const Graph& g) {
    if (g.slot_addresses.size() != slot_scratch_.size()) return slot_scratch_.size() + 1;
    size_t count = 0;
    for (size_t i = 0; i < slot_scratch_.size(); ++i) {
      count += slot_scratch_[i] != g.slot_addresses[i];
    }
    return count;
  };
  const size_t other_differs = differing(other_plain_);
  if (other_differs < differing(plain_)) swap(plain_, other_plain_);
  return other_differs == 0;
}

Status GraphCommandBuffer::Issue(std::span<const Ref<Buffer>> binding_table) {
  if (one_shot_cache_) return IssueOneShot(binding_table);
  // A failed channel's communicator is gone: its captures must not run.
  KILN_RETURN_IF_ERROR(CheckChannels());
  SlotAddresses(binding_table, &slot_scratch_);  // Once, for both steps.
  // A model called on the same buffers, or one whose output alternates
  // between two (the other graph), finds a graph that holds the table's
  // addresses: it is launched as it is, unless a shape may have changed.
  if (!SelectPlainGraph(binding_table) ||
      (built_at_first_submit_ && ShapeChanged(plain_, binding_table))) {
    KILN_RETURN_IF_ERROR(Prepare(plain_, binding_table, kNoEventSet));
  }
  return LaunchPlain();
}

Status GraphCommandBuffer::IssueTraced(std::span<const Ref<Buffer>> binding_table,
                                       CudaDispatchTimer& timer) {
  // Nothing to time: the plain graph (fills and copies only).
  if (timed_count_ == 0) return Issue(binding_table);
  KILN_RETURN_IF_ERROR(CheckChannels());
  const CudaSymbols& s = context().symbols();
  KILN_ASSIGN_OR_RETURN(const size_t set, AcquireEventSet());
  // A first build records `set` already; otherwise its events are pointed
  // at it below.
  SlotAddresses(binding_table, &slot_scratch_);
  KILN_RETURN_IF_ERROR(Prepare(traced_, binding_table, set));
  const std::vector<CUevent>& events = timing_sets_[set].events;
  if (traced_.event_set != set) {
    for (size_t i = 0; i < traced_.event_nodes.size(); ++i) {
      Status pointed = context().Check(
          s.cuGraphExecEventRecordNodeSetEvent(traced_.exec, traced_.event_nodes[i], events[i]),
          "cuGraphExecEventRecordNodeSetEvent (dispatch timing)");
      if (!pointed.ok()) {
        // Some nodes record the new set, some the old: built afresh next time.
        DestroyGraph(traced_);
        return pointed;
      }
    }
    traced_.event_set = set;
  }
  KILN_RETURN_IF_ERROR(context().Check(s.cuGraphLaunch(traced_.exec, context().stream()),
                                       "cuGraphLaunch (the traced graph)"));
  // Lent until the timer has read them; the reference keeps the events (and
  // this command buffer) alive that long. The timer is resolved or dropped
  // under the queue's lock, as Issue runs: no race on `lent`.
  timing_sets_[set].lent = true;
  timer.AddGraphDispatches(traced_.span_names, events, [self = Ref<GraphCommandBuffer>(this), set] {
    self->timing_sets_[set].lent = false;
  });
  return OkStatus();
}

}  // namespace kiln::hal::cuda
