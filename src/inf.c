/* inf.c - a raw deflate (RFC 1951) decoder for whole in-memory streams.
 *
 * Snapshots are restored from gzip data held entirely in memory, so nothing
 * here streams: the input is one buffer, the output is one growable buffer,
 * and the 32 KiB window is simply the output written so far.
 *
 * A Huffman symbol decodes through one table lookup: a main table indexed
 * by the next 10 (literal/length) or 8 (distance) bits holds every shorter
 * code replicated, and points each longer code at a subtable indexed by the
 * bits after those. A 32-bit entry carries all the decoder needs next:
 * the literal byte or the length/distance base, and how many bits the code
 * and its extra bits take together, so one shift consumes both.
 *
 * Speed comes from the fast loop, used while at least 8 input bytes and a
 * longest match of output room remain: one unaligned 64-bit load refills
 * the bit buffer with enough bits for a whole length/distance pair, nothing
 * inside is bounds-checked, and matches are copied in 8-byte words, the
 * first 16 bytes without a loop (the tail of a copy may scribble into spare
 * room that later output overwrites). Near either end a careful path
 * decodes one symbol at a time, counting exactly the bits present; that is
 * where truncation is told apart from invalid data.
 *
 * Acceptance follows zlib's inflate (1.2.x, raw, 32 KiB window) exactly,
 * quirks included: an incomplete literal/length or distance code is
 * allowed when it is a single 1-bit code (its unused code is an error when
 * met), an empty distance code is allowed until a match needs it, an empty
 * code-length code reads every length as 0 from one bit, and a fault is
 * reported only once the bits that prove it are present (before that the
 * input is merely truncated). tests/fuzz/fuzz_inf.c holds us to it. */
#include "inf.h"

#include <string.h>

#include "memsandbox.h"

/* A table entry:
 *   bits 0-7    the bits it consumes: the code's length plus, for a length
 *               or distance, its extra bits (which follow the code)
 *   bits 8-11   the code's length; a subtable pointer's index bits
 *   bits 12-14  INF_BAD, INF_EOB, INF_SUB
 *   bits 16-30  literal byte, length or distance base, code-length symbol,
 *               or a subtable's offset
 *   bit 31      INF_LIT */
#define INF_BAD 0x1000u
#define INF_EOB 0x2000u
#define INF_SUB 0x4000u
#define INF_LIT 0x80000000u
#define INF_MASK(n) ((1u << (n)) - 1)

#define INF_LBITS 10 /* root bits of the literal/length table */
#define INF_DBITS 8  /* of the distance table */
#define INF_CBITS 7  /* of the code-length table (its longest code) */
/* The largest main table plus subtables a valid code can need with these
 * roots and 15-bit codes, as zlib's examples/enough.c counts them. */
#define INF_LSIZE 1334
#define INF_DSIZE 400

/* Output room the fast loop wants: a longest match plus the overshoot of
 * its copies (two 8-byte words at least). */
#define INF_FAST_OUT (258 + 16)

/* Internal result: a block's end-of-block code was decoded. */
#define INF_END 4

typedef struct inf_state {
  const uint8_t *in0;      /* the stream's first byte */
  const uint8_t *in, *end; /* next byte to load, end of the input */
  uint64_t bb;             /* bit buffer, next bit lowest; the bits above
                              bc are zero or the input's next bits */
  unsigned bc;             /* bits in bb */
  buf *out;
  size_t start; /* out->len when the stream began */
  size_t pos;   /* end of the output so far (out->len lags behind) */
  size_t lim;   /* pos may not pass this: hard, or the next watermark */
  size_t hard;  /* start + cap */
  const inf_watch *w; /* or NULL */
  const uint32_t *lc, *dc; /* the current block's codes: lt and dt, or
                              the fixed ones */
  int fixed;    /* flt and fdt are built */
  uint32_t lt[INF_LSIZE], dt[INF_DSIZE];
  /* The fixed codes have no code longer than either root: no subtables.
   * Kept apart, so a stream alternating fixed and dynamic blocks (a
   * snapshot: one of each per file) builds them once. */
  uint32_t flt[1u << INF_LBITS], fdt[1u << INF_DBITS];
} inf_state;

