/* fuzz_regex.c - libFuzzer target for the regex engine.
 *
 * Input layout: byte 0 selects compile flags (syntax, icase, newline,
 * grep/sed dialect, nosub), byte 1 the exec flags and start offset; then
 * the pattern up to the first 0xff byte, then the subject. Every exec runs
 * with a budget, so hostile inputs must end in MSB_ELIMIT, never a hang;
 * the allocator must be empty after rx_free. Build:
 *   clang-19 -g -fsanitize=fuzzer,address,undefined -Iinclude \
 *     src/mem.c src/buf.c src/err.c src/regex.c src/regex_exec.c \
 *     tests/fuzz/fuzz_regex.c -o build/fuzz_regex */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/memsandbox.h"
#include "../../src/buf.h"
#include "../../src/mem.h"
#include "../../src/regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const unsigned syn[4] = {RX_BRE, RX_ERE, RX_PERL, RX_ERE};
  const uint8_t *pat, *sep, *subj;
  size_t plen, slen, start;
  unsigned fl, ef;
  rx_match mt[12];
  uint64_t budget;
  mem m;
  buf e;
  rx *r = NULL;
  int rc;
  if (size < 2) return 0;
  fl = syn[data[0] & 3];
  if (data[0] & 4) fl |= RX_ICASE;
  if (data[0] & 8) fl |= RX_NEWLINE;
  if (data[0] & 16) fl |= RX_NOSUB;
  if (data[0] & 32) fl |= RX_GREP;
  if (data[0] & 64) fl |= RX_SED;
  ef = data[1] & 3;
  pat = data + 2;
  sep = memchr(pat, 0xff, size - 2);
  plen = sep ? (size_t)(sep - pat) : size - 2;
  subj = sep ? sep + 1 : pat + plen;
  slen = (size_t)(data + size - subj);
  start = (data[1] >> 2) % (slen + 2);
  mem_init(&m, 1u << 26);
  buf_init(&e, &m);
  rc = rx_compile(&m, (const char *)pat, plen, fl, &r, &e);
  if (rc == 0) {
    size_t nm = (data[0] & 128) ? 1 : 12, k;
    budget = 200000;
    rc = rx_exec(r, subj, slen, start, ef, mt, nm, &budget);
    if (rc == 1 && !(fl & RX_NOSUB)) {
      if (mt[0].so < (long)start || mt[0].eo < mt[0].so ||
          mt[0].eo > (long)slen)
        abort();
      for (k = 1; k < nm; k++)
        if ((mt[k].so < 0) != (mt[k].eo < 0) || mt[k].eo > (long)slen ||
            (mt[k].so >= 0 && mt[k].eo < mt[k].so))
          abort();
    }
    if (rc != 0 && rc != 1 && rc != MSB_ELIMIT && rc != MSB_ENOMEM) abort();
    /* The same search without groups must agree on match / no match. */
    if (rc >= 0) {
      int rc2;
      budget = 200000;
      rc2 = rx_exec(r, subj, slen, start, ef, NULL, 0, &budget);
      if (rc2 >= 0 && rc2 != rc) abort();
    }
    rx_free(r);
  } else if (rc != MSB_EINVAL && rc != MSB_ENOMEM) {
    abort();
  }
  buf_finish(&e);
  if (m.blocks != 0) abort();
  return 0;
}
