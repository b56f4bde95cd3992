/* test_cas.c - content-addressed state (src/cas.c) through the public API.
 *
 * An export turned into import records (what the JS host does) rebuilds
 * an equal sandbox; every truncation and every flipped byte of those
 * records is rejected or accepted cleanly, and a rejection leaves the
 * target's root hash and revision untouched (run under ASan by make asan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/buf.h"
#include "../../src/cas.h"
#include "../../src/sandbox.h"
#include "test.h"

static msb_sandbox *tc_open(void) {
  msb_sandbox *sb = NULL;
  msb_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.clock_ns = (int64_t)1796000000 * 1000000000;
  if (msb_open(&cfg, &sb)) return NULL;
  return sb;
}

static uint32_t tc_get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static void tc_rec(buf *b, int tag, const void *a, size_t alen, const void *c,
                   size_t clen) {
  uint8_t h[5];
  uint32_t n = (uint32_t)(alen + clen);
  h[0] = (uint8_t)tag;
  h[1] = (uint8_t)(n >> 24);
  h[2] = (uint8_t)(n >> 16);
  h[3] = (uint8_t)(n >> 8);
  h[4] = (uint8_t)n;
  buf_put(b, h, 5);
  buf_put(b, a, alen);
  buf_put(b, c, clen);
}

/* The files of one 'D' record as 'P' records, read from sb. */
static int tc_files(msb_sandbox *sb, const uint8_t *p, uint32_t len, buf *out) {
  uint32_t plen = tc_get32(p + 32);
  const uint8_t *e = p + 36 + plen + CAS_DIR_MAGIC_LEN, *end = p + len;
  while (e < end) {
    uint32_t nl = tc_get32(e + 45);
    if (e[0] == 'F') {
      char path[4096];
      uint8_t *d = NULL;
      size_t n = 0;
      snprintf(path, sizeof path, "%.*s/%.*s", (int)plen, (const char *)p + 36,
               (int)nl, (const char *)e + CAS_ENTRY_FIXED);
      if (msb_read(sb, path, &d, &n)) return -1;
      tc_rec(out, 'P', e + 13, 32, d, n);
      msb_free(sb, d);
    }
    e += CAS_ENTRY_FIXED + nl;
  }
  return 0;
}

/* Export records of sb as import records. */
static int tc_records(msb_sandbox *sb, buf *out) {
  uint8_t *d = NULL;
  size_t len = 0, i = 0;
  int rc = msb_state_export(sb, 0, &d, &len);
  if (rc) return rc;
  while (!rc && i < len) {
    uint32_t l = tc_get32(d + i + 1);
    const uint8_t *p = d + i + 5;
    switch (d[i]) {
    case 'D':
      tc_rec(out, 'P', p, 32, p + 36 + tc_get32(p + 32),
             l - 36 - tc_get32(p + 32));
      rc = tc_files(sb, p, l, out);
      break;
    case 'L': tc_rec(out, 'P', p, 32, p + 32, l - 32); break;
    case 'S':
      tc_rec(out, 'S', p, 32, NULL, 0);
      tc_rec(out, 'P', p, 32, p + 32, l - 32);
      break;
    default: tc_rec(out, d[i], p, l, NULL, 0);
    }
    i += 5 + (size_t)l;
  }
  msb_free(sb, d);
  return rc ? rc : out->err;
}

static void tc_fill(msb_sandbox *sb) {
  msb_result r;
  static const char s[] =
      "mkdir -p src/deep/x empty && echo hi > src/a && printf 'x\\0y' > "
      "src/deep/x/bin && ln -s src/a link && chmod 600 src/a && echo t > "
      "/tmp/t && v=1; f(){ echo fn; }; cd src";
  if (!msb_exec(sb, s, sizeof s - 1, NULL, &r)) msb_result_finish(sb, &r);
}

