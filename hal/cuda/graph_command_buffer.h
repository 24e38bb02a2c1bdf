// GraphCommandBuffer: a command buffer executed as a CUDA graph, recorded
// once and replayed (the CUDA driver's default).
//
// The executor of the command list that translates it into graph nodes:
// kernel nodes for dispatches, memset nodes for fills, memcpy nodes for
// copies and updates. Execution
// barriers become dependency edges: every node depends on the nodes
// recorded between the two barriers before it (through one empty join node
// when both groups have several), so the dispatches between two barriers
// may run concurrently rather than as a chain.
//
// The graph is built and instantiated once: at End, or, when a fill or copy
// uses a binding-table slot (CUDA checks memset/memcpy node addresses, and
// the slot's size may decide the length), at the first submit. Each submit of a reusable command
// buffer resolves the binding table and patches, in the instantiated graph, only the nodes whose
// addresses changed since the last launch (cuGraphExecKernelNodeSetParams; memset/memcpy nodes
// likewise), resolving only the nodes of the slots whose address changed; the graph is rebuilt
// only if a slot's size changes what a fill or copy covers, or CUDA refuses a memset/memcpy patch
// (a different kind of memory). Patching never affects launches already enqueued (CUDA's rule),
// so no wait is needed between submits.
//
// A dispatch that runs a library call (library_call.h) becomes a child-graph
// node: the call is captured (cuStreamBeginCapture, thread-local mode, on a
// stream the command buffer owns) into a graph that the node embeds, with
// the same dependencies as a kernel node. The library's launches are not
// known to kiln, so a call's captures are cached by its bindings'
// addresses: per library-call dispatch, the last kLibraryCaptureCacheSize
// captures (least recently used evicted). A binding address that changes
// between submits sets the node to the cached capture of the new addresses
// (cuGraphExecChildGraphNodeSetParams; one patched node), capturing the
// call only on a miss: a model called in a loop whose output alternates
// between two buffers captures twice, not at every call. If CUDA refuses
// the patch (the capture's topology differs), the graph is rebuilt. A call
// using a slot is captured only with real addresses: such a graph is built
// at the first submit. The cache is emptied whenever a graph is destroyed
// (a rebuild, a failed patch), and with the command buffer.
//
// Traced submissions (IssueTraced; hal/trace.h) launch a second graph: the
// same nodes and dependencies, plus an event-record node before and after
// each dispatch and library-call node (the node depends on its begin event,
// and what depended on the node depends on its end event instead). It is
// built the first time the command buffer is submitted traced, kept, and
// patched like the plain graph (each graph holds its own nodes' last
// parameters; both share the capture cache). Its events are timing events
// the command buffer owns, in sets of one event per event-record node: a
// traced launch takes a free set (creating one when every set is lent to
// a submission whose times are still unread), points the event nodes at it
// (cuGraphExecEventRecordNodeSetEvent) when the graph holds another set,
// and lends it to the submission's CudaDispatchTimer, which gives it back
// once it has read the times (cuda_dispatch_timer.h). Untraced submits
// launch the plain graph only.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "hal/cuda/cuda_command_buffer.h"

namespace kiln::hal::cuda {

class GraphCommandBuffer final : public CudaCommandBuffer {
 public:
  // Captures kept per library-call dispatch: a loop alternating between two
  // output buffers needs two, a few more cover ping-pong over several.
  static constexpr size_t kLibraryCaptureCacheSize = 4;

  GraphCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode)
      : CudaCommandBuffer(std::move(context), mode) {}
  ~GraphCommandBuffer() override;

  Status Issue(std::span<const Ref<Buffer>> binding_table) override;
  Status IssueTraced(std::span<const Ref<Buffer>> binding_table, CudaDispatchTimer& timer) override;

  // Statistics for tests and benchmarks.
  // Builds (instantiations) of the plain graph and of the traced graph.
  uint64_t instantiation_count() const { return plain_.instantiations; }
  uint64_t traced_instantiation_count() const { return traced_.instantiations; }
  // Nodes patched with new binding addresses, in either graph (a library
  // call's node set to another capture counts as one; event nodes pointed
  // at another event set do not count).
  uint64_t patched_node_count() const { return patched_nodes_; }
  // Library calls captured into child graphs (cache misses), for either
  // graph.
  uint64_t library_capture_count() const { return library_captures_; }
  // Event sets created for traced launches (one per traced submission in
  // flight at once, at most).
  size_t timing_event_set_count() const { return timing_sets_.size(); }
  // Nodes of the plain graph (its event-record nodes aside, the traced
  // graph has as many).
  size_t node_count() const { return plain_.nodes.size(); }

 private:
  Status EndImpl() override;