/* RFC 1951 3.2.5: bases and extra bits of lengths 257.. and distances. */
const uint16_t inf_lbase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                67, 83, 99, 115, 131, 163, 195, 227, 258};
const uint8_t inf_lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                              2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
const uint16_t inf_dbase[30] = {
    1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
const uint8_t inf_dext[30] = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                              4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                              9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* Which code a table is for: entry contents and completeness rules. */
enum { INF_KLIT, INF_KDIST, INF_KCODE };

/* The entry for symbol sym of a kind of code before its code length is
 * known: bits 0-7 hold just the extra bits. */
static uint32_t inf_entry(int kind, unsigned sym) {
  if (kind == INF_KCODE) return (uint32_t)sym << 16;
  if (kind == INF_KDIST)
    return sym < 30 ? (uint32_t)inf_dbase[sym] << 16 | inf_dext[sym] : INF_BAD;
  if (sym < 256) return INF_LIT | (uint32_t)sym << 16;
  if (sym == 256) return INF_EOB;
  if (sym < 286)
    return (uint32_t)inf_lbase[sym - 257] << 16 | inf_lext[sym - 257];
  return INF_BAD;
}

/* Fills t (a main table of root bits, then subtables) for the code whose
 * lengths are lens[0..n). -1 for a code zlib refuses: over-subscribed, or
 * incomplete unless empty or one 1-bit literal/length or distance code.
 * The missing codes of an allowed incomplete code are 1-bit INF_BAD
 * entries, as in zlib (whose tables then have a 1-bit root), so decoding
 * one costs one bit. */
static int inf_build(uint32_t *t, unsigned root, const uint8_t *lens,
                     unsigned n, int kind) {
  unsigned count[16] = {0}, next[16], max = 0, len, i, j, k, nsym;
  unsigned code, group = ~0u, sbits = 0, sbase = 0, nextsub = 1u << root;
  uint16_t sym[288];
  unsigned rcodes[288];
  int left = 1;
  for (i = 0; i < n; i++) count[lens[i]]++;
  for (len = 1; len <= 15; len++) {
    left = 2 * left - (int)count[len];
    if (left < 0) return -1;
    if (count[len]) max = len;
  }
  if (left > 0 && max > 0 && (kind == INF_KCODE || max > 1)) return -1;
  if (left > 0)
    for (i = 0; i < 1u << root; i++) t[i] = INF_BAD | 1 << 8 | 1;
  /* symbols by length then value: the canonical code's order */
  next[1] = 0;
  for (len = 1; len < 15; len++) next[len + 1] = next[len] + count[len];
  nsym = next[15] + count[15];
  for (i = 0; i < n; i++)
    if (lens[i]) sym[next[lens[i]]++] = (uint16_t)i;
  /* their codes, bit-reversed (the order they are read in): add one to
   * the reversed code from its top bit down; a longer code is the
   * shorter one with zeros appended, which reversed changes nothing */
  for (code = 0, k = 0; k < nsym; k++) {
    unsigned inc = 1u << (lens[sym[k]] - 1);
    rcodes[k] = code;
    while (code & inc) inc >>= 1;
    code = inc ? (code & (inc - 1)) + inc : 0;
  }
  for (k = 0; k < nsym; k++) {
    uint32_t e;
    len = lens[sym[k]];
    e = inf_entry(kind, sym[k]) + (len << 8 | len);
    if (len <= root) {
      for (i = rcodes[k]; i < 1u << root; i += 1u << len) t[i] = e;
      continue;
    }
    /* Codes sharing their first root bits (the low bits reversed) are
     * adjacent in this order, the longest last; they get one subtable as
     * deep as that one needs. */
    if ((rcodes[k] & INF_MASK(root)) != group) {
      group = rcodes[k] & INF_MASK(root);
      for (j = k + 1; j < nsym && (rcodes[j] & INF_MASK(root)) == group; j++) {
      }
      sbits = lens[sym[j - 1]] - root;
      sbase = nextsub;
      nextsub += 1u << sbits;
      t[group] = INF_SUB | sbase << 16 | sbits << 8 | root;
    }
    for (i = rcodes[k] >> root; i < 1u << sbits; i += 1u << (len - root))
      t[sbase + i] = e;
  }
  return 0;
}

/* ---- bits, output room ---------------------------------------------- */

static uint64_t inf_load64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
#else
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
#endif
}

