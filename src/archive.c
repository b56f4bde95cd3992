/* archive.c - tar reader/writer and gzip framing, bounded.
 *
 * The reader walks an in-memory tar 512 bytes at a time and refuses
 * anything it cannot vouch for: a bad checksum, a non-octal number, a size
 * past the end of the buffer, a device or FIFO, sparse files, an oversized
 * pax header, and non-zero bytes after the end-of-archive blocks. pax 'x'
 * and GNU 'L'/'K' records only override the next member; pax 'g' records
 * are kept when their key starts with "MEMSANDBOX." (our snapshot state).
 *
 * The writer emits ustar headers (name split into prefix/name when
 * possible) and falls back to a pax 'x' record for long names, long link
 * targets and mtimes ustar cannot carry, so its output is readable by GNU
 * tar, bsdtar and Python's tarfile. gzip compresses with zlib's raw deflate
 * and our allocator and expands with inf.c (two to three times as fast
 * as zlib's inflate, and capped so a bomb stops early); the gzip header and
 * trailer are handled here so they are byte-for-byte deterministic. */
#include "archive.h"

#include <stdio.h>
#include <string.h>

#include "inf.h"
#include "memsandbox.h"
#include "zlib.h"

#define ARC_BLOCK 512
#define ARC_RECORD 10240
#define ARC_CHUNK ((size_t)1 << 30) /* zlib counts in uInt */

/* ---- zlib glue ------------------------------------------------------ */

static voidpf arc_zalloc(voidpf opaque, uInt items, uInt size) {
  if (size && items > (size_t)-1 / size) return Z_NULL;
  return mem_alloc((mem *)opaque, (size_t)items * size);
}

static void arc_zfree(voidpf opaque, voidpf p) { mem_free((mem *)opaque, p); }

/* Clears a z_stream and points its allocator at m. */
void arc_zinit(z_stream *z, mem *m) {
  memset(z, 0, sizeof *z);
  z->zalloc = arc_zalloc;
  z->zfree = arc_zfree;
  z->opaque = m;
}

/* CRC-32 of n bytes continuing crc (zlib's, for any n). */
uint32_t arc_crc(uint32_t crc, const uint8_t *p, size_t n) {
  uLong c = crc;
  while (n) {
    size_t k = n > ARC_CHUNK ? ARC_CHUNK : n;
    c = crc32(c, p, (uInt)k);
    p += k;
    n -= k;
  }
  return (uint32_t)c;
}

static void arc_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static uint32_t arc_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* ---- gzip ----------------------------------------------------------- */

/* Whether p starts with the gzip magic. */
int arc_is_gzip(const uint8_t *p, size_t n) {
  return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int arc_gz_put_header(buf *out, int level, const char *name, uint32_t mtime) {
  uint8_t h[10];
  h[0] = 0x1f;
  h[1] = 0x8b;
  h[2] = 8;
  h[3] = name ? 8 : 0;
  arc_le32(h + 4, mtime);
  h[8] = level == 9 ? 2 : level == 1 ? 4 : 0;
  h[9] = 3;
  buf_put(out, h, sizeof h);
  if (name) buf_put(out, name, strlen(name) + 1);
  return out->err;
}

int arc_gz_put_trailer(buf *out, uint32_t crc, uint64_t len) {
  uint8_t t[8];
  arc_le32(t, crc);
  arc_le32(t + 4, (uint32_t)len);
  return buf_put(out, t, sizeof t);
}

/* Compresses in into one deterministic gzip member. */
int arc_gzip(mem *m, const uint8_t *in, size_t n, int level, const char *name,
             uint32_t mtime, buf *out) {
  z_stream z;
  size_t left = n;
  int rc = 0, zr;
  if (level < 0 || level > 9) return MSB_EINVAL;
  if (arc_gz_put_header(out, level, name, mtime)) return out->err;
  arc_zinit(&z, m);
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return MSB_ENOMEM;
  z.next_in = (Bytef *)(uintptr_t)in;
  for (;;) {
    size_t room, k = left > ARC_CHUNK ? ARC_CHUNK : left;
    size_t want = (size_t)deflateBound(&z, (uLong)k) + 64;
    int flush = left == k ? Z_FINISH : Z_NO_FLUSH;
    if (buf_reserve(out, want)) {
      rc = out->err;
      break;
    }
    room = out->cap - out->len - 1;
    if (room > ARC_CHUNK) room = ARC_CHUNK;
    z.avail_in = (uInt)k;
    z.next_out = (Bytef *)out->p + out->len;
    z.avail_out = (uInt)room;
    zr = deflate(&z, flush);
    out->len += room - z.avail_out;
    out->p[out->len] = 0;
    left -= k - z.avail_in;
    if (zr == Z_STREAM_END) break;
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = zr == Z_MEM_ERROR ? MSB_ENOMEM : MSB_EINVAL;
      break;
    }
  }
  deflateEnd(&z);
  return rc ? rc : arc_gz_put_trailer(out, arc_crc(0, in, n), n);
}

/* Skips a NUL-terminated header field; 0 when it runs off the end. */
static int arc_gz_skipz(const uint8_t *in, size_t n, size_t *pos) {
  const uint8_t *z = memchr(in + *pos, 0, n - *pos);
  if (!z) return 0;
  *pos = (size_t)(z - in) + 1;
  return 1;
}

