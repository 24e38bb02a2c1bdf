// GraphCommandBuffer: a command buffer executed as a CUDA graph, recorded
// once and replayed (the CUDA driver's default).
//
// The executor of the command list that translates it into graph nodes:
// kernel nodes for dispatches, memset nodes for fills, memcpy nodes for
// copies and updates, captured child-graph nodes for library calls and
// collectives (below). Execution
// barriers become dependency edges: every node depends on the nodes
// recorded between the two barriers before it (through one empty join node
// when both groups have several), so the dispatches between two barriers
// may run concurrently rather than as a chain.
//
// A reusable command buffer's graph is built and instantiated once: at End,
// or, when a fill or copy uses a binding-table slot (CUDA checks
// memset/memcpy node addresses, and the slot's size may decide the length),
// at the first submit. Each submit resolves the binding table and patches,
// in the instantiated graph, only the nodes whose addresses changed since
// the last launch (cuGraphExecKernelNodeSetParams; memset/memcpy nodes
// likewise; only the nodes of the slots whose address changed are resolved,
// none when a model is called on the same input and output buffers); the
// graph is rebuilt only if a slot's size changes what a fill or copy covers, or CUDA refuses a
// memset/memcpy patch (a different kind of memory). Patching never affects launches already
// enqueued (CUDA's rule), so no wait is needed between submits.
//
// A model called in a loop alternates between two tables: its result of
// the last call is still held when the next call allocates its own, so the
// output slot takes turns between two buffers. A reusable command buffer
// therefore keeps two instantiated plain graphs: the first time a submit's
// slot addresses differ from those the graph last ran, a second graph is
// built for the new table and the first is kept as it is; later submits
// launch whichever of the two holds their addresses (no patch: 0.5 to 5 µs
// of host time saved per call on the lent H100, the output's node being a
// kernel or a library call), and one that matches neither patches the graph
// whose addresses differ in fewer slots. The price is a second
// instantiation (once) and its device memory.
//
// One-shot command buffers (what a function with dynamic shapes records at
// every call) take their graph from the device's GraphCache
// (graph_cache.h) instead of building one each time. At its submit, a
// one-shot command buffer derives its structure key (StructureKey): the
// sequence of command kinds and barriers; for each dispatch the executable,
// export ordinal, workgroup count and whether it runs a library call (the
// call is the export's: executable and ordinal name it); for each fill,
// copy or update its byte length, a fill's pattern and pattern size, and
// the kind of memory (device, pool) of each buffer it reads or writes; for
// each collective its channel, op and element count (the entry holds the
// channels its captures embed, so no other channel can take a keyed
// address while the graph is cached). A
// command list whose fill, copy or update touches pinned host or managed
// memory (a result read back) builds its own graph at its submit and never
// shares it: CUDA accepts the patch of such a node to another allocation,
// but the graph then faults (such a command list takes no StructureKey).
// Buffer addresses and dispatch constants are left out: patches change
// them. On a hit it adopts the cached graph and patches every node whose
// parameters differ from what the graph last ran (addresses of concrete
// buffers and slots alike, and kernel constants: a dimension that changes
// within one workgroup count is a patch, not a new graph); if CUDA refuses
// a patch, the adopted graph is destroyed and a new one built. On a miss it
// builds its graph as a reusable one would, with the submit's table. Once
// launched, the graph goes back into the cache with its library-call
// captures: patching never affects the launch just enqueued, so the next
// command buffer of the structure may take it at once, and at most one
// command buffer holds it (between taking and launching). A capture embeds
// its command buffer's library-call workspace, so captures carry the
// workspace id (GraphCache::NewWorkspaceId) of their maker: an adopter
// whose workspace differs drops the others' captures and re-captures each
// call into the adopted node (a patch); a command buffer without a
// workspace (id 0) reuses captures of others without one. Without a cache
// (none given) one-shot command buffers build at End like reusable ones.
//
// Captured nodes. A dispatch that runs a library call (library_call.h) and
// a collective (hal/collective.h, on an NcclChannel) become child-graph
// nodes of one kind: the command is enqueued under stream capture
// (cuStreamBeginCapture, thread-local mode, on a stream the command buffer
// owns; EnqueueLibraryCall or EnqueueCollective) into a graph that the
// node embeds. What the library or NCCL launches is not known to kiln, so
// a command's captures are cached by the addresses it depends on (a
// library call's bindings; a collective's send and recv): per captured
// command, the last kLibraryCaptureCacheSize captures (least recently used
// evicted). An address that changes between submits sets the node to the
// cached capture of the new addresses (cuGraphExecChildGraphNodeSetParams;
// one patched node), capturing again only on a miss: a model called in a
// loop whose output alternates between two buffers captures twice, not at
// every call. If CUDA refuses the patch (the capture's topology differs),
// the graph is rebuilt. A command using a slot is captured only with real
// addresses: such a graph is built at the first submit. The cache is
// emptied whenever a graph is destroyed (a rebuild, a failed patch), and
// with the command buffer; a one-shot command buffer's captures go to the
// GraphCache with its graph instead. A library call's capture embeds its
// command buffer's workspace (the workspace id above); a collective's embeds
// its channel's communicator and nothing of the command buffer's (id 0:
// any adopter reuses it). Reusing a collective's capture for the same
// addresses is sound because NCCL does not register kiln's memory
// (cuMemAlloc memory is "legacy" to NCCL, never registered by default:
// NCCL_LEGACY_CUDA_REGISTER=0), so a capture holds no mapping of a buffer
// that may have been freed and reallocated at the same address.
//
// Collectives run one at a time, in the order recorded: each collective
// node also depends on the collective before it since the last barrier.
// Every rank records the same collectives in the same order (collective.h),
// and NCCL needs each communicator's operations to run in that order on
// every rank; two collectives in one barrier group running concurrently
// could each hold the GPU while waiting for a peer that runs the other
// first.
//
// Traced submissions (IssueTraced; hal/trace.h) launch a second graph: the
// same nodes and dependencies, plus an event-record node before and after
// each dispatch, library-call and collective node (a collective's span is
// named after it: "all_reduce sum f32"; the node depends on its begin event,
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
// launch the plain graph only. A one-shot command buffer submitted traced
// builds its traced graph only (never cached: tracing is for profiling,
// where a build per call is acceptable).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hal/cuda/cuda_command_buffer.h"
#include "hal/cuda/graph_cache.h"

