#include "compiler/vm/parallel_copy.h"

#include <unordered_map>

namespace kiln::compiler::vm_backend {
namespace {

// One bank's copies; registers of different banks never interact.
void SequenceBank(vm::Bank bank, std::vector<RegisterCopy>& pending,
                  const std::function<uint16_t(vm::Bank)>& scratch,
                  std::vector<RegisterCopy>& out) {
  std::unordered_map<uint16_t, uint16_t> source_of;  // dst → src
  std::unordered_map<uint16_t, uint32_t> readers;    // register → pending copies reading it
  for (const RegisterCopy& c : pending) {
    source_of[c.dst] = c.src;
    ++readers[c.src];
  }
  std::vector<uint16_t> ready;
  for (const RegisterCopy& c : pending) {
    if (readers.find(c.dst) == readers.end()) ready.push_back(c.dst);
  }
  uint16_t saved_register = 0;
  while (!source_of.empty()) {
    while (!ready.empty()) {
      const uint16_t dst = ready.back();
      ready.pop_back();
      auto it = source_of.find(dst);
      if (it == source_of.end()) continue;
      const uint16_t src = it->second;
      out.push_back({bank, dst, src});
      source_of.erase(it);
      // The source is free to be overwritten once nothing else reads it.
      if (--readers[src] == 0) {
        readers.erase(src);
        if (source_of.count(src)) ready.push_back(src);
      }
    }
    if (source_of.empty()) break;
    // Only cycles remain: save one destination's value and redirect its
    // readers to the copy, which opens the cycle.
    const uint16_t victim = source_of.begin()->first;
    saved_register = scratch(bank);
    out.push_back({bank, saved_register, victim});
    for (auto& [dst, src] : source_of) {
      if (src == victim) src = saved_register;
    }
    readers[saved_register] = readers[victim];
    readers.erase(victim);
    ready.push_back(victim);
  }
}

}  // namespace

std::vector<RegisterCopy> SequenceParallelCopy(std::vector<RegisterCopy> copies,
                                               const std::function<uint16_t(vm::Bank)>& scratch) {
  std::vector<RegisterCopy> out, constants;
  std::vector<RegisterCopy> per_bank[vm::kBankCount];
  for (const RegisterCopy& c : copies) {
    if (c.is_constant) {
      constants.push_back(c);
    } else if (c.dst != c.src) {
      per_bank[static_cast<int>(c.bank)].push_back(c);
    }
  }
  for (int b = 0; b < vm::kBankCount; ++b) {
    if (!per_bank[b].empty()) SequenceBank(static_cast<vm::Bank>(b), per_bank[b], scratch, out);
  }
  // Constant loads overwrite their destinations only after every move has
  // read what it needs.
  out.insert(out.end(), constants.begin(), constants.end());
  return out;
}

}  // namespace kiln::compiler::vm_backend
