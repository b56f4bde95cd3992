/* fuzz_bc.c - libFuzzer target: arbitrary bytes as a bc program, run as
 * `bc FILE` and `bc -l FILE` with the bytes after its first NUL as more
 * program on stdin (see fuzz_program.h). Built by `make fuzz`. */
#include "fuzz_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_program(data, size, "/p.bc",
                      "bc /p.bc < /in.txt; bc -l /p.bc < /in.txt",
                      "1+2\nscale=3;1/7\n");
}