namespace kiln::hal::cuda {

class GraphCommandBuffer final : public CudaCommandBuffer {
 public:
  // Captures kept per library-call dispatch: a loop alternating between two
  // output buffers needs two; a function called from several places (one
  // memoized command buffer, the callers' buffers) needs two per caller: a
  // three-layer MLP whose layer is one function cycles through six, and
  // with four kept every submit captured again. A capture is a small host
  // object, the lookup a short scan.
  static constexpr size_t kLibraryCaptureCacheSize = 16;

  // `graph_cache` (the device's; may be null) serves one-shot command
  // buffers only.
  GraphCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode,
                     Ref<GraphCache> graph_cache = nullptr)
      : CudaCommandBuffer(std::move(context), mode),
        one_shot_cache_(mode == CommandBufferMode::kOneShot ? std::move(graph_cache) : nullptr) {}
  ~GraphCommandBuffer() override;

  Status Issue(std::span<const Ref<Buffer>> binding_table) override;
  Status IssueTraced(std::span<const Ref<Buffer>> binding_table, CudaDispatchTimer& timer) override;

  // Statistics for tests and benchmarks.
  // Builds (instantiations) of the plain graph and of the traced graph by
  // this command buffer (a one-shot command buffer that adopted a cached
  // graph built nothing: 0).
  uint64_t instantiation_count() const { return plain_instantiations_; }
  uint64_t traced_instantiation_count() const { return traced_instantiations_; }
  // Whether this one-shot command buffer ran a graph from the device's
  // GraphCache (patched, not rebuilt).
  bool adopted_cached_graph() const { return adopted_cached_graph_; }
  // Nodes patched with new binding addresses (or, in an adopted one-shot
  // graph, new kernel constants), in either graph (a library call's node
  // set to another capture counts as one; event nodes pointed at another
  // event set do not count).
  uint64_t patched_node_count() const { return patched_nodes_; }
  // Library calls and collectives captured into child graphs (cache
  // misses), for either graph.
  uint64_t library_capture_count() const { return library_captures_; }
  uint64_t collective_capture_count() const { return collective_captures_; }
  // Event sets created for traced launches (one per traced submission in
  // flight at once, at most).
  size_t timing_event_set_count() const { return timing_sets_.size(); }
  // Nodes of the plain graph (its event-record nodes aside, the traced
  // graph has as many); for a one-shot command buffer, of the graph it
  // launched, which has gone back to the cache.
  size_t node_count() const { return plain_node_count_; }

 private:
  Status EndImpl() override;

