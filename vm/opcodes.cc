#include "vm/opcodes.h"

namespace kiln::vm {


bool BankOfTypeChar(char c, Bank* bank) {
  switch (c) {
    case 'i': *bank = Bank::kI32; return true;
    case 'I': *bank = Bank::kI64; return true;
    case 'f': *bank = Bank::kF32; return true;
    case 'F': *bank = Bank::kF64; return true;
    case 'r': *bank = Bank::kRef; return true;
    default: return false;
  }
}

char TypeCharOfBank(Bank bank) {
  static constexpr char kChars[] = {'i', 'I', 'f', 'F', 'r'};
  return kChars[static_cast<int>(bank)];
}

std::string_view BankName(Bank bank) {
  static constexpr std::string_view kNames[] = {"i32", "i64", "f32", "f64", "ref"};
  return kNames[static_cast<int>(bank)];
}

}  // namespace kiln::vm
