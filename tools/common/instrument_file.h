// The instrument file (schemas/instruments.fbs, identifier "KINS"): what
// `kiln-run-module --instrument_file=FILE` writes after a call of a program
// with instrumented dispatches (`kiln-benchmark-module --instrument_file=FILE`
// after all its calls), and `kiln-dump-instruments FILE` reads.
//
//   kiln-compile --instrument-dispatches prog.mlir -o prog.kmod
//   kiln-run-module prog.kmod --function=main --instrument_file=prog.kins
//   kiln-dump-instruments prog.kins --chrome_trace=prog.json
//
// The file is self-contained: the rings' raw bytes as the devices wrote them
// (hal/instrumentation.h says what a ring holds) and the dispatch-site table
// that names each record's site id, taken from the modules' debug tables when
// they were loaded. So it is read without the .kmod, on any machine.
//
// The writer's side is three steps: CollectInstrumentSites for every loaded
// module, ReadInstrumentRings once the call's device work is complete, then
// WriteInstrumentFile. A tool's --instrument_file takes them through an
// InstrumentRecorder, which both tools share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"
#include "hal/instrumentation.h"
#include "vm/bytecode_module.h"

namespace kiln::tools {

// One instrumented dispatch site (instruments.fbs' Site).
struct InstrumentSite {
  uint32_t site_id = 0;
  std::string module;       // The VM module that dispatches it.
  std::string executable;   // The executable.
  std::string export_name;  // Its export that the site dispatches.
  std::string function;     // The module function holding the dispatch.
  std::string location;     // "prog.mlir:12:5"; empty when the module has no debug location.

  bool operator==(const InstrumentSite&) const = default;
};

// One ring's bytes as read back from its device (instruments.fbs' Ring).
struct InstrumentRingBytes {
  std::string device;  // The device's URI.
  std::vector<uint8_t> data;

  bool operator==(const InstrumentRingBytes&) const = default;
};

// A whole instrument file.
struct InstrumentFileContents {
  std::string tool;                   // "kiln-run-module".
  std::string driver;                 // "cpu", "cuda", "vulkan".
  std::string device;                 // "cuda://0".
  std::string clock;                  // "ns" or "ticks" (InstrumentClockUnit).
  std::vector<InstrumentSite> sites;  // By site id.
  std::vector<InstrumentRingBytes> rings;

  bool operator==(const InstrumentFileContents&) const = default;
};

// The unit of a driver's instrumentation clock: "ticks" for vulkan (the
// device clock of OpReadClockKHR, whose period kiln does not know), "ns" for
// the others (cpu: CLOCK_MONOTONIC; cuda: %globaltimer).
std::string InstrumentClockUnit(std::string_view driver);

// The module's instrumented dispatch sites: its executables'
// DispatchSiteDescriptor entries that carry a site id, with the export's,
// the function's and the module's names and the dispatch's source location;
// sorted by site id.
std::vector<InstrumentSite> CollectInstrumentSites(const vm::BytecodeModule& module);

// The bytes of every ring in `rings`, read from their devices
// (hal::ReadBuffer). The devices' work that writes them must be complete.
// A ring whose bytes are not a ring's is an error (DATA_LOSS).
Result<std::vector<InstrumentRingBytes>> ReadInstrumentRings(
    const hal::InstrumentationRings& rings);

// The FlatBuffer of `contents`.
std::vector<uint8_t> SerializeInstrumentFile(const InstrumentFileContents& contents);

// Parses an instrument file's bytes, checked with the FlatBuffers verifier:
// a short or corrupt buffer, or one whose identifier is not "KINS", is
// INVALID_ARGUMENT saying so. `name` names the bytes in errors (the path).
Result<InstrumentFileContents> ParseInstrumentFile(std::span<const uint8_t> bytes,
                                                   std::string_view name);

// Writes `contents` to `path`; the error names the file.
Status WriteInstrumentFile(const std::string& path, const InstrumentFileContents& contents);

// Reads and parses the file at `path`; errors name it.
Result<InstrumentFileContents> ReadInstrumentFile(const std::string& path);

// What a tool's --instrument_file gathers over a run: the registry the hal
// module registers the context's rings in (hal::HalModuleOptions::
// instrumentation) and the sites of every module the tool loads; written
// once the run's device work is complete.
//
//   tools::InstrumentRecorder recorder;
//   for (each loaded module) recorder.AddModule(*module);
//   hal_options.instrumentation = recorder.rings();
//   ... create the context, make the calls ...
//   KILN_RETURN_IF_ERROR(recorder.Write(path, "kiln-run-module", *device));
class InstrumentRecorder {
 public:
  InstrumentRecorder() : rings_(MakeRef<hal::InstrumentationRings>()) {}

  // The registry to give the hal module.
  const Ref<hal::InstrumentationRings>& rings() const { return rings_; }

  // Adds `module`'s instrumented sites (CollectInstrumentSites).
  void AddModule(const vm::BytecodeModule& module);

  // Writes the file at `path`: `device`'s driver, URI and clock unit, the
  // sites and every ring registered, read back now (the work that writes
  // them must be complete), with `tool` naming the writer. A program that
  // made no ring (no instrumented dispatch) still gets its file, with no
  // rings, and a warning on stderr says why before anyone reads it; the
  // error of a file that cannot be written starts "--instrument_file: ".
  Status Write(const std::string& path, std::string_view tool, const hal::Device& device) const;

 private:
  Ref<hal::InstrumentationRings> rings_;
  std::vector<InstrumentSite> sites_;
};

}  // namespace kiln::tools
