/* fuzz_secret.c - libFuzzer target: secret redaction and search.
 *
 * The input names up to four values (a length byte, then the bytes), a
 * piece size, and a text. The streaming redactor, fed in pieces, must give
 * exactly what a naive quadratic redactor gives on the whole text, and
 * secret_find must agree with it on whether anything matched, also when
 * the text comes in pieces searched after a secret_window of what came
 * before (the write guard's view of a value written in pieces). Nothing
 * may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/secret.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t fs_end(const uint8_t *t, size_t n, size_t i,
                     const secret_set *s) {
  size_t k, e = 0;
  for (k = 0; k < s->n; k++)
    if (i + s->len[k] <= n && !memcmp(t + i, s->val[k], s->len[k]) &&
        i + s->len[k] > e)
      e = i + s->len[k];
  return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m;
  secret_set s;
  secret_stream st;
  buf why, got, want;
  char binds[4][40];
  const char *b[4];
  size_t nv, k, p = 0, step, i, hits = 0;
  if (size < 2) return 0;
  nv = 1 + data[p++] % 4;
  for (k = 0; k < nv; k++) {
    size_t l, j;
    if (p >= size) return 0;
    l = 1 + data[p++] % 8;
    if (p + l > size) return 0;
    memcpy(binds[k], "S_=", 3);
    binds[k][1] = (char)('A' + k);
    for (j = 0; j < l; j++)
      binds[k][3 + j] = data[p + j] ? (char)data[p + j] : 'x';
    binds[k][3 + l] = 0;
    b[k] = binds[k];
    p += l;
  }
  if (p >= size) return 0;
  step = 1 + data[p++] % 16;
  if (size - p > 4096) size = p + 4096;
  mem_init(&m, 0);
  buf_init(&why, &m);
  if (secret_set_init(&s, &m, b, nv, NULL, 0, &why)) abort();
  buf_finish(&why);
  buf_init(&got, &m);
  buf_init(&want, &m);
  for (i = p; i < size;) { /* the naive redactor */
    size_t end = fs_end(data + p, size - p, i - p, &s), j;
    if (!end) {
      buf_putc(&want, data[i++]);
      continue;
    }
    hits++;
    end += p;
    for (j = i + 1; j < end; j++) {
      size_t e = fs_end(data + p, size - p, j - p, &s);
      if (e && e + p > end) end = e + p;
    }
    buf_puts(&want, SECRET_MARK);
    i = end;
  }
  if (secret_stream_init(&st, &s, &got, 0)) abort();
  for (i = p; i < size; i += step)
    secret_stream_put(&st, data + i, size - i < step ? size - i : step);
  secret_stream_flush(&st);
  if (got.len != want.len || (got.len && memcmp(got.p, want.p, got.len)))
    abort();
  if (st.total != got.len) abort();
  if (secret_find(&s, data + p, size - p, NULL, 0) != (hits > 0)) abort();
  {
    secret_window w;
    int found = 0;
    if (secret_window_init(&w, &s)) abort();
    for (i = p; i < size; i += step) {
      size_t piece = size - i < step ? size - i : step;
      found |= secret_find(&s, w.p, w.len, data + i, piece);
      secret_window_put(&w, data + i, piece);
    }
    if (found != (hits > 0)) abort();
    secret_window_finish(&w);
  }
  secret_stream_finish(&st);
  buf_finish(&got);
  buf_finish(&want);
  secret_set_finish(&s);
  if (m.used || m.blocks) abort();
  return 0;
}
