/* secret.h - secret values bound for one exec: validation of the bindings,
 * redaction of output and messages, and the test that refuses writes.
 *
 * A secret set lives for one msb_exec. The interpreter redacts the run's
 * stdout and stderr through a secret_stream each, the filesystem refuses
 * any write whose bytes or new names contain a value (secret_find, with a
 * secret_window for values written in pieces), and
 * other modules (error messages, events) redact whole strings with
 * secret_redact. Matching is on exact bytes: encoded or transformed forms
 * of a value (base64, upper case, shell quoting) are not recognised. */
#ifndef MSB_SECRET_H
#define MSB_SECRET_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"
#include "memsandbox.h"

#define SECRET_MAX MSB_SECRET_MAX             /* bindings per exec */
#define SECRET_MAX_VALUE MSB_SECRET_MAX_VALUE /* bytes of one value */
#define SECRET_MARK "[REDACTED]"

typedef struct secret_set {
  mem *m;
  size_t n;
  size_t maxlen;                   /* longest value */
  char *name[SECRET_MAX];          /* owned; NUL-terminated */
  const uint8_t *val[SECRET_MAX];  /* into name[i] storage */
  size_t len[SECRET_MAX];
  uint32_t *fail[SECRET_MAX];      /* KMP failure tables (owned) */
  uint8_t first[256];              /* bytes that start some value */
} secret_set;

/* Validates "NAME=value" bindings and builds the set. env/nenv are the
 * call's plain environment bindings, whose names may not repeat a secret's.
 * Returns 0, MSB_ENOMEM, or MSB_EINVAL with a one-line reason in *why
 * (never containing a value). On failure nothing needs finishing. */
int secret_set_init(secret_set *s, mem *m, const char *const *bind, size_t n,
                    const char *const *env, size_t nenv, buf *why);
/* Frees the set's storage; a zeroed or finished set is accepted. */
void secret_set_finish(secret_set *s);

/* 1 when some value occurs in the bytes a[0..alen) followed by
 * b[0..blen) (b may be NULL), else 0. Linear time. NULL s: 0. */
int secret_find(const secret_set *s, const void *a, size_t alen, const void *b,
                size_t blen);

/* The last bytes of a sequence written in pieces, as many as a value could
 * straddle (the longest value - 1): secret_find(s, w.p, w.len, piece, n)
 * then finds a value that the sequence holds across pieces, as soon as
 * its last piece comes. Putting costs O(piece + longest value). */
typedef struct secret_window {
  mem *m;
  uint8_t *p;
  size_t len, cap;
} secret_window;

/* Starts an empty window for s's values. Returns 0 or MSB_ENOMEM. */
int secret_window_init(secret_window *w, const secret_set *s);
/* Appends p[0..n) to the sequence. */
void secret_window_put(secret_window *w, const void *p, size_t n);
/* Frees the window's storage; a zeroed window is accepted. */
void secret_window_finish(secret_window *w);

/* Appends p[0..n) to out with every occurrence of a value replaced by
 * SECRET_MARK; overlapping occurrences become one mark. Returns 0 or
 * MSB_ENOMEM. NULL s: copies. For error messages and events. */
int secret_redact(const secret_set *s, const void *p, size_t n, buf *out);

/* Redacting a stream that arrives in pieces: an occurrence split across
 * pieces is still found. Holds back at most (longest value - 1) raw bytes
 * until the next piece or secret_stream_flush. */
typedef struct secret_run {
  uint64_t s, e; /* raw positions [s, e) */
} secret_run;

typedef struct secret_stream {
  const secret_set *set;
  buf *out;          /* redacted bytes (borrowed) */
  uint64_t cap;      /* keep at most this many bytes in out; 0 = all */
  uint64_t total;    /* redacted bytes produced, kept or not */
  uint64_t n;        /* raw bytes consumed */
  uint64_t emit;     /* raw bytes decided (emitted or redacted) */
  uint8_t *ring;     /* the last raw bytes, by position & rmask */
  size_t rmask;
  secret_run *runs;  /* undecided runs of matches, a ring by runmask */
  size_t rhead, nruns, runmask;
  uint32_t q[SECRET_MAX]; /* matched prefix length per value */
  int active;        /* some q is non-zero */
  int err;           /* sticky MSB_ENOMEM */
} secret_stream;

/* Starts a stream writing into out (which it does not own), keeping at
 * most cap bytes there (0: all). Returns 0 or MSB_ENOMEM. */
int secret_stream_init(secret_stream *st, const secret_set *s, buf *out,
                       uint64_t cap);
/* Consumes raw bytes. Returns 0 or MSB_ENOMEM (sticky). */
int secret_stream_put(secret_stream *st, const void *p, size_t n);
/* Decides the held-back bytes (end of the stream). */
int secret_stream_flush(secret_stream *st);
/* Forgets the held-back bytes and the count of bytes produced (used when
 * the caller empties out to replace it). */
void secret_stream_reset(secret_stream *st);
/* Frees the stream's own storage (not out). */
void secret_stream_finish(secret_stream *st);

#endif
