/* archive_gzw.c - gzip members assembled from pieces, for snapshots.
 *
 * Most of a snapshot is file contents that did not change since the last
 * one. So each file's bytes are deflated on their own - a reset deflate
 * state ended by a sync flush - and the compressed piece depends on
 * nothing but those bytes and the level: a snapshot reuses the piece an
 * earlier one made (snap.c keeps it on the file's contents), the CRC-32s
 * combine without the data, and equal states still give equal bytes.
 *
 * What sits between the pieces is tar headers, about 1.5 KB per file,
 * mostly zeros and otherwise close to the previous file's. A deflate call
 * per file costs more than the whole rest of a warm snapshot (about 12 us
 * natively for 1.5 KB), so headers are encoded here instead: one
 * fixed-Huffman block per run of headers whose matches are runs of a
 * repeated byte or the same bytes at the same offset of a recent header
 * block (the distance between the two is known). A piece must start on a
 * byte boundary, so each header run ends with an empty stored block, as a
 * sync flush does. */
#include <string.h>

#include "zlib.h"

#include "archive.h"
#include "inf.h"
#include "memsandbox.h"

#define GZW_BLOCK 512
#define GZW_REFS 4            /* recent header blocks matches may use */
#define GZW_WINDOW 32768      /* deflate's farthest distance */
#define GZW_MAXMATCH 258
#define GZW_CHUNK ((size_t)1 << 30) /* zlib counts in uInt */

/* A recent header block and its offset in the uncompressed stream. */
typedef struct gzw_ref {
  uint64_t at;
  uint8_t b[GZW_BLOCK];
} gzw_ref;

struct arc_gzw {
  mem *m;
  buf *out;
  int level;
  int z_ready;
  z_stream z;      /* for pieces: reset before each */
  buf zbuf;        /* a piece while it is compressed */
  uint32_t crc;    /* of the uncompressed stream so far */
  uint64_t total;  /* its length */
  uint64_t acc;    /* header encoder: pending bits, LSB first */
  int nacc;
  uint8_t *o;      /* its write position inside out (room reserved) */
  gzw_ref ref[GZW_REFS];
  int nref, next;
  uint16_t lcode[286]; /* fixed literal/length codes, bit-reversed */
  uint8_t llen[286];
};

/* ---- the header encoder --------------------------------------------- */

static uint32_t gzw_reverse(uint32_t v, int n) {
  uint32_t r = 0;
  while (n--) {
    r = (r << 1) | (v & 1);
    v >>= 1;
  }
  return r;
}

/* RFC 1951 3.2.6: the fixed literal/length code, stored bit-reversed
 * because Huffman codes go out most significant bit first. */
static void gzw_fixed_codes(arc_gzw *w) {
  int i;
  for (i = 0; i < 286; i++) {
    uint32_t code;
    int n;
    if (i < 144)
      code = 0x30 + (uint32_t)i, n = 8;
    else if (i < 256)
      code = 0x190 + (uint32_t)(i - 144), n = 9;
    else if (i < 280)
      code = (uint32_t)(i - 256), n = 7;
    else
      code = 0xc0 + (uint32_t)(i - 280), n = 8;
    w->lcode[i] = (uint16_t)gzw_reverse(code, n);
    w->llen[i] = (uint8_t)n;
  }
}

/* Appends n bits (n <= 32) to the reserved output. */
static void gzw_bits(arc_gzw *w, uint32_t v, int n) {
  w->acc |= (uint64_t)v << w->nacc;
  w->nacc += n;
  while (w->nacc >= 8) {
    *w->o++ = (uint8_t)w->acc;
    w->acc >>= 8;
    w->nacc -= 8;
  }
}

static void gzw_literal(arc_gzw *w, int c) {
  gzw_bits(w, w->lcode[c], w->llen[c]);
}

static void gzw_match(arc_gzw *w, int len, int dist) {
  int i = 28, d = 29;
  while (inf_lbase[i] > len) i--;
  gzw_bits(w, w->lcode[257 + i], w->llen[257 + i]);
  gzw_bits(w, (uint32_t)(len - inf_lbase[i]), inf_lext[i]);
  while (inf_dbase[d] > dist) d--;
  gzw_bits(w, gzw_reverse((uint32_t)d, 5), 5);
  gzw_bits(w, (uint32_t)(dist - inf_dbase[d]), inf_dext[d]);
}

/* How many leading bytes of a and b agree, at most lim; eight at a time. */
static size_t gzw_same(const uint8_t *a, const uint8_t *b, size_t lim) {
  size_t k = 0;
  uint64_t x, y;
  while (k + 8 <= lim) {
    memcpy(&x, a + k, 8);
    memcpy(&y, b + k, 8);
    if (x != y) break;
    k += 8;
  }
  while (k < lim && a[k] == b[k]) k++;
  return k;
}