  // One node per non-barrier command, with the parameters last given to
  // its instantiated graph.
  enum class NodeKind : uint8_t { kKernel, kMemset, kMemcpy, kLibraryCall };
  struct Node {
    uint32_t command = 0;
    NodeKind kind = NodeKind::kKernel;
    CUgraphNode node = nullptr;
    CUDA_KERNEL_NODE_PARAMS kernel = {};
    // Kernel parameter values; a library call's binding addresses.
    std::vector<uint64_t> values;
    std::vector<void*> pointers;  // → values.
    CUDA_MEMSET_NODE_PARAMS memset = {};
    CUDA_MEMCPY3D memcpy = {};
  };
  // One instantiated graph: the plain one, or the traced one.
  struct Graph {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::deque<Node> nodes;  // Stable addresses: params point into them.
    // Per command: the bytes a fill/copy covered when the graph was built.
    std::vector<size_t> built_lengths;
    // Traced graph: per dispatch node, in order, its begin and end
    // event-record nodes, its span name, and the event set they record.
    std::vector<CUgraphNode> event_nodes;
    std::vector<std::string> span_names;
    size_t event_set = kNoEventSet;
    uint64_t instantiations = 0;
    // The device address of each binding-table slot (its buffer's
    // allocation plus offset; 0 for an empty slot) that the nodes hold:
    // when a submit's table resolves to the same, no node changes.
    std::vector<CUdeviceptr> slot_addresses;
  };
  static constexpr size_t kNoEventSet = ~size_t{0};
  // Timing events for one traced launch: event_nodes.size() of them.
  struct TimingEvents {
    std::vector<CUevent> events;
    bool lent = false;  // To a CudaDispatchTimer whose times are unread.
  };
  // A library call's capture under some binding addresses.
  struct Capture {
    std::vector<uint64_t> addresses;
    CUgraph graph = nullptr;  // Ours: nodes and execs take copies.
  };

  // Builds and instantiates `g` with `table`'s addresses; with event-record
  // nodes recording event set `event_set` when it is not kNoEventSet.
  Status Build(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set);
  void DestroyGraph(Graph& g);
  // Makes `g` run `table`: builds it if it has no exec or a fill/copy
  // covers another length, otherwise patches the nodes whose addresses
  // changed (rebuilding if CUDA refuses).
  Status Prepare(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set);
  // Fills node's parameters for `table`; returns whether they differ from
  // what it held (for kernel nodes, only addresses can change).
  bool Resolve(Node& node, std::span<const Ref<Buffer>> table) const;
  // The bit of slot `slot` in a slot mask.
  static uint64_t SlotBit(size_t slot) { return uint64_t{1} << std::min<size_t>(slot, 63); }
  // Each slot's address under `table` (Graph::slot_addresses).
  static void SlotAddresses(std::span<const Ref<Buffer>> table, std::vector<CUdeviceptr>* out);
  // Whether a fill/copy covers a different byte count under `table` than in
  // `g` (which patching cannot change).
  bool ShapeChanged(const Graph& g, std::span<const Ref<Buffer>> table) const;
  // Whether any fill/copy/update or library call uses a slot: memset/memcpy
  // nodes are added with real addresses, and library calls captured with
  // them, so those graphs are built at the first submit.
  bool NeedsTableToBuild() const;
  // The capture of library-call dispatch `command` whose bindings resolve
  // to `addresses` under `table`: cached, or captured and cached. Owned by
  // the cache (valid until the next call or ClearCaptures).
  Result<CUgraph> CapturedLibraryCall(uint32_t command, std::span<const uint64_t> addresses,
                                      std::span<const Ref<Buffer>> table);
  // Captures the library call of dispatch `command` under `table` into a
  // new graph (the caller destroys it).
  Result<CUgraph> CaptureLibraryCall(uint32_t command, std::span<const Ref<Buffer>> table);
  void ClearCaptures();
  // A free timing event set (created when every one is lent).
  Result<size_t> AcquireEventSet();

  // Per command (End), the slots it uses as bits (slot i: bit min(i, 63);
  // 0: none): a submit resolves again only the nodes of the slots whose
  // address changed.
  std::vector<uint64_t> slot_masks_;
  // Dispatch commands (End): those a traced graph times.
  size_t dispatch_count_ = 0;

  Graph plain_;
  Graph traced_;
  // Per command: a library call's captures, most recently used first.
  std::vector<std::vector<Capture>> captures_;
  std::vector<TimingEvents> timing_sets_;
  // NeedsTableToBuild() at End: only then can a table change a node's shape.
  bool built_at_first_submit_ = false;
  // The stream library calls are captured on (created at the first).
  CUstream capture_stream_ = nullptr;
  uint64_t patched_nodes_ = 0;
  std::vector<CUdeviceptr> slot_scratch_;  // Prepare's, kept to spare allocations.
  uint64_t library_captures_ = 0;
};

}  // namespace kiln::hal::cuda
