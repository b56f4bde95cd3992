/* test_archive.c - unit tests for src/archive.c: gzip round trips and
 * GNU gzip's error wording, tar writer/reader round trips, GNU long names,
 * pax records, and the reader's rejections. The hostile tar builders live
 * in test_archive.h's helpers here and are shared with test_snap.c through
 * ta_* functions declared below. */
#include <stdint.h>
#include <string.h>

#include "../../src/archive.h"
#include "memsandbox.h"
#include "test.h"

/* Appends a raw header with a correct checksum unless bad_sum. Exported to
 * test_snap.c (declared there). */
void tarc_hdr(buf *b, const char *name, int type, const char *size_field,
              const char *link, int bad_sum);
void tarc_data(buf *b, const void *d, size_t n);
void tarc_end(buf *b);

void tarc_hdr(buf *b, const char *name, int type, const char *size_field,
              const char *link, int bad_sum) {
  uint8_t h[512];
  unsigned sum = 0;
  size_t i;
  memset(h, 0, sizeof h);
  memcpy(h, name, strlen(name) > 100 ? 100 : strlen(name));
  memcpy(h + 100, "0000644", 7);
  memcpy(h + 108, "0001750", 7);
  memcpy(h + 116, "0001750", 7);
  memcpy(h + 124, size_field,
         strlen(size_field) > 12 ? 12 : strlen(size_field));
  memcpy(h + 136, "15000000000", 11);
  memset(h + 148, ' ', 8);
  h[156] = (uint8_t)type;
  if (link) memcpy(h + 157, link, strlen(link));
  memcpy(h + 257,
         "ustar\0"
         "00",
         8);
  memcpy(h + 265, "user", 4);
  memcpy(h + 297, "user", 4);
  for (i = 0; i < 512; i++) sum += h[i];
  if (bad_sum) sum++;
  snprintf((char *)h + 148, 8, "%06o", sum);
  h[155] = ' ';
  buf_put(b, h, 512);
}

void tarc_data(buf *b, const void *d, size_t n) {
  static const uint8_t z[512];
  buf_put(b, d, n);
  if (n % 512) buf_put(b, z, 512 - n % 512);
}

void tarc_end(buf *b) {
  static const uint8_t z[1024];
  buf_put(b, z, sizeof z);
}

static int tarc_first_error(mem *m, const buf *b, char *why, size_t cap) {
  arc_tar t;
  arc_entry e;
  int rc;
  arc_tar_init(&t, m, (const uint8_t *)b->p, b->len, NULL);
  while ((rc = arc_tar_next(&t, &e)) == 1) {
  }
  snprintf(why, cap, "%s", t.why);
  arc_tar_finish(&t);
  return rc;
}