TEST("cas-1.1") { /* export -> import records -> an equal sandbox */
  msb_sandbox *a = tc_open(), *b = tc_open();
  buf rec;
  uint8_t ha[32], hb[32];
  msb_result r;
  static const char q[] = "pwd; echo $v; f; readlink ../link";
  REQUIRE(a && b);
  tc_fill(a);
  buf_init(&rec, &b->m);
  CHECK(tc_records(a, &rec) == 0);
  CHECK(msb_state_import(b, (const uint8_t *)rec.p, rec.len) == 0);
  msb_root_hash(a, ha);
  msb_root_hash(b, hb);
  CHECK(!memcmp(ha, hb, 32));
  CHECK(msb_revision(a) == msb_revision(b));
  CHECK(msb_exec(b, q, sizeof q - 1, NULL, &r) == 0);
  CHECK_STR((const char *)r.out, "/workspace/src\n1\nfn\nsrc/a\n");
  msb_result_finish(b, &r);
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}

/* Imports data into sb, which must then either hold it or be unchanged. */
static void tc_try(msb_sandbox *sb, const uint8_t *d, size_t n,
                   const uint8_t before[32], uint64_t rev) {
  uint8_t h[32];
  if (msb_state_import(sb, d, n) == 0) return;
  CHECK(msb_errmsg(sb)[0] != 0); /* before a call that clears it */
  msb_root_hash(sb, h);
  CHECK(!memcmp(h, before, 32));
  CHECK(msb_revision(sb) == rev);
}

TEST("cas-2.1") { /* every truncation and flipped byte: clean */
  msb_sandbox *a = tc_open(), *b = tc_open();
  buf rec;
  uint8_t *copy, before[32];
  uint64_t rev;
  size_t i;
  REQUIRE(a && b);
  tc_fill(a);
  buf_init(&rec, &a->m);
  REQUIRE(tc_records(a, &rec) == 0);
  msb_write(b, "/workspace/keep", "k", 1, MSB_WRITE_ANY, NULL, 0, 0);
  copy = malloc(rec.len);
  REQUIRE(copy);
  for (i = 0; i < rec.len; i++) {
    msb_root_hash(b, before);
    rev = msb_revision(b);
    tc_try(b, (const uint8_t *)rec.p, i, before, rev);
    memcpy(copy, rec.p, rec.len);
    copy[i] ^= 0x41;
    tc_try(b, copy, rec.len, before, rev);
  }
  free(copy);
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}

/* Counts records of kind tag; copies the 'W' record's key to w. */
static size_t tc_count(const uint8_t *d, size_t len, int tag, uint8_t w[32]) {
  size_t i = 0, n = 0;
  while (i < len) {
    uint32_t l = tc_get32(d + i + 1);
    if (d[i] == tag) n++;
    if (d[i] == 'W') memcpy(w, d + i + 5 + 12, 32);
    i += 5 + (size_t)l;
  }
  return n;
}