/* Parses one gzip member header at *pos. */
static int arc_gz_header(const uint8_t *in, size_t n, size_t *pos,
                         arc_gz_info *info, int first, const char **why) {
  size_t p = *pos;
  uint8_t flg;
  if (n - p < 10) return *why = "unexpected end of file", MSB_ECORRUPT;
  if (in[p + 2] != 8)
    return *why = "unknown method -- not supported", MSB_ECORRUPT;
  flg = in[p + 3];
  if (flg & 0xe0)
    return *why = "has unknown flags -- not supported", MSB_ECORRUPT;
  if (first && info) info->mtime = arc_rd32(in + p + 4);
  p += 10;
  if (flg & 4) {
    size_t xl;
    if (n - p < 2) return *why = "unexpected end of file", MSB_ECORRUPT;
    xl = (size_t)in[p] | (size_t)in[p + 1] << 8;
    p += 2;
    if (n - p < xl) return *why = "unexpected end of file", MSB_ECORRUPT;
    p += xl;
  }
  if (flg & 8) {
    if (first && info) info->name = (const char *)in + p;
    if (!arc_gz_skipz(in, n, &p))
      return *why = "unexpected end of file", MSB_ECORRUPT;
  }
  if ((flg & 16) && !arc_gz_skipz(in, n, &p))
    return *why = "unexpected end of file", MSB_ECORRUPT;
  if (flg & 2) {
    if (n - p < 2) return *why = "unexpected end of file", MSB_ECORRUPT;
    p += 2;
  }
  *pos = p;
  return 0;
}

/* Checks the expansion bounds once a member is done. */
static int arc_gz_bounded(const arc_limits *lim, uint64_t in_used,
                          uint64_t out_len, const char **why) {
  if (!lim) return 0;
  if (out_len > lim->max_out)
    return *why = "expanded size exceeds the limit", MSB_ECORRUPT;
  if (out_len > ((uint64_t)1 << 20) && lim->max_ratio &&
      out_len / (in_used ? in_used : 1) > lim->max_ratio)
    return *why = "compression ratio exceeds the limit", MSB_ECORRUPT;
  return 0;
}

/* The output length no member may pass, so a bomb stops early: max_out,
 * and the length whose ratio to the whole input (which bounds any input
 * used) already breaks max_ratio. *ratio says which bound it is. */
static uint64_t arc_gz_ceiling(const arc_limits *lim, size_t n, int *ratio) {
  uint64_t top = lim ? lim->max_out : UINT64_MAX, r;
  *ratio = 0;
  if (lim && lim->max_ratio) {
    r = lim->max_ratio + 1 > UINT64_MAX / (n ? n : 1)
            ? UINT64_MAX
            : (lim->max_ratio + 1) * (n ? n : 1) - 1;
    if (r < ((uint64_t)1 << 20)) r = (uint64_t)1 << 20;
    if (r < top) {
      top = r;
      *ratio = 1;
    }
  }
  return top;
}

/* One gzip stream being expanded: the watcher, how much of the output
 * is gone, and the current member's share of what went. */
typedef struct arc_gz {
  const arc_limits *lim;
  const arc_watch *w;
  uint64_t dropped; /* output bytes let go, all members */
  size_t inbase;    /* input offset of the member's deflate data */
  size_t mstart;    /* the member's first byte still in out */
  uint64_t mgone;   /* the member's bytes let go */
  uint32_t crc;     /* CRC-32 of those */
} arc_gz;

/* The watcher as inf.c calls it: stream offsets for the caller, and the
 * member's CRC-32 carried over the bytes that go. */
static int arc_gz_look(void *ctx, inf_look *il) {
  arc_gz *g = ctx;
  arc_look l;
  size_t len = il->out->len, d = 0;
  int rc;
  l.p = (const uint8_t *)il->out->p;
  l.len = len;
  l.base = g->dropped;
  l.in_used = (uint64_t)g->inbase + il->in_used;
  l.next = 0;
  l.keep = l.base;
  rc = g->w->fn(g->w->ctx, &l);
  if (rc) return rc;
  if (l.next > l.base)
    il->next =
        l.next - l.base > SIZE_MAX ? SIZE_MAX : (size_t)(l.next - l.base);
  if (l.keep > l.base && len > INF_WINDOW) {
    d = l.keep - l.base < len - INF_WINDOW ? (size_t)(l.keep - l.base)
                                           : len - INF_WINDOW;
    if (d > g->mstart) {
      g->crc = arc_crc(g->crc, l.p + g->mstart, d - g->mstart);
      g->mgone += d - g->mstart;
      g->mstart = 0;
    } else {
      g->mstart -= d;
    }
    g->dropped += d;
  }
  il->drop = d;
  return 0;
}

/* Inflates one member's deflate data from *pos; checks its trailer. */
static int arc_gz_member(arc_gz *g, const uint8_t *in, size_t n, size_t *pos,
                         buf *out, arc_gz_info *info, const char **why) {
  const arc_limits *lim = g->lim;
  uint64_t total = g->dropped + out->len, top, mlen;
  size_t used = 0, cap = 0;
  int rc, reason = 0, ratio;
  inf_watch iw;
  top = arc_gz_ceiling(lim, n, &ratio);
  if (top > total) cap = top - total > SIZE_MAX ? SIZE_MAX : top - total;
  g->inbase = *pos;
  g->mstart = out->len;
  g->mgone = 0;
  g->crc = 0;
  if (g->w) {
    memset(&iw, 0, sizeof iw);
    iw.fn = arc_gz_look;
    iw.ctx = g;
    iw.first = out->len + g->w->every;
    iw.every = g->w->every;
  }
  rc = inf_raw_watch(in + *pos, n - *pos, out, cap, g->w ? &iw : NULL, &used,
                     &reason);
  if (rc == MSB_ECORRUPT) {
    *why = reason == INF_TRUNCATED ? "unexpected end of file"
           : reason == INF_INVALID ? "invalid compressed data--format violated"
           : reason == INF_STOPPED ? "stopped by the reader"
           : ratio                 ? "compression ratio exceeds the limit"
                                   : "expanded size exceeds the limit";
  }
  if (rc) return rc;
  *pos += used;
  rc = arc_gz_bounded(lim, (uint64_t)*pos, g->dropped + out->len, why);
  if (rc) return rc;
  if (n - *pos < 8) return *why = "unexpected end of file", MSB_ECORRUPT;
  mlen = g->mgone + (out->len - g->mstart);
  if (out->len > g->mstart)
    g->crc = arc_crc(g->crc, (const uint8_t *)out->p + g->mstart,
                     out->len - g->mstart);
  if (arc_rd32(in + *pos) != g->crc)
    return *why = "invalid compressed data--crc error", MSB_ECORRUPT;
  if (arc_rd32(in + *pos + 4) != (uint32_t)mlen)
    return *why = "invalid compressed data--length error", MSB_ECORRUPT;
  if (info) info->isize = arc_rd32(in + *pos + 4);
  *pos += 8;
  return 0;
}