TEST("arc-1.1") { /* gzip round trip, deterministic header */
  mem m;
  buf z, o;
  const char *why = NULL;
  arc_gz_info gi;
  static const char text[] = "hello hello hello hello\n";
  mem_init(&m, 0);
  buf_init(&z, &m);
  buf_init(&o, &m);
  CHECK(arc_gzip(&m, (const uint8_t *)text, sizeof text - 1, 6, NULL, 0, &z) ==
        0);
  REQUIRE(z.len > 18);
  CHECK((uint8_t)z.p[0] == 0x1f && (uint8_t)z.p[1] == 0x8b);
  CHECK(z.p[3] == 0 && z.p[4] == 0 && z.p[8] == 0 && z.p[9] == 3);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) == 0);
  CHECK(o.len == sizeof text - 1 && !memcmp(o.p, text, o.len));
  CHECK(gi.trailing == 0 && gi.isize == sizeof text - 1);
  /* concatenated members expand to the concatenation */
  buf_put(&z, z.p, z.len);
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) == 0);
  CHECK(o.len == 2 * (sizeof text - 1));
  buf_finish(&z);
  buf_finish(&o);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("arc-1.2") { /* gzip errors use GNU gzip's wording */
  mem m;
  buf z, o;
  const char *why = NULL;
  arc_gz_info gi;
  static const char text[] = "some text to compress, some text\n";
  mem_init(&m, 0);
  buf_init(&z, &m);
  buf_init(&o, &m);
  CHECK(arc_gunzip((const uint8_t *)"plain", 5, NULL, &o, &gi, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "not in gzip format");
  arc_gzip(&m, (const uint8_t *)text, sizeof text - 1, 9, "a.txt", 7, &z);
  CHECK(z.p[3] == 8 && z.p[8] == 2);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) == 0);
  CHECK_STR(gi.name, "a.txt");
  CHECK(gi.mtime == 7);
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len - 3, NULL, &o, &gi, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "unexpected end of file");
  z.p[z.len - 8] ^= 1; /* crc */
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "invalid compressed data--crc error");
  z.p[z.len - 8] ^= 1;
  z.p[z.len - 4] ^= 1; /* isize */
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "invalid compressed data--length error");
  z.p[z.len - 4] ^= 1;
  buf_put(&z, "\0\0\0", 3);
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) == 0);
  CHECK(gi.trailing == 1);
  buf_put(&z, "xy", 2);
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, &gi, &why) == 0);
  CHECK(gi.trailing == 2);
  buf_finish(&z);
  buf_finish(&o);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("arc-1.3") { /* expansion bounds stop a bomb early */
  mem m;
  buf z, o;
  const char *why = NULL;
  arc_limits lim = {1 << 20, (uint64_t)64 << 20, 200, 100, 4096, 0};
  uint8_t *zeros;
  mem_init(&m, 0);
  buf_init(&z, &m);
  buf_init(&o, &m);
  zeros = mem_zalloc(&m, (size_t)16 << 20);
  REQUIRE(zeros);
  arc_gzip(&m, zeros, (size_t)16 << 20, 9, NULL, 0, &z);
  mem_free(&m, zeros);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, &lim, &o, NULL, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "compression ratio exceeds the limit");
  CHECK(o.len < ((size_t)4 << 20));
  lim.max_ratio = 0;
  lim.max_out = 1 << 20;
  buf_clear(&o);
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, &lim, &o, NULL, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "expanded size exceeds the limit");
  lim.max_in = 10;
  CHECK(arc_gunzip((const uint8_t *)z.p, z.len, &lim, &o, NULL, &why) ==
        MSB_ECORRUPT);
  CHECK_STR(why, "compressed size exceeds the limit");
  buf_finish(&z);
  buf_finish(&o);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("arc-2.1") { /* writer -> reader round trip, long names, pax mtime */
  mem m;
  buf b, longn, longl;
  arc_wentry w;
  arc_tar t;
  arc_entry e;
  int i;
  mem_init(&m, 0);
  buf_init(&b, &m);
  buf_init(&longn, &m);
  buf_init(&longl, &m);
  for (i = 0; i < 30; i++) buf_puts(&longn, "dir0123456/");
  buf_puts(&longn, "file.txt");
  for (i = 0; i < 20; i++) buf_puts(&longl, "target0123");
  memset(&w, 0, sizeof w);
  w.uid = w.gid = 1000;
  w.uname = w.gname = "user";
  w.type = ARC_DIR;
  w.path = "d";
  w.mode = 0755;
  w.mtime_ns = 1500000000000000000;
  arc_tar_put(&b, &w);
  w.type = ARC_FILE;
  w.path = buf_str(&longn);
  w.mode = 0600;
  w.data = (const uint8_t *)"abc";
  w.size = 3;
  w.mtime_ns = 1500000000123456789;
  arc_tar_put(&b, &w);
  w.type = ARC_SYMLINK;
  w.path = "d/l";
  w.link = buf_str(&longl);
  w.mtime_ns = -5000000000;
  arc_tar_put(&b, &w);
  /* a name that splits into ustar prefix + name */
  w.type = ARC_FILE;
  w.path =
      "p123456789/p123456789/p123456789/p123456789/p123456789/"
      "p123456789/p123456789/p123456789/p123456789/p123456789/x";
  w.size = 0;
  w.mtime_ns = 0;
  arc_tar_put(&b, &w);
  arc_tar_end(&b, 0);
  REQUIRE(!b.err);
  CHECK(b.len % 10240 == 0);
  arc_tar_init(&t, &m, (const uint8_t *)b.p, b.len, NULL);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_DIR && !strcmp(e.path, "d/") && e.mode == 0755);
  CHECK(e.mtime_ns == 1500000000000000000);
  CHECK_STR(e.uname, "user");
  CHECK(e.uid == 1000);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_FILE && !strcmp(e.path, buf_str(&longn)));
  CHECK(e.size == 3 && !memcmp(e.data, "abc", 3) && e.mode == 0600);
  CHECK(e.mtime_ns == 1500000000123456789);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_SYMLINK && !strcmp(e.link, buf_str(&longl)));
  CHECK(e.mtime_ns == -5000000000);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_FILE && !strcmp(e.path, w.path));
  CHECK(arc_tar_next(&t, &e) == 0);
  arc_tar_finish(&t);
  buf_finish(&b);
  buf_finish(&longn);
  buf_finish(&longl);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("arc-2.2") { /* GNU 'L' long names, v7 directories, hard links */
  mem m;
  buf b;
  arc_tar t;
  arc_entry e;
  char ln[300];
  char sz[16];
  mem_init(&m, 0);
  buf_init(&b, &m);
  memset(ln, 'n', 250);
  ln[250] = 0;
  snprintf(sz, sizeof sz, "%011o", 251);
  tarc_hdr(&b, "././@LongLink", 'L', sz, NULL, 0);
  tarc_data(&b, ln, 251);
  tarc_hdr(&b, "nnnn", '0', "00000000002", NULL, 0);
  tarc_data(&b, "hi", 2);
  tarc_hdr(&b, "h", '1', "00000000000", ln, 0);
  tarc_end(&b);
  arc_tar_init(&t, &m, (const uint8_t *)b.p, b.len, NULL);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_FILE && strlen(e.path) == 250 && e.size == 2);
  CHECK(arc_tar_next(&t, &e) == 1);
  CHECK(e.type == ARC_HARDLINK && !strncmp(e.link, ln, 100));
  CHECK(arc_tar_next(&t, &e) == 0);
  arc_tar_finish(&t);
  buf_finish(&b);
  CHECK(m.used == 0);
}

