/* buf.c - growable byte buffers with sticky errors. */
#include "buf.h"

#include <stdio.h>
#include <string.h>

#include "memsandbox.h"

void buf_init(buf *b, mem *m) {
  b->m = m;
  b->p = NULL;
  b->len = b->cap = 0;
  b->err = 0;
}

void buf_finish(buf *b) {
  mem_free(b->m, b->p);
  b->p = NULL;
  b->len = b->cap = 0;
  b->err = 0;
}

void buf_clear(buf *b) {
  b->len = 0;
  b->err = 0;
  if (b->p) b->p[0] = 0;
}

int buf_reserve(buf *b, size_t n) {
  size_t cap;
  char *p;
  if (b->err) return b->err;
  if (n < b->cap - b->len) return 0;
  if (n > (size_t)-1 / 2 - b->len) return b->err = MSB_ENOMEM;
  cap = b->cap ? b->cap : 64;
  while (cap - b->len <= n) cap *= 2;
  p = mem_realloc(b->m, b->p, cap);
  if (!p) return b->err = MSB_ENOMEM;
  b->p = p;
  b->cap = cap;
  return 0;
}

int buf_reserve_exact(buf *b, size_t n) {
  char *p;
  if (b->err) return b->err;
  if (n < b->cap - b->len) return 0;
  if (n > (size_t)-1 / 2 - b->len) return b->err = MSB_ENOMEM;
  p = mem_realloc(b->m, b->p, b->len + n + 1);
  if (!p) return b->err = MSB_ENOMEM;
  b->p = p;
  b->cap = b->len + n + 1;
  return 0;
}

int buf_put(buf *b, const void *s, size_t n) {
  if (buf_reserve(b, n)) return b->err;
  if (n) memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
  return 0;
}

int buf_putc(buf *b, int c) {
  char ch = (char)c;
  return buf_put(b, &ch, 1);
}

int buf_puts(buf *b, const char *s) { return buf_put(b, s, strlen(s)); }

int buf_vprintf(buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  int n;
  va_copy(ap2, ap);
  n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return b->err = MSB_EINVAL;
  if (buf_reserve(b, (size_t)n)) return b->err;
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  return 0;
}

int buf_printf(buf *b, const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = buf_vprintf(b, fmt, ap);
  va_end(ap);
  return r;
}

const char *buf_str(const buf *b) { return b->p ? b->p : ""; }

char *buf_steal(buf *b, size_t *len) {
  char *p = b->p;
  if (len) *len = b->len;
  b->p = NULL;
  b->len = b->cap = 0;
  b->err = 0;
  return p;
}

void buf_truncate(buf *b, size_t n) {
  if (n < b->len) {
    b->len = n;
    b->p[n] = 0;
  }
}

const void *buf_memmem(const void *hay, size_t hn, const void *needle,
                       size_t nn) {
  const uint8_t *p = hay, *end = p + hn, *q;
  if (!nn) return hay;
  while ((size_t)(end - p) >= nn) {
    q = memchr(p, *(const uint8_t *)needle, (size_t)(end - p) - nn + 1);
    if (!q) return NULL;
    if (!memcmp(q, needle, nn)) return q;
    p = q + 1;
  }
  return NULL;
}
