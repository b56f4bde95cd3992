/* test_snap.c - snapshots, restore and checkpoints through the public API.
 *
 * Round trips must be byte-identical; every hostile archive must be
 * rejected with its reason and leave the root hash and revision untouched;
 * out-of-memory at every allocation must end cleanly. The GNU tar
 * interoperability cases run the machine's tar through system() when it is
 * installed (tests only; the library never touches the host). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/archive.h"
#include "../../src/sandbox.h"
#include "test.h"

void tarc_hdr(buf *b, const char *name, int type, const char *size_field,
              const char *link, int bad_sum);
void tarc_data(buf *b, const void *d, size_t n);
void tarc_end(buf *b);

static msb_sandbox *ts_open(const msb_limits *lim) {
  msb_sandbox *sb = NULL;
  msb_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = lim;
  cfg.clock_ns = (int64_t)1796000000 * 1000000000;
  if (msb_open(&cfg, &sb)) return NULL;
  return sb;
}

static int ts_put(msb_sandbox *sb, const char *path, const char *s) {
  return msb_write(sb, path, s, strlen(s), MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
}

static int ts_run(msb_sandbox *sb, const char *script) {
  msb_result r;
  int rc = msb_exec(sb, script, strlen(script), NULL, &r);
  if (rc) return rc;
  rc = r.exit_code;
  msb_result_finish(sb, &r);
  return rc;
}

static void ts_fill(msb_sandbox *sb) {
  ts_put(sb, "a.txt", "hello\n");
  ts_put(sb, "src/main.c", "int main(void) { return 0; }\n");
  ts_put(sb, "src/deep/x/y/z.txt", "deep\n");
  msb_mkdir(sb, "empty", 0700, 0);
  msb_symlink(sb, "src/main.c", "link");
  msb_chmod(sb, "a.txt", 0755);
  ts_put(sb, "/tmp/scratch", "tmp data\n");
  msb_set_clock(sb, (int64_t)1796000000 * 1000000000 + 123456789);
  ts_put(sb, "later", "");
}

/* Snapshot bytes of sb (caller frees). */
static uint8_t *ts_snap(msb_sandbox *sb, size_t *len) {
  uint8_t *d = NULL;
  if (msb_snapshot(sb, -1, &d, len)) return NULL;
  return d;
}

