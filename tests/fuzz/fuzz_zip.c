/* fuzz_zip.c - libFuzzer target: arbitrary bytes as a zip archive.
 *
 * The reader walks every entry and expands it within a small bound; the
 * same bytes then go through unzip (list, verbose list, test, pipe and
 * extract twice, the second time over the first) and through zip (which
 * must either refuse the archive or rewrite it with one more entry, after
 * which unzip -t must accept it). Nothing may crash, hang or leak. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"
#include "../../src/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every entry straight through src/zip.c. */
static void fuzz_zip_read(const uint8_t *data, size_t size) {
  mem mm, *m = &mm;
  zip_rd z;
  zip_entry e;
  const char *why;
  mem_init(m, 64u << 20);
  if (zip_rd_open(&z, data, size, 1000) == 0)
    while (zip_rd_next(&z, &e) == 1) {
      buf out;
      buf_init(&out, m);
      zip_rd_data(&e, &out, 1u << 20, &why);
      buf_finish(&out);
    }
  if (m->used != 0 || m->blocks != 0) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char script[] =
      "cd /tmp; unzip -l a.zip; unzip -v a.zip; unzip -t a.zip; "
      "unzip -p a.zip >/dev/null; mkdir x; unzip -d x a.zip; "
      "unzip -o -d x a.zip; unzip -n -j -d x a.zip; "
      "echo hi > n.txt; zip a.zip n.txt && unzip -tq a.zip";
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  msb_result r;
  fuzz_zip_read(data, size);
  msb_limits_init(&lim, MSB_PROFILE_STRICT);
  lim.max_total_bytes = 1 << 20;
  lim.max_file_bytes = 1 << 20;
  lim.max_nodes = 200;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  if (msb_open(&cfg, &sb)) return 0;
  if (!msb_write(sb, "/tmp/a.zip", data, size, MSB_WRITE_ANY, NULL, 0, 0) &&
      msb_exec(sb, script, sizeof script - 1, NULL, &r) == 0)
    msb_result_finish(sb, &r);
  if (api_close(sb) != 0) __builtin_trap();
  return 0;
}