/* Loads whole input bytes while they fit in the bit buffer. */
static void inf_fill(inf_state *s) {
  while (s->bc < 56 && s->in < s->end) {
    s->bb |= (uint64_t)*s->in++ << s->bc;
    s->bc += 8;
  }
}

/* 0 when k bits are present, else INF_TRUNCATED (the input is spent). */
static int inf_need(inf_state *s, unsigned k) {
  inf_fill(s);
  return s->bc >= k ? 0 : INF_TRUNCATED;
}

/* Takes k present bits (k <= 32). */
static unsigned inf_take(inf_state *s, unsigned k) {
  unsigned v = (unsigned)(s->bb & (((uint64_t)1 << k) - 1));
  s->bb >>= k;
  s->bc -= k;
  return v;
}

/* The value an entry e stands for, given the bits it consumes: a length
 * or distance is its base plus the extra bits after the code. */
static unsigned inf_value(uint32_t e, uint64_t bits) {
  return ((e >> 16) & 0x7fff) +
         (((uint32_t)bits & INF_MASK(e & 0xff)) >> ((e >> 8) & 15));
}

/* Decodes one symbol, with its extra bits, with table t from the bits
 * present: 0, *e and its value, or INF_TRUNCATED when the input ends
 * first (also inside the extra bits: zlib too reports that before
 * anything about the symbol). Past the input the bit buffer reads as
 * zeros, and a code is prefix-free, so the entry found is the true one
 * whenever its length fits in the bits present. */
static int inf_decode(inf_state *s, const uint32_t *t, unsigned root,
                      uint32_t *e, unsigned *val) {
  uint32_t x;
  inf_fill(s);
  x = t[s->bb & INF_MASK(root)];
  if (x & INF_SUB)
    x = t[(x >> 16) + ((s->bb >> root) & INF_MASK((x >> 8) & 15))];
  if ((x & 0xff) > s->bc) return INF_TRUNCATED;
  *e = x;
  *val = inf_value(x, s->bb);
  s->bb >>= x & 0xff;
  s->bc -= x & 0xff;
  return 0;
}

/* Calls the watcher at a watermark, lets go of the bytes it no longer
 * needs, and sets the next watermark, at least k bytes on: 0,
 * INF_CAPPED when the cap leaves no k bytes, INF_STOPPED or MSB_ENOMEM. */
static int inf_watermark(inf_state *s, size_t k) {
  inf_look l;
  size_t d = 0;
  int r;
  l.out = s->out;
  l.in_used = (size_t)(s->in - s->in0) - (s->bc >> 3);
  l.next = l.drop = 0;
  s->out->len = s->pos;
  r = s->w->fn(s->w->ctx, &l);
  if (r == MSB_ENOMEM) return s->out->err = MSB_ENOMEM;
  if (r) return INF_STOPPED;
  if (l.drop && s->pos > INF_WINDOW) {
    d = l.drop < s->pos - INF_WINDOW ? l.drop : s->pos - INF_WINDOW;
    memmove(s->out->p, s->out->p + d, s->pos - d);
    s->pos -= d;
    s->out->len = s->pos;
    /* what stays is this stream's, and at least a window of it */
    s->start = s->start > d ? s->start - d : 0;
    s->hard -= d;
  }
  l.next = l.next > d ? l.next - d : 0;
  if (l.next < s->pos + s->w->every) l.next = s->pos + s->w->every;
  if (l.next < s->pos + k) l.next = s->pos + k;
  s->lim = l.next < s->hard && l.next >= s->pos ? l.next : s->hard;
  return s->hard - s->pos < k ? INF_CAPPED : 0;
}