TEST("cas-1.2") { /* since the last export: the changed path, 'U' for the
                     rest, and the same keys as a full export */
  msb_sandbox *a = tc_open();
  uint8_t *d = NULL, *full = NULL, w1[32], w2[32];
  size_t len = 0, flen = 0;
  msb_result r;
  static const char s[] =
      "mkdir -p a/x b c && echo 1 > a/x/f && echo 2 > "
      "b/g && echo 3 > c/h";
  static const char t[] = "echo changed > a/x/f";
  REQUIRE(a);
  REQUIRE(msb_exec(a, s, sizeof s - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  REQUIRE(msb_state_export(a, MSB_STATE_SINCE_LAST, &d, &len) == 0);
  CHECK(tc_count(d, len, 'U', w1) == 0); /* nothing cached yet */
  CHECK(tc_count(d, len, 'D', w1) == 6); /* /tmp, /workspace, a, a/x, b, c */
  msb_free(a, d);
  REQUIRE(msb_exec(a, t, sizeof t - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  REQUIRE(msb_state_export(a, MSB_STATE_SINCE_LAST, &d, &len) == 0);
  CHECK(tc_count(d, len, 'D', w1) == 3); /* /workspace, a, a/x */
  CHECK(tc_count(d, len, 'U', w1) == 3); /* /tmp, b, c */
  REQUIRE(msb_state_export(a, 0, &full, &flen) == 0);
  CHECK(tc_count(full, flen, 'U', w2) == 0);
  CHECK(!memcmp(w1, w2, 32));
  msb_free(a, d);
  msb_free(a, full);
  msb_close(a);
}

TEST("cas-1.3") { /* a command file (a copy of /usr/bin/cat) keeps its mark:
                     it runs its command after the import */
  msb_sandbox *a = tc_open(), *b = tc_open();
  buf rec;
  uint8_t ha[32], hb[32];
  msb_result r;
  static const char s[] =
      "echo data > f && cp /usr/bin/cat mycat && mkdir bin && cp /usr/bin/wc "
      "bin/count";
  static const char q[] =
      "./mycat f; bin/count -c < f; [ -s mycat ] || echo empty";
  REQUIRE(a && b);
  REQUIRE(msb_exec(a, s, sizeof s - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  buf_init(&rec, &b->m);
  CHECK(tc_records(a, &rec) == 0);
  CHECK(msb_state_import(b, (const uint8_t *)rec.p, rec.len) == 0);
  msb_root_hash(a, ha);
  msb_root_hash(b, hb);
  CHECK(!memcmp(ha, hb, 32));
  CHECK(msb_exec(b, q, sizeof q - 1, NULL, &r) == 0);
  CHECK_STR((const char *)r.out, "data\n5\nempty\n");
  msb_result_finish(b, &r);
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}

TEST("cas-1.4") { /* hard links: 'H' entries name the first member; a
                     directory with a multi-name file below is never
                     reused, since a write through another name leaves
                     its node as it was (#16 item 10) */
  msb_sandbox *a = tc_open(), *b = tc_open();
  uint8_t *d = NULL, w[32];
  size_t len = 0;
  buf rec;
  msb_result r;
  static const char s[] =
      "mkdir -p x y z && echo 1 > x/f && ln x/f y/g && echo 3 > z/h";
  static const char t[] = "echo changed > x/f";
  static const char q[] = "stat -c %h x/f y/g; cat y/g";
  REQUIRE(a && b);
  REQUIRE(msb_exec(a, s, sizeof s - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  REQUIRE(msb_state_export(a, MSB_STATE_SINCE_LAST, &d, &len) == 0);
  msb_free(a, d);
  REQUIRE(msb_exec(a, t, sizeof t - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  REQUIRE(msb_state_export(a, MSB_STATE_SINCE_LAST, &d, &len) == 0);
  /* /workspace, x and y listed again (y's node did not change: its
   * listing is rebuilt anyway); only /tmp and z reused */
  CHECK(tc_count(d, len, 'U', w) == 2);
  CHECK(tc_count(d, len, 'D', w) == 3);
  msb_free(a, d);
  buf_init(&rec, &b->m);
  CHECK(tc_records(a, &rec) == 0);
  CHECK(msb_state_import(b, (const uint8_t *)rec.p, rec.len) == 0);
  CHECK(msb_exec(b, q, sizeof q - 1, NULL, &r) == 0);
  CHECK_STR((const char *)r.out, "2\n2\nchanged\n");
  msb_result_finish(b, &r);
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}

/* rec's records with every piece whose bytes are from replaced by to (the
 * keys kept: a trusted import takes them as given), 'K' first. */
static void tc_swap(const buf *rec, const char *from, const char *to,
                    buf *out) {
  size_t i = 0, fl = strlen(from);
  const uint8_t *d = (const uint8_t *)rec->p;
  tc_rec(out, 'K', NULL, 0, NULL, 0);
  while (i < rec->len) {
    uint32_t l = tc_get32(d + i + 1);
    const uint8_t *p = d + i + 5;
    if (d[i] == 'P' && l == 32 + fl && !memcmp(p + 32, from, fl))
      tc_rec(out, 'P', p, 32, to, strlen(to));
    else
      tc_rec(out, d[i], p, l, NULL, 0);
    i += 5 + (size_t)l;
  }
}

TEST("cas-2.2") { /* hostile command names: rejected by name, nothing
                     changed */
  static const struct {
    const char *name, *why;
  } cases[] = {
      {"nosuch", "member 'workspace/mycat' is marked as command 'nosuch'"},
      {"c\nat", "invalid command name in piece "},
      {"", "invalid command name in piece "},
      {"../../bin/cat", "invalid command name in piece "},
  };
  msb_sandbox *a = tc_open(), *b = tc_open();
  buf rec, bad;
  uint8_t before[32], after[32];
  msb_result r;
  size_t i;
  static const char s[] = "cp /usr/bin/cat mycat";
  REQUIRE(a && b);
  REQUIRE(msb_exec(a, s, sizeof s - 1, NULL, &r) == 0);
  msb_result_finish(a, &r);
  buf_init(&rec, &a->m);
  REQUIRE(tc_records(a, &rec) == 0);
  msb_write(b, "/workspace/keep", "k", 1, MSB_WRITE_ANY, NULL, 0, 0);
  msb_root_hash(b, before);
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    buf_init(&bad, &a->m);
    tc_swap(&rec, "cat", cases[i].name, &bad);
    CHECK(msb_state_import(b, (const uint8_t *)bad.p, bad.len) == MSB_ECORRUPT);
    CHECK(strstr(msb_errmsg(b), cases[i].why) != NULL);
    msb_root_hash(b, after);
    CHECK(!memcmp(before, after, 32));
    buf_finish(&bad);
  }
  buf_init(&bad, &a->m);
  tc_swap(&rec, "cat", "cat", &bad); /* the same, trusted: accepted */
  CHECK(msb_state_import(b, (const uint8_t *)bad.p, bad.len) == 0);
  buf_finish(&bad);
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}

/* rec's records with the root hash record's first byte flipped; 'K'
 * first when trusted. */
static void tc_bad_root(const buf *rec, int trusted, buf *out) {
  size_t i = 0;
  const uint8_t *d = (const uint8_t *)rec->p;
  if (trusted) tc_rec(out, 'K', NULL, 0, NULL, 0);
  while (i < rec->len) {
    uint32_t l = tc_get32(d + i + 1);
    uint8_t r[32];
    if (d[i] == 'R') {
      memcpy(r, d + i + 5, 32);
      r[0] ^= 1;
      tc_rec(out, 'R', r, 32, NULL, 0);
    } else {
      tc_rec(out, d[i], d + i + 5, l, NULL, 0);
    }
    i += 5 + (size_t)l;
  }
}

TEST("cas-2.3") { /* a root hash the tree does not have: rejected, checked
                     from the listings when the pieces were hashed and by
                     restore when the host vouched for them */
  msb_sandbox *a = tc_open(), *b = tc_open();
  buf rec, bad;
  int trusted;
  REQUIRE(a && b);
  tc_fill(a);
  buf_init(&rec, &a->m);
  REQUIRE(tc_records(a, &rec) == 0);
  for (trusted = 0; trusted < 2; trusted++) {
    buf_init(&bad, &a->m);
    tc_bad_root(&rec, trusted, &bad);
    CHECK(msb_state_import(b, (const uint8_t *)bad.p, bad.len) == MSB_ECORRUPT);
    CHECK(strstr(msb_errmsg(b), "root hash mismatch") != NULL);
    CHECK(msb_revision(b) == 0);
    buf_finish(&bad);
  }
  buf_finish(&rec);
  msb_close(a);
  msb_close(b);
}
