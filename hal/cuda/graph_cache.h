// GraphCache: instantiated CUDA graphs that one-shot command buffers leave
// behind, kept per device by the structure of the command list they run, so
// that the next one-shot command buffer of that structure patches a graph
// instead of building one.
//
// Why: a compiled function with dynamic shapes records a one-shot command
// buffer at every call. Building its graph costs cuGraphInstantiate (2 to 4
// µs per node), the library calls' captures and the upload, at every call,
// although consecutive calls mostly record the same commands on other
// buffers, or with other dimension constants. An instantiated graph can be
// patched to other addresses and kernel parameters
// (cuGraphExec*NodeSetParams) at a fraction of that cost; what a patch cannot
// change is the graph's structure, which is therefore the key.
//
// The key (Key) is a sequence of words that GraphCommandBuffer derives from
// its command list (graph_command_buffer.h says which): it holds everything
// that decides the graph's topology and the parameters a patch cannot
// change, and never a buffer address. Executables enter it by address; the
// key holds a reference to each, so no other executable can take an address
// a cached key names while the entry lives (an executable's address is its
// identity only while it is alive).
//
// Ownership: Take removes the entry it finds, so at most one command buffer
// holds a cached graph at a time; the command buffer gives it back with Put
// once it has launched it (patching never affects a launch already enqueued:
// CUDA's rule), and it is the next one's to patch. Two command buffers of one
// structure issued in turn therefore share one graph. The cache keeps at
// most `capacity` graphs, least recently used evicted; an evicted or
// remaining entry is destroyed with its CUDA objects (Entry's destructor).
//
// Thread-safe: the queue issues command buffers under its lock, but
// statistics may be read, and the last reference dropped, from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "base/ref.h"
#include "hal/executable.h"

namespace kiln::hal::cuda {

class GraphCache : public RefObject {
 public:
  // Enough for the distinct shapes a dynamic model cycles through in a
  // serving loop (a few batch sizes times a few sequence buckets), few
  // enough that the graphs' device memory stays small.
  static constexpr size_t kDefaultCapacity = 16;

  // What a cached graph is, opaque here: GraphCommandBuffer's instantiated
  // graph, its nodes' parameters and its library-call captures. Destroying
  // an entry destroys its CUDA objects.
  class Entry {
   public:
    virtual ~Entry() = default;
  };

  // The structure of a command list: equal keys mean a graph built for one
  // command list runs the other once its addresses and kernel parameters
  // are patched.
  class Key {
   public:
    void Add(uint64_t word) {
      words_.push_back(word);
      // FNV-1a over whole words: only a quick way to tell keys apart.
      hash_ = (hash_ ^ word) * 0x100000001b3ull;
    }
    // Adds the executable's address and keeps the executable alive.
    void AddExecutable(const Ref<Executable>& executable);

    bool operator==(const Key& other) const {
      return hash_ == other.hash_ && words_ == other.words_;
    }
    size_t size() const { return words_.size(); }

   private:
    std::vector<uint64_t> words_;
    std::vector<Ref<Executable>> executables_;  // Each once in a row.
    uint64_t hash_ = 0xcbf29ce484222325ull;
  };

  struct Statistics {
    uint64_t hits = 0;       // Take found a graph of the structure.
    uint64_t misses = 0;     // Take found none: the command buffer built one.
    uint64_t evictions = 0;  // Graphs destroyed to keep within capacity.
    size_t size = 0;         // Graphs kept now.
  };

  explicit GraphCache(size_t capacity = kDefaultCapacity) : capacity_(capacity) {}
  ~GraphCache() override;

  // Removes and returns the most recently kept graph of `key`'s structure;
  // null when there is none (a miss).
  std::unique_ptr<Entry> Take(const Key& key);
  // Keeps `entry` under `key` as the most recently used graph, destroying
  // the least recently used beyond capacity. Another graph of the same key
  // may be kept already (two were built at once); both stay.
  void Put(Key key, std::unique_ptr<Entry> entry);
  // Destroys every kept graph.
  void Clear();

  Statistics statistics() const;
  size_t capacity() const { return capacity_; }

  // A number that no other command buffer of this device is given. A
  // library call's capture embeds the address of its command buffer's
  // workspace (cuda_command_buffer.h); captures that travel with a graph to
  // another command buffer are tagged with the number of the one whose
  // workspace they use, so they are reused only by it (or by anyone when
  // the tag is 0: no workspace).
  uint64_t NewWorkspaceId() { return next_workspace_id_.fetch_add(1, std::memory_order_relaxed); }

 private:
  struct Slot {
    Key key;
    // Destroyed before the key: a graph goes before the executables
    // (modules) its kernel nodes run.
    std::unique_ptr<Entry> entry;
  };

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Slot> slots_;  // Most recently used first. Guarded by mutex_.
  Statistics statistics_;  // Guarded by mutex_ (size is slots_.size()).
  std::atomic<uint64_t> next_workspace_id_{1};
};

}  // namespace kiln::hal::cuda
