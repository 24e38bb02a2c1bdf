// The synthetic instrument file the tests of kiln-dump-instruments read
// (instrument_file.h), with rings filled by hand in the device's layout
// (hal/cpu/kernel_abi.h), so its statistics are known exactly:
//
//   ring 0 ("cpu://0", 16 records, 7 written):
//     site 0 (@ex0::@mul, @main, prog.mlir:5:3): 2 calls of 2 workgroups,
//       (0,0,0) 1000..3000, (1,0,0) 1500..2500, (0,0,0) 10000..14000,
//       (1,0,0) 10000..11000: total 8000, mean 2000, max 4000, span 13000
//     site 1 (@ex1::@add, @main, prog.mlir:9:3): 1 call of 3 workgroups,
//       (0,0,0) 5000..5500, (0,1,0) 5000..5600, (0,2,0) 5100..5800:
//       total 1800, mean 600, max 700, span 800
//   ring 1 ("cpu://0", 2 records, 5 written: 3 dropped, wrapped so the
//   oldest kept record sits in slot 1):
//     site 2 (@ex0::@mul, @loop, prog.mlir:14:5): (2,0,0) 20000..20300,
//       then (0,0,0) 21000..21100: 1 call, 2 workgroups, total 400,
//       mean 200, max 300, span 1100
//
// Clock "ns", tool "kiln-run-module", driver "cpu", device "cpu://0".
#pragma once

#include "tools/common/instrument_file.h"

namespace kiln::testing {

tools::InstrumentFileContents BuildTestInstrumentFile();

}  // namespace kiln::testing
