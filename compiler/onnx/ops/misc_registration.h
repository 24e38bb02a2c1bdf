// The registration functions of the op families in quantization.cc,
// signal.cc, recurrent.cc, control_flow.cc and misc_ops.cc (called from
// OpRegistry::Get in op_registry.cc).
#pragma once

namespace kiln::onnx_import {

class OpRegistry;

// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul,
// QLinearConv.
void RegisterQuantizationOps(OpRegistry& registry);
// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix, DFT, STFT.
void RegisterSignalOps(OpRegistry& registry);
// RNN, GRU, LSTM.
void RegisterRecurrentOps(OpRegistry& registry);
// If, Loop, Scan.
void RegisterControlFlowOps(OpRegistry& registry);
// Det, ReverseSequence, MaxUnpool, Upsample, GridSample, RoiAlign, and the
// ops refused with a reason (NonMaxSuppression, Unique, random ops).
void RegisterMiscOps(OpRegistry& registry);

}  // namespace kiln::onnx_import
