#include "hal/cuda/cuda_driver.h"

namespace kiln::hal::cuda {

Result<Ref<CudaDriver>> CudaDriver::Create(const CudaDeviceOptions& options) {
  KILN_ASSIGN_OR_RETURN(Ref<CudaSymbols> symbols, CudaSymbols::Load());
  return Ref<CudaDriver>::Adopt(new CudaDriver(std::move(symbols), options));
}

Result<std::vector<DeviceInfo>> CudaDriver::ListDevices() {
  int count = 0;
  KILN_RETURN_IF_ERROR(symbols_->Check(symbols_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  std::vector<DeviceInfo> devices;
  // The libraries are per process; what each device can use of them is
  // only known once it is created (a handle per device).
  const std::string libraries =
      CudaLibraries::Probe(options_.library_calls) + "; " + NcclSymbols::Probe();
  if (count == 0) {
    devices.push_back({"cuda", "", false, "the NVIDIA driver sees no GPU", libraries});
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    DeviceInfo info;
    info.uri = "cuda://" + std::to_string(i);
    CUdevice device = 0;
    char name[256] = {};
    CUresult result = symbols_->cuDeviceGet(&device, i);
    if (result == CUDA_SUCCESS) result = symbols_->cuDeviceGetName(name, sizeof(name) - 1, device);
    int major = 0, minor = 0;
    if (result == CUDA_SUCCESS) {
      symbols_->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      symbols_->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    }
    if (result != CUDA_SUCCESS) {
      info.available = false;
      info.reason = symbols_->DescribeError(result);
    } else {
      info.name = std::string(name) + " (sm_" + std::to_string(major * 10 + minor) + ")";
      info.details = libraries;
    }
    devices.push_back(std::move(info));
  }
  return devices;
}

Result<Ref<Device>> CudaDriver::CreateDevice(uint32_t index) {
  int count = 0;
  KILN_RETURN_IF_ERROR(symbols_->Check(symbols_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) return UnavailableError("the NVIDIA driver sees no GPU");
  if (index >= static_cast<uint32_t>(count)) {
    return NotFoundError("driver 'cuda' has " + std::to_string(count) + " device" +
                         (count == 1 ? "" : "s") + " (cuda://0" +
                         (count > 1 ? " .. cuda://" + std::to_string(count - 1) : "") + "), not " +
                         std::to_string(index));
  }
  KILN_ASSIGN_OR_RETURN(Ref<CudaDevice> device,
                        CudaDevice::Create(symbols_, static_cast<int>(index), options_));
  return Ref<Device>(std::move(device));
}

}  // namespace kiln::hal::cuda
