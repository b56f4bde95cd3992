/* fuzz_awk.c - libFuzzer target: arbitrary bytes as an awk program, run
 * with `awk -f` over the bytes after its first NUL (see fuzz_program.h).
 * Built by `make fuzz`. */
#include "fuzz_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_program(
      data, size, "/p.awk",
      "awk -f /p.awk /in.txt; awk -F, -v x=1 -f /p.awk /in.txt /in.txt",
      "a b c\n1 2 3\n,x,,y\n");
}
