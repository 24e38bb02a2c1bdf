#include "tests/fuzz/work_bound.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "vm/opcodes.h"

namespace kiln::fuzz {
namespace {

using vm::Opcode;
using vm::OperandKind;

// Counts saturate here, far above any budget, so sums cannot overflow.
constexpr uint64_t kSaturated = uint64_t{1} << 62;

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a + b >= kSaturated ? kSaturated : a + b; }

template <typename T>
T Load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace

WorkBounds::WorkBounds(const vm::BytecodeModule& module)
    : states_(module.functions().size(), State::kNew), bounds_(module.functions().size()) {
  scans_.reserve(module.functions().size());
  for (const vm::FunctionInfo& function : module.functions()) {
    scans_.push_back(ScanFunction(function));
  }
}

const WorkBound& WorkBounds::Of(uint32_t ordinal) {
  if (states_[ordinal] != State::kDone) Compute(ordinal);
  return bounds_[ordinal];
}

// Decodes the verified bytecode with the operand encoding of vm/opcodes.h; the
// verifier has proved that every instruction is well formed and in bounds.
WorkBounds::Scan WorkBounds::ScanFunction(const vm::FunctionInfo& function) {
  Scan scan;
  scan.bytes = function.code_length;
  const uint8_t* code = function.code;
  size_t pc = 0;
  while (pc < function.code_length) {
    const size_t start = pc;
    const Opcode opcode = static_cast<Opcode>(code[pc]);
    const vm::OpcodeInfo& info = vm::GetOpcodeInfo(opcode);
    ++pc;
    for (int i = 0; i < info.operand_count; ++i) {
      switch (info.operands[i]) {
        case OperandKind::kTarget:
          if (Load<uint32_t>(code + pc) <= start) scan.loops = true;
          pc += 4;
          break;
        case OperandKind::kFunction:
          scan.callees.push_back(Load<uint32_t>(code + pc));
          pc += 4;
          break;
        case OperandKind::kSwitchTargets: {
          const uint16_t count = Load<uint16_t>(code + pc);
          pc += 2;
          for (uint16_t c = 0; c < count; ++c, pc += 4) {
            if (Load<uint32_t>(code + pc) <= start) scan.loops = true;
          }
          break;
        }
        default:
          pc += vm::EncodedOperandSize(info.operands[i], code + pc);
          break;
      }
    }
    switch (opcode) {
      case Opcode::kListAlloc:
      case Opcode::kListResize:
      case Opcode::kBufferAlloc:
        ++scan.allocations;
        break;
      case Opcode::kBufferFill:
      case Opcode::kBufferCopy:
        ++scan.bulk_operations;
        break;
      case Opcode::kListSetRef:
        scan.stores_refs_in_lists = true;
        break;
      default:
        break;
    }
  }
  return scan;
}

// Depth-first over the call graph with an explicit stack (a hostile module
// may chain thousands of functions). Reaching a function that is still in
// progress closes a cycle: every function on the path reaches it, so all of
// them are unbounded.
void WorkBounds::Compute(uint32_t root) {
  struct Entry {
    uint32_t ordinal;
    size_t next_callee = 0;
    bool on_cycle = false;
  };
  std::vector<Entry> path;
  path.push_back({root});
  states_[root] = State::kInProgress;
  while (!path.empty()) {
    Entry& top = path.back();
    const Scan& scan = scans_[top.ordinal];
    if (top.next_callee < scan.callees.size()) {
      const uint32_t callee = scan.callees[top.next_callee++];
      if (states_[callee] == State::kInProgress) {
        for (Entry& entry : path) entry.on_cycle = true;
      } else if (states_[callee] == State::kNew) {
        states_[callee] = State::kInProgress;
        path.push_back({callee});
      }
      continue;
    }
    // All callees are done: combine their bounds with this function's own.
    WorkBound bound;
    bound.bounded = !scan.loops && !top.on_cycle;
    bound.bytecode_bytes = scan.bytes;
    bound.allocations = scan.allocations;
    bound.bulk_operations = scan.bulk_operations;
    bound.stores_refs_in_lists = scan.stores_refs_in_lists;
    for (uint32_t callee : scan.callees) {
      const WorkBound& inner = bounds_[callee];
      bound.bounded = bound.bounded && inner.bounded;
      bound.bytecode_bytes = SaturatingAdd(bound.bytecode_bytes, inner.bytecode_bytes);
      bound.allocations = SaturatingAdd(bound.allocations, inner.allocations);
      bound.bulk_operations = SaturatingAdd(bound.bulk_operations, inner.bulk_operations);
      bound.stores_refs_in_lists = bound.stores_refs_in_lists || inner.stores_refs_in_lists;
    }
    bounds_[top.ordinal] = bound;
    states_[top.ordinal] = State::kDone;
    path.pop_back();
  }
}

Reach WorkBounds::ReachableFrom(uint32_t root) {
  Reach reach;
  std::vector<bool> seen(scans_.size(), false);
  std::vector<uint32_t> pending = {root};
  seen[root] = true;
  while (!pending.empty()) {
    const uint32_t ordinal = pending.back();
    pending.pop_back();
    const Scan& scan = scans_[ordinal];
    reach.longest_function_bytes = std::max(reach.longest_function_bytes, scan.bytes);
    reach.value_dependent_work = reach.value_dependent_work || scan.allocations > 0 ||
                                 scan.bulk_operations > 0 || scan.stores_refs_in_lists;
    for (uint32_t callee : scan.callees) {
      if (!seen[callee]) {
        seen[callee] = true;
        pending.push_back(callee);
      }
    }
  }
  return reach;
}

}  // namespace kiln::fuzz