  // One node per non-barrier command, with the parameters last given to
  // its instantiated graph.
  // kCaptured: a library call or a collective, a child graph captured
  // from the stream (CaptureNode).
  enum class NodeKind : uint8_t { kKernel, kMemset, kMemcpy, kCaptured };
  struct Node {
    uint32_t command = 0;
    NodeKind kind = NodeKind::kKernel;
    CUgraphNode node = nullptr;
    CUDA_KERNEL_NODE_PARAMS kernel = {};
    // Kernel parameter values; a captured node's addresses (its command's
    // references, CommandList::ForEachRef: a library call's bindings, a
    // collective's send and recv).
    std::vector<uint64_t> values;
    std::vector<void*> pointers;  // → values.
    CUDA_MEMSET_NODE_PARAMS memset = {};
    CUDA_MEMCPY3D memcpy = {};
  };
  // One instantiated graph: the plain one, or the traced one.
  struct Graph {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    // The device address of each binding-table slot (its buffer's
    // allocation plus offset; 0 for an empty slot) that the nodes hold:
    // when a submit's table resolves to the same, no node changes. (Next to
    // exec: a submit that patches nothing reads these two.)
    std::vector<CUdeviceptr> slot_addresses;
    std::deque<Node> nodes;  // Stable addresses: params point into them.
    // Per command: the bytes a fill/copy covered when the graph was built.
    std::vector<size_t> built_lengths;
    // Traced graph: per timed node (dispatches and collectives), in order,
    // its begin and end event-record nodes, its span name, and the event
    // set they record.
    std::vector<CUgraphNode> event_nodes;
    std::vector<std::string> span_names;
    size_t event_set = kNoEventSet;
    // The workspace id of the captures its library-call nodes run (a
    // one-shot graph may have been built by another command buffer).
    uint64_t workspace_id = 0;

    // Member by member: a call whose output alternates between two buffers
    // swaps the plain graphs on every submit (SelectPlainGraph), and
    // std::swap's three moves would allocate (a moved-from deque gets a new
    // map) and copy every member thrice.
    friend void swap(Graph& a, Graph& b) noexcept {
      std::swap(a.graph, b.graph);
      std::swap(a.exec, b.exec);
      a.nodes.swap(b.nodes);
      a.built_lengths.swap(b.built_lengths);
      a.event_nodes.swap(b.event_nodes);
      a.span_names.swap(b.span_names);
      std::swap(a.event_set, b.event_set);
      a.slot_addresses.swap(b.slot_addresses);
      std::swap(a.workspace_id, b.workspace_id);
    }
  };
  static constexpr size_t kNoEventSet = ~size_t{0};
  // Timing events for one traced launch: event_nodes.size() of them.
  struct TimingEvents {
    std::vector<CUevent> events;
    bool lent = false;  // To a CudaDispatchTimer whose times are unread.
  };
  // A captured command under some addresses, made with the workspace of
  // the command buffer whose workspace id it carries (0: a capture that
  // embeds no workspace, a collective's, or a call's that has none).
  struct Capture {
    std::vector<uint64_t> addresses;
    uint64_t workspace_id = 0;
    CUgraph graph = nullptr;  // Ours: nodes and execs take copies.
  };
  // A one-shot graph in the GraphCache, with its captures and the channels
  // they embed (graph_command_buffer.cc).
  struct CachedGraph;

  // Builds and instantiates `g` with `table`'s addresses; with event-record
  // nodes recording event set `event_set` when it is not kNoEventSet.
  Status Build(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set);
  void DestroyGraph(Graph& g);
  // Makes `g` run `table`: builds it if it has no exec or a fill/copy
  // covers another length, otherwise patches the nodes whose addresses
  // changed (rebuilding if CUDA refuses). The caller has put the table's
  // SlotAddresses in slot_scratch_ (which then become g's).
  Status Prepare(Graph& g, std::span<const Ref<Buffer>> table, size_t event_set);
  // Makes plain_ the reusable graph that runs `table` (whose SlotAddresses
  // are in slot_scratch_) with the fewest patches: a new one (swapping an
  // empty graph in for Prepare to build) the first time the addresses
  // change; otherwise the one of the two whose addresses differ in fewer
  // slots (none: it holds the table), the one run last on a tie. Returns
  // whether plain_ then holds exactly the table's addresses (no patch).
  bool SelectPlainGraph(std::span<const Ref<Buffer>> table);
  // Whether two tables' SlotAddresses are the same.
  static bool SameAddresses(std::span<const CUdeviceptr> a, std::span<const CUdeviceptr> b);
  // Fills node's parameters for `table`; returns whether they differ from
  // what it held (for kernel nodes, only addresses can change).
  bool Resolve(Node& node, std::span<const Ref<Buffer>> table) const;
  // The bit of slot `slot` in a slot mask.
  static uint64_t SlotBit(size_t slot) { return uint64_t{1} << std::min<size_t>(slot, 63); }
  // Each slot's address under `table` (Graph::slot_addresses).
  static void SlotAddresses(std::span<const Ref<Buffer>> table, std::vector<CUdeviceptr>* out);
  // Resolve for a graph another command buffer built: a kernel node's
  // constants are resolved too.
  bool ResolveAdopted(Node& node, std::span<const Ref<Buffer>> table) const;
  // Gives node's resolved parameters to g.exec (a captured node: the
  // capture of its addresses, captured on a miss). CUDA's answer; a failed
  // capture's status.
  Result<CUresult> SetNodeParams(Graph& g, Node& node, std::span<const Ref<Buffer>> table);

