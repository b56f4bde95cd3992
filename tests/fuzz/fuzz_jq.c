/* fuzz_jq.c - libFuzzer target for jq's JSON reader and program parser.
 *
 * Byte 0 picks the mode: even bytes read the rest as a JSON text (every
 * value is dumped pretty and compact, then freed; parse errors must come
 * with a message and position; when bit 1 is set the reader also makes
 * --stream's events, which must be arrays of one or two items), odd
 * bytes compile the rest as a jq
 * program (compile errors must come with a message). Both run under a
 * memory limit, and the allocator must be empty afterwards. Build: make
 * fuzz (build/fuzz/fuzz_jq). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/memsandbox.h"
#include "../../src/buf.h"
#include "../../src/cmd/jq.h"
#include "../../src/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_jq_events(jv evs) {
  size_t i;
  for (i = 0; i < jv_alen(evs); i++) {
    jv e = jv_aget(evs, i);
    if (e.k != JV_ARRAY || jv_alen(e) < 1 || jv_alen(e) > 2 ||
        jv_aget(e, 0).k != JV_ARRAY)
      abort();
  }
}

static void fuzz_jq_json(jq_rt *R, const uint8_t *p, size_t n, int stream) {
  jq_rd r;
  jv v, evs = jv_arr(R);
  buf b;
  jq_fmt pretty = {2, 0, 1, 1}, compact = {0, 0, 0, 0};
  int rc;
  buf_init(&b, R->m);
  jq_rd_init(&r, R, p, n);
  if (stream) r.evs = &evs;
  while ((rc = jq_rd_next(&r, &v)) == 1) {
    jv_dump(R, &b, v, &pretty, 0);
    jv_dump(R, &b, v, &compact, 0);
    buf_clear(&b);
    jv_unref(R, v);
  }
  if (rc < 0 && (!r.err || !r.eline)) abort();
  fuzz_jq_events(evs);
  jv_unref(R, evs);
  jv_unref(R, r.epath);
  buf_finish(&b);
}

static void fuzz_jq_prog(jq_rt *R, const uint8_t *p, size_t n) {
  arena a;
  buf err;
  jq_node *prog = NULL, **g;
  char *src = malloc(n + 1);
  int nerr;
  if (!src) return;
  memcpy(src, p, n);
  src[n] = 0;
  arena_init(&a, R->m);
  buf_init(&err, R->m);
  nerr = jq_compile(&a, R, jq_prelude, src, NULL, 0, &g, &prog, &err);
  if (nerr && !err.len && !R->oom) abort();
  if (!nerr && !prog) abort();
  buf_finish(&err);
  jq_free_lits(R);
  arena_finish(&a);
  free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m;
  jq_rt R;
  if (size < 1) return 0;
  mem_init(&m, 1u << 26);
  memset(&R, 0, sizeof R);
  R.m = &m;
  if (data[0] & 1)
    fuzz_jq_prog(&R, data + 1, size - 1);
  else
    fuzz_jq_json(&R, data + 1, size - 1, data[0] & 2);
  if (m.used || m.blocks) abort();
  return 0;
}
