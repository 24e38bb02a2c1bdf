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
// likewise); the graph is rebuilt only if a slot's size changes what a fill or copy covers, or CUDA
// refuses a memset/memcpy patch (a different kind of memory). Patching never affects launches
// already enqueued (CUDA's rule), so no wait is needed between submits.
//
// A dispatch that runs a library call (library_call.h) becomes a child-graph
// node: the call is captured (cuStreamBeginCapture, thread-local mode, on a
// stream the command buffer owns) into a graph that the node embeds, with
// the same dependencies as a kernel node. The library's launches are not
// known to kiln, so a binding address that changes between submits means
// capturing the call again and patching the node with the new child graph
// (cuGraphExecChildGraphNodeSetParams; one patched node); if CUDA refuses
// (the capture's topology differs), the graph is rebuilt. A call using a
// slot is captured only with real addresses: such a graph is built at the
// first submit.
#pragma once

#include <deque>

#include "hal/cuda/cuda_command_buffer.h"

namespace kiln::hal::cuda {

class GraphCommandBuffer final : public CudaCommandBuffer {
 public:
  GraphCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode)
      : CudaCommandBuffer(std::move(context), mode) {}
  ~GraphCommandBuffer() override;

  Status Issue(std::span<const Ref<Buffer>> binding_table) override;

  // Statistics for tests and benchmarks: graph builds (instantiations) and
  // node patches so far.
  uint64_t instantiation_count() const { return instantiations_; }
  uint64_t patched_node_count() const { return patched_nodes_; }
  size_t node_count() const { return nodes_.size(); }

 private:
  Status EndImpl() override;

  // One node per non-barrier command, with the parameters last given to
  // the instantiated graph.
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

  // Builds and instantiates the graph with `table`'s addresses.
  Status Build(std::span<const Ref<Buffer>> table);
  void DestroyGraph();
  // Fills node's parameters for `table`; returns whether they differ from
  // what it held (for kernel nodes, only addresses can change).
  bool Resolve(Node& node, std::span<const Ref<Buffer>> table) const;
  // Whether a fill/copy covers a different byte count under `table` than in
  // the instantiated graph (which patching cannot change).
  bool ShapeChanged(std::span<const Ref<Buffer>> table) const;
  // Whether any fill/copy/update or library call uses a slot: memset/memcpy
  // nodes are added with real addresses, and library calls captured with
  // them, so those graphs are built at the first submit.
  bool NeedsTableToBuild() const;
  // Captures the library call of dispatch `command` under `table` into a
  // new graph (the caller destroys it).
  Result<CUgraph> CaptureLibraryCall(uint32_t command, std::span<const Ref<Buffer>> table);
  // Whether command `index` uses a binding-table slot (End).
  std::vector<bool> uses_slots_;

  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::deque<Node> nodes_;  // Stable addresses: params point into them.
  // Per command: the bytes a fill/copy covered when the graph was built.
  std::vector<size_t> built_lengths_;
  // NeedsTableToBuild() at End: only then can a table change a node's shape.
  bool built_at_first_submit_ = false;
  // The stream library calls are captured on (created at the first).
  CUstream capture_stream_ = nullptr;
  uint64_t instantiations_ = 0;
  uint64_t patched_nodes_ = 0;
};

}  // namespace kiln::hal::cuda