/* Expands concatenated gzip members. */
int arc_gunzip(const uint8_t *in, size_t n, const arc_limits *lim, buf *out,
               arc_gz_info *info, const char **why) {
  return arc_gunzip_watch(in, n, lim, NULL, out, NULL, info, why);
}

/* Expands concatenated gzip members under a watcher. */
int arc_gunzip_watch(const uint8_t *in, size_t n, const arc_limits *lim,
                     const arc_watch *w, buf *out, uint64_t *base,
                     arc_gz_info *info, const char **why) {
  size_t pos = 0;
  int rc, first = 1;
  arc_gz g;
  memset(&g, 0, sizeof g);
  g.lim = lim;
  g.w = w;
  if (info) memset(info, 0, sizeof *info);
  if (base) *base = 0;
  if (!arc_is_gzip(in, n)) return *why = "not in gzip format", MSB_ECORRUPT;
  if (lim && n > lim->max_in)
    return *why = "compressed size exceeds the limit", MSB_ECORRUPT;
  for (;;) {
    size_t i;
    rc = arc_gz_header(in, n, &pos, info, first, why);
    if (!rc) rc = arc_gz_member(&g, in, n, &pos, out, info, why);
    if (base) *base = g.dropped;
    if (rc) return rc;
    first = 0;
    if (pos == n) return 0;
    if (arc_is_gzip(in + pos, n - pos)) continue;
    for (i = pos; i < n && in[i] == 0; i++) {
    }
    if (info) info->trailing = i == n ? 1 : 2;
    return 0;
  }
}

/* ---- tar: numbers and names ----------------------------------------- */

/* Parses a numeric header field: octal digits with optional leading
 * spaces, ended by space or NUL with only spaces/NULs after; or GNU's
 * base-256 (top bit set; 0xff leads a negative number). */
static int arc_num(const uint8_t *f, size_t w, int64_t *out, int *neg) {
  size_t i = 0;
  uint64_t v = 0;
  *neg = 0;
  if (f[0] & 0x80) {
    int negative = f[0] == 0xff;
    if (f[0] != 0x80 && !negative) return -1;
    for (i = 1; i < w; i++) {
      if (!negative && v >> 55) return -1;
      v = v << 8 | f[i];
    }
    if (negative) {
      *neg = 1;
      *out = -1; /* only the sign matters to callers */
      return 0;
    }
    if (v > (uint64_t)INT64_MAX) return -1;
    *out = (int64_t)v;
    return 0;
  }
  while (i < w && f[i] == ' ') i++;
  for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) {
    if (v >> 60) return -1;
    v = v * 8 + (uint64_t)(f[i] - '0');
  }
  for (; i < w; i++)
    if (f[i] != ' ' && f[i] != 0) return -1;
  *out = (int64_t)v;
  return 0;
}

/* Copies a fixed-width, possibly unterminated string field. */
static int arc_field(buf *b, const uint8_t *f, size_t w) {
  const uint8_t *z = memchr(f, 0, w);
  buf_clear(b);
  buf_put(b, f, z ? (size_t)(z - f) : w);
  return b->err;
}

static int arc_fail(arc_tar *t, const char *what) {
  size_t n = strlen(what);
  if (n >= sizeof t->why) n = sizeof t->why - 1;
  memcpy(t->why, what, n);
  t->why[n] = 0;
  t->done = 1;
  return MSB_ECORRUPT;
}

/* Normalises a member name (see archive.h). */
int arc_path_clean(const char *in, buf *out, int *had_slash, const char **why) {
  const char *p = in;
  size_t base = out->len;
  *had_slash = 0;
  while (*p == '/') {
    *had_slash = 1;
    p++;
  }
  while (*p) {
    const char *c = p;
    size_t cl;
    while (*p && *p != '/') p++;
    cl = (size_t)(p - c);
    while (*p == '/') p++;
    if (cl == 0 || (cl == 1 && c[0] == '.')) continue;
    if (cl == 2 && c[0] == '.' && c[1] == '.') {
      buf_truncate(out, base);
      *why = "contains '..'";
      return MSB_EINVAL;
    }
    if (out->len > base) buf_putc(out, '/');
    buf_put(out, c, cl);
  }
  if (out->err) return out->err;
  if (out->len == base) {
    *why = "empty member name";
    return MSB_ENOENT;
  }
  return 0;
}

/* ---- tar reading ---------------------------------------------------- */

/* Starts a reader over p. */
void arc_tar_init(arc_tar *t, mem *m, const uint8_t *p, size_t len,
                  const arc_limits *lim) {
  memset(t, 0, sizeof *t);
  t->m = m;
  t->p = p;
  t->len = len;
  t->max_members = lim && lim->max_members ? lim->max_members : 1000000;
  t->max_header = lim && lim->max_header ? lim->max_header : 1 << 20;
  t->max_global = lim && lim->max_global ? lim->max_global : t->max_header;
  buf_init(&t->path, m);
  buf_init(&t->link, m);
  buf_init(&t->uname, m);
  buf_init(&t->gname, m);
  buf_init(&t->xpath, m);
  buf_init(&t->xlink, m);
  buf_init(&t->xcmd, m);
  buf_init(&t->globals, m);
}

