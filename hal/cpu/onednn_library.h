// OnednnLibrary: oneDNN as one CPU device uses it: the symbols
// (onednn_symbols.h), one CPU engine, and the number of threads its calls
// run on.
//
// Threads: Debian's oneDNN runs its primitives on OpenMP (libgomp), whose
// thread count is a per-thread setting of the thread that starts the work
// (OpenMP's nthreads-var ICV). ThreadScope sets it to the device's worker
// count on the thread that creates or executes a primitive, and restores it
// afterwards, so that kiln never changes what an application's own OpenMP
// code sees on its threads, and a `cpu-sync` device keeps its promise of one
// thread. OMP_NUM_THREADS is left alone. Where oneDNN was built for another
// runtime (no omp_set_num_threads among its dependencies) the library's
// default stands.
//
// The engine is safe to share between threads; streams are not, so each
// call owns its own (onednn_call.h).
//
// The blocked activation layout (schemas/library_call.fbs, x_blocked, ...)
// is nChw16c where oneDNN runs AVX-512 code and nChw8c otherwise: the layout
// of its direct convolutions there. oneDNN's ISA is one setting of the
// process (the CPU, DNNL_MAX_CPU_ISA), so every call of every device in a
// process agrees on it: a producer's blocked result is what its consumer
// reads.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/onednn_symbols.h"

namespace kiln::hal::cpu {

class OnednnLibrary : public RefObject {
 public:
  // Opens libdnnl.so.2 (or `library_path`) and creates the CPU engine;
  // calls run on `thread_count` threads (>= 1). UNAVAILABLE names what is
  // missing.
  static Result<Ref<OnednnLibrary>> Load(uint32_t thread_count,
                                         const char* library_path = "libdnnl.so.2");
  ~OnednnLibrary() override;

  const OnednnSymbols& symbols() const { return *symbols_; }
  dnnl_engine_t engine() const { return engine_; }
  uint32_t thread_count() const { return thread_count_; }
  // The channels per block of the blocked activation layout: 16 or 8.
  int64_t channel_block() const { return channel_block_; }
  // dnnl_nChw16c or dnnl_nChw8c, by channel_block().
  dnnl_format_tag_t blocked_tag() const {
    return channel_block_ == 16 ? dnnl_nChw16c : dnnl_nChw8c;
  }

  // Sets the calling thread's OpenMP thread count to the library's for the
  // scope's lifetime.
  class ThreadScope {
   public:
    explicit ThreadScope(const OnednnLibrary& library);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

   private:
    const OnednnSymbols& symbols_;
    int previous_ = 0;
  };

 private:
  OnednnLibrary(Ref<OnednnSymbols> symbols, uint32_t thread_count)
      : symbols_(std::move(symbols)), thread_count_(thread_count) {}

  Ref<OnednnSymbols> symbols_;
  uint32_t thread_count_;
  int64_t channel_block_ = 8;
  dnnl_engine_t engine_ = nullptr;
};

}  // namespace kiln::hal::cpu