/* Makes room for k more output bytes and the NUL after them: 0,
 * INF_CAPPED when the cap forbids them, INF_STOPPED, or MSB_ENOMEM.
 * Doubling keeps the copies of a growing buffer to about the final size
 * in all; the buffer grows towards the cap, never just to a watermark. */
static int inf_room(inf_state *s, size_t k) {
  buf *b = s->out;
  size_t cap;
  char *p;
  int r;
  if (s->lim - s->pos < k) {
    if (s->lim == s->hard) return INF_CAPPED;
    if ((r = inf_watermark(s, k))) return r;
  }
  if (b->cap > s->pos && b->cap - s->pos > k) return 0;
  cap = b->cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * b->cap;
  if (cap < 4096) cap = 4096;
  if (cap - 1 < s->pos + k) cap = s->pos + k + 1;
  if (cap - 1 > s->hard) cap = s->hard + 1;
  p = mem_realloc(b->m, b->p, cap);
  if (!p) return b->err = MSB_ENOMEM;
  b->p = p;
  b->cap = cap;
  return 0;
}

/* ---- blocks --------------------------------------------------------- */

/* Decodes symbols unchecked while 8 input bytes are left and the output is
 * at most at stop (which leaves room for a longest match and its overshoot
 * below both the allocation's end and the cap): after each refill
 * bc >= 56, and a length/distance pair takes at most 15 + 5 + 15 + 13 = 48
 * bits. Returns 0 when it runs short of input or room, INF_END or
 * INF_INVALID. */
static int inf_fast(inf_state *s, size_t stop) {
  const uint8_t *in = s->in, *in_stop = s->end - 8;
  uint8_t *base = (uint8_t *)s->out->p, *op = base + s->pos;
  uint8_t *o0 = base + s->start, *o_stop = base + stop;
  const uint32_t *lt = s->lc, *dt = s->dc;
  uint64_t bb = s->bb;
  unsigned bc = s->bc, n;
  int r = 0;
  while (in <= in_stop && op <= o_stop) {
    uint32_t e, len, dist;
    const uint8_t *from;
    bb |= inf_load64(in) << bc;
    in += (63 - bc) >> 3; /* whole bytes only: bc becomes 56..63 */
    bc |= 56;
    e = lt[bb & INF_MASK(INF_LBITS)];
    if (e & INF_SUB)
      e = lt[(e >> 16) + ((bb >> INF_LBITS) & INF_MASK((e >> 8) & 15))];
    n = e & 0xff;
    if (e & INF_LIT) {
      bb >>= n;
      bc -= n;
      *op++ = (uint8_t)(e >> 16);
      continue;
    }
    if (e & (INF_EOB | INF_BAD)) {
      bb >>= n;
      bc -= n;
      r = e & INF_EOB ? INF_END : INF_INVALID;
      break;
    }
    len = inf_value(e, bb);
    bb >>= n;
    bc -= n;
    e = dt[bb & INF_MASK(INF_DBITS)];
    if (e & INF_SUB)
      e = dt[(e >> 16) + ((bb >> INF_DBITS) & INF_MASK((e >> 8) & 15))];
    if (e & INF_BAD) {
      r = INF_INVALID;
      break;
    }
    n = e & 0xff;
    dist = inf_value(e, bb);
    bb >>= n;
    bc -= n;
    if (dist > (size_t)(op - o0)) {
      r = INF_INVALID;
      break;
    }
    from = op - dist;
    if (dist >= 8) { /* each word reads bytes already final */
      uint8_t *end = op + len;
      memcpy(op, from, 8); /* most matches are short: no loop for them */
      memcpy(op + 8, from + 8, 8);
      for (op += 16, from += 16; op < end; op += 8, from += 8)
        memcpy(op, from, 8);
      op = end;
    } else if (dist == 1) {
      memset(op, op[-1], len);
      op += len;
    } else {
      while (len--) *op++ = *from++;
    }
  }
  s->in = in;
  s->bb = bb;
  s->bc = bc;
  s->pos = (size_t)(op - base);
  return r;
}

