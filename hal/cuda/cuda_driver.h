// CudaDriver: the "cuda" HAL driver: one device per NVIDIA GPU (cuda://N).
//
// Creating the driver opens libcuda.so.1 (cuda_symbols.h); on a machine
// without the NVIDIA driver that fails with the reason, and the registry
// lists `cuda` as unavailable with it. A driver whose library loads but
// sees no GPU lists one unavailable entry saying so. Each device's entry
// also says which library kernels (cuBLASLt, cuDNN) this machine has
// (CudaLibraries::Probe) and whether NCCL is there for collectives
// (NcclSymbols::Probe).
#pragma once

#include "hal/cuda/cuda_device.h"
#include "hal/driver.h"

namespace kiln::hal::cuda {

class CudaDriver final : public Driver {
 public:
  static Result<Ref<CudaDriver>> Create(const CudaDeviceOptions& options);

  const std::string& name() const override { return name_; }
  Result<std::vector<DeviceInfo>> ListDevices() override;
  Result<Ref<Device>> CreateDevice(uint32_t index) override;

 private:
  CudaDriver(Ref<CudaSymbols> symbols, CudaDeviceOptions options)
      : symbols_(std::move(symbols)), options_(options) {}

  std::string name_ = "cuda";
  Ref<CudaSymbols> symbols_;
  CudaDeviceOptions options_;
};

}  // namespace kiln::hal::cuda
