/* inf.h - raw deflate (RFC 1951) decoding into a growable buffer.
 *
 * One call decodes one whole stream held in memory: the input is borrowed,
 * the output is appended to a buf, and a cap bounds how much the stream may
 * expand so a hostile archive stops early. It accepts exactly the streams
 * zlib's raw inflate (windowBits -15) accepts, with the same output, and
 * leaves the same partial output in the buffer when it refuses one. */
#ifndef MSB_INF_H
#define MSB_INF_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Why a stream was refused (with MSB_ECORRUPT). */
enum {
  INF_TRUNCATED = 1, /* the input ends before the final block does */
  INF_INVALID = 2,   /* the data breaks RFC 1951 (zlib's Z_DATA_ERROR) */
  INF_CAPPED = 3,    /* the stream expands to more than cap bytes */
  INF_STOPPED = 4    /* the watcher stopped it (inf_raw_watch) */
};

/* Bytes of output a stream may refer back to (RFC 1951's window). */
#define INF_WINDOW ((size_t)32768)

/* What a watcher sees (out, in_used) and answers (next, drop). */
typedef struct inf_look {
  buf *out;       /* the output so far: the watcher must not change its
                     bytes or length */
  size_t in_used; /* input consumed to produce it */
  size_t next;    /* output length at which to be called again (raised to
                     at least `every` bytes past the current length) */
  size_t drop;    /* leading bytes of out no longer needed: removed (out
                     shifts down) as long as INF_WINDOW bytes stay */
} inf_look;

/* A watcher looks at the output while a stream decodes, so a caller that
 * can judge a prefix (a tar header announcing more than its budget) stops
 * a bomb before it expands, and a caller done with the bytes it has seen
 * lets them go, so the output needs only the room the caller still uses.
 * fn is called each time the output reaches the next watermark (symbols
 * are whole then). It returns 0 to go on, or an error: MSB_ENOMEM, or
 * anything else to stop (inf_raw_watch then fails with INF_STOPPED). */
typedef struct inf_watch {
  int (*fn)(void *ctx, inf_look *l);
  void *ctx;
  size_t first; /* output length of the first call */
  size_t every; /* least distance between calls */
} inf_watch;

/* Decodes the raw deflate stream at in[0..n) up to and including its final
 * block and appends the bytes to out, appending at most cap bytes. out may
 * be pre-sized (its spare room is used first); otherwise it grows
 * geometrically, never past what the cap allows. Distances never reach
 * into bytes out held before the call. On success *used is the number of
 * input bytes the stream took (the rest, e.g. a gzip trailer, is the
 * caller's). Returns 0, MSB_ENOMEM (out->err is set), or MSB_ECORRUPT with
 * *why one of INF_*; on failure out keeps the bytes decoded before the
 * fault. in is borrowed. */
int inf_raw(const uint8_t *in, size_t n, buf *out, size_t cap, size_t *used,
            int *why);
/* inf_raw with a watcher (w may be NULL). The cap still bounds the whole
 * output, dropped bytes included; the watcher is not called for the
 * bytes after its last watermark, which the caller sees once the stream
 * ends. */
int inf_raw_watch(const uint8_t *in, size_t n, buf *out, size_t cap,
                  const inf_watch *w, size_t *used, int *why);

/* RFC 1951 3.2.5, shared with the snapshot header encoder: base and extra
 * bits of each length code (257..285) and distance code (0..29). */
extern const uint16_t inf_lbase[29];
extern const uint8_t inf_lext[29];
extern const uint16_t inf_dbase[30];
extern const uint8_t inf_dext[30];

#endif
