// WorkBound: a static upper bound on what one call of a bytecode function can
// do, so the fuzz harness only runs functions that are sure to finish quickly.
//
// The interpreter has no instruction budget: valid bytecode may loop forever
// (a backward branch) or recurse into an exponential call tree that the depth
// limit does not stop in time. libFuzzer would report such inputs as
// timeouts, which are not bugs. So the harness scans the verified bytecode
// first and invokes a function only when
//   - no reachable function has a backward branch (a target at or before the
//     branching instruction), so each function runs each byte at most once;
//   - the calls between the module's functions form no cycle, so the bytes
//     executed are at most the function's length plus, per call site, the
//     callee's bound (imports only reach the harness's native module, whose
//     functions are constant time).
// It also counts the instructions whose cost depends on values (allocations
// and bulk buffer operations, each up to hundreds of MiB) so that one input
// cannot exhaust memory, and whether list.set.ref is reachable: reference
// counting cannot free a list stored into itself, so such a function may
// leak by design (see tests/fuzz/README.md).
#pragma once

#include <cstdint>
#include <vector>

#include "vm/bytecode_module.h"

namespace kiln::fuzz {

struct WorkBound {
  // False when a reachable function loops or the call graph has a cycle;
  // the counts below are then meaningless.
  bool bounded = false;
  // Most bytecode bytes executed (saturating).
  uint64_t bytecode_bytes = 0;
  // Most list.alloc / list.resize / buffer.alloc instructions executed.
  uint64_t allocations = 0;
  // Most buffer.fill / buffer.copy instructions executed.
  uint64_t bulk_operations = 0;
  // Whether list.set.ref is reachable (may build an uncollectable cycle).
  bool stores_refs_in_lists = false;
};

// What a function can reach through calls, loops or not: used to run
// functions that loop or recurse under the interpreter's execution budget
// (StackOptions::branch_budget), which bounds their work by
// (budget + 1) x the longest reachable function, provided nothing whose cost
// depends on values (allocation, bulk buffer operations, list.set.ref) is
// reachable.
struct Reach {
  uint64_t longest_function_bytes = 0;
  bool value_dependent_work = false;
};

// Bounds of every function of one verified module, computed on demand.
class WorkBounds {
 public:
  explicit WorkBounds(const vm::BytecodeModule& module);

  // The bound of one call of function `ordinal`.
  const WorkBound& Of(uint32_t ordinal);
  // Everything reachable from function `ordinal` (each function once).
  Reach ReachableFrom(uint32_t ordinal);

 private:
  // What one function's own bytecode contains, calls not followed.
  struct Scan {
    bool loops = false;
    uint64_t bytes = 0;
    uint64_t allocations = 0;
    uint64_t bulk_operations = 0;
    bool stores_refs_in_lists = false;
    std::vector<uint32_t> callees;  // One entry per call site.
  };
  static Scan ScanFunction(const vm::FunctionInfo& function);
  void Compute(uint32_t root);

  enum class State : uint8_t { kNew, kInProgress, kDone };
  std::vector<Scan> scans_;
  std::vector<State> states_;
  std::vector<WorkBound> bounds_;
};

}  // namespace kiln::fuzz