/* Points the reader at the grown buffer. */
void arc_tar_feed(arc_tar *t, const uint8_t *p, size_t len, uint64_t base,
                  int more) {
  size_t gone = (size_t)(base - t->base); /* never past arc_tar_keep */
  t->pos = t->pos > gone ? t->pos - gone : 0; /* 0 only once ended */
  t->tail = t->tail > gone ? t->tail - gone : 0;
  t->base = base;
  t->p = p;
  t->len = len;
  t->more = more;
}

/* Where the reader's next member (or pending header) starts. */
uint64_t arc_tar_keep(const arc_tar *t) {
  return t->base + (t->ended ? t->tail : t->pos);
}

/* Frees the reader's buffers. */
void arc_tar_finish(arc_tar *t) {
  buf_finish(&t->path);
  buf_finish(&t->link);
  buf_finish(&t->uname);
  buf_finish(&t->gname);
  buf_finish(&t->xpath);
  buf_finish(&t->xlink);
  buf_finish(&t->xcmd);
  buf_finish(&t->globals);
}

/* Looks up a MEMSANDBOX.* global record. */
const char *arc_tar_global(const arc_tar *t, const char *key) {
  size_t i = 0;
  const char *found = NULL;
  while (i < t->globals.len) {
    const char *k = t->globals.p + i, *v = k + strlen(k) + 1;
    if (!strcmp(k, key)) found = v; /* the last one wins */
    i = (size_t)(v - t->globals.p) + strlen(v) + 1;
  }
  return found;
}