/* How many leading bytes of a equal c, at most lim. */
static size_t gzw_run(const uint8_t *a, int c, size_t lim) {
  uint64_t rep = 0x0101010101010101u * (uint8_t)c, x;
  size_t k = 0;
  while (k + 8 <= lim) {
    memcpy(&x, a + k, 8);
    if (x != rep) break;
    k += 8;
  }
  while (k < lim && a[k] == c) k++;
  return k;
}

/* The recent header block that agrees with b on the most of 16 sampled
 * 8-byte words (one every 32 bytes: enough to tell a ustar header from a
 * pax one and a near copy from a stranger), within reach of a match from
 * at; NULL if none. */
static const gzw_ref *gzw_best_ref(const arc_gzw *w, const uint8_t *b,
                                   uint64_t at) {
  const gzw_ref *best = NULL;
  size_t most = 0;
  int i;
  for (i = 0; i < w->nref; i++) {
    const gzw_ref *r = &w->ref[i];
    size_t k, same = 0;
    uint64_t x, y;
    if (at - r->at > GZW_WINDOW) continue;
    for (k = 0; k < GZW_BLOCK; k += 32) {
      memcpy(&x, b + k, 8);
      memcpy(&y, r->b + k, 8);
      same += x == y;
    }
    if (same > most) most = same, best = r;
  }
  return best;
}

static void gzw_remember(arc_gzw *w, const uint8_t *b, uint64_t at) {
  gzw_ref *r = &w->ref[w->next];
  memcpy(r->b, b, GZW_BLOCK);
  r->at = at;
  w->next = (w->next + 1) % GZW_REFS;
  if (w->nref < GZW_REFS) w->nref++;
}

/* Encodes one header block at stream offset at; prev is the byte before
 * it in this run of headers, or -1. Greedy: the longer of a run of the
 * previous byte (distance 1) and a run equal to the reference block. */
static void gzw_encode_block(arc_gzw *w, const uint8_t *b, uint64_t at,
                             int prev) {
  const gzw_ref *r = gzw_best_ref(w, b, at);
  int dist = r ? (int)(at - r->at) : 0;
  size_t p = 0;
  while (p < GZW_BLOCK) {
    size_t lim = GZW_BLOCK - p, run = 0, same = 0;
    int c = p ? b[p - 1] : prev;
    if (lim > GZW_MAXMATCH) lim = GZW_MAXMATCH;
    if (c >= 0 && b[p] == c) run = gzw_run(b + p, c, lim);
    if (r && b[p] == r->b[p]) same = gzw_same(b + p, r->b + p, lim);
    if (run >= 3 && run >= same) {
      gzw_match(w, (int)run, 1);
      p += run;
    } else if (same >= 3) {
      gzw_match(w, (int)same, dist);
      p += same;
    } else {
      gzw_literal(w, b[p++]);
    }
  }
}

/* Ends the current bit run on a byte boundary: an empty stored block
 * (00 00 ff ff) unless this is the final block. */
static void gzw_align(arc_gzw *w, int final) {
  if (!final) gzw_bits(w, 0, 3);
  if (w->nacc) gzw_bits(w, 0, 8 - w->nacc);
  if (!final) {
    memcpy(w->o, "\0\0\xff\xff", 4);
    w->o += 4;
  }
}

/* Makes room for n more output bytes and points w->o at the end. */
static int gzw_room(arc_gzw *w, size_t n) {
  if (buf_reserve(w->out, n)) return w->out->err;
  w->o = (uint8_t *)w->out->p + w->out->len;
  return 0;
}

/* Takes the bytes written at w->o into the output. */
static void gzw_commit(arc_gzw *w) {
  w->out->len = (size_t)(w->o - (uint8_t *)w->out->p);
  w->out->p[w->out->len] = 0;
}

/* Encodes n bytes of header blocks as one fixed-Huffman block; room is
 * made block by block (a block never takes more than 9 bits a byte). */
static int gzw_headers_run(arc_gzw *w, const uint8_t *p, size_t n, int final) {
  size_t i;
  if (gzw_room(w, 16)) return w->out->err;
  gzw_bits(w, (uint32_t) final | 2u, 3);
  gzw_commit(w);
  for (i = 0; i < n; i += GZW_BLOCK) {
    if (gzw_room(w, GZW_BLOCK / 8 * 9 + 8)) return w->out->err;
    gzw_encode_block(w, p + i, w->total + i, i ? p[i - 1] : -1);
    gzw_remember(w, p + i, w->total + i);
    gzw_commit(w);
  }
  if (gzw_room(w, 16)) return w->out->err;
  gzw_literal(w, 256);
  gzw_align(w, final);
  gzw_commit(w);
  w->crc = arc_crc(w->crc, p, n);
  w->total += n;
  return 0;
}

/* ---- the member ------------------------------------------------------ */