/* Decodes one Huffman block's symbols with the codes in lt and dt: the
 * fast loop while it can run, else one careful symbol at a time (which
 * grows the output when a symbol does not fit, so a buffer sized exactly
 * by the caller is never grown for the last few bytes). */
static int inf_codes(inf_state *s) {
  for (;;) {
    uint32_t e;
    unsigned len, dist;
    int r;
    char *o;
    if (s->end - s->in >= 8 && s->out->cap >= INF_FAST_OUT && s->lim >= 258) {
      size_t stop = s->out->cap - INF_FAST_OUT;
      if (stop > s->lim - 258) stop = s->lim - 258;
      if (s->pos <= stop) {
        r = inf_fast(s, stop);
        if (r) return r == INF_END ? 0 : r;
      }
    }
    if ((r = inf_decode(s, s->lc, INF_LBITS, &e, &len))) return r;
    if (e & INF_LIT) {
      if ((r = inf_room(s, 1))) return r;
      s->out->p[s->pos++] = (char)(e >> 16);
      continue;
    }
    if (e & INF_EOB) return 0;
    if (e & INF_BAD) return INF_INVALID;
    if ((r = inf_decode(s, s->dc, INF_DBITS, &e, &dist))) return r;
    if (e & INF_BAD) return INF_INVALID;
    if (dist > s->pos - s->start) return INF_INVALID;
    if ((r = inf_room(s, len))) return r;
    o = s->out->p + s->pos;
    s->pos += len;
    while (len--) {
      *o = o[-(ptrdiff_t)dist];
      o++;
    }
  }
}

/* A stored block: byte-aligned LEN, NLEN, then LEN bytes as they are. */
static int inf_stored(inf_state *s) {
  size_t len, have;
  int r;
  inf_take(s, s->bc & 7); /* to a byte boundary */
  if ((r = inf_need(s, 32))) return r;
  len = inf_take(s, 16);
  if (len != (inf_take(s, 16) ^ 0xffff)) return INF_INVALID;
  /* the whole bytes still in the bit buffer are the block's first ones */
  s->in -= s->bc >> 3;
  s->bb = 0;
  s->bc = 0;
  have = (size_t)(s->end - s->in) < len ? (size_t)(s->end - s->in) : len;
  if (have) {
    if ((r = inf_room(s, have))) return r;
    memcpy(s->out->p + s->pos, s->in, have);
    s->pos += have;
    s->in += have;
  }
  return have < len ? INF_TRUNCATED : 0;
}

/* Selects the fixed codes of RFC 1951 3.2.6, built on first use
 * (lengths 286-287 and distances 30-31 take part in the code but are
 * invalid when met). */
static void inf_fixed(inf_state *s) {
  if (!s->fixed) {
    uint8_t lens[288];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    inf_build(s->flt, INF_LBITS, lens, 288, INF_KLIT);
    memset(lens, 5, 32);
    inf_build(s->fdt, INF_DBITS, lens, 32, INF_KDIST);
    s->fixed = 1;
  }
  s->lc = s->flt;
  s->dc = s->fdt;
}

/* Reads a dynamic block's code descriptions (RFC 1951 3.2.7) into lt and
 * dt, checking in zlib's order so the same fault wins. */