TEST("arc-2.3") { /* path cleaning */
  mem m;
  buf o;
  int sl;
  const char *why;
  mem_init(&m, 0);
  buf_init(&o, &m);
  CHECK(arc_path_clean("./a//b/./c/", &o, &sl, &why) == 0);
  CHECK_STR(buf_str(&o), "a/b/c");
  CHECK(!sl);
  buf_clear(&o);
  CHECK(arc_path_clean("//etc/x", &o, &sl, &why) == 0 && sl);
  CHECK_STR(buf_str(&o), "etc/x");
  buf_clear(&o);
  CHECK(arc_path_clean("a/../b", &o, &sl, &why) == MSB_EINVAL);
  buf_clear(&o);
  CHECK(arc_path_clean("./", &o, &sl, &why) == MSB_ENOENT);
  buf_finish(&o);
  CHECK(m.used == 0);
}

/* A header for a name with bytes >= 128 whose checksum field holds
 * sum + delta, summed signed (old tars) or unsigned. */
static void tarc_high_hdr(buf *b, int sign, int delta) {
  uint8_t *h;
  int sum = 0, i;
  tarc_hdr(b, "caf\xc3\xa9-\xff\x80.txt", '0', "0000000", NULL, 0);
  h = (uint8_t *)b->p + b->len - 512;
  memset(h + 148, ' ', 8);
  for (i = 0; i < 512; i++) sum += sign ? (int8_t)h[i] : h[i];
  snprintf((char *)h + 148, 8, "%06o", sum + delta);
  h[155] = ' ';
  tarc_end(b);
}

TEST("arc-3.0") { /* checksums over bytes >= 128: unsigned or signed */
  mem m;
  buf b;
  char why[160];
  int sign, delta, rc;
  mem_init(&m, 0);
  for (sign = 0; sign < 2; sign++)
    for (delta = -1; delta <= 1; delta++) {
      buf_init(&b, &m);
      tarc_high_hdr(&b, sign, delta);
      rc = tarc_first_error(&m, &b, why, sizeof why);
      if (delta)
        CHECK(rc < 0 && !strcmp(why, "header checksum mismatch at byte 0"));
      else
        CHECK(rc == 0 && !strcmp(why, ""));
      buf_finish(&b);
    }
  CHECK(m.used == 0);
}