TEST("snap-1.1") { /* snapshot -> restore -> snapshot: identical bytes */
  msb_sandbox *a = ts_open(NULL), *b = ts_open(NULL);
  uint8_t *s1, *s2, ha[32], hb[32];
  size_t n1, n2;
  msb_stat st;
  char *t = NULL;
  REQUIRE(a && b);
  ts_fill(a);
  CHECK(ts_run(a, "cd src/deep") == 0);
  s1 = ts_snap(a, &n1);
  REQUIRE(s1);
  /* gzip header: no name, mtime 0, OS Unix */
  CHECK(s1[3] == 0 && s1[4] == 0 && s1[5] == 0 && s1[9] == 3);
  CHECK(msb_restore(b, s1, n1) == 0);
  s2 = ts_snap(b, &n2);
  REQUIRE(s2);
  CHECK(n1 == n2 && !memcmp(s1, s2, n1));
  CHECK(msb_root_hash(a, ha) == 0 && msb_root_hash(b, hb) == 0);
  CHECK(!memcmp(ha, hb, 32));
  CHECK(msb_revision(a) == msb_revision(b));
  CHECK(msb_stat_path(b, "a.txt", 0, &st) == 0 && st.mode == 0755);
  CHECK(msb_stat_path(b, "empty", 0, &st) == 0 && st.mode == 0700);
  CHECK(msb_stat_path(b, "later", 0, &st) == 0 &&
        st.mtime_ns == (int64_t)1796000000 * 1000000000 + 123456789);
  CHECK(msb_readlink(b, "link", &t) == 0 && t && !strcmp(t, "src/main.c"));
  msb_free(b, t);
  CHECK(msb_stat_path(b, "/tmp/scratch", 0, &st) == 0);
  {
    msb_result r;
    CHECK(msb_exec(b, "pwd", 3, NULL, &r) == 0);
    CHECK(r.out_len == 20 && !memcmp(r.out, "/workspace/src/deep\n", 20));
    msb_result_finish(b, &r);
  }
  msb_free(a, s1);
  msb_free(b, s2);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("snap-1.2") { /* deterministic: equal states give equal bytes */
  msb_sandbox *a = ts_open(NULL), *b = ts_open(NULL);
  uint8_t *s1, *s2, *s3;
  size_t n1, n2, n3;
  REQUIRE(a && b);
  ts_fill(a);
  ts_fill(b);
  s1 = ts_snap(a, &n1);
  s2 = ts_snap(b, &n2);
  s3 = ts_snap(a, &n3);
  REQUIRE(s1 && s2 && s3);
  CHECK(n1 == n2 && !memcmp(s1, s2, n1));
  CHECK(n1 == n3 && !memcmp(s1, s3, n1));
  msb_free(a, s3);
  CHECK(msb_snapshot(a, 12, &s3, &n3) == MSB_EINVAL);
  CHECK(s3 == NULL);
  msb_free(a, s1);
  msb_free(b, s2);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

/* Whether sb's snapshot at level equals the snapshot a fresh sandbox makes
 * after restoring it: the bytes must not depend on which file pieces an
 * earlier snapshot left cached. */
static int ts_same_as_fresh(msb_sandbox *sb, int level) {
  msb_sandbox *f = ts_open(NULL);
  uint8_t *s1 = NULL, *s2 = NULL;
  size_t n1 = 0, n2 = 0;
  int same = f && !msb_snapshot(sb, level, &s1, &n1) &&
             !msb_restore(f, s1, n1) && !msb_snapshot(f, level, &s2, &n2) &&
             n1 == n2 && !memcmp(s1, s2, n1);
  msb_free(sb, s1);
  if (f) msb_free(f, s2);
  msb_close(f);
  return same;
}

TEST("snap-1.3") { /* cached file pieces never change the bytes */
  msb_sandbox *a = ts_open(NULL);
  uint8_t *s1, *s2;
  size_t n1, n2, i;
  uint32_t cp;
  char big[70000];
  REQUIRE(a);
  ts_fill(a);
  for (i = 0; i < sizeof big; i++) big[i] = (char)('a' + (i * 31 + i / 7) % 26);
  msb_write(a, "big.txt", big, sizeof big, MSB_WRITE_ANY, NULL, 0, 0);
  s1 = ts_snap(a, &n1); /* cold: every piece made */
  s2 = ts_snap(a, &n2); /* warm: every piece reused */
  REQUIRE(s1 && s2);
  CHECK(n1 == n2 && !memcmp(s1, s2, n1));
  msb_free(a, s2);
  CHECK(ts_same_as_fresh(a, -1));
  /* a changed and a new file among cached ones; an in-place append */
  CHECK(ts_put(a, "src/main.c", "int main(void) { return 1; }\n") == 0);
  CHECK(ts_put(a, "src/new.c", "new\n") == 0);
  CHECK(ts_run(a, "echo more >> a.txt; echo tail >> big.txt") == 0);
  CHECK(ts_same_as_fresh(a, -1));
  /* another level replaces the pieces; back again, still the same */
  CHECK(ts_same_as_fresh(a, 6));
  CHECK(ts_same_as_fresh(a, 0));
  CHECK(ts_same_as_fresh(a, -1));
  /* a rollback brings back contents whose pieces are still cached */
  CHECK(msb_checkpoint(a, &cp) == 0);
  CHECK(ts_run(a, "rm big.txt; echo x > a.txt") == 0);
  CHECK(ts_same_as_fresh(a, -1));
  CHECK(msb_rollback(a, cp) == 0);
  CHECK(ts_same_as_fresh(a, -1));
  msb_free(a, s1);
  CHECK(api_close(a) == 0);
}

TEST("snap-1.4") { /* short of memory, pieces are not kept: same bytes */
  msb_limits lim;
  msb_sandbox *a, *b = ts_open(NULL);
  uint8_t *s1, *s2;
  size_t n1, n2;
  static char x[1200000];
  REQUIRE(msb_limits_init(&lim, MSB_PROFILE_NORMAL) == 0);
  lim.max_memory_bytes = 2 << 20;
  a = ts_open(&lim);
  REQUIRE(a && b);
  ts_fill(a);
  ts_fill(b);
  memset(x, 'x', sizeof x);
  CHECK(msb_write(a, "x.txt", x, sizeof x, MSB_WRITE_ANY, NULL, 0, 0) == 0);
  CHECK(msb_write(b, "x.txt", x, sizeof x, MSB_WRITE_ANY, NULL, 0, 0) == 0);
  CHECK(a->m.used > lim.max_memory_bytes / 2);
  s1 = ts_snap(a, &n1);
  s2 = ts_snap(b, &n2);
  REQUIRE(s1 && s2);
  CHECK(n1 == n2 && !memcmp(s1, s2, n1));
  msb_free(a, s1);
  msb_free(b, s2);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

/* Builds one hostile archive by id into b (plain tar unless noted). */
static void ts_hostile(const char *id, buf *b) {
  mem *m = b->m;
  if (!strcmp(id, "absolute")) {
    tarc_hdr(b, "/etc/passwd", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "dotdot")) {
    tarc_hdr(b, "a/../../x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "symlink")) {
    tarc_hdr(b, "l", '2', "00000000000", "/tmp", 0);
    tarc_hdr(b, "l/x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "symlink-deep")) {
    tarc_hdr(b, "d/", '5', "00000000000", NULL, 0);
    tarc_hdr(b, "d/l", '2', "00000000000", "..", 0);
    tarc_hdr(b, "d/l/e/f", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "duplicate")) {
    tarc_hdr(b, "a", '0', "00000000000", NULL, 0);
    tarc_hdr(b, "a", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "duplicate-dir")) {
    tarc_hdr(b, "d/", '5', "00000000000", NULL, 0);
    tarc_hdr(b, "d/", '5', "00000000000", NULL, 0);
  } else if (!strcmp(id, "conflict")) {
    tarc_hdr(b, "a", '0', "00000000000", NULL, 0);
    tarc_hdr(b, "a/b", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "device")) {
    tarc_hdr(b, "dev", '4', "00000000000", NULL, 0);
  } else if (!strcmp(id, "fifo")) {
    tarc_hdr(b, "p", '6', "00000000000", NULL, 0);
  } else if (!strcmp(id, "checksum")) {
    tarc_hdr(b, "a", '0', "00000000000", NULL, 1);
  } else if (!strcmp(id, "octal")) {
    tarc_hdr(b, "a", '0', "0000000008 ", NULL, 0);
  } else if (!strcmp(id, "negative")) {
    tarc_hdr(b, "a", '0', "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe",
             NULL, 0);
  } else if (!strcmp(id, "truncated")) {
    tarc_hdr(b, "a", '0', "00000010000", NULL, 0);
    buf_put(b, "abc", 3);
    return;
  } else if (!strcmp(id, "trailing")) {
    tarc_hdr(b, "a", '0', "00000000000", NULL, 0);
    tarc_end(b);
    buf_put(b, "garbage", 7);
    return;
  } else if (!strcmp(id, "hardlink")) {
    tarc_hdr(b, "h", '1', "00000000000", "missing", 0);
  } else if (!strcmp(id, "hardlink-later")) { /* the target comes after */
    tarc_hdr(b, "h", '1', "00000000000", "f", 0);
    tarc_hdr(b, "f", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "hardlink-dir")) {
    tarc_hdr(b, "d/", '5', "00000000000", NULL, 0);
    tarc_hdr(b, "h", '1', "00000000000", "d", 0);
  } else if (!strcmp(id, "hardlink-symlink")) {
    tarc_hdr(b, "l", '2', "00000000000", "/workspace", 0);
    tarc_hdr(b, "h", '1', "00000000000", "l", 0);
  } else if (!strcmp(id, "longname-dotdot")) {
    tarc_hdr(b, "././@LongLink", 'L', "00000000012", NULL, 0);
    tarc_data(b, "../escape", 10);
    tarc_hdr(b, "x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "pax-absolute")) {
    tarc_hdr(b, "PaxHeaders/x", 'x', "00000000021", NULL, 0);
    tarc_data(b, "17 path=/etc/pwn\n", 17);
    tarc_hdr(b, "x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "bzip2")) {
    buf_puts(b, "BZh91AY&SY");
    return;
  } else if (!strcmp(id, "gzip-trailing") || !strcmp(id, "gzip-crc") ||
             !strcmp(id, "gzip-truncated")) {
    buf t;
    buf_init(&t, m);
    tarc_hdr(&t, "a", '0', "00000000000", NULL, 0);
    tarc_end(&t);
    arc_gzip(m, (const uint8_t *)t.p, t.len, 6, NULL, 0, b);
    buf_finish(&t);
    if (!strcmp(id, "gzip-trailing")) buf_puts(b, "junk");
    if (!strcmp(id, "gzip-crc")) b->p[b->len - 6] ^= 0x40;
    if (!strcmp(id, "gzip-truncated")) buf_truncate(b, b->len - 10);
    return;
  } else if (!strcmp(id, "bomb")) {
    size_t n = (size_t)8 << 20;
    uint8_t *z = mem_zalloc(m, n);
    buf t;
    buf_init(&t, m);
    tarc_hdr(&t, "zeros", '0', "00040000000", NULL, 0);
    buf_put(&t, z, n);
    tarc_end(&t);
    arc_gzip(m, (const uint8_t *)t.p, t.len, 9, NULL, 0, b);
    buf_finish(&t);
    mem_free(m, z);
    return;
  } else if (!strcmp(id, "outside")) {
    buf rec;
    buf_init(&rec, m);
    arc_pax_record(&rec, "MEMSANDBOX.format", "1", 1);
    arc_tar_put_global(b, rec.p, rec.len);
    buf_finish(&rec);
    tarc_hdr(b, "etc/x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "format")) {
    buf rec;
    buf_init(&rec, m);
    arc_pax_record(&rec, "MEMSANDBOX.format", "99", 2);
    arc_tar_put_global(b, rec.p, rec.len);
    buf_finish(&rec);
    tarc_hdr(b, "workspace/x", '0', "00000000000", NULL, 0);
  } else if (!strncmp(id, "session-", 8)) { /* #21 item 15 */
    buf rec;
    const char *rev = !strcmp(id, "session-negative") ? "-5"
                      : !strcmp(id, "session-huge")   ? "9007199254740992"
                                                      : "3";
    buf_init(&rec, m);
    arc_pax_record(&rec, "MEMSANDBOX.format", "2", 1);
    arc_pax_record(&rec, "MEMSANDBOX.revision", rev, strlen(rev));
    if (strcmp(id, "session-nocwd"))
      arc_pax_record(&rec, "MEMSANDBOX.cwd", "/workspace", 10);
    arc_tar_put_global(b, rec.p, rec.len);
    buf_finish(&rec);
    tarc_hdr(b, "workspace/x", '0', "00000000000", NULL, 0);
  } else if (!strcmp(id, "roothash")) {
    buf rec;
    buf_init(&rec, m);
    arc_pax_record(&rec, "MEMSANDBOX.format", "1", 1);
    arc_pax_record(&rec, "MEMSANDBOX.root_hash", "00", 2);
    arc_tar_put_global(b, rec.p, rec.len);
    buf_finish(&rec);
    tarc_hdr(b, "workspace/x", '0', "00000000000", NULL, 0);
  }
  tarc_end(b);
}

TEST("snap-2.1") { /* hostile archives: rejected, nothing changes */
  static const struct {
    const char *id, *want;
  } cases[] = {
      {"absolute",
       "archive rejected: member '/etc/passwd' has an absolute "
       "path"},
      {"dotdot", "archive rejected: member 'a/../../x' contains '..'"},
      {"symlink",
       "archive rejected: member 'l/x' is placed under a "
       "symbolic link"},
      {"symlink-deep",
       "archive rejected: member 'd/l/e/f' is placed under "
       "a symbolic link"},
      {"duplicate", "archive rejected: duplicate member 'a'"},
      {"duplicate-dir",
       "archive rejected: duplicate member "
       "'/workspace/d'"},
      {"conflict",
       "archive rejected: member 'a/b' conflicts with an "
       "earlier non-directory member"},
      {"device", "archive rejected: device nodes are not supported"},
      {"fifo", "archive rejected: FIFOs are not supported"},
      {"checksum", "archive rejected: header checksum mismatch at byte 0"},
      {"octal", "archive rejected: invalid octal number in the size field"},
      {"negative", "archive rejected: negative member size"},
      {"truncated",
       "archive rejected: truncated archive: member data runs "
       "past the end"},
      {"trailing",
       "archive rejected: trailing garbage after the end of "
       "the archive"},
      {"hardlink",
       "archive rejected: hard link 'h' to 'missing': no "
       "earlier regular file"},
      {"hardlink-later",
       "archive rejected: hard link 'h' to 'f': no earlier regular file"},
      {"hardlink-dir",
       "archive rejected: hard link 'h' to 'd': no earlier regular file"},
      {"hardlink-symlink",
       "archive rejected: hard link 'h' to 'l': no earlier regular file"},
      {"longname-dotdot",
       "archive rejected: member '../escape' contains "
       "'..'"},
      {"pax-absolute",
       "archive rejected: member '/etc/pwn' has an "
       "absolute path"},
      {"bzip2", "archive rejected: bzip2 compression is not supported"},
      {"gzip-trailing",
       "archive rejected: trailing garbage after the gzip "
       "stream"},
      {"gzip-crc",
       "archive rejected: gzip: invalid compressed data--crc "
       "error"},
      {"gzip-truncated", "archive rejected: gzip: unexpected end of file"},
      {"bomb",
       "archive rejected: gzip: compression ratio exceeds the "
       "limit"},
      {"outside",
       "archive rejected: member 'etc/x' is outside workspace/ "
       "and tmp/"},
      {"format",
       "archive rejected: unsupported snapshot format version "
       "'99'"},
      {"roothash",
       "archive rejected: root hash mismatch: the snapshot "
       "records 00"},
      {"session-nocwd", "archive rejected: the snapshot has no cwd record"},
      {"session-negative", "archive rejected: invalid revision record"},
      {"session-huge", "archive rejected: invalid revision record"},
  };
  msb_sandbox *sb = ts_open(NULL);
  size_t i;
  uint8_t h0[32], h1[32];
  uint64_t rev;
  REQUIRE(sb);
  ts_fill(sb);
  rev = msb_revision(sb);
  msb_root_hash(sb, h0);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    buf b;
    int rc;
    msb_stat st;
    buf_init(&b, &sb->m);
    ts_hostile(cases[i].id, &b);
    REQUIRE(!b.err);
    rc = msb_restore(sb, (const uint8_t *)b.p, b.len);
    if (rc != MSB_ECORRUPT || strcmp(msb_errmsg(sb), cases[i].want)) {
      fprintf(stderr, "    case %s: rc %d [%s]\n", cases[i].id, rc,
              msb_errmsg(sb));
      CHECK(0);
    }
    buf_finish(&b);
    CHECK(msb_revision(sb) == rev);
    CHECK(msb_root_hash(sb, h1) == 0 && !memcmp(h0, h1, 32));
    CHECK(msb_stat_path(sb, "/tmp/scratch", 0, &st) == 0);
  }
  CHECK(api_close(sb) == 0);
}

TEST("snap-2.2") { /* limits: members, expanded size, quotas */
  msb_limits lim;
  msb_sandbox *sb;
  buf b, t;
  uint8_t *d;
  size_t i, n = (size_t)4 << 20;
  uint64_t x = 1;
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_nodes = 50;
  lim.max_total_bytes = 1 << 20;
  lim.max_file_bytes = 1 << 20;
  sb = ts_open(&lim);
  REQUIRE(sb);
  buf_init(&b, &sb->m);
  for (i = 0; i < 60; i++) /* root markers count but create nothing */
    tarc_hdr(&b, "./", '5', "00000000000", NULL, 0);
  tarc_end(&b);
  CHECK(msb_restore(sb, (const uint8_t *)b.p, b.len) == MSB_ECORRUPT);
  CHECK_STR(msb_errmsg(sb), "archive rejected: too many members");
  /* moderately compressible data past the expanded bound */
  buf_clear(&b);
  buf_init(&t, &sb->m);
  d = malloc(n);
  REQUIRE(d);
  for (i = 0; i < n; i++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    d[i] = (i % 16) ? 0 : (uint8_t)(x >> 56);
  }
  tarc_hdr(&t, "big", '0', "00020000000", NULL, 0);
  buf_put(&t, d, n);
  tarc_end(&t);
  free(d);
  sb->m.limit = 0; /* the test's own buffers are large */
  arc_gzip(&sb->m, (const uint8_t *)t.p, t.len, 6, NULL, 0, &b);
  /* refused at its header, before its data expands */
  CHECK(msb_restore(sb, (const uint8_t *)b.p, b.len) == MSB_EFBIG);
  CHECK_STR(msb_errmsg(sb), "restore failed: member 'big': File too large");
  /* a file over the quota inside a small archive */
  buf_clear(&t);
  buf_clear(&b);
  tarc_hdr(&t, "big", '0', "00004000010", NULL, 0);
  tarc_data(&t, "", 0);
  buf_reserve(&t, (1 << 20) + 1024);
  memset(t.p + t.len, 'a', (1 << 20) + 1024);
  t.len += (1 << 20) + 1024;
  tarc_end(&t);
  CHECK(msb_restore(sb, (const uint8_t *)t.p, t.len) == MSB_EFBIG);
  buf_finish(&b);
  buf_finish(&t);
  CHECK(api_close(sb) == 0);
}

/* A gzip bomb: head, then n zero bytes, then tail, compressed at level 9;
 * with bad_crc its trailer is broken, so only a restore that stops before
 * the end can report anything else. */
static void ts_bomb(mem *m, buf *head, size_t n, int bad_crc, buf *out) {
  buf t;
  buf_init(&t, m);
  buf_put(&t, head->p, head->len);
  buf_reserve(&t, n);
  memset(t.p + t.len, 0, n);
  t.len += n;
  arc_gzip(m, (const uint8_t *)t.p, t.len, 9, NULL, 0, out);
  if (bad_crc) out->p[out->len - 8] ^= 1;
  buf_finish(&t);
}

TEST("snap-2.4") { /* bombs stop at the header that breaks a bound, in
                      little memory, before the rest expands */
  static const struct {
    const char *id;
    int rc;
    const char *want;
  } cases[] = {
      {"member", MSB_EFBIG, "restore failed: member 'zeros': File too large"},
      {"quota", MSB_ENOSPC,
       "restore failed: member 'f1': No space left on device"},
      {"tail", MSB_ECORRUPT,
       "archive rejected: gzip: compression ratio exceeds the limit"},
      {"dir", MSB_ECORRUPT,
       "archive rejected: member 'd/' carries data but is not a regular "
       "file"},
      {"pax", MSB_ECORRUPT, "archive rejected: pax extended header too large"},
  };
  msb_limits lim;
  msb_sandbox *sb;
  size_t i;
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_total_bytes = 1 << 20;
  lim.max_file_bytes = 1 << 20;
  sb = ts_open(&lim);
  REQUIRE(sb);
  ts_put(sb, "keep.txt", "keep\n");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    buf h, z;
    size_t before;
    uint8_t h0[32], h1[32];
    buf_init(&h, &sb->m);
    buf_init(&z, &sb->m);
    if (!strcmp(cases[i].id, "member")) {
      tarc_hdr(&h, "zeros", '0', "40000000000", NULL, 0);
    } else if (!strcmp(cases[i].id, "quota")) {
      static uint8_t d[700000];
      tarc_hdr(&h, "f0", '0', "00002527140", NULL, 0);
      tarc_data(&h, d, sizeof d);
      tarc_hdr(&h, "f1", '0', "00002527140", NULL, 0);
    } else if (!strcmp(cases[i].id, "tail")) {
      tarc_hdr(&h, "a", '0', "00000000000", NULL, 0);
      tarc_end(&h);
    } else if (!strcmp(cases[i].id, "dir")) {
      tarc_hdr(&h, "d/", '5', "10000000000", NULL, 0);
    } else {
      tarc_hdr(&h, "PaxHeaders/p", 'x', "10000000000", NULL, 0);
    }
    ts_bomb(&sb->m, &h, (size_t)8 << 20, 1, &z);
    msb_root_hash(sb, h0);
    before = sb->m.used;
    sb->m.peak = before;
    CHECK(msb_restore(sb, (const uint8_t *)z.p, z.len) == cases[i].rc);
    CHECK_STR(msb_errmsg(sb), cases[i].want);
    /* the output held a member's worth, never the 8 MB */
    CHECK(sb->m.peak - before < (size_t)2 << 20);
    CHECK(msb_root_hash(sb, h1) == 0 && !memcmp(h0, h1, 32));
    buf_finish(&h);
    buf_finish(&z);
  }
  CHECK(api_close(sb) == 0);
}

TEST("snap-2.5") { /* a restore read as it expands: files past the window
                      and the watermark, gzip in several members */
  msb_sandbox *a = ts_open(NULL), *b = ts_open(NULL);
  static const size_t sizes[] = {0, 1, 32767, 32768, 65537, 200000, 1 << 20};
  uint8_t ha[32], hb[32], *s;
  size_t n, i, k, cut;
  buf body, tar, z;
  uint64_t x = 9;
  REQUIRE(a && b);
  buf_init(&body, &a->m);
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char nm[32];
    buf_clear(&body);
    for (k = 0; k < sizes[i]; k++) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      buf_putc(&body, k % 3 ? (int)(x >> 56) : 'a');
    }
    snprintf(nm, sizeof nm, "d%zu/f%zu", i % 3, i);
    REQUIRE(msb_write(a, nm, body.p ? body.p : "", body.len, MSB_WRITE_ANY,
                      NULL, 0, MSB_PARENTS) == 0);
  }
  REQUIRE(msb_snapshot(a, -1, &s, &n) == 0);
  CHECK(msb_restore(b, s, n) == 0);
  CHECK(msb_root_hash(a, ha) == 0 && msb_root_hash(b, hb) == 0);
  CHECK(!memcmp(ha, hb, 32));
  /* the same tar as three gzip members, cut at odd bytes */
  buf_init(&tar, &a->m);
  buf_init(&z, &a->m);
  {
    const char *why = NULL;
    REQUIRE(arc_gunzip(s, n, NULL, &tar, NULL, &why) == 0);
  }
  cut = tar.len / 3 + 7;
  arc_gzip(&a->m, (const uint8_t *)tar.p, cut, 1, NULL, 0, &z);
  arc_gzip(&a->m, (const uint8_t *)tar.p + cut, cut, 6, NULL, 0, &z);
  arc_gzip(&a->m, (const uint8_t *)tar.p + 2 * cut, tar.len - 2 * cut, 9, NULL,
           0, &z);
  CHECK(msb_restore(b, (const uint8_t *)z.p, z.len) == 0);
  CHECK(msb_root_hash(b, hb) == 0 && !memcmp(ha, hb, 32));
  msb_free(a, s);
  buf_finish(&tar);
  buf_finish(&z);
  buf_finish(&body);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("snap-2.3") { /* foreign archives: ./ prefixes, hard links, L names */
  msb_sandbox *sb = ts_open(NULL);
  buf b;
  char ln[200], *got;
  uint8_t *d;
  size_t n;
  msb_stat st;
  uint64_t rev;
  REQUIRE(sb);
  ts_put(sb, "old", "x");
  rev = msb_revision(sb);
  buf_init(&b, &sb->m);
  tarc_hdr(&b, "./", '5', "00000000000", NULL, 0);
  tarc_hdr(&b, "./sub/f", '0', "00000000003", NULL, 0);
  tarc_data(&b, "abc", 3);
  tarc_hdr(&b, "./sub/", '5', "00000000000", NULL, 0);
  tarc_hdr(&b, "./h", '1', "00000000000", "./sub/f", 0);
  memset(ln, 'q', 150);
  ln[150] = 0;
  tarc_hdr(&b, "././@LongLink", 'L', "00000000227", NULL, 0);
  tarc_data(&b, ln, 151);
  tarc_hdr(&b, "qqq", '2', "00000000000", "sub/f", 0);
  tarc_end(&b);
  CHECK(msb_restore(sb, (const uint8_t *)b.p, b.len) == 0);
  CHECK(msb_revision(sb) == rev + 1);
  CHECK(msb_stat_path(sb, "old", 0, &st) == MSB_ENOENT);
  CHECK(msb_read(sb, "h", &d, &n) == 0 && n == 3 && !memcmp(d, "abc", 3));
  msb_free(sb, d);
  CHECK(msb_stat_path(sb, "sub", 0, &st) == 0 && st.kind == MSB_DIR);
  CHECK(st.mtime_ns == (int64_t)015000000000 * 1000000000);
  CHECK(msb_readlink(sb, ln, &got) == 0 && !strcmp(got, "sub/f"));
  msb_free(sb, got);
  buf_finish(&b);
  CHECK(api_close(sb) == 0);
}

/* Whether ./x in sb prints "hi\n" from f: runs as cat (#21 item 10). */
static int ts_runs_cat(msb_sandbox *sb) {
  uint8_t *d;
  size_t n;
  int ok;
  if (ts_put(sb, "f", "hi\n") || ts_run(sb, "./x f > out")) return 0;
  if (msb_read(sb, "out", &d, &n)) return 0;
  ok = n == 3 && !memcmp(d, "hi\n", 3);
  msb_free(sb, d);
  return ok;
}

/* A one-member tar: x, empty or holding data, marked as command. */
static void ts_marked(buf *b, const char *command, const char *data) {
  arc_wentry w;
  memset(&w, 0, sizeof w);
  w.type = ARC_FILE;
  w.path = "x";
  w.mode = 0755;
  w.data = (const uint8_t *)data;
  w.size = strlen(data);
  w.uname = w.gname = "user";
  w.command = command;
  buf_clear(b);
  arc_tar_put(b, &w);
  buf_put(b, "", 0);
  while (b->len % 10240) buf_putc(b, 0);
}

TEST("snap-2.6") { /* command marks travel in snapshots, checked on restore
                      (#21 item 10) */
  msb_sandbox *sb = ts_open(NULL), *sb2 = ts_open(NULL);
  uint8_t *d;
  size_t n;
  buf b;
  REQUIRE(sb && sb2);
  REQUIRE(ts_run(sb, "cp /usr/bin/cat x") == 0);
  REQUIRE(ts_runs_cat(sb));
  REQUIRE((d = ts_snap(sb, &n)) != NULL);
  CHECK(msb_restore(sb2, d, n) == 0);
  CHECK(ts_runs_cat(sb2));
  msb_free(sb, d);
  buf_init(&b, &sb->m);
  ts_marked(&b, "cat", "");
  CHECK(msb_restore(sb2, (const uint8_t *)b.p, b.len) == 0);
  CHECK(ts_runs_cat(sb2));
  ts_marked(&b, "cat", "echo not empty\n"); /* a command file is empty */
  CHECK(msb_restore(sb2, (const uint8_t *)b.p, b.len) == MSB_ECORRUPT);
  CHECK_STR(msb_errmsg(sb2),
            "archive rejected: member 'x' is marked as "
            "command 'cat'");
  ts_marked(&b, "no-such-command", "");
  CHECK(msb_restore(sb2, (const uint8_t *)b.p, b.len) == MSB_ECORRUPT);
  ts_marked(&b, NULL, ""); /* unmarked: an empty script */
  CHECK(msb_restore(sb2, (const uint8_t *)b.p, b.len) == 0);
  CHECK(!ts_runs_cat(sb2));
  buf_finish(&b);
  CHECK(api_close(sb) == 0);
  CHECK(api_close(sb2) == 0);
}

TEST("snap-2.7") { /* session records at their bounds (#21 item 15) */
  msb_sandbox *sb = ts_open(NULL);
  msb_result r;
  buf b, rec;
  REQUIRE(sb);
  buf_init(&b, &sb->m);
  buf_init(&rec, &sb->m);
  arc_pax_record(&rec, "MEMSANDBOX.format", "2", 1);
  arc_pax_record(&rec, "MEMSANDBOX.revision", "9007199254740991", 16);
  arc_pax_record(&rec, "MEMSANDBOX.cwd", "/workspace", 10);
  arc_pax_record(&rec, "MEMSANDBOX.var.PWD", "-x nowhere", 10);
  arc_tar_put_global(&b, rec.p, rec.len);
  tarc_hdr(&b, "workspace/", '5', "00000000000", NULL, 0);
  tarc_end(&b);
  REQUIRE(!b.err && !rec.err);
  CHECK(msb_restore(sb, (const uint8_t *)b.p, b.len) == 0);
  CHECK(msb_revision(sb) == 9007199254740991ull);
  /* a PWD that is no path is replaced, as bash does at startup */
  REQUIRE(msb_exec(sb, "echo $PWD", 9, NULL, &r) == 0);
  CHECK(r.out_len == 11 && !memcmp(r.out, "/workspace\n", 11));
  msb_result_finish(sb, &r);
  buf_finish(&rec);
  buf_finish(&b);
  CHECK(api_close(sb) == 0);
}

TEST("snap-3.1") { /* checkpoints: O(1), include shell state */
  msb_sandbox *sb = ts_open(NULL);
  uint32_t id;
  size_t i, before;
  uint8_t h0[32], h1[32];
  msb_result r;
  REQUIRE(sb);
  for (i = 0; i < 2000; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "d%zu/f%zu", i % 20, i);
    ts_put(sb, nm, "content of a file\n");
  }
  CHECK(ts_run(sb, "cd d1; V=one; f() { echo fn; }") == 0);
  msb_root_hash(sb, h0);
  before = sb->m.used;
  CHECK(msb_checkpoint(sb, &id) == 0);
  /* a checkpoint costs a root reference plus a shell copy, not the tree */
  CHECK(sb->m.used - before < 64 * 1024);
  CHECK(ts_run(sb, "cd /; V=two; unset -f f; rm -r /workspace/d2") == 0);
  CHECK(msb_rollback(sb, id) == 0);
  msb_root_hash(sb, h1);
  CHECK(!memcmp(h0, h1, 32));
  CHECK(msb_exec(sb, "echo $V $PWD; f", 15, NULL, &r) == 0);
  CHECK(r.out && r.out_len == 21 &&
        !memcmp(r.out, "one /workspace/d1\nfn\n", 21));
  msb_result_finish(sb, &r);
  CHECK(msb_release(sb, id) == 0);
  CHECK(msb_rollback(sb, id) == MSB_EINVAL);
  CHECK(api_close(sb) == 0);
}

TEST("snap-4.1") { /* out of memory at every allocation: clean failures */
  msb_sandbox *src = ts_open(NULL);
  uint8_t *s, h0[32], h1[32];
  size_t n;
  long k;
  int ok_snap = 0, ok_rest = 0;
  REQUIRE(src);
  ts_fill(src);
  s = ts_snap(src, &n);
  REQUIRE(s);
  for (k = 0; k < 400 && !(ok_snap && ok_rest); k++) {
    msb_sandbox *sb = ts_open(NULL);
    uint8_t *d = NULL;
    size_t dn = 0;
    uint64_t rev;
    int rc;
    REQUIRE(sb);
    ts_put(sb, "keep", "me");
    rev = msb_revision(sb);
    msb_root_hash(sb, h0);
    sb->m.fail_after = k;
    rc = msb_restore(sb, s, n);
    sb->m.fail_after = -1;
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    if (rc) {
      CHECK(msb_revision(sb) == rev);
      CHECK(msb_root_hash(sb, h1) == 0 && !memcmp(h0, h1, 32));
    } else {
      ok_rest = 1;
    }
    sb->m.fail_after = k;
    rc = msb_snapshot(sb, 1, &d, &dn);
    sb->m.fail_after = -1;
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    if (!rc) ok_snap = 1;
    msb_free(sb, d);
    CHECK(api_close(sb) == 0);
  }
  CHECK(ok_snap && ok_rest);
  msb_free(src, s);
  CHECK(api_close(src) == 0);
}

static double ts_now(void) {
  struct timespec t;
  /* CPU time: the host is shared */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

TEST("snap-5.1") { /* 2,000 files / 8 MB: snapshot and restore timing */
  msb_sandbox *a = ts_open(NULL), *b = ts_open(NULL);
  char *body = malloc(4096);
  size_t i, n;
  uint8_t *s;
  double t0, t1, t2;
  REQUIRE(a && b && body);
  for (i = 0; i < 4096; i++) body[i] = "abcdefgh ijkl\nmnop"[(i * 7) % 18];
  for (i = 0; i < 2000; i++) {
    char nm[48];
    snprintf(nm, sizeof nm, "pkg%zu/mod%zu/file%zu.txt", i % 10, i % 97, i);
    snprintf(body, 40, "file %zu header line\n", i);
    body[strlen(body)] = '#';
    msb_write(a, nm, body, 4096, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
  }
  t0 = ts_now();
  CHECK(msb_snapshot(a, -1, &s, &n) == 0);
  t1 = ts_now();
  CHECK(msb_restore(b, s, n) == 0);
  t2 = ts_now();
  if (getenv("SNAP_BENCH"))
    fprintf(stderr, "    snapshot %.1f ms (%zu bytes), restore %.1f ms\n",
            t1 - t0, n, t2 - t1);
  msb_free(a, s);
  free(body);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

/* Writes bytes to a host file (tests only). */
static int ts_save(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  if (fwrite(d, 1, n, f) != n) n = 0;
  return fclose(f) || !n ? -1 : 0;
}

static uint8_t *ts_load(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  uint8_t *d;
  long sz;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  d = malloc((size_t)sz + 1);
  if (d && fread(d, 1, (size_t)sz, f) != (size_t)sz) {
    free(d);
    d = NULL;
  }
  fclose(f);
  *n = (size_t)sz;
  return d;
}

TEST("snap-6.1") { /* GNU tar reads our snapshots; we read GNU tar's */
  msb_sandbox *a, *b;
  uint8_t *s, *g, *d;
  size_t n, gn, dn;
  char dir[] = "/tmp/msb-snap-XXXXXX", cmd[512];
  msb_stat st;
  if (system("tar --version >/dev/null 2>&1") != 0) return;
  REQUIRE(mkdtemp(dir));
  a = ts_open(NULL);
  b = ts_open(NULL);
  REQUIRE(a && b);
  ts_fill(a);
  s = ts_snap(a, &n);
  REQUIRE(s);
  snprintf(cmd, sizeof cmd, "%s/s.tgz", dir);
  REQUIRE(ts_save(cmd, s, n) == 0);
  snprintf(cmd, sizeof cmd,
           "cd %s && mkdir x && tar xzf s.tgz -C x 2>err && ! test -s err "
           "&& cmp -s x/workspace/a.txt - <<'EOF'\nhello\nEOF\n"
           "test \"$(readlink x/workspace/link)\" = src/main.c && "
           "test \"$(stat -c %%a x/workspace/a.txt)\" = 755 && "
           "test \"$(tar tzf s.tgz | head -1)\" = tmp/",
           dir);
  CHECK(system(cmd) == 0);
  /* a GNU tar archive of a real tree loads with the same bytes */
  snprintf(cmd, sizeof cmd,
           "cd %s && mkdir -p p/src/a && printf 'x%%.0s' $(seq 300) > "
           "p/src/a/$(printf 'n%%.0s' $(seq 120)) && echo hi > p/f && "
           "ln -s f p/l && ln p/f p/hard && "
           "tar czf g.tgz -C p . && tar cf g.tar --format=posix -C p src f",
           dir);
  REQUIRE(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "%s/g.tgz", dir);
  g = ts_load(cmd, &gn);
  REQUIRE(g);
  CHECK(msb_restore(b, g, gn) == 0);
  CHECK(msb_read(b, "hard", &d, &dn) == 0 && dn == 3 && !memcmp(d, "hi\n", 3));
  msb_free(b, d);
  CHECK(msb_stat_path(b, "l", MSB_NOFOLLOW, &st) == 0 && st.kind == MSB_LINK);
  free(g);
  snprintf(cmd, sizeof cmd, "%s/g.tar", dir);
  g = ts_load(cmd, &gn);
  REQUIRE(g);
  CHECK(msb_restore(b, g, gn) == 0);
  CHECK(msb_stat_path(b, "src/a", 0, &st) == 0 && st.nodes == 2 &&
        st.bytes == 300);
  free(g);
  msb_free(a, s);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("snap-6.2") { /* the tar command's archives and GNU tar's, both ways */
  msb_sandbox *sb;
  uint8_t *d, *g;
  size_t n, gn;
  char dir[] = "/tmp/msb-tar-XXXXXX", cmd[640], path[96];
  msb_result r;
  static const char make[] =
      "mkdir -p p/s && echo one > p/a && ln -s a p/l && seq 500 > p/s/n && "
      "tar czf p.tgz p";
  if (system("tar --version >/dev/null 2>&1") != 0) return;
  REQUIRE(mkdtemp(dir));
  sb = ts_open(NULL);
  REQUIRE(sb);
  CHECK(ts_run(sb, make) == 0);
  REQUIRE(msb_read(sb, "p.tgz", &d, &n) == 0);
  snprintf(path, sizeof path, "%s/p.tgz", dir);
  REQUIRE(ts_save(path, d, n) == 0);
  msb_free(sb, d);
  snprintf(cmd, sizeof cmd,
           "cd %s && tar xzf p.tgz 2>err && ! test -s err && "
           "test \"$(cat p/a)\" = one && test \"$(readlink p/l)\" = a && "
           "seq 500 | cmp -s - p/s/n && "
           "tar tzvf p.tgz | grep -q '^-rw-r--r-- user/user         4 ' && "
           "mkdir q && echo two > q/b && tar czf q.tgz q",
           dir);
  CHECK(system(cmd) == 0);
  snprintf(path, sizeof path, "%s/q.tgz", dir);
  g = ts_load(path, &gn);
  REQUIRE(g);
  CHECK(msb_write(sb, "q.tgz", g, gn, MSB_WRITE_ANY, NULL, 0, 0) == 0);
  free(g);
  CHECK(msb_exec(sb, "tar xzf q.tgz && cat q/b", 24, NULL, &r) == 0);
  CHECK(r.exit_code == 0 && r.out_len == 4 && !memcmp(r.out, "two\n", 4));
  msb_result_finish(sb, &r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("snap-7.1") { /* the recorded root hash: checked in a plain tar; a
                      gzip snapshot's CRC-32 covers its bytes instead */
  msb_sandbox *sb = ts_open(NULL);
  arc_limits al;
  arc_gz_info gi;
  const char *why = NULL;
  uint8_t *d, h0[32], h1[32];
  size_t n;
  buf raw;
  char *rec;
  REQUIRE(sb);
  ts_fill(sb);
  REQUIRE(msb_root_hash(sb, h0) == 0);
  REQUIRE((d = ts_snap(sb, &n)) != NULL);
  memset(&al, 0, sizeof al);
  al.max_out = (uint64_t)1 << 30;
  al.max_ratio = 100000;
  al.max_in = al.max_out;
  buf_init(&raw, &sb->m);
  REQUIRE(arc_gunzip(d, n, &al, &raw, &gi, &why) == 0);
  /* the untouched tar restores; a changed record digit is a mismatch */
  CHECK(msb_restore(sb, (const uint8_t *)raw.p, raw.len) == 0);
  for (rec = raw.p; rec + 21 < raw.p + raw.len; rec++)
    if (!memcmp(rec, "MEMSANDBOX.root_hash=", 21)) break;
  REQUIRE(rec + 21 < raw.p + raw.len);
  rec[21] = rec[21] == '0' ? '1' : '0';
  CHECK(msb_restore(sb, (const uint8_t *)raw.p, raw.len) == MSB_ECORRUPT);
  CHECK(strstr(msb_errmsg(sb), "root hash mismatch") != NULL);
  /* the gzip snapshot restores and hashes on demand, as before */
  CHECK(msb_restore(sb, d, n) == 0);
  REQUIRE(msb_root_hash(sb, h1) == 0);
  CHECK(!memcmp(h0, h1, 32));
  buf_finish(&raw);
  msb_free(sb, d);
  CHECK(api_close(sb) == 0);
}

/* The output of script in sb ("" on failure; caller frees). */
static char *ts_out(msb_sandbox *sb, const char *script) {
  msb_result r;
  char *o;
  if (msb_exec(sb, script, strlen(script), NULL, &r)) return strdup("");
  o = malloc(r.out_len + 1);
  if (o) {
    memcpy(o, r.out, r.out_len);
    o[r.out_len] = 0;
  }
  msb_result_finish(sb, &r);
  return o;
}

/* Whether script's output in sb is want. */
static int ts_says(msb_sandbox *sb, const char *script, const char *want) {
  char *o = ts_out(sb, script);
  int ok = o && !strcmp(o, want);
  if (!ok) fprintf(stderr, "    %s: got [%s] want [%s]\n", script, o, want);
  free(o);
  return ok;
}

TEST("snap-8.1") { /* hard links: tar '1' members, rebuilt on restore,
                      kept by checkpoints and forks (#16 item 10) */
  msb_sandbox *a = ts_open(NULL), *b = ts_open(NULL), *f = NULL;
  uint8_t *s1, *s2, ha[32], hb[32];
  size_t n1, n2;
  uint32_t cp;
  char dir[] = "/tmp/msb-snap-XXXXXX", cmd[512];
  REQUIRE(a && b);
  CHECK(ts_run(a,
               "echo hi > a; ln a b; mkdir d; ln a d/c; echo x > /tmp/t;"
               " ln /tmp/t t2") == 0);
  s1 = ts_snap(a, &n1);
  REQUIRE(s1);
  CHECK(msb_restore(b, s1, n1) == 0);
  CHECK(ts_says(b, "stat -c %h a b d/c t2 /tmp/t", "3\n3\n3\n2\n2\n"));
  CHECK(ts_says(b, "echo more >> d/c; cat a; [ a -ef b ] && echo same",
                "hi\nmore\nsame\n"));
  CHECK(ts_says(b,
                "test \"$(stat -c %i a)\" = \"$(stat -c %i d/c)\" && "
                "echo eq",
                "eq\n"));
  /* the same state snapshots to the same bytes, and hashes the same */
  CHECK(ts_run(b, "printf 'hi\\n' > a") == 0);
  CHECK(msb_root_hash(a, ha) == 0 && msb_root_hash(b, hb) == 0);
  CHECK(!memcmp(ha, hb, 32));
  {
    msb_sandbox *c = ts_open(NULL);
    REQUIRE(c);
    CHECK(msb_restore(c, s1, n1) == 0);
    s2 = ts_snap(c, &n2);
    CHECK(s2 && n1 == n2 && !memcmp(s1, s2, n1)); /* round trip: same bytes */
    msb_free(c, s2);
    CHECK(api_close(c) == 0);
  }
  /* a checkpoint keeps the sharing; a rollback brings it back */
  CHECK(msb_checkpoint(a, &cp) == 0);
  CHECK(ts_run(a, "rm a; echo new > b") == 0);
  CHECK(ts_says(a, "stat -c %h b; cat d/c", "2\nnew\n"));
  CHECK(msb_rollback(a, cp) == 0);
  CHECK(ts_says(a, "stat -c %h a; cat a; echo z > b; cat d/c", "3\nhi\nz\n"));
  /* a fork's writes stay in the fork, and its names stay linked */
  CHECK(msb_fork(a, &f) == 0);
  REQUIRE(f);
  CHECK(ts_says(f, "echo forked > a; cat b d/c; stat -c %h b",
                "forked\nforked\n3\n"));
  CHECK(ts_says(a, "cat b", "z\n"));
  CHECK(api_close(f) == 0);
  /* GNU tar extracts our '1' members as links */
  if (system("tar --version >/dev/null 2>&1") == 0 && mkdtemp(dir)) {
    snprintf(cmd, sizeof cmd, "%s/s.tgz", dir);
    CHECK(ts_save(cmd, s1, n1) == 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir x && tar xzf s.tgz -C x && "
             "test \"$(stat -c %%h x/workspace/d/c)\" = 3 && "
             "tar tvzf s.tgz | grep -q '^hrw.*workspace/b link to "
             "workspace/a$' && rm -rf x && mkdir x && cd x && echo q > a && "
             "ln a b && tar czf ../g.tgz a b",
             dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/g.tgz", dir);
    s2 = ts_load(cmd, &n2);
    REQUIRE(s2);
    CHECK(msb_restore(b, s2, n2) == 0);
    CHECK(ts_says(b, "stat -c %h a b; cat b", "2\n2\nq\n"));
    free(s2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
  }
  msb_free(a, s1);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}
