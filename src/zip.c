/* zip.c - zip archive reading and writing (see zip.h).
 *
 * Reading starts from the end record, as unzip does, and takes sizes from
 * the central directory (local headers may defer them to a data
 * descriptor). Every offset is checked against the buffer before use.
 * Deflate goes through inf.c (bounded) and zlib via arc_gzip, whose gzip
 * frame is cut off, so the compressed bytes match gzip's. */
#include "zip.h"

#include <stdio.h>
#include <string.h>

#include "archive.h"
#include "inf.h"
#include "memsandbox.h"

#define ZIP_SIG_LOCAL 0x04034b50u
#define ZIP_SIG_CENTRAL 0x02014b50u
#define ZIP_SIG_END 0x06054b50u
#define ZIP_SIG_END64_LOC 0x07064b50u

static uint32_t zip_u16(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t zip_u32(const uint8_t *p) {
  return zip_u16(p) | zip_u16(p + 2) << 16;
}

static int zip_fail(zip_rd *z, const char *why) {
  snprintf(z->why, sizeof z->why, "%s", why);
  return MSB_ECORRUPT;
}

int zip_rd_open(zip_rd *z, const uint8_t *p, size_t len, uint64_t max_entries) {
  size_t i, lo;
  const uint8_t *e = NULL;
  uint64_t cd, cdsize;
  memset(z, 0, sizeof *z);
  z->p = p;
  z->len = len;
  if (len < 22)
    return zip_fail(z, "end-of-central-directory signature not found");
  lo = len - 22 > 65535 ? len - 22 - 65535 : 0;
  for (i = len - 22 + 1; i-- > lo;)
    if (zip_u32(p + i) == ZIP_SIG_END && i + 22 + zip_u16(p + i + 20) <= len) {
      e = p + i;
      break;
    }
  if (!e) return zip_fail(z, "end-of-central-directory signature not found");
  if (zip_u16(e + 4) || zip_u16(e + 6))
    return zip_fail(z, "multi-disk archives are not supported");
  z->n = zip_u16(e + 10);
  cdsize = zip_u32(e + 12);
  cd = zip_u32(e + 16);
  if ((e - p >= 20 && zip_u32(e - 20) == ZIP_SIG_END64_LOC) || z->n == 0xffff ||
      cd == 0xffffffffu || cdsize == 0xffffffffu)
    return zip_fail(z, "zip64 archives are not supported");
  if (zip_u16(e + 8) != z->n)
    return zip_fail(z, "entry counts disagree in the end record");
  if (cd > (uint64_t)(e - p) || cdsize > (uint64_t)(e - p) - cd)
    return zip_fail(z, "central directory lies outside the archive");
  if (z->n > max_entries) return zip_fail(z, "too many entries");
  /* each central entry takes at least 46 bytes */
  if (z->n * 46 > cdsize)
    return zip_fail(z, "central directory is shorter than its entries");
  z->cd = z->pos = (size_t)cd;
  z->cd_end = (size_t)(cd + cdsize);
  return 0;
}

/* The extended timestamp (0x5455) of an extra field, if any. */
static void zip_extra_time(const uint8_t *x, size_t n, zip_entry *e) {
  while (n >= 4) {
    uint32_t tag = zip_u16(x), sz = zip_u16(x + 2);
    if (sz > n - 4) return;
    if (tag == 0x5455 && sz >= 5 && (x[4] & 1)) {
      e->mtime = (int32_t)zip_u32(x + 5);
      e->has_mtime = 1;
    }
    x += 4 + sz;
    n -= 4 + sz;
  }
}

/* Checks the local header of e and finds its data. */
static int zip_local(zip_rd *z, zip_entry *e, uint64_t off) {
  const uint8_t *l;
  uint64_t data;
  if (off > z->cd || z->cd - off < 30)
    return zip_fail(z, "local header lies outside the archive");
  l = z->p + off;
  if (zip_u32(l) != ZIP_SIG_LOCAL)
    return zip_fail(z, "bad local header signature");
  data = off + 30 + zip_u16(l + 26) + zip_u16(l + 28);
  if (data > z->cd || e->csize > z->cd - data)
    return zip_fail(z, "entry data lies outside the archive");
  e->data = z->p + data;
  e->local = l;
  e->local_len = (size_t)(data + e->csize - off);
  /* a data descriptor may follow; copies keep it */
  if (e->flags & 8) {
    size_t dl = data + e->csize + 16 <= z->cd &&
                        zip_u32(z->p + data + e->csize) == 0x08074b50u
                    ? 16
                : data + e->csize + 12 <= z->cd ? 12
                                                : 0;
    e->local_len += dl;
  }
  return 0;
}

int zip_rd_next(zip_rd *z, zip_entry *e) {
  const uint8_t *c;
  size_t nl, xl, cl;
  if (z->i == z->n) return 0;
  if (z->cd_end - z->pos < 46)
    return zip_fail(z, "central directory is truncated");
  c = z->p + z->pos;
  if (zip_u32(c) != ZIP_SIG_CENTRAL)
    return zip_fail(z, "bad central directory signature");
  nl = zip_u16(c + 28);
  xl = zip_u16(c + 30);
  cl = zip_u16(c + 32);
  if (46 + nl + xl + cl > z->cd_end - z->pos)
    return zip_fail(z, "central directory entry is truncated");
  memset(e, 0, sizeof *e);
  e->made_by = (uint16_t)zip_u16(c + 4);
  e->flags = (uint16_t)zip_u16(c + 8);
  e->method = (uint16_t)zip_u16(c + 10);
  e->dtime = (uint16_t)zip_u16(c + 12);
  e->ddate = (uint16_t)zip_u16(c + 14);
  e->crc = zip_u32(c + 16);
  e->csize = zip_u32(c + 20);
  e->usize = zip_u32(c + 24);
  e->ext_attr = zip_u32(c + 38);
  e->name = (const char *)c + 46;
  e->nlen = nl;
  if (e->csize == 0xffffffffu || e->usize == 0xffffffffu ||
      zip_u32(c + 42) == 0xffffffffu)
    return zip_fail(z, "zip64 archives are not supported");
  if (zip_u16(c + 34))
    return zip_fail(z, "multi-disk archives are not supported");
  zip_extra_time(c + 46 + nl, xl, e);
  if (zip_local(z, e, zip_u32(c + 42))) return MSB_ECORRUPT;
  z->pos += 46 + nl + xl + cl;
  z->i++;
  return 1;
}

int zip_rd_data(const zip_entry *e, buf *out, uint64_t cap, const char **why) {
  size_t start = out->len, used;
  int rc, iw;
  if (e->flags & 1) {
    *why = "encrypted entries are not supported";
    return MSB_ENOTSUP;
  }
  if (e->usize > cap) {
    *why = "entry is larger than allowed";
    return MSB_ECORRUPT;
  }
  if (e->method == 0) {
    if (e->csize != e->usize) {
      *why = "stored entry sizes disagree";
      return MSB_ECORRUPT;
    }
    if (buf_put(out, e->data, (size_t)e->csize)) return MSB_ENOMEM;
  } else if (e->method == 8) {
    rc = inf_raw(e->data, (size_t)e->csize, out, (size_t)e->usize, &used, &iw);
    if (rc == MSB_ENOMEM) return rc;
    if (rc) {
      *why = iw == INF_CAPPED ? "entry expands past its declared size"
                              : "invalid compressed data to inflate";
      return MSB_ECORRUPT;
    }
  } else {
    *why = "unsupported compression method";
    return MSB_ENOTSUP;
  }
  if (out->len - start != e->usize) {
    *why = "entry is shorter than its declared size";
    return MSB_ECORRUPT;
  }
  if (arc_crc(0, (const uint8_t *)out->p + start, out->len - start) != e->crc) {
    *why = "bad CRC";
    return MSB_ECORRUPT;
  }
  return 0;
}

uint32_t zip_unix_mode(const zip_entry *e) {
  return (e->made_by >> 8) == 3 ? e->ext_attr >> 16 : 0;
}

const char *zip_method_name(const zip_entry *e) {
  static const char *const defl[4] = {"Defl:N", "Defl:X", "Defl:F", "Defl:S"};
  if (e->method == 0) return "Stored";
  if (e->method == 8) return defl[(e->flags >> 1) & 3];
  return "Unk:???";
}

/* ---- writing ---------------------------------------------------------- */

void zip_wr_init(zip_wr *w, mem *m, buf *out) {
  w->m = m;
  w->out = out;
  w->n = 0;
  buf_init(&w->cd, m);
}

static void zip_put16(buf *b, uint32_t v) {
  buf_putc(b, (int)(v & 0xff));
  buf_putc(b, (int)(v >> 8 & 0xff));
}

static void zip_put32(buf *b, uint32_t v) {
  zip_put16(b, v & 0xffff);
  zip_put16(b, v >> 16);
}

/* The fields local and central headers share, from "version needed". */
static void zip_common(buf *b, const zip_entry *e, size_t xlen) {
  zip_put16(b, e->method == 8 ? 20 : 10);
  zip_put16(b, e->flags);
  zip_put16(b, e->method);
  zip_put16(b, e->dtime);
  zip_put16(b, e->ddate);
  zip_put32(b, e->crc);
  zip_put32(b, (uint32_t)e->csize);
  zip_put32(b, (uint32_t)e->usize);
  zip_put16(b, (uint32_t)e->nlen);
  zip_put16(b, (uint32_t)xlen);
}

static void zip_ut(buf *b, const zip_entry *e) {
  if (!e->has_mtime) return;
  zip_put16(b, 0x5455);
  zip_put16(b, 5);
  buf_putc(b, 1);
  zip_put32(b, (uint32_t)e->mtime);
}

/* The central record of e, whose local header is at off. */
static int zip_central(zip_wr *w, const zip_entry *e, uint64_t off) {
  buf *b = &w->cd;
  if (off > 0xfffffffeu) return MSB_EFBIG;
  zip_put32(b, ZIP_SIG_CENTRAL);
  zip_put16(b, 0x031e); /* Unix, version 3.0, as Info-ZIP zip 3.0 */
  zip_common(b, e, e->has_mtime ? 9 : 0);
  zip_put16(b, 0); /* comment */
  zip_put16(b, 0); /* disk */
  zip_put16(b, 0); /* internal attributes */
  zip_put32(b, e->ext_attr);
  zip_put32(b, (uint32_t)off);
  buf_put(b, e->name, e->nlen);
  zip_ut(b, e);
  w->n++;
  return b->err;
}

int zip_wr_add(zip_wr *w, const zip_item *it, uint64_t *csize, int *method) {
  zip_entry e;
  buf z;
  uint64_t off = w->out->len;
  int rc = 0;
  if (it->len > 0xfffffffeu || it->nlen > 0xffff || w->n >= 0xffff)
    return MSB_EFBIG;
  memset(&e, 0, sizeof e);
  e.name = it->name;
  e.nlen = it->nlen;
  e.dtime = it->dtime;
  e.ddate = it->ddate;
  e.mtime = it->mtime;
  e.has_mtime = 1;
  e.usize = e.csize = it->len;
  e.crc = arc_crc(0, it->data, it->len);
  /* MS-DOS directory bit beside the Unix mode, as Info-ZIP sets it */
  e.ext_attr = it->mode << 16 | ((it->mode & 0170000) == 0040000 ? 0x10 : 0);
  e.data = it->data;
  buf_init(&z, w->m);
  if (it->level > 0 && it->len > 0) {
    rc = arc_gzip(w->m, it->data, it->len, it->level, NULL, 0, &z);
    if (rc) {
      buf_finish(&z);
      return rc;
    }
    if (z.len - 18 < it->len) {
      e.method = 8;
      e.csize = z.len - 18;
      e.data = (const uint8_t *)z.p + 10;
      /* Info-ZIP marks -8/-9 "maximum" and -1/-2 "fast" */
      e.flags = it->level >= 8 ? 2 : it->level <= 2 ? 4 : 0;
    }
  }
  zip_put32(w->out, ZIP_SIG_LOCAL);
  zip_common(w->out, &e, 9);
  buf_put(w->out, e.name, e.nlen);
  zip_ut(w->out, &e);
  buf_put(w->out, e.data, (size_t)e.csize);
  buf_finish(&z);
  if (w->out->err) return w->out->err;
  *csize = e.csize;
  *method = e.method;
  return zip_central(w, &e, off);
}

int zip_wr_copy(zip_wr *w, const zip_entry *e) {
  uint64_t off = w->out->len;
  if (buf_put(w->out, e->local, e->local_len)) return w->out->err;
  return zip_central(w, e, off);
}

int zip_wr_end(zip_wr *w) {
  buf *o = w->out;
  uint64_t off = o->len;
  int rc;
  buf_put(o, w->cd.p ? w->cd.p : "", w->cd.len);
  zip_put32(o, ZIP_SIG_END);
  zip_put16(o, 0);
  zip_put16(o, 0);
  zip_put16(o, (uint32_t)w->n);
  zip_put16(o, (uint32_t)w->n);
  zip_put32(o, (uint32_t)w->cd.len);
  zip_put32(o, (uint32_t)off);
  zip_put16(o, 0);
  rc = w->cd.err ? w->cd.err : o->err;
  if (!rc && off > 0xfffffffeu) rc = MSB_EFBIG;
  buf_finish(&w->cd);
  return rc;
}

void zip_wr_abort(zip_wr *w) { buf_finish(&w->cd); }