TEST("arc-3.1") { /* reader rejections name their reason */
  static const struct {
    const char *id;
    const char *want;
  } cases[] = {
      {"checksum", "header checksum mismatch"},
      {"octal", "invalid octal number in the size field"},
      {"negative", "negative member size"},
      {"device", "device nodes are not supported"},
      {"fifo", "FIFOs are not supported"},
      {"truncated", "truncated archive"},
      {"trailing", "trailing garbage after the end of the archive"},
      {"noend", "missing end-of-archive blocks"},
      {"hugepax", "pax extended header too large"},
      {"badpax", "malformed pax extended header"},
      {"sparse", "sparse files are not supported"},
      {"partial", "truncated archive: partial header block"},
      {"type", "unsupported member type 'Z'"},
  };
  mem m;
  size_t i;
  mem_init(&m, 0);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    buf b;
    char why[200];
    const char *id = cases[i].id;
    buf_init(&b, &m);
    if (!strcmp(id, "checksum")) {
      tarc_hdr(&b, "a", '0', "00000000000", NULL, 1);
    } else if (!strcmp(id, "octal")) {
      tarc_hdr(&b, "a", '0', "0000000009x", NULL, 0);
    } else if (!strcmp(id, "negative")) {
      tarc_hdr(&b, "a", '0',
               "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
               "\xff",
               NULL, 0);
    } else if (!strcmp(id, "device")) {
      tarc_hdr(&b, "a", '3', "00000000000", NULL, 0);
    } else if (!strcmp(id, "fifo")) {
      tarc_hdr(&b, "a", '6', "00000000000", NULL, 0);
    } else if (!strcmp(id, "truncated")) {
      tarc_hdr(&b, "a", '0', "00000001000", NULL, 0);
      buf_put(&b, "xxxx", 4);
    } else if (!strcmp(id, "trailing")) {
      tarc_hdr(&b, "a", '0', "00000000000", NULL, 0);
      tarc_end(&b);
      buf_put(&b, "junk", 4);
    } else if (!strcmp(id, "noend")) {
      tarc_hdr(&b, "a", '0', "00000000000", NULL, 0);
    } else if (!strcmp(id, "hugepax")) {
      char sz[16];
      snprintf(sz, sizeof sz, "%011o", 2 << 20);
      tarc_hdr(&b, "x", 'x', sz, NULL, 0);
      buf_reserve(&b, (size_t)2 << 20);
      memset(b.p + b.len, 'a', (size_t)2 << 20);
      b.len += (size_t)2 << 20;
      tarc_end(&b);
    } else if (!strcmp(id, "badpax")) {
      tarc_hdr(&b, "x", 'x', "00000000012", NULL, 0);
      tarc_data(&b, "99 path=a\n", 10);
      tarc_hdr(&b, "a", '0', "00000000000", NULL, 0);
      tarc_end(&b);
    } else if (!strcmp(id, "sparse")) {
      tarc_hdr(&b, "a", 'S', "00000000000", NULL, 0);
      tarc_end(&b);
    } else if (!strcmp(id, "partial")) {
      tarc_hdr(&b, "a", '0', "00000000000", NULL, 0);
      buf_put(&b, "abc", 3);
    } else if (!strcmp(id, "type")) {
      tarc_hdr(&b, "a", 'Z', "00000000000", NULL, 0);
      tarc_end(&b);
    }
    REQUIRE(!b.err);
    if (tarc_first_error(&m, &b, why, sizeof why) != MSB_ECORRUPT ||
        strncmp(why, cases[i].want, strlen(cases[i].want))) {
      fprintf(stderr, "    case %s: got [%s]\n", id, why);
      CHECK(0);
    }
    buf_finish(&b);
  }
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("arc-4.1") { /* out of memory at every allocation: clean errors */
  mem m;
  long k;
  static const char text[] = "fault injection text fault injection\n";
  for (k = 0; k < 40; k++) {
    buf z, o, t;
    arc_wentry w;
    const char *why;
    int rc;
    mem_init(&m, 0);
    m.fail_after = k;
    buf_init(&z, &m);
    buf_init(&o, &m);
    buf_init(&t, &m);
    memset(&w, 0, sizeof w);
    w.type = ARC_FILE;
    w.path = "a";
    w.data = (const uint8_t *)text;
    w.size = sizeof text - 1;
    arc_tar_put(&t, &w);
    arc_tar_end(&t, 0);
    rc = t.err ? t.err
               : arc_gzip(&m, (const uint8_t *)t.p, t.len, 6, NULL, 0, &z);
    if (!rc) rc = arc_gunzip((const uint8_t *)z.p, z.len, NULL, &o, NULL, &why);
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    if (!rc) CHECK(o.len == t.len && !memcmp(o.p, t.p, t.len));
    buf_finish(&z);
    buf_finish(&o);
    buf_finish(&t);
    CHECK(m.used == 0 && m.blocks == 0);
  }
}