  // The one-shot path of Issue: a cached graph patched, or one built; then
  // launched and given back to the cache.
  Status IssueOneShot(std::span<const Ref<Buffer>> table);
  // This command list's structure under `table` (the header comment says
  // what it holds); none when a fill, copy or update touches pinned host
  // or managed memory: its graph neither comes from nor goes to the
  // GraphCache (graph_command_buffer.cc says why).
  std::optional<GraphCache::Key> StructureKey(std::span<const Ref<Buffer>> table) const;
  // Launches the plain graph (nothing for an empty one).
  Status LaunchPlain();
  // Patches every node of adopted graph `g` whose parameters under `table`
  // differ. False when CUDA refused a patch (not a lost device): the graph
  // must be built afresh.
  Result<bool> PatchAdopted(Graph& g, std::span<const Ref<Buffer>> table);
  // Destroys the captures that embed another command buffer's workspace.
  void DropForeignCaptures();
  // The workspace id a capture of command `command` carries: this command
  // buffer's for a library call, 0 for a collective (it embeds none).
  uint64_t CaptureWorkspaceId(uint32_t command) const {
    return PlanOf(command) != nullptr ? workspace_id_ : 0;
  }
  // Whether a fill/copy covers a different byte count under `table` than in
  // `g` (which patching cannot change).
  bool ShapeChanged(const Graph& g, std::span<const Ref<Buffer>> table) const;
  // Whether any fill/copy/update, library call or collective uses a slot:
  // memset/memcpy nodes are added with real addresses, and library calls
  // and collectives captured with them, so those graphs are built at the
  // first submit.
  bool NeedsTableToBuild() const;
  // The capture of command `command` (a library-call dispatch or a
  // collective) whose references resolve to `addresses` under `table`:
  // cached, or captured and cached. Owned by the cache (valid until the
  // next call or ClearCaptures).
  Result<CUgraph> CapturedNode(uint32_t command, std::span<const uint64_t> addresses,
                               std::span<const Ref<Buffer>> table);
  // Captures command `command` under `table` into a new graph (the caller
  // destroys it).
  Result<CUgraph> CaptureNode(uint32_t command, std::span<const Ref<Buffer>> table);
  void ClearCaptures();
  // A free timing event set (created when every one is lent).
  Result<size_t> AcquireEventSet();

  // Per command (End), the slots it uses as bits (slot i: bit min(i, 63);
  // 0: none): a submit resolves again only the nodes of the slots whose
  // address changed.
  std::vector<uint64_t> slot_masks_;
  // Dispatch and collective commands (End): those a traced graph times.
  size_t timed_count_ = 0;

  // What a submit of a reusable command buffer reads, together: the
  // device's cache of one-shot graphs (null for reusable command buffers),
  // NeedsTableToBuild() at End (only then can a table change a node's
  // shape), the submit's SlotAddresses (Issue, IssueTraced; kept to spare
  // allocations) and the plain graph.
  Ref<GraphCache> one_shot_cache_;
  bool built_at_first_submit_ = false;
  std::vector<CUdeviceptr> slot_scratch_;
  Graph plain_;

  // Tags the library-call captures this command buffer makes (End): 0
  // when it has no workspace, a device-unique number otherwise.
  uint64_t workspace_id_ = 0;
  bool adopted_cached_graph_ = false;
  // A reusable command buffer's other plain graph, holding the table of
  // the call before (SelectPlainGraph); empty until the addresses change.
  Graph other_plain_;
  Graph traced_;
  // Per command: a captured command's captures, most recently used first.
  std::vector<std::vector<Capture>> captures_;
  std::vector<TimingEvents> timing_sets_;
  // The stream library calls and collectives are captured on (created at
  // the first).
  CUstream capture_stream_ = nullptr;
  uint64_t patched_nodes_ = 0;
  uint64_t library_captures_ = 0;
  uint64_t collective_captures_ = 0;
  uint64_t plain_instantiations_ = 0;
  uint64_t traced_instantiations_ = 0;
  size_t plain_node_count_ = 0;
};

}  // namespace kiln::hal::cuda
