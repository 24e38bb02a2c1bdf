#include "hal/builtin_drivers.h"

#include "hal/cpu/cpu_driver.h"

namespace kiln::hal {

Status RegisterBuiltinDrivers(DriverRegistry& registry) {
  KILN_RETURN_IF_ERROR(registry.Register("cpu", []() -> Result<Ref<Driver>> {
    return Ref<Driver>(MakeRef<cpu::CpuDriver>("cpu", cpu::CpuDeviceOptions{true, 0}));
  }));
  KILN_RETURN_IF_ERROR(registry.Register("cpu-sync", []() -> Result<Ref<Driver>> {
    return Ref<Driver>(MakeRef<cpu::CpuDriver>("cpu-sync", cpu::CpuDeviceOptions{false, 0}));
  }));
  KILN_RETURN_IF_ERROR(registry.RegisterAlias("local-task", "cpu"));
  KILN_RETURN_IF_ERROR(registry.RegisterAlias("local-sync", "cpu-sync"));
  return OkStatus();
}

}  // namespace kiln::hal