/* xorshift32: reproducible inputs for the piecewise writer's cases. */
static uint32_t tgz_next(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* A header-like block: a near copy of a recent one, mostly zeros with a
 * few bytes, or noise. */
static void tgz_block(uint32_t *s, const buf *plain, uint8_t *b) {
  uint32_t kind = tgz_next(s) % 3, i, n;
  if (kind == 0 && plain->len >= 512) {
    size_t back = 512 * (1 + tgz_next(s) % 4);
    memcpy(b, plain->p + (plain->len > back ? plain->len - back : 0), 512);
    for (n = tgz_next(s) % 6, i = 0; i < n; i++)
      b[tgz_next(s) % 512] = (uint8_t)tgz_next(s);
  } else {
    memset(b, 0, 512);
    for (n = kind == 1 ? 40 : 512, i = 0; i < n; i++)
      b[kind == 1 ? tgz_next(s) % 512 : i] = (uint8_t)('0' + tgz_next(s) % 8);
  }
}

TEST("gzw-1.1") { /* pieces and headers gunzip to exactly the tar bytes */
  mem m;
  uint32_t seed = 12345, trial;
  mem_init(&m, 0);
  for (trial = 0; trial < 120; trial++) {
    buf out, plain, got;
    arc_gzw *w = NULL;
    arc_piece *keep = NULL;
    uint8_t blk[512], data[9600];
    const char *why = "";
    int level = (int)(trial % 10), step, rc = 0;
    buf_init(&out, &m);
    buf_init(&plain, &m);
    buf_init(&got, &m);
    REQUIRE(arc_gzw_begin(&m, level, &out, &w) == 0);
    for (step = 0; !rc && step < (int)(tgz_next(&seed) % 40); step++) {
      if (tgz_next(&seed) % 2) {
        int k, nb = 1 + (int)(tgz_next(&seed) % 4);
        for (k = 0; !rc && k < nb; k++) {
          tgz_block(&seed, &plain, blk);
          buf_put(&plain, blk, 512);
          rc = arc_gzw_headers(w, blk, 512);
        }
      } else if (keep && tgz_next(&seed) % 3 == 0) {
        rc = arc_gzw_piece(w, keep); /* the same piece again */
        buf_put(&plain, data, (size_t)keep->ulen);
      } else {
        /* a far one sometimes, so headers lose their references */
        size_t n = tgz_next(&seed) % 8 ? tgz_next(&seed) % 9000 : 0, i;
        arc_piece *pc = NULL;
        for (i = 0; i < n; i++)
          data[i] = (uint8_t)("ab c\n"[tgz_next(&seed) % 5]);
        for (i = n; i < n + arc_tar_pad(n); i++) data[i] = 0;
        rc = arc_gzw_piece_make(w, data, n, arc_tar_pad(n), &pc);
        if (!rc) rc = arc_gzw_piece(w, pc);
        buf_put(&plain, data, n + arc_tar_pad(n));
        if (!rc && n && n + arc_tar_pad(n) <= sizeof data) {
          mem_free(&m, keep);
          keep = pc;
        } else {
          mem_free(&m, pc);
        }
      }
    }
    CHECK(rc == 0);
    memset(blk, 0, sizeof blk);
    buf_put(&plain, blk, 512);
    CHECK(arc_gzw_finish(w, blk, 512) == 0);
    CHECK(arc_gunzip((const uint8_t *)out.p, out.len, NULL, &got, NULL, &why) ==
          0);
    CHECK(got.len == plain.len && !memcmp(got.p, plain.p, plain.len));
    mem_free(&m, keep);
    buf_finish(&out);
    buf_finish(&plain);
    buf_finish(&got);
  }
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("gzw-1.2") { /* misuse and out of memory: clean errors, no leaks */
  mem m;
  long k;
  static const uint8_t text[600] = "some file text";
  uint8_t zero[512] = {0};
  int done = 0;
  for (k = 0; k < 60 && !done; k++) {
    buf out;
    arc_gzw *w = NULL;
    arc_piece *pc = NULL;
    int rc;
    mem_init(&m, 0);
    buf_init(&out, &m);
    m.fail_after = k;
    rc = arc_gzw_begin(&m, 6, &out, &w);
    if (!rc) rc = arc_gzw_headers(w, zero, 512);
    if (!rc)
      rc = arc_gzw_piece_make(w, text, sizeof text, arc_tar_pad(600), &pc);
    if (!rc) rc = arc_gzw_piece(w, pc);
    mem_free(&m, pc);
    if (!rc) {
      rc = arc_gzw_finish(w, zero, 512);
      done = rc == 0;
    } else {
      arc_gzw_abort(w);
    }
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    buf_finish(&out);
    CHECK(m.used == 0 && m.blocks == 0);
  }
  CHECK(done);
  mem_init(&m, 0);
  {
    buf out;
    arc_gzw *w = NULL;
    arc_piece *pc = NULL;
    buf_init(&out, &m);
    CHECK(arc_gzw_begin(&m, 10, &out, &w) == MSB_EINVAL && !w);
    REQUIRE(arc_gzw_begin(&m, 1, &out, &w) == 0);
    CHECK(arc_gzw_headers(w, zero, 100) == MSB_EINVAL);
    CHECK(arc_gzw_piece_make(w, text, 10, 600, &pc) == MSB_EINVAL && !pc);
    pc = NULL;
    REQUIRE(arc_gzw_piece_make(w, text, 10, 502, &pc) == 0);
    pc->level = 6; /* a piece of another level does not fit this member */
    CHECK(arc_gzw_piece(w, pc) == MSB_EINVAL);
    mem_free(&m, pc);
    arc_gzw_abort(w);
    buf_finish(&out);
    CHECK(m.used == 0 && m.blocks == 0);
  }
}

/* ---- streaming --------------------------------------------------------- */

/* What a reader made of an archive: one line per member, then the end. */
static void tarc_log(buf *log, int rc, const arc_entry *e, const arc_tar *t) {
  if (rc == 1)
    buf_printf(log, "%d %s -> %s %llu %u @%llu %s\n", e->type, e->path, e->link,
               (unsigned long long)e->size,
               e->data ? (unsigned)arc_crc(0, e->data, (size_t)e->have) : 0u,
               (unsigned long long)e->offset, e->data ? "data" : "nodata");
  else
    buf_printf(log, "end %d %s\n", rc, rc ? t->why : "");
}

/* Reads b whole into log. */
static void tarc_whole(mem *m, const buf *b, int nodata, buf *log) {
  arc_tar t;
  arc_entry e;
  int rc;
  arc_tar_init(&t, m, (const uint8_t *)b->p, b->len, NULL);
  t.nodata = nodata;
  while ((rc = arc_tar_next(&t, &e)) == 1) tarc_log(log, rc, &e, &t);
  tarc_log(log, rc, &e, &t);
  arc_tar_finish(&t);
}

/* Reads b as it would come from an expanding stream, step bytes at a
 * time, letting go of what the reader no longer needs; announced members
 * are checked against the whole reading. */
static void tarc_stream(mem *m, const buf *b, size_t step, int nodata,
                        buf *log) {
  arc_tar t;
  arc_entry e;
  buf hold;
  uint64_t base = 0;
  size_t at = 0;
  int rc = 0;
  buf_init(&hold, m);
  arc_tar_init(&t, m, (const uint8_t *)"", 0, NULL);
  t.nodata = nodata;
  for (;;) {
    size_t k = b->len - at < step ? b->len - at : step, keep;
    buf_put(&hold, b->p + at, k);
    at += k;
    arc_tar_feed(&t, (const uint8_t *)hold.p, hold.len, base, at < b->len);
    for (;;) {
      e.type = 0;
      rc = arc_tar_next(&t, &e);
      if (rc != 1) break;
      tarc_log(log, rc, &e, &t);
    }
    if (rc == ARC_MORE && e.type) /* announced, before its data */
      CHECK(!e.data && t.need <= b->len + 512 && e.offset < t.need);
    /* past the end, what follows is still checked as it comes */
    if (rc != ARC_MORE && !(rc == 0 && t.ended && at < b->len)) break;
    keep = (size_t)(arc_tar_keep(&t) - base);
    if (keep > hold.len) keep = hold.len;
    memmove(hold.p, hold.p + keep, hold.len - keep);
    buf_truncate(&hold, hold.len - keep);
    base += keep;
  }
  tarc_log(log, rc, &e, &t);
  arc_tar_finish(&t);
  buf_finish(&hold);
}

TEST("arc-5.1") { /* a growing buffer reads as the whole one, dropped
                     bytes and all; nodata skips what is not wanted */
  static const size_t steps[] = {1, 7, 512, 4096, 70001};
  mem m;
  buf b, whole, part, big, pax;
  size_t i, v;
  char sz[16];
  mem_init(&m, 0);
  buf_init(&big, &m);
  buf_init(&pax, &m);
  for (i = 0; i < 70000; i++) buf_putc(&big, (int)((i * 2654435761u) >> 24));
  for (v = 0; v < 3; v++) {
    buf_init(&b, &m);
    arc_pax_record(&pax, "path", "deep/p/very/long/name/indeed", 28);
    snprintf(sz, sizeof sz, "%011o", (unsigned)pax.len);
    tarc_hdr(&b, "PaxHeaders/x", 'x', sz, NULL, 0);
    tarc_data(&b, pax.p, pax.len);
    if (v == 1) { /* hostile: stacked headers */
      tarc_hdr(&b, "PaxHeaders/x", 'x', sz, NULL, 0);
      tarc_data(&b, pax.p, pax.len);
    }
    tarc_hdr(&b, "short", '0', "00000210560", NULL, 0);
    tarc_data(&b, big.p, big.len);
    tarc_hdr(&b, "d/", '5', "00000000000", NULL, 0);
    tarc_hdr(&b, "d/l", '2', "00000000000", "../short", 0);
    tarc_hdr(&b, "d/h", '1', "00000000000", "short", 0);
    tarc_hdr(&b, "three", '0', "00000000003", NULL, 0);
    tarc_data(&b, "abc", 3);
    tarc_end(&b);
    if (v == 2) b.p[b.len - 100] = 'x'; /* hostile: trailing garbage */
    buf_put(&b, "\0\0\0\0", 4);
    buf_clear(&pax);
    for (i = 0; i < sizeof steps / sizeof steps[0] * 2; i++) {
      int nodata = i % 2;
      buf_init(&whole, &m);
      buf_init(&part, &m);
      tarc_whole(&m, &b, 0, &whole);
      tarc_stream(&m, &b, steps[i / 2], nodata, &part);
      if (nodata) { /* the big member came at its header, without data;
                       the same end */
        const char *end = strstr(whole.p, "end ");
        if (v != 1 && steps[i / 2] < 70000)
          CHECK(strstr(
              part.p,
              "1 deep/p/very/long/name/indeed ->  70000 0 @1024 nodata\n"));
        CHECK(end && strstr(part.p, end));
      } else {
        CHECK_STR(buf_str(&part), buf_str(&whole));
      }
      buf_finish(&whole);
      buf_finish(&part);
    }
    buf_finish(&b);
  }
  buf_finish(&big);
  buf_finish(&pax);
  CHECK(m.used == 0);
}
