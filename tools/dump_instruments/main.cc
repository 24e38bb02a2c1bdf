// kiln-dump-instruments FILE [--output=text|json] [--chrome_trace=OUT.json]:
// reads an instrument file (tools/common/instrument_file.h: what
// `kiln-run-module --instrument_file=FILE` wrote after a run of a module
// compiled with `kiln-compile --instrument-dispatches`) and prints per
// dispatch site its calls, workgroups and workgroup times
// (tools/common/instrument_statistics.h says what each figure is).
//
//   kiln-dump-instruments prog.kins
//   kiln-dump-instruments prog.kins --chrome_trace=prog.json   (Perfetto opens it)
//
// The file holds everything needed (the rings and the site table), so no
// module or device is involved. A missing or corrupt file is one
// "error: ..." line on stderr and exit code 1. --flagfile=FILE reads more
// flags from a file (tools/common/flagfile.h); --version prints kiln's
// version.
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "tools/common/flags.h"
#include "tools/common/instrument_file.h"
#include "tools/common/instrument_statistics.h"

namespace {

using namespace kiln;

struct DumpOptions {
  std::string path;
  bool json = false;
  std::string chrome_trace_path;  // Empty: no --chrome_trace.
};

// Parses the command line into `options`; returns false after --help.
Result<bool> ParseFlags(int argc, char** argv, DumpOptions* options) {
  cxxopts::Options flags(
      "kiln-dump-instruments",
      "Prints per-site statistics of an instrument file (kiln-run-module --instrument_file).");
  flags.custom_help("[--output=text|json] [--chrome_trace=OUT.json] FILE");
  flags.positional_help("");
  flags.add_options()  //
      ("output", "Output format: text or json",
       cxxopts::value<std::string>()->default_value("text"))  //
      ("chrome_trace",
       "Also write the records as a Chrome trace (JSON; Perfetto opens it) to this file: one "
       "event per workgroup, one track per dispatch site",
       cxxopts::value<std::string>())  //
      ("h,help", "Print this help")    //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  tools::AddStandardFlags(flags);
  flags.parse_positional({"positional"});
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    KILN_ASSIGN_OR_RETURN(bool go_on, tools::HandleStandardFlags(flags, result, {}));
    if (!go_on) return false;
    KILN_ASSIGN_OR_RETURN(std::optional<std::string> path, tools::SinglePositional(result));
    if (!path) return InvalidArgumentError("no instrument file given");
    options->path = *path;
    const std::string output = result["output"].as<std::string>();
    if (output != "text" && output != "json") {
      return InvalidArgumentError("--output must be text or json, not '" + output + "'");
    }
    options->json = output == "json";
    if (result.count("chrome_trace")) {
      options->chrome_trace_path = result["chrome_trace"].as<std::string>();
      if (options->chrome_trace_path.empty()) {
        return InvalidArgumentError("--chrome_trace needs a file name");
      }
    }
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return true;
}

Status Dump(const DumpOptions& options) {
  KILN_ASSIGN_OR_RETURN(tools::InstrumentFileContents contents,
                        tools::ReadInstrumentFile(options.path));
  KILN_ASSIGN_OR_RETURN(tools::InstrumentStatistics statistics,
                        tools::ComputeInstrumentStatistics(contents));
  // The trace first: a failure to write it leaves stdout empty rather than
  // half of what was asked for.
  if (!options.chrome_trace_path.empty()) {
    KILN_ASSIGN_OR_RETURN(std::string trace, tools::FormatInstrumentChromeTrace(contents));
    Status written =
        WriteFile(options.chrome_trace_path,
                  std::span(reinterpret_cast<const uint8_t*>(trace.data()), trace.size()));
    if (!written.ok()) return Status(written.code(), "--chrome_trace: " + written.message());
  }
  const std::string text = options.json
                               ? tools::FormatInstrumentStatisticsJson(contents, statistics)
                               : tools::FormatInstrumentStatistics(statistics);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::ToolMain<DumpOptions>(argc, argv, ParseFlags,
                                            [](const DumpOptions& options) -> kiln::Result<int> {
                                              KILN_RETURN_IF_ERROR(Dump(options));
                                              return 0;
                                            });
}
