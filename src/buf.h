/* buf.h - growable byte buffers.
 *
 * A buffer is always NUL-terminated after its content (so text can be passed
 * to C string functions) but may hold NUL bytes. Errors are sticky: after a
 * failed append `err` holds MSB_ENOMEM and further appends do nothing, so a
 * producer can append freely and check once at the end. */
#ifndef MSB_BUF_H
#define MSB_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "mem.h"

typedef struct buf {
  mem *m;
  char *p;   /* content, NUL-terminated; NULL until the first append */
  size_t len;
  size_t cap;
  int err;   /* 0 or a negative MSB_E* code; sticky */
} buf;

void buf_init(buf *b, mem *m);
/* Frees the content; the buffer can be reused after buf_init. */
void buf_finish(buf *b);
/* Empties the buffer, keeping its storage and clearing err. */
void buf_clear(buf *b);
/* Ensures room for n more bytes; returns 0 or b->err. */
int buf_reserve(buf *b, size_t n);
/* The same for a size known in advance: room for exactly n more, not the
 * next power of two. */
int buf_reserve_exact(buf *b, size_t n);
int buf_put(buf *b, const void *s, size_t n);
int buf_putc(buf *b, int c);
int buf_puts(buf *b, const char *s);
int buf_printf(buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int buf_vprintf(buf *b, const char *fmt, va_list ap);
/* Content as a C string ("" when empty); never NULL. Borrowed. */
const char *buf_str(const buf *b);
/* Takes the content (owned, free with mem_free; NULL when empty); the buffer
 * is left empty. */
char *buf_steal(buf *b, size_t *len);
/* Shortens the content to n bytes (n <= len). */
void buf_truncate(buf *b, size_t n);
/* First occurrence of needle[0..nn) in hay[0..hn) (memmem, which not
 * every libc we build with has), or NULL; nn 0 finds hay. */
const void *buf_memmem(const void *hay, size_t hn, const void *needle,
                       size_t nn);

#endif