static int inf_dynamic(inf_state *s) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t cl[19] = {0}, lens[286 + 30];
  uint32_t ct[1u << INF_CBITS];
  unsigned nlen, ndist, ncode, i, have;
  int r;
  if ((r = inf_need(s, 14))) return r;
  nlen = inf_take(s, 5) + 257;
  ndist = inf_take(s, 5) + 1;
  ncode = inf_take(s, 4) + 4;
  if (nlen > 286 || ndist > 30) return INF_INVALID;
  for (i = 0; i < ncode; i++) {
    if ((r = inf_need(s, 3))) return r;
    cl[order[i]] = (uint8_t)inf_take(s, 3);
  }
  if (inf_build(ct, INF_CBITS, cl, 19, INF_KCODE)) return INF_INVALID;
  for (have = 0; have < nlen + ndist;) {
    static const uint8_t xbits[3] = {2, 3, 7}, xbase[3] = {3, 3, 11};
    uint32_t e;
    unsigned sym, rep, val = 0;
    /* an empty code's INF_BAD entries read as 0, as in zlib */
    if ((r = inf_decode(s, ct, INF_CBITS, &e, &sym))) return r;
    if (sym < 16) {
      lens[have++] = (uint8_t)sym;
      continue;
    }
    if ((r = inf_need(s, xbits[sym - 16]))) return r;
    if (sym == 16) {
      if (!have) return INF_INVALID;
      val = lens[have - 1];
    }
    rep = xbase[sym - 16] + inf_take(s, xbits[sym - 16]);
    if (rep > nlen + ndist - have) return INF_INVALID;
    memset(lens + have, (int)val, rep);
    have += rep;
  }
  if (!lens[256]) return INF_INVALID; /* no end-of-block code */
  if (inf_build(s->lt, INF_LBITS, lens, nlen, INF_KLIT) ||
      inf_build(s->dt, INF_DBITS, lens + nlen, ndist, INF_KDIST))
    return INF_INVALID;
  s->lc = s->lt;
  s->dc = s->dt;
  return 0;
}

/* ---- the stream ----------------------------------------------------- */

/* Decodes one raw deflate stream (see inf.h). */
int inf_raw(const uint8_t *in, size_t n, buf *out, size_t cap, size_t *used,
            int *why) {
  return inf_raw_watch(in, n, out, cap, NULL, used, why);
}

/* Decodes one raw deflate stream under a watcher (see inf.h). */
int inf_raw_watch(const uint8_t *in, size_t n, buf *out, size_t cap,
                  const inf_watch *w, size_t *used, int *why) {
  inf_state s;
  int r, last = 0;
  if (out->err) return out->err;
  if (!n) in = (const uint8_t *)""; /* no arithmetic on a NULL pointer */
  s.in0 = s.in = in;
  s.end = in + n;
  s.bb = 0;
  s.bc = 0;
  s.out = out;
  s.start = s.pos = out->len;
  s.hard = cap < SIZE_MAX - 1 - out->len ? out->len + cap : SIZE_MAX - 1;
  s.lim = s.hard;
  s.w = w;
  if (w && w->first < s.hard) s.lim = w->first > s.pos ? w->first : s.pos;
  s.fixed = 0;
  do {
    if ((r = inf_need(&s, 3))) break;
    last = (int)inf_take(&s, 1);
    switch (inf_take(&s, 2)) {
    case 0: r = inf_stored(&s); break;
    case 1:
      inf_fixed(&s);
      r = inf_codes(&s);
      break;
    case 2:
      r = inf_dynamic(&s);
      if (!r) r = inf_codes(&s);
      break;
    default: r = INF_INVALID; break;
    }
  } while (!r && !last);
  out->len = s.pos;
  if (out->p) out->p[s.pos] = 0;
  if (r < 0) return r;
  if (r) {
    *why = r;
    return MSB_ECORRUPT;
  }
  *used = (size_t)(s.in - in) - (s.bc >> 3);
  return 0;
}