/* Parses a pax decimal (optionally signed, with a fraction for times). */
static int arc_pax_int(const char *s, size_t n, int frac, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  uint64_t v = 0, ns = 0, scale = 100000000;
  if (n && s[0] == '-' && frac) {
    neg = 1;
    i++;
  }
  if (i == n) return -1;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (v > ((uint64_t)INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (i < n && s[i] == '.' && frac) {
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      ns += (uint64_t)(s[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i != n) return -1;
  if (frac) {
    if (v > (uint64_t)INT64_MAX / 1000000000 - 1) return -1;
    v = v * 1000000000 + ns;
  }
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

/* Applies the records of a pax header (global when g). */
static int arc_pax_parse(arc_tar *t, const uint8_t *d, size_t n, int g) {
  size_t i = 0;
  while (i < n) {
    size_t len = 0, j = i, k, eq;
    const char *key, *val;
    size_t klen, vlen;
    while (j < n && d[j] >= '0' && d[j] <= '9' && j - i < 12)
      len = len * 10 + (size_t)(d[j++] - '0');
    if (j == i || j >= n || d[j] != ' ' || len < 5 || len > n - i)
      return arc_fail(t, "malformed pax extended header");
    k = j + 1;
    if (d[i + len - 1] != '\n')
      return arc_fail(t, "malformed pax extended header");
    for (eq = k; eq < i + len - 1 && d[eq] != '='; eq++) {
    }
    if (eq >= i + len - 1 || eq == k)
      return arc_fail(t, "malformed pax extended header");
    key = (const char *)d + k;
    klen = eq - k;
    val = (const char *)d + eq + 1;
    vlen = i + len - 1 - (eq + 1);
    i += len;
#define ARC_KEY(s) (klen == sizeof(s) - 1 && !memcmp(key, s, klen))
    if (klen >= 11 && !memcmp(key, "GNU.sparse.", 11))
      return arc_fail(t, "sparse files are not supported");
    if (g) {
      if (klen > 11 && !memcmp(key, "MEMSANDBOX.", 11)) {
        if (memchr(val, 0, vlen) || memchr(key, 0, klen))
          return arc_fail(t, "NUL byte in a pax record");
        buf_put(&t->globals, key + 11, klen - 11);
        buf_putc(&t->globals, 0);
        buf_put(&t->globals, val, vlen);
        buf_putc(&t->globals, 0);
      } else if (ARC_KEY("path") || ARC_KEY("linkpath") || ARC_KEY("size")) {
        return arc_fail(t, "unsupported global pax record");
      }
      continue;
    }
    if (ARC_KEY("path") || ARC_KEY("linkpath")) {
      buf *b = ARC_KEY("path") ? &t->xpath : &t->xlink;
      if (memchr(val, 0, vlen)) return arc_fail(t, "NUL byte in a pax path");
      buf_clear(b);
      buf_put(b, val, vlen);
      if (ARC_KEY("path"))
        t->has_xpath = 1;
      else
        t->has_xlink = 1;
    } else if (ARC_KEY("size")) {
      int64_t v;
      if (arc_pax_int(val, vlen, 0, &v))
        return arc_fail(t, "invalid pax size record");
      t->xsize = (uint64_t)v;
      t->has_xsize = 1;
    } else if (ARC_KEY(ARC_CMD_KEY)) {
      if (memchr(val, 0, vlen)) return arc_fail(t, "NUL byte in a pax record");
      buf_clear(&t->xcmd);
      buf_put(&t->xcmd, val, vlen);
      t->has_xcmd = 1;
    } else if (ARC_KEY("mtime")) {
      if (arc_pax_int(val, vlen, 1, &t->xmtime))
        return arc_fail(t, "invalid pax mtime record");
      t->has_xmtime = 1;
    }
#undef ARC_KEY
  }
  return t->globals.err ? t->globals.err
         : t->xpath.err ? t->xpath.err
         : t->xcmd.err  ? t->xcmd.err
                        : t->xlink.err;
}

static int arc_zero_block(const uint8_t *p) {
  size_t i;
  for (i = 0; i < ARC_BLOCK; i++)
    if (p[i]) return 0;
  return 1;
}

/* Byte sums of p[0..n), n a multiple of 8 up to 512 (a header): *sum of
 * the bytes and, unless high is NULL, *high of those >= 128. Eight at a
 * time, the bytes paired in 16-bit lanes: a lane takes at most 510 per
 * word. */
static void arc_sum_bytes(const uint8_t *p, size_t n, uint64_t *sum,
                          uint64_t *high) {
  const uint64_t m8 = 0x00ff00ff00ff00ffull, b7 = 0x0101010101010101ull;
  uint64_t s = 0, h = 0, v;
  size_t i;
  for (i = 0; i < n; i += 8) {
    memcpy(&v, p + i, 8);
    s += (v & m8) + (v >> 8 & m8);
    h += (v >> 7 & b7); /* a byte lane counts at most 64 */
  }
  h = (h & m8) + (h >> 8 & m8);
  *sum = (s & 0xffff) + (s >> 16 & 0xffff) + (s >> 32 & 0xffff) + (s >> 48);
  if (high)
    *high = (h & 0xffff) + (h >> 16 & 0xffff) + (h >> 32 & 0xffff) + (h >> 48);
}

/* Verifies the header checksum: the sum of its bytes with the checksum
 * field h[148..156) read as spaces, unsigned, or signed as old tars
 * summed it (each byte >= 128 counting 256 less). */
static int arc_checksum_ok(const uint8_t *h) {
  int64_t want;
  int neg;
  uint64_t us, high;
  size_t i;
  if (arc_num(h + 148, 8, &want, &neg) || neg) return 0;
  arc_sum_bytes(h, ARC_BLOCK, &us, &high);
  for (i = 148; i < 156; i++) {
    us += (uint64_t)' ' - h[i];
    high -= h[i] >> 7;
  }
  return (uint64_t)want == us || want == (int64_t)us - 256 * (int64_t)high;
}

/* Checks the bytes after the end-of-archive block, as far as they have
 * come, for anything but zeros. */
static int arc_tar_tail(arc_tar *t) {
  size_t i;
  for (i = t->tail; i < t->len; i++)
    if (t->p[i])
      return arc_fail(t, "trailing garbage after the end of the archive");
  t->tail = t->len;
  return 0;
}

/* Streaming: the buffer ends before what the reader needs next, which
 * ends at byte need; nothing is consumed. */
static int arc_tar_more(arc_tar *t, uint64_t need) {
  t->need = t->base + need;
  return ARC_MORE;
}

/* The member whose header block is h, at t->pos: its fields into e. */
static int arc_tar_fields(arc_tar *t, const uint8_t *h, int ustar,
                          arc_entry *e) {
  int64_t v;
  int neg;
  if (arc_field(&t->path, h, 100)) return t->path.err;
  if (ustar && h[345]) {
    buf pre;
    buf_init(&pre, t->m);
    arc_field(&pre, h + 345, 155);
    buf_putc(&pre, '/');
    buf_put(&pre, t->path.p ? t->path.p : "", t->path.len);
    if (pre.err) {
      buf_finish(&pre);
      return MSB_ENOMEM;
    }
    buf_clear(&t->path);
    buf_put(&t->path, pre.p, pre.len);
    buf_finish(&pre);
  }
  if (arc_field(&t->link, h + 157, 100)) return t->link.err;
  if (t->has_xpath) {
    buf_clear(&t->path);
    buf_put(&t->path, buf_str(&t->xpath), t->xpath.len);
  }
  if (t->has_xlink) {
    buf_clear(&t->link);
    buf_put(&t->link, buf_str(&t->xlink), t->xlink.len);
  }
  arc_field(&t->uname, h + 265, 32);
  arc_field(&t->gname, h + 297, 32);
  if (t->path.err || t->link.err || t->uname.err || t->gname.err)
    return MSB_ENOMEM;
  memset(e, 0, sizeof *e);
  e->offset = t->base + t->pos;
  if (arc_num(h + 100, 8, &v, &neg) || neg)
    return arc_fail(t, "invalid octal number in the mode field");
  e->mode = (uint32_t)v & 07777;
  if (arc_num(h + 108, 8, &v, &neg))
    return arc_fail(t, "invalid octal number in the uid field");
  e->uid = neg ? 0 : (uint64_t)v;
  if (arc_num(h + 116, 8, &v, &neg))
    return arc_fail(t, "invalid octal number in the gid field");
  e->gid = neg ? 0 : (uint64_t)v;
  if (arc_num(h + 136, 12, &v, &neg))
    return arc_fail(t, "invalid octal number in the mtime field");
  if (neg) v = 0;
  e->mtime_ns = v > INT64_MAX / 1000000000 ? INT64_MAX / 1000000000 : v;
  e->mtime_ns *= 1000000000;
  if (t->has_xmtime) e->mtime_ns = t->xmtime;
  e->path = buf_str(&t->path);
  e->link = buf_str(&t->link);
  e->uname = buf_str(&t->uname);
  e->gname = buf_str(&t->gname);
  e->command = t->has_xcmd ? buf_str(&t->xcmd) : "";
  return 0;
}

/* The entry type of a member's type flag; 0 for a volume label (skipped),
 * or a failure. */
static int arc_tar_type(arc_tar *t, uint8_t type, int old_dir, int *out) {
  char msg[48];
  switch (type) {
  case 0:
  case '0':
  case '7': *out = old_dir ? ARC_DIR : ARC_FILE; return 0;
  case '1': *out = ARC_HARDLINK; return 0;
  case '2': *out = ARC_SYMLINK; return 0;
  case '5': *out = ARC_DIR; return 0;
  case 'V': *out = 0; return 0;
  case '3':
  case '4': return arc_fail(t, "device nodes are not supported");
  case '6': return arc_fail(t, "FIFOs are not supported");
  case 'S': return arc_fail(t, "sparse files are not supported");
  default:
    snprintf(msg, sizeof msg, "unsupported member type '%c'",
             type >= 32 && type < 127 ? type : '?');
    return arc_fail(t, msg);
  }
}

/* An extended header ('x', 'g', 'L', 'K') with its data d. */
static int arc_tar_ext(arc_tar *t, uint8_t type, const uint8_t *d,
                       size_t size) {
  int bit = type == 'x' ? 1 : type == 'L' ? 2 : type == 'K' ? 4 : 0;
  int rc;
  if (t->pending & bit) return arc_fail(t, "stacked extended headers");
  t->pending |= bit;
  if (type == 'x' || type == 'g') {
    rc = arc_pax_parse(t, d, size, type == 'g');
  } else {
    buf *b = type == 'L' ? &t->xpath : &t->xlink;
    const uint8_t *z = memchr(d, 0, size);
    buf_clear(b);
    buf_put(b, d, z ? (size_t)(z - d) : size);
    if (type == 'L')
      t->has_xpath = 1;
    else
      t->has_xlink = 1;
    rc = b->err;
  }
  if (rc && rc != MSB_ECORRUPT) t->done = 1;
  return rc;
}

/* Reads the next member. */
int arc_tar_next(arc_tar *t, arc_entry *e) {
  char msg[96];
  for (;;) {
    const uint8_t *h;
    int64_t size;
    int neg, ustar, gnu, kind, rc, whole = 1;
    uint8_t type;
    size_t pad, avail;
    if (t->ended) return arc_tar_tail(t);
    if (t->done) return 0;
    if (t->trunc)
      return arc_fail(t,
                      "truncated archive: member data runs past the "
                      "end");
    if (t->pos > t->len) { /* skipping data (nodata) not yet here */
      if (t->more) return arc_tar_more(t, (uint64_t)t->pos + ARC_BLOCK);
      return arc_fail(t, "truncated archive: member data runs past the end");
    }
    if (t->len - t->pos < ARC_BLOCK && t->more)
      return arc_tar_more(t, (uint64_t)t->pos + ARC_BLOCK);
    if (t->pos == t->len) {
      if (t->pending) return arc_fail(t, "truncated archive: member missing");
      if (t->pos == 0) return arc_fail(t, "empty archive");
      return arc_fail(t, "missing end-of-archive blocks");
    }
    if (t->len - t->pos < ARC_BLOCK)
      return arc_fail(t, "truncated archive: partial header block");
    h = t->p + t->pos;
    if (arc_zero_block(h)) {
      if (t->pending) return arc_fail(t, "truncated archive: member missing");
      t->ended = 1;
      t->tail = t->pos;
      return arc_tar_tail(t);
    }
    if (!arc_checksum_ok(h)) {
      snprintf(msg, sizeof msg, "header checksum mismatch at byte %llu",
               (unsigned long long)(t->base + t->pos));
      return arc_fail(t, msg);
    }
    ustar = !memcmp(h + 257, "ustar\0", 6);
    gnu = !memcmp(h + 257, "ustar  \0", 8);
    if (!ustar && !gnu) {
      size_t i;
      for (i = 257; i < 265; i++)
        if (h[i]) return arc_fail(t, "unknown tar header format");
    }
    if (arc_num(h + 124, 12, &size, &neg))
      return arc_fail(t, "invalid octal number in the size field");
    if (neg) return arc_fail(t, "negative member size");
    type = h[156];
    if (t->has_xsize && type != 'x' && type != 'g' && type != 'L' &&
        type != 'K')
      size = (int64_t)t->xsize;
    avail = t->len - t->pos - ARC_BLOCK;
    if ((uint64_t)size > (uint64_t)avail ||
        ((uint64_t)size + ARC_BLOCK - 1) / ARC_BLOCK * ARC_BLOCK > avail) {
      int plain = type == 0 || type == '0' || type == '7';
      if (t->more)
        whole = 0; /* the header is judged now, the data waited for */
      else if (!t->lenient || !plain)
        return arc_fail(t,
                        "truncated archive: member data runs past the "
                        "end");
      else /* hand out what is there, then fail (tar -t lists it first) */
        t->trunc = 1;
    }
    pad =
        whole
            ? (size_t)(((uint64_t)size + ARC_BLOCK - 1) / ARC_BLOCK * ARC_BLOCK)
            : 0;
    if (pad > avail) pad = avail;
    if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
      if ((uint64_t)size > (type == 'g' ? t->max_global : t->max_header))
        return arc_fail(t, type == 'x' || type == 'g'
                               ? "pax extended header too large"
                               : "GNU long name too large");
      if (!whole)
        return arc_tar_more(t, (uint64_t)t->pos + ARC_BLOCK + (uint64_t)size);
      rc = arc_tar_ext(t, type, h + ARC_BLOCK, (size_t)size);
      if (rc) return rc;
      t->pos += ARC_BLOCK + pad;
      continue;
    }
    if (t->members + 1 > t->max_members) return arc_fail(t, "too many members");
    rc = arc_tar_type(t, type, 0, &kind);
    if (rc) return rc;
    rc = arc_tar_fields(t, h, ustar, e);
    if (rc) return rc;
    if (kind == ARC_FILE && t->path.len && t->path.p[t->path.len - 1] == '/' &&
        !ustar && !gnu)
      kind = ARC_DIR; /* old tars mark directories by the slash */
    e->type = kind;
    e->size = (uint64_t)size;
    e->have = t->trunc ? avail : e->size;
    if (kind && !e->path[0]) return arc_fail(t, "empty member name");
    if ((kind == ARC_SYMLINK || kind == ARC_HARDLINK) && !e->link[0])
      return arc_fail(t, "link member without a target");
    if (!whole) {
      uint64_t end = (uint64_t)t->pos + ARC_BLOCK +
                     ((uint64_t)size + ARC_BLOCK - 1) / ARC_BLOCK * ARC_BLOCK;
      e->data = NULL;
      e->have = 0;
      if (!t->nodata || end > SIZE_MAX / 2) return arc_tar_more(t, end);
      pad = (size_t)end - t->pos - ARC_BLOCK; /* skipped as it comes */
    }
    /* the member is whole: its overrides are spent */
    t->has_xpath = t->has_xlink = t->has_xmtime = t->has_xsize = 0;
    t->has_xcmd = 0;
    t->pending = 0;
    if (whole) e->data = t->p + t->pos + ARC_BLOCK;
    t->pos += ARC_BLOCK + pad;
    if (!kind) continue; /* a volume label */
    t->members++;
    return 1;
  }
}

/* ---- tar writing ---------------------------------------------------- */

static void arc_octal(uint8_t *f, size_t w, uint64_t v) {
  size_t i = w - 1;
  f[i] = 0;
  while (i--) {
    f[i] = (uint8_t)('0' + (v & 7));
    v >>= 3;
  }
}

/* Writes v in decimal at t (no NUL); returns the digit count. Snapshots
 * write a few numbers per file, so not through printf. */
static size_t arc_utoa(char *t, uint64_t v) {
  char r[20];
  size_t n = 0, i;
  do {
    r[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (i = 0; i < n; i++) t[i] = r[n - 1 - i];
  return n;
}

/* Appends one pax record "LEN key=value\n". */
int arc_pax_record(buf *b, const char *key, const char *val, size_t vlen) {
  size_t body = strlen(key) + vlen + 3, len = body + 1, d = 10;
  char t[20];
  /* the length counts its own digits */
  while (len >= d) {
    len++;
    d *= 10;
  }
  buf_put(b, t, arc_utoa(t, len));
  buf_putc(b, ' ');
  buf_puts(b, key);
  buf_putc(b, '=');
  buf_put(b, val, vlen);
  return buf_putc(b, '\n');
}

static void arc_header(uint8_t *h, const char *name, size_t nlen,
                       const char *prefix, size_t plen, uint32_t mode,
                       uint32_t uid, uint32_t gid, uint64_t size, int64_t mtime,
                       int type, const char *link, const char *uname,
                       const char *gname) {
  uint64_t sum;
  memset(h, 0, ARC_BLOCK);
  memcpy(h, name, nlen);
  arc_octal(h + 100, 8, mode & 07777);
  arc_octal(h + 108, 8, uid);
  arc_octal(h + 116, 8, gid);
  arc_octal(h + 124, 12, size);
  arc_octal(h + 136, 12, (uint64_t)mtime);
  memset(h + 148, ' ', 8);
  h[156] = (uint8_t)type;
  if (link) memcpy(h + 157, link, strlen(link));
  memcpy(h + 257,
         "ustar\0"
         "00",
         8);
  if (uname) memcpy(h + 265, uname, strlen(uname) < 32 ? strlen(uname) : 31);
  if (gname) memcpy(h + 297, gname, strlen(gname) < 32 ? strlen(gname) : 31);
  arc_octal(h + 329, 8, 0);
  arc_octal(h + 337, 8, 0);
  if (plen) memcpy(h + 345, prefix, plen);
  arc_sum_bytes(h, ARC_BLOCK, &sum, NULL);
  arc_octal(h + 148, 7, sum);
  h[155] = ' ';
}

/* Appends member data and its zero padding to the next block. */
int arc_tar_put_data(buf *out, const void *d, uint64_t n) {
  static const uint8_t zero[ARC_BLOCK];
  buf_put(out, d, (size_t)n);
  buf_put(out, zero, arc_tar_pad(n));
  return out->err;
}

/* Zero bytes that follow n bytes of member data. */
size_t arc_tar_pad(uint64_t n) {
  return (size_t)((ARC_BLOCK - n % ARC_BLOCK) % ARC_BLOCK);
}

/* Appends a pax header of the given type holding rec. */
static int arc_put_pax(buf *out, int type, const char *name, const char *rec,
                       size_t len) {
  uint8_t h[ARC_BLOCK];
  arc_header(h, name, strlen(name), NULL, 0, 0644, 0, 0, len, 0, type, NULL,
             NULL, NULL);
  buf_put(out, h, ARC_BLOCK);
  return arc_tar_put_data(out, rec, len);
}

/* Appends a pax global header. */
int arc_tar_put_global(buf *out, const char *rec, size_t len) {
  return arc_put_pax(out, 'g', "pax_global_header", rec, len);
}

/* Appends one member's header blocks. */
int arc_tar_put_header(buf *out, const arc_wentry *e) {
  buf x, nm;
  uint8_t h[ARC_BLOCK];
  const char *name, *prefix = NULL;
  size_t nlen, plen = 0, llen = e->link ? strlen(e->link) : 0;
  int64_t secs = e->mtime_ns / 1000000000, frac = e->mtime_ns % 1000000000;
  uint64_t size = e->type == ARC_FILE ? e->size : 0;
  int type = e->type == ARC_DIR        ? '5'
             : e->type == ARC_SYMLINK  ? '2'
             : e->type == ARC_HARDLINK ? '1'
                                       : '0';
  int linked = e->type == ARC_SYMLINK || e->type == ARC_HARDLINK;
  if (out->err) return out->err;
  buf_init(&x, out->m);
  buf_init(&nm, out->m);
  buf_puts(&nm, e->path);
  if (e->type == ARC_DIR) buf_putc(&nm, '/');
  if (nm.err) {
    buf_finish(&nm);
    return out->err = nm.err;
  }
  name = nm.p;
  nlen = nm.len;
  if (nlen > 100) {
    /* ustar split: prefix (<= 155) "/" name (<= 100) */
    size_t i;
    for (i = 0; i < nlen; i++)
      if (name[i] == '/' && nlen - i - 1 <= 100) break;
    if (i > 0 && i <= 155 && i + 1 < nlen) {
      prefix = name;
      plen = i;
      name += i + 1;
      nlen -= i + 1;
    } else {
      arc_pax_record(&x, "path", nm.p, nm.len);
      nlen = 100; /* truncated copy in the header, as GNU tar */
    }
  }
  if (llen > 100) {
    arc_pax_record(&x, "linkpath", e->link, llen);
  }
  if (frac < 0) {
    frac += 1000000000;
    secs--;
  }
  if (frac || secs < 0 || secs > 077777777777) {
    /* seconds, then the fraction without its trailing zeros */
    char t[32];
    size_t n = 0;
    int i;
    if (secs < 0) t[n++] = '-';
    n += arc_utoa(t + n, secs < 0 ? 0 - (uint64_t)secs : (uint64_t)secs);
    if (frac) {
      t[n++] = '.';
      for (i = 8; i >= 0; i--, frac /= 10)
        t[n + (size_t)i] = (char)('0' + frac % 10);
      n += 9;
      while (t[n - 1] == '0') n--;
    }
    arc_pax_record(&x, "mtime", t, n);
  }
  if (size > 077777777777) {
    char t[20];
    arc_pax_record(&x, "size", t, arc_utoa(t, size));
  }
  if (e->command && *e->command)
    arc_pax_record(&x, ARC_CMD_KEY, e->command, strlen(e->command));
  if (x.err) {
    buf_finish(&x);
    buf_finish(&nm);
    return out->err = x.err;
  }
  if (x.len) {
    buf pn;
    buf_init(&pn, out->m);
    buf_puts(&pn, "PaxHeaders/");
    buf_put(&pn, name, nlen > 80 ? 80 : nlen);
    if (!pn.err) arc_put_pax(out, 'x', pn.p, x.p, x.len);
    if (pn.err) out->err = pn.err;
    buf_finish(&pn);
  }
  {
    char lk[101];
    memcpy(lk, e->link ? e->link : "", llen > 100 ? 100 : llen);
    lk[llen > 100 ? 100 : llen] = 0;
    arc_header(h, name, nlen, prefix, plen, e->mode, e->uid, e->gid,
               size > 077777777777 ? 0 : size,
               secs < 0 || secs > 077777777777 ? 0 : secs, type,
               linked ? lk : NULL, e->uname, e->gname);
  }
  buf_finish(&x);
  buf_put(out, h, ARC_BLOCK);
  buf_finish(&nm);
  return out->err;
}

struct arc_link_slot {
  uint64_t ino;
  size_t off; /* the first name, in names */
};

void arc_links_init(arc_links *l, mem *m) {
  memset(l, 0, sizeof *l);
  buf_init(&l->names, m);
}

/* Doubles the table (at most half full). */
static int arc_links_grow(arc_links *l) {
  size_t nc = l->cap ? l->cap * 2 : 64, k, i;
  struct arc_link_slot *ns = mem_zalloc(l->names.m, nc * sizeof *ns);
  if (!ns) return l->names.err = MSB_ENOMEM;
  for (k = 0; k < l->cap; k++) {
    if (!l->e[k].ino) continue;
    for (i = l->e[k].ino & (nc - 1); ns[i].ino; i = (i + 1) & (nc - 1)) {
    }
    ns[i] = l->e[k];
  }
  mem_free(l->names.m, l->e);
  l->e = ns;
  l->cap = nc;
  return 0;
}

/* The first name of ino, or NULL after recording path as it. */
const char *arc_links_seen(arc_links *l, uint64_t ino, const char *path) {
  size_t i;
  if (2 * (l->n + 1) > l->cap && arc_links_grow(l)) return NULL;
  for (i = ino & (l->cap - 1); l->e[i].ino; i = (i + 1) & (l->cap - 1))
    if (l->e[i].ino == ino) return l->names.p + l->e[i].off;
  l->e[i].ino = ino;
  l->e[i].off = l->names.len;
  l->n++;
  buf_puts(&l->names, path);
  buf_putc(&l->names, 0);
  return NULL;
}

void arc_links_finish(arc_links *l) {
  mem_free(l->names.m, l->e);
  buf_finish(&l->names);
  memset(l, 0, sizeof *l);
}

/* Appends one member. */
int arc_tar_put(buf *out, const arc_wentry *e) {
  if (arc_tar_put_header(out, e)) return out->err;
  if (e->type == ARC_FILE) arc_tar_put_data(out, e->data, e->size);
  return out->err;
}

/* Appends the end blocks and pads to the record size. */
int arc_tar_end(buf *out, uint64_t before) {
  size_t total = (size_t)((before + out->len + 2 * ARC_BLOCK) % ARC_RECORD);
  size_t pad = (ARC_RECORD - total) % ARC_RECORD;
  if (buf_reserve(out, 2 * ARC_BLOCK + pad)) return out->err;
  memset(out->p + out->len, 0, 2 * ARC_BLOCK + pad);
  out->len += 2 * ARC_BLOCK + pad;
  out->p[out->len] = 0;
  return 0;
}
