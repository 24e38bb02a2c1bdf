#include "compiler/onnx/op_registry.h"

#include "compiler/onnx/ops/misc_registration.h"

namespace kiln::onnx_import {

const OpRegistry& OpRegistry::Get() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBasicOps(*r);
    RegisterElementwiseOps(*r);
    RegisterReductionOps(*r);
    RegisterLinearOps(*r);
    RegisterNeuralNetworkOps(*r);
    RegisterShapeOps(*r);
    RegisterQuantizationOps(*r);
    RegisterSignalOps(*r);
    RegisterRecurrentOps(*r);
    RegisterControlFlowOps(*r);
    RegisterMiscOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(llvm::StringRef op_type, OpConverter convert, int64_t min_opset) {
  converters_[op_type] = OpConverterEntry{min_opset, std::move(convert)};
}

const OpConverterEntry* OpRegistry::Lookup(llvm::StringRef op_type) const {
  auto it = converters_.find(op_type);
  return it == converters_.end() ? nullptr : &it->second;
}

}  // namespace kiln::onnx_import