/* Starts a member: header now, then headers and pieces, then finish. */
int arc_gzw_begin(mem *m, int level, buf *out, arc_gzw **wp) {
  arc_gzw *w;
  *wp = NULL;
  if (level < 0 || level > 9) return MSB_EINVAL;
  if (arc_gz_put_header(out, level, NULL, 0)) return out->err;
  w = mem_zalloc(m, sizeof *w);
  if (!w) return MSB_ENOMEM;
  w->m = m;
  w->out = out;
  w->level = level;
  buf_init(&w->zbuf, m);
  gzw_fixed_codes(w);
  *wp = w;
  return 0;
}

/* The member's deflate level. */
int arc_gzw_level(const arc_gzw *w) { return w->level; }

/* Uncompressed bytes written so far. */
uint64_t arc_gzw_total(const arc_gzw *w) { return w->total; }

/* Adds header blocks (n a multiple of 512). */
int arc_gzw_headers(arc_gzw *w, const void *p, size_t n) {
  if (n % GZW_BLOCK) return MSB_EINVAL;
  return n ? gzw_headers_run(w, p, n, 0) : 0;
}

/* Adds a piece made at this member's level. */
int arc_gzw_piece(arc_gzw *w, const arc_piece *pc) {
  if (pc->level != w->level) return MSB_EINVAL;
  if (buf_put(w->out, pc->z, pc->clen)) return w->out->err;
  w->crc = (uint32_t)crc32_combine(w->crc, pc->crc, (z_off_t)pc->ulen);
  w->total += pc->ulen;
  return 0;
}

/* Runs deflate over in[0..n) with flush, appending to w->zbuf; the input
 * is always consumed. */
static int gzw_deflate(arc_gzw *w, const uint8_t *in, size_t n, int flush) {
  buf *o = &w->zbuf;
  w->z.next_in = (Bytef *)(uintptr_t)in;
  for (;;) {
    size_t k = n > GZW_CHUNK ? GZW_CHUNK : n, room;
    int zr, f = k == n ? flush : Z_NO_FLUSH;
    if (buf_reserve(o, k / 4 + 256)) return o->err;
    room = o->cap - o->len - 1;
    if (room > GZW_CHUNK) room = GZW_CHUNK;
    w->z.next_out = (Bytef *)o->p + o->len;
    w->z.avail_out = (uInt)room;
    w->z.avail_in = (uInt)k;
    zr = deflate(&w->z, f);
    o->len += room - w->z.avail_out;
    n -= k - w->z.avail_in;
    if (zr != Z_OK && zr != Z_BUF_ERROR)
      return zr == Z_MEM_ERROR ? MSB_ENOMEM : MSB_EINVAL;
    /* done when the input is in and deflate had room left over (a flush
     * is complete only then) */
    if (!n && w->z.avail_out) return 0;
  }
}

/* Compresses data[0..n) followed by pad zero bytes into a new piece: into
 * the writer's scratch buffer, then one block of the exact size, so kept
 * pieces pack tightly. */
int arc_gzw_piece_make(arc_gzw *w, const uint8_t *data, size_t n, size_t pad,
                       arc_piece **out) {
  static const uint8_t zero[GZW_BLOCK];
  arc_piece *pc;
  int rc;
  *out = NULL;
  if (pad >= GZW_BLOCK) return MSB_EINVAL;
  if (!w->z_ready) {
    arc_zinit(&w->z, w->m);
    if (deflateInit2(&w->z, w->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      return MSB_ENOMEM;
    w->z_ready = 1;
  } else if (deflateReset(&w->z) != Z_OK) {
    return MSB_EINVAL;
  }
  buf_clear(&w->zbuf);
  rc = gzw_deflate(w, data, n, Z_NO_FLUSH);
  if (!rc) rc = gzw_deflate(w, zero, pad, Z_SYNC_FLUSH);
  if (rc) return rc;
  pc = mem_alloc(w->m, sizeof *pc + w->zbuf.len);
  if (!pc) return MSB_ENOMEM;
  memcpy(pc->z, w->zbuf.p, w->zbuf.len);
  pc->clen = w->zbuf.len;
  pc->ulen = (uint64_t)n + pad;
  pc->crc = arc_crc(arc_crc(0, data, n), zero, pad);
  pc->level = w->level;
  *out = pc;
  return 0;
}

/* Ends the member: a final header run (the end-of-archive blocks), the
 * trailer; frees w. */
int arc_gzw_finish(arc_gzw *w, const void *tail, size_t n) {
  int rc = n % GZW_BLOCK ? MSB_EINVAL : gzw_headers_run(w, tail, n, 1);
  if (!rc) rc = arc_gz_put_trailer(w->out, w->crc, w->total);
  arc_gzw_abort(w);
  return rc;
}

/* Frees w without finishing; NULL is fine. */
void arc_gzw_abort(arc_gzw *w) {
  if (!w) return;
  if (w->z_ready) deflateEnd(&w->z);
  buf_finish(&w->zbuf);
  mem_free(w->m, w);
}
