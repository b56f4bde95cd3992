/* test_vfs.c - unit tests for the virtual filesystem (src/vfs.c).
 *
 * Each case builds its own filesystem on its own accounted allocator and
 * checks, at the end, that destroying it returns every byte. Failure cases
 * compare the root hash, totals and revision before and after to prove that
 * a failed mutation changed nothing. */
#include <stdint.h>
#include <string.h>

#include "../../src/sha256.h"
#include "../../src/vfs.h"
#include "test.h"

/* A fresh filesystem with generous limits. */
typedef struct tv {
  mem m;
  vfs *v;
} tv;

static void tv_open_lim(tv *t, const vfs_limits *lim) {
  mem_init(&t->m, 0);
  t->v = vfs_create(&t->m, lim, 1000);
}

static void tv_open(tv *t) { tv_open_lim(t, NULL); }

/* Destroys and reports whether every byte came back. */
static int tv_close(tv *t) {
  vfs_destroy(t->v);
  return t->m.used == 0 && t->m.blocks == 0;
}

static void tv_hex(const uint8_t *h, char *out) {
  static const char hx[] = "0123456789abcdef";
  int i;
  for (i = 0; i < 32; i++) {
    out[2 * i] = hx[h[i] >> 4];
    out[2 * i + 1] = hx[h[i] & 15];
  }
  out[64] = 0;
}

static const char *tv_hash(tv *t, const char *path, char *out) {
  uint8_t h[32];
  if (vfs_hash(t->v, path, 1, h)) return "ERR";
  tv_hex(h, out);
  return out;
}

static int tv_put(tv *t, const char *path, const char *s) {
  return vfs_write(t->v, path, s, strlen(s), 0, 0644, NULL);
}

/* Content of a file as a C string in out (or "ERR<code>"). */
static const char *tv_get(tv *t, const char *path, char *out, size_t cap) {
  const uint8_t *d;
  size_t n;
  int rc = vfs_read(t->v, path, &d, &n);
  if (rc) {
    snprintf(out, cap, "ERR%d", rc);
    return out;
  }
  if (n >= cap) n = cap - 1;
  memcpy(out, d, n);
  out[n] = 0;
  return out;
}

/* Observable state: root hash, totals, revision. */
typedef struct tv_state {
  uint8_t h[32];
  uint64_t bytes, nodes, rev;
} tv_state;

static void tv_snap(tv *t, tv_state *s) {
  memset(s, 0, sizeof *s);
  vfs_hash(t->v, "/", 0, s->h);
  s->bytes = vfs_total_bytes(t->v);
  s->nodes = vfs_total_nodes(t->v);
  s->rev = vfs_revision(t->v);
}

static int tv_same(tv *t, const tv_state *a) {
  tv_state b;
  tv_snap(t, &b);
  return !memcmp(a->h, b.h, 32) && a->bytes == b.bytes && a->nodes == b.nodes &&
         a->rev == b.rev;
}

/* Hash of a path recomputed from scratch through the public read API
 * (no cached digests), to catch a shared version changed in place. */
static void tv_deep_hash(tv *t, const char *path, uint8_t out[32]) {
  static const char pre[] = "mem-sandbox-directory-v1";
  struct vfs_stat st;
  vfs_dir d;
  const char *nm;
  size_t nl;
  sha256_ctx c;
  memset(out, 0, 32);
  if (vfs_stat(t->v, path, 0, &st)) return;
  if (st.kind == VFS_FILE) {
    const uint8_t *data;
    size_t n;
    if (!vfs_read(t->v, path, &data, &n)) sha256_digest(data, n, out);
    return;
  }
  if (st.kind == VFS_LINK) {
    buf b;
    buf_init(&b, &t->m);
    vfs_readlink(t->v, path, &b);
    sha256_digest(b.p, b.len, out);
    buf_finish(&b);
    return;
  }
  sha256_init(&c);
  sha256_update(&c, pre, sizeof pre);
  if (vfs_opendir(t->v, path, &d)) return;
  while (vfs_readdir(&d, &nm, &nl, &st)) {
    char sub[1024];
    uint8_t hd[5], h[32];
    snprintf(sub, sizeof sub, "%s/%s", strcmp(path, "/") ? path : "", nm);
    hd[0] = st.kind == VFS_DIR ? 'D' : st.kind == VFS_FILE ? 'F' : 'L';
    hd[1] = (uint8_t)(nl >> 24);
    hd[2] = (uint8_t)(nl >> 16);
    hd[3] = (uint8_t)(nl >> 8);
    hd[4] = (uint8_t)nl;
    tv_deep_hash(t, sub, h);
    sha256_update(&c, hd, 5);
    sha256_update(&c, nm, nl);
    sha256_update(&c, h, 32);
  }
  vfs_closedir(&d);
  sha256_final(&c, out);
}

/* Lists a directory as "a b c" (names separated by spaces). */
static const char *tv_ls(tv *t, const char *path, char *out, size_t cap) {
  vfs_dir d;
  const char *nm;
  size_t nl, o = 0;
  int rc = vfs_opendir(t->v, path, &d);
  out[0] = 0;
  if (rc) {
    snprintf(out, cap, "ERR%d", rc);
    return out;
  }
  while (vfs_readdir(&d, &nm, &nl, NULL)) {
    if (o && o + 1 < cap) out[o++] = ' ';
    if (o + nl + 1 < cap) {
      memcpy(out + o, nm, nl);
      o += nl;
    }
  }
  out[o] = 0;
  vfs_closedir(&d);
  return out;
}

TEST("vfs-1.1") { /* sha256 vectors */
  uint8_t h[32];
  char x[65];
  sha256_digest("", 0, h);
  tv_hex(h, x);
  CHECK_STR(x,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha256_digest("abc", 3, h);
  tv_hex(h, x);
  CHECK_STR(x,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha256_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
                h);
  tv_hex(h, x);
  CHECK_STR(x,
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST("vfs-1.2") { /* sha256 streaming equals one-shot at every split */
  uint8_t buf1[300], h1[32], h2[32];
  size_t i, k;
  for (i = 0; i < sizeof buf1; i++) buf1[i] = (uint8_t)(i * 7 + 3);
  for (k = 0; k <= 200; k += 13) {
    sha256_ctx c;
    size_t n = 64 + k;
    sha256_digest(buf1, n, h1);
    for (i = 0; i <= n; i += 17) {
      sha256_init(&c);
      sha256_update(&c, buf1, i);
      sha256_update(&c, buf1 + i, n - i);
      sha256_final(&c, h2);
      CHECK(!memcmp(h1, h2, 32));
    }
  }
}

TEST("vfs-2.1") { /* hash vectors of the reference product */
  tv t;
  char x[65];
  tv_open(&t);
  REQUIRE(t.v);
  CHECK_STR(tv_hash(&t, "/workspace", x),
            "f149ee920776190f28700ae94e3dd5d4a7c1e1608aab672d29d5806acb31258a");
  CHECK(tv_put(&t, "/workspace/a.txt", "hello\n") == 0);
  CHECK_STR(tv_hash(&t, "/workspace", x),
            "8fcb7f8771fedeaa3f857b402a14a37ec8c9cfc1a831bfcb3737b785f8162228");
  CHECK_STR(tv_hash(&t, "/workspace/a.txt", x),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  CHECK(tv_close(&t));
}

TEST("vfs-2.2") { /* insertion order never matters; content does */
  tv a, b;
  char x[65], y[65];
  tv_open(&a);
  tv_open(&b);
  CHECK(tv_put(&a, "/workspace/z", "1") == 0);
  CHECK(vfs_mkdir(a.v, "/workspace/d", 0755, 0) == 0);
  CHECK(tv_put(&a, "/workspace/d/q", "2") == 0);
  CHECK(tv_put(&a, "/workspace/a", "3") == 0);
  CHECK(tv_put(&b, "/workspace/a", "3") == 0);
  CHECK(vfs_mkdir(b.v, "/workspace/d", 0700, 0) == 0);
  CHECK(tv_put(&b, "/workspace/d/q", "2") == 0);
  CHECK(tv_put(&b, "/workspace/z", "1") == 0);
  CHECK(vfs_chmod(b.v, "/workspace/z", 0600) == 0);
  CHECK_STR(tv_hash(&a, "/workspace", x), tv_hash(&b, "/workspace", y));
  CHECK_STR(tv_hash(&a, "/", x), tv_hash(&b, "/", y));
  CHECK(tv_put(&b, "/workspace/d/q", "3") == 0);
  CHECK(strcmp(tv_hash(&a, "/workspace", x), tv_hash(&b, "/workspace", y)));
  CHECK(tv_close(&a));
  CHECK(tv_close(&b));
}

TEST("vfs-2.3") { /* directory hash construction, computed by hand */
  tv t;
  uint8_t want[32], fh[32], dh[32], got[32];
  sha256_ctx c;
  static const char pre[] = "mem-sandbox-directory-v1";
  static const uint8_t fhd[5] = {'F', 0, 0, 0, 1};
  static const uint8_t dhd[5] = {'D', 0, 0, 0, 2};
  static const uint8_t lhd[5] = {'L', 0, 0, 0, 1};
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/bb", 0755, 0) == 0);
  CHECK(tv_put(&t, "/workspace/a", "xy") == 0);
  CHECK(vfs_symlink(t.v, "a", "/workspace/c") == 0);
  sha256_digest("xy", 2, fh);
  sha256_init(&c);
  sha256_update(&c, pre, sizeof pre);
  sha256_final(&c, dh);
  sha256_init(&c);
  sha256_update(&c, pre, sizeof pre);
  sha256_update(&c, fhd, 5);
  sha256_update(&c, "a", 1);
  sha256_update(&c, fh, 32);
  sha256_update(&c, dhd, 5);
  sha256_update(&c, "bb", 2);
  sha256_update(&c, dh, 32);
  sha256_update(&c, lhd, 5);
  sha256_update(&c, "c", 1);
  sha256_digest("a", 1, fh);
  sha256_update(&c, fh, 32);
  sha256_final(&c, want);
  CHECK(vfs_hash(t.v, "/workspace", 1, got) == 0);
  CHECK(!memcmp(want, got, 32));
  /* a link hashes as its target bytes; following it gives the file's */
  CHECK(vfs_hash(t.v, "/workspace/c", 0, got) == 0);
  CHECK(!memcmp(fh, got, 32));
  CHECK(vfs_hash(t.v, "/workspace/c", 1, got) == 0);
  sha256_digest("xy", 2, fh);
  CHECK(!memcmp(fh, got, 32));
  CHECK(tv_close(&t));
}

TEST("vfs-3.1") { /* vfs_abspath: lexical normalisation */
  static const char *const cases[][3] = {
      {"/workspace", "a", "/workspace/a"},
      {"/workspace", "./a/./b/", "/workspace/a/b"},
      {"/workspace", "../..", "/"},
      {"/workspace", "../../../x", "/x"},
      {"/workspace", "//a//b", "/a/b"},
      {"/w/x", "..", "/w"},
      {"/", ".", "/"},
      {"/", "a/../../b", "/b"},
      {"/workspace/", "a/..", "/workspace"},
      {NULL, "x", "/x"},
  };
  size_t i;
  mem m;
  buf b;
  mem_init(&m, 0);
  buf_init(&b, &m);
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    buf_clear(&b);
    CHECK(vfs_abspath(cases[i][0], cases[i][1], &b) == 0);
    CHECK_STR(buf_str(&b), cases[i][2]);
  }
  CHECK(vfs_abspath("/", "", &b) == MSB_ENOENT);
  buf_finish(&b);
  CHECK(m.used == 0);
}

TEST("vfs-3.2") { /* resolution table: stat kinds and errors */
  static const struct {
    const char *path;
    int follow, rc, kind;
  } cases[] = {
      {"/", 1, 0, VFS_DIR},
      {"/workspace", 1, 0, VFS_DIR},
      {"/workspace/", 1, 0, VFS_DIR},
      {"//workspace//d/", 1, 0, VFS_DIR},
      {"/workspace/./d/.", 1, 0, VFS_DIR},
      {"/workspace/d/..", 1, 0, VFS_DIR},
      {"/../../workspace", 1, 0, VFS_DIR},
      {"/workspace/f", 1, 0, VFS_FILE},
      {"/workspace/f/", 1, MSB_ENOTDIR, 0},
      {"/workspace/f/x", 1, MSB_ENOTDIR, 0},
      {"/workspace/f/..", 1, MSB_ENOTDIR, 0},
      {"/workspace/nope", 1, MSB_ENOENT, 0},
      {"/workspace/nope/x", 1, MSB_ENOENT, 0},
      {"", 1, MSB_ENOENT, 0},
      {"relative", 1, MSB_EINVAL, 0},
      {"/workspace/lf", 1, 0, VFS_FILE},
      {"/workspace/lf", 0, 0, VFS_LINK},
      {"/workspace/ld", 1, 0, VFS_DIR},
      {"/workspace/ld/", 0, 0, VFS_DIR},
      {"/workspace/ld/g", 1, 0, VFS_FILE},
      {"/workspace/ld/../f", 1, 0, VFS_FILE}, /* physical: ld -> d */
      {"/workspace/labs/g", 1, 0, VFS_FILE},
      {"/workspace/lup", 1, 0, VFS_DIR},      /* ../../.. stops at / */
      {"/workspace/lup/workspace/f", 1, 0, VFS_FILE},
      {"/workspace/chain", 1, 0, VFS_FILE},
      {"/workspace/dang", 1, MSB_ENOENT, 0},
      {"/workspace/dang", 0, 0, VFS_LINK},
      {"/workspace/loop", 1, MSB_ELOOP, 0},
      {"/workspace/loop", 0, 0, VFS_LINK},
      {"/workspace/loop/x", 0, MSB_ELOOP, 0},
      {"/workspace/self", 1, MSB_ELOOP, 0},
      {"/workspace/d/rel", 1, 0, VFS_FILE},  /* relative to link's dir */
  };
  tv t;
  size_t i;
  struct vfs_stat st;
  tv_open(&t);
  REQUIRE(vfs_mkdir(t.v, "/workspace/d", 0755, 0) == 0);
  REQUIRE(tv_put(&t, "/workspace/f", "F") == 0);
  REQUIRE(tv_put(&t, "/workspace/d/g", "G") == 0);
  REQUIRE(vfs_symlink(t.v, "f", "/workspace/lf") == 0);
  REQUIRE(vfs_symlink(t.v, "d", "/workspace/ld") == 0);
  REQUIRE(vfs_symlink(t.v, "/workspace/d", "/workspace/labs") == 0);
  REQUIRE(vfs_symlink(t.v, "../../../../..", "/workspace/lup") == 0);
  REQUIRE(vfs_symlink(t.v, "lf", "/workspace/chain") == 0);
  REQUIRE(vfs_symlink(t.v, "missing", "/workspace/dang") == 0);
  REQUIRE(vfs_symlink(t.v, "loop2", "/workspace/loop") == 0);
  REQUIRE(vfs_symlink(t.v, "loop", "/workspace/loop2") == 0);
  REQUIRE(vfs_symlink(t.v, "self", "/workspace/self") == 0);
  REQUIRE(vfs_symlink(t.v, "g", "/workspace/d/rel") == 0);
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    int rc = vfs_stat(t.v, cases[i].path, cases[i].follow, &st);
    if (rc != cases[i].rc || (!rc && st.kind != cases[i].kind)) {
      fprintf(stderr, "    case %s follow=%d: rc %d kind %d\n", cases[i].path,
              cases[i].follow, rc, rc ? 0 : st.kind);
      CHECK(0);
    }
  }
  CHECK(tv_close(&t));
}

TEST("vfs-3.3") { /* realpath modes */
  tv t;
  buf b;
  tv_open(&t);
  buf_init(&b, &t.m);
  REQUIRE(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  REQUIRE(vfs_symlink(t.v, "d/e", "/workspace/l") == 0);
  CHECK(vfs_realpath(t.v, "/workspace/l/..", 0, &b) == 0);
  CHECK_STR(buf_str(&b), "/workspace/d");
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/workspace/l/x", 0, &b) == MSB_ENOENT);
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/workspace/l/x", 1, &b) == 0);
  CHECK_STR(buf_str(&b), "/workspace/d/e/x");
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/workspace/l/x/y", 1, &b) == MSB_ENOENT);
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/workspace/l/x/y/../z", 2, &b) == 0);
  CHECK_STR(buf_str(&b), "/workspace/d/e/x/z");
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/", 0, &b) == 0);
  CHECK_STR(buf_str(&b), "/");
  buf_clear(&b);
  CHECK(vfs_realpath(t.v, "/workspace/..", 0, &b) == 0);
  CHECK_STR(buf_str(&b), "/");
  buf_finish(&b);
  CHECK(tv_close(&t));
}

TEST("vfs-4.1") { /* write, read, append, flags */
  tv t;
  char s[64];
  struct vfs_stat st;
  uint8_t h[32];
  tv_open(&t);
  CHECK(tv_put(&t, "/workspace/a", "one") == 0);
  CHECK_STR(tv_get(&t, "/workspace/a", s, sizeof s), "one");
  CHECK(vfs_write(t.v, "/workspace/a", "two", 3, VFS_APPEND, 0, NULL) == 0);
  CHECK_STR(tv_get(&t, "/workspace/a", s, sizeof s), "onetwo");
  CHECK(vfs_write(t.v, "/workspace/a", "x", 1, VFS_EXCL, 0644, NULL) ==
        MSB_EEXIST);
  CHECK(vfs_write(t.v, "/workspace/n/a", "x", 1, 0, 0644, NULL) == MSB_ENOENT);
  CHECK(vfs_write(t.v, "/workspace/n/m/a", "x", 1, VFS_PARENTS, 0600, NULL) ==
        0);
  CHECK(vfs_stat(t.v, "/workspace/n/m", 1, &st) == 0 && st.kind == VFS_DIR &&
        st.mode == 0755);
  CHECK(vfs_stat(t.v, "/workspace/n/m/a", 1, &st) == 0 && st.mode == 0600 &&
        st.size == 1);
  CHECK(vfs_write(t.v, "/workspace", "x", 1, 0, 0644, NULL) == MSB_EISDIR);
  CHECK(vfs_write(t.v, "/", "x", 1, 0, 0644, NULL) == MSB_EISDIR);
  CHECK(vfs_write(t.v, "/workspace/a/b", "x", 1, 0, 0644, NULL) == MSB_ENOTDIR);
  CHECK(vfs_write(t.v, "/workspace/new/", "x", 1, 0, 0644, NULL) == MSB_EISDIR);
  {
    const uint8_t *d;
    size_t n;
    CHECK(vfs_read(t.v, "/workspace", &d, &n) == MSB_EISDIR);
  }
  /* compare-and-swap */
  sha256_digest("onetwo", 6, h);
  CHECK(vfs_write(t.v, "/workspace/a", "3", 1, VFS_HASH_EQ, 0644, h) == 0);
  CHECK(vfs_write(t.v, "/workspace/a", "4", 1, VFS_HASH_EQ, 0644, h) ==
        MSB_ESTALE);
  CHECK(vfs_write(t.v, "/workspace/zz", "4", 1, VFS_HASH_EQ, 0644, h) ==
        MSB_ENOENT);
  CHECK_STR(tv_get(&t, "/workspace/a", s, sizeof s), "3");
  /* modes: replaced unless KEEP_MODE */
  CHECK(vfs_write(t.v, "/workspace/a", "5", 1, VFS_KEEP_MODE, 0700, NULL) == 0);
  CHECK(vfs_stat(t.v, "/workspace/a", 1, &st) == 0 && st.mode == 0644);
  CHECK(vfs_write(t.v, "/workspace/a", "5", 1, 0, 0700, NULL) == 0);
  CHECK(vfs_stat(t.v, "/workspace/a", 1, &st) == 0 && st.mode == 0700);
  /* empty file */
  CHECK(vfs_write(t.v, "/workspace/e", NULL, 0, 0, 0644, NULL) == 0);
  CHECK_STR(tv_get(&t, "/workspace/e", s, sizeof s), "");
  CHECK(vfs_write(t.v, "/workspace/e", "", 0, VFS_APPEND, 0644, NULL) == 0);
  CHECK(tv_close(&t));
}

TEST("vfs-4.2") { /* writes through symlinks; EXCL does not follow */
  tv t;
  char s[64];
  tv_open(&t);
  CHECK(vfs_symlink(t.v, "target", "/workspace/l") == 0);
  CHECK(tv_put(&t, "/workspace/l", "via") == 0);
  CHECK_STR(tv_get(&t, "/workspace/target", s, sizeof s), "via");
  CHECK(vfs_write(t.v, "/workspace/l", "x", 1, VFS_APPEND, 0644, NULL) == 0);
  CHECK_STR(tv_get(&t, "/workspace/target", s, sizeof s), "viax");
  CHECK(vfs_write(t.v, "/workspace/l", "x", 1, VFS_EXCL, 0644, NULL) ==
        MSB_EEXIST);
  CHECK(vfs_symlink(t.v, "/workspace", "/workspace/w") == 0);
  CHECK(tv_put(&t, "/workspace/w/w/w/z", "deep") == 0);
  CHECK_STR(tv_get(&t, "/workspace/z", s, sizeof s), "deep");
  CHECK(tv_close(&t));
}

TEST("vfs-4.3") { /* mkdir */
  tv t;
  tv_state s0;
  struct vfs_stat st;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/a", 0700, 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/a", 1, &st) == 0 && st.mode == 0700 &&
        st.nlink == 2);
  tv_snap(&t, &s0);
  CHECK(vfs_mkdir(t.v, "/workspace/a", 0755, 0) == MSB_EEXIST);
  CHECK(vfs_mkdir(t.v, "/workspace/a", 0755, VFS_MK_EXIST_OK) == 0);
  CHECK(vfs_mkdir(t.v, "/", 0755, VFS_MK_EXIST_OK) == 0);
  CHECK(vfs_mkdir(t.v, "/", 0755, 0) == MSB_EEXIST);
  CHECK(tv_same(&t, &s0)); /* no-ops do not bump the revision */
  CHECK(vfs_mkdir(t.v, "/workspace/x/y", 0755, 0) == MSB_ENOENT);
  CHECK(tv_put(&t, "/workspace/f", "") == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/f", 0755, VFS_MK_EXIST_OK) == MSB_EEXIST);
  CHECK(vfs_mkdir(t.v, "/workspace/f/y", 0755, VFS_MK_PARENTS) == MSB_ENOTDIR);
  tv_snap(&t, &s0);
  CHECK(vfs_mkdir(t.v, "/workspace/p/q/r", 0700, VFS_MK_PARENTS) == 0);
  CHECK(vfs_revision(t.v) == s0.rev + 1);
  CHECK(vfs_total_nodes(t.v) == s0.nodes + 3);
  CHECK(vfs_stat(t.v, "/workspace/p", 1, &st) == 0 && st.nlink == 3 &&
        st.nodes == 3 && st.mode == 0755);
  CHECK(vfs_stat(t.v, "/workspace/p/q/r", 1, &st) == 0 && st.mode == 0700);
  CHECK(vfs_stat(t.v, "/workspace", 1, &st) == 0 && st.nlink == 4);
  CHECK(vfs_symlink(t.v, "p", "/workspace/lp") == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/lp", 0755, VFS_MK_EXIST_OK) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/lp/q2", 0755, 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/p/q2", 1, &st) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/new/", 0755, 0) == 0);
  CHECK(tv_close(&t));
}

TEST("vfs-4.4") { /* remove */
  tv t;
  tv_state s0;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  CHECK(tv_put(&t, "/workspace/d/e/f", "x") == 0);
  CHECK(tv_put(&t, "/workspace/g", "x") == 0);
  CHECK(vfs_symlink(t.v, "d", "/workspace/l") == 0);
  tv_snap(&t, &s0);
  CHECK(vfs_remove(t.v, "/", VFS_RM_RECURSIVE) == MSB_EPERM);
  CHECK(vfs_remove(t.v, "/workspace", VFS_RM_RECURSIVE) == MSB_EPERM);
  CHECK(vfs_remove(t.v, "/tmp", VFS_RM_RECURSIVE) == MSB_EPERM);
  CHECK(vfs_remove(t.v, "/workspace/../tmp", VFS_RM_DIR) == MSB_EPERM);
  CHECK(vfs_remove(t.v, "/workspace/nope", 0) == MSB_ENOENT);
  CHECK(vfs_remove(t.v, "/workspace/d", 0) == MSB_EISDIR);
  CHECK(vfs_remove(t.v, "/workspace/d", VFS_RM_DIR) == MSB_ENOTEMPTY);
  CHECK(vfs_remove(t.v, "/workspace/d", VFS_RM_NODIR | VFS_RM_RECURSIVE) ==
        MSB_EISDIR);
  CHECK(vfs_remove(t.v, "/workspace/d/.", VFS_RM_RECURSIVE) == MSB_EINVAL);
  CHECK(vfs_remove(t.v, "/workspace/l/", VFS_RM_RECURSIVE) == MSB_ENOTDIR);
  CHECK(vfs_remove(t.v, "/workspace/g/", 0) == MSB_ENOTDIR);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_remove(t.v, "/workspace/l", 0) == 0); /* the link only */
  CHECK(vfs_stat(t.v, "/workspace/d/e/f", 1, NULL) == 0);
  CHECK(vfs_remove(t.v, "/workspace/d", VFS_RM_RECURSIVE) == 0);
  CHECK(vfs_remove(t.v, "/workspace/g", VFS_RM_NODIR) == 0);
  CHECK(vfs_revision(t.v) == s0.rev + 3);
  CHECK(vfs_total_nodes(t.v) == 3 && vfs_total_bytes(t.v) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/e", 0755, 0) == 0);
  CHECK(vfs_remove(t.v, "/workspace/e", VFS_RM_DIR) == 0);
  CHECK(tv_close(&t));
}

TEST("vfs-4.5") { /* rename */
  tv t;
  char s[128];
  tv_state s0;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  CHECK(tv_put(&t, "/workspace/d/e/f", "x") == 0);
  CHECK(tv_put(&t, "/workspace/g", "gg") == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/empty", 0755, 0) == 0);
  tv_snap(&t, &s0);
  CHECK(vfs_rename(t.v, "/workspace/g", "/workspace/g", 0) == 0);
  CHECK(vfs_rename(t.v, "/workspace/g", "/workspace/./g", 0) == 0);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_rename(t.v, "/workspace/d", "/workspace/d/e/x", 0) == MSB_EINVAL);
  CHECK(vfs_rename(t.v, "/workspace/d", "/workspace/d/x", 0) == MSB_EINVAL);
  CHECK(vfs_rename(t.v, "/workspace/empty", "/workspace/d", 0) ==
        MSB_ENOTEMPTY);
  CHECK(vfs_rename(t.v, "/workspace/g", "/workspace/d", 0) == MSB_EISDIR);
  CHECK(vfs_rename(t.v, "/workspace/d", "/workspace/g", 0) == MSB_ENOTDIR);
  CHECK(vfs_rename(t.v, "/workspace/nope", "/workspace/x", 0) == MSB_ENOENT);
  CHECK(vfs_rename(t.v, "/workspace/g", "/workspace/no/x", 0) == MSB_ENOENT);
  CHECK(vfs_rename(t.v, "/workspace", "/w2", 0) == MSB_EPERM);
  CHECK(vfs_rename(t.v, "/workspace/g", "/tmp", 0) == MSB_EPERM);
  CHECK(vfs_rename(t.v, "/workspace/g", "/", 0) == MSB_EPERM);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_rename(t.v, "/workspace/g", "/workspace/h", 0) == 0);
  CHECK_STR(tv_ls(&t, "/workspace", s, sizeof s), "d empty h");
  CHECK(vfs_rename(t.v, "/workspace/h", "/workspace/d/e/f", 0) == 0);
  CHECK_STR(tv_get(&t, "/workspace/d/e/f", s, sizeof s), "gg");
  CHECK(vfs_total_bytes(t.v) == 2);
  CHECK(vfs_rename(t.v, "/workspace/d/e", "/workspace/empty", 0) == 0);
  CHECK_STR(tv_ls(&t, "/workspace", s, sizeof s), "d empty");
  CHECK_STR(tv_ls(&t, "/workspace/empty", s, sizeof s), "f");
  CHECK_STR(tv_ls(&t, "/workspace/d", s, sizeof s), "");
  CHECK(vfs_rename(t.v, "/workspace/empty", "/workspace/a/b/c",
                   VFS_CP_PARENTS) == 0);
  CHECK_STR(tv_get(&t, "/workspace/a/b/c/f", s, sizeof s), "gg");
  CHECK(vfs_rename(t.v, "/workspace/a", "/workspace/d", 0) == 0);
  CHECK_STR(tv_ls(&t, "/workspace", s, sizeof s), "d");
  /* a child over its ancestor: ENOTEMPTY unless OVERWRITE */
  CHECK(vfs_rename(t.v, "/workspace/d/b", "/workspace/d", 0) == MSB_ENOTEMPTY);
  CHECK(vfs_rename(t.v, "/workspace/d/b", "/workspace/d", VFS_CP_OVERWRITE) ==
        0);
  CHECK_STR(tv_get(&t, "/workspace/d/c/f", s, sizeof s), "gg");
  CHECK(vfs_total_nodes(t.v) == 6 && vfs_total_bytes(t.v) == 2);
  CHECK(tv_close(&t));
}

TEST("vfs-4.6") { /* copy */
  tv t;
  char s[128], x[65], y[65];
  struct vfs_stat a, b;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  CHECK(tv_put(&t, "/workspace/d/e/f", "xyz") == 0);
  CHECK(vfs_symlink(t.v, "e/f", "/workspace/d/l") == 0);
  vfs_set_clock(t.v, 5000);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/c", 0) == 0);
  CHECK_STR(tv_hash(&t, "/workspace/d", x), tv_hash(&t, "/workspace/c", y));
  CHECK(vfs_total_bytes(t.v) == 6 && vfs_total_nodes(t.v) == 11);
  CHECK(vfs_stat(t.v, "/workspace/d/e/f", 1, &a) == 0);
  CHECK(vfs_stat(t.v, "/workspace/c/e/f", 1, &b) == 0);
  CHECK(a.ino != b.ino && b.mtime_ns == 5000 && a.mtime_ns == 1000);
  CHECK(vfs_stat(t.v, "/workspace/c/l", 0, &b) == 0 && b.kind == VFS_LINK);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/k", VFS_CP_KEEP_META) == 0);
  CHECK(vfs_stat(t.v, "/workspace/k/e/f", 1, &b) == 0 && b.mtime_ns == 1000);
  /* writing to a copy leaves the source alone */
  CHECK(tv_put(&t, "/workspace/c/e/f", "changed") == 0);
  CHECK(tv_put(&t, "/workspace/k/e/f", "other") == 0);
  CHECK_STR(tv_get(&t, "/workspace/d/e/f", s, sizeof s), "xyz");
  CHECK_STR(tv_get(&t, "/workspace/c/e/f", s, sizeof s), "changed");
  CHECK_STR(tv_get(&t, "/workspace/k/e/f", s, sizeof s), "other");
  CHECK(vfs_total_bytes(t.v) == 3 + 7 + 5);
  /* errors */
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/c", 0) == MSB_EEXIST);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/d/e/z", 0) == MSB_EINVAL);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/d", VFS_CP_OVERWRITE) ==
        MSB_EINVAL);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/c/e/f", VFS_CP_OVERWRITE) ==
        MSB_ENOTDIR);
  CHECK(vfs_copy(t.v, "/workspace/d/e/f", "/workspace/c", VFS_CP_OVERWRITE) ==
        MSB_EISDIR);
  CHECK(vfs_copy(t.v, "/workspace/no", "/workspace/x", 0) == MSB_ENOENT);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/x/y", 0) == MSB_ENOENT);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace", VFS_CP_OVERWRITE) ==
        MSB_EPERM);
  /* overwrite, parents, follow and no-follow */
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/c", VFS_CP_OVERWRITE) == 0);
  CHECK_STR(tv_get(&t, "/workspace/c/e/f", s, sizeof s), "xyz");
  CHECK(vfs_copy(t.v, "/workspace/d/l", "/workspace/p/q/lf", VFS_CP_PARENTS) ==
        0);
  CHECK(vfs_stat(t.v, "/workspace/p/q/lf", 0, &b) == 0 && b.kind == VFS_FILE);
  CHECK(vfs_copy(t.v, "/workspace/d/l", "/workspace/p/q/ll", VFS_CP_NOFOLLOW) ==
        0);
  CHECK(vfs_stat(t.v, "/workspace/p/q/ll", 0, &b) == 0 && b.kind == VFS_LINK);
  /* copying onto a link to a file writes through it */
  CHECK(tv_put(&t, "/workspace/t", "T") == 0);
  CHECK(vfs_symlink(t.v, "t", "/workspace/lt") == 0);
  CHECK(vfs_copy(t.v, "/workspace/d/e/f", "/workspace/lt", VFS_CP_OVERWRITE) ==
        0);
  CHECK_STR(tv_get(&t, "/workspace/t", s, sizeof s), "xyz");
  CHECK(vfs_stat(t.v, "/workspace/lt", 0, &b) == 0 && b.kind == VFS_LINK);
  CHECK(tv_close(&t));
}

TEST("vfs-4.7") { /* symlink, readlink, chmod, utime */
  tv t;
  buf b;
  struct vfs_stat st;
  tv_state s0;
  tv_open(&t);
  buf_init(&b, &t.m);
  CHECK(vfs_symlink(t.v, "some/where", "/workspace/l") == 0);
  CHECK(vfs_readlink(t.v, "/workspace/l", &b) == 0);
  CHECK_STR(buf_str(&b), "some/where");
  CHECK(vfs_stat(t.v, "/workspace/l", 0, &st) == 0 && st.size == 10 &&
        st.mode == 0777);
  CHECK(vfs_readlink(t.v, "/workspace", &b) == MSB_EINVAL);
  CHECK(vfs_symlink(t.v, "x", "/workspace/l") == MSB_EEXIST);
  CHECK(vfs_symlink(t.v, "", "/workspace/e") == MSB_ENOENT);
  CHECK(vfs_symlink(t.v, "x", "/workspace/no/e") == MSB_ENOENT);
  CHECK(tv_put(&t, "/workspace/f", "") == 0);
  CHECK(vfs_chmod(t.v, "/workspace/f", 0755) == 0);
  CHECK(vfs_stat(t.v, "/workspace/f", 0, &st) == 0 && st.mode == 0755);
  tv_snap(&t, &s0);
  CHECK(vfs_chmod(t.v, "/workspace/f", 0755) == 0);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_chmod(t.v, "/workspace/no", 0755) == MSB_ENOENT);
  CHECK(vfs_utime(t.v, "/workspace/f", 42, 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/f", 0, &st) == 0 && st.mtime_ns == 42);
  CHECK(vfs_utime(t.v, "/workspace/l", 43, 1) == 0);
  CHECK(vfs_stat(t.v, "/workspace/l", 0, &st) == 0 && st.mtime_ns == 43);
  CHECK(vfs_utime(t.v, "/workspace/l", 43, 0) == MSB_ENOENT);
  CHECK(vfs_stat(t.v, "/tmp", 0, &st) == 0 && st.mode == 01777);
  buf_finish(&b);
  CHECK(tv_close(&t));
}

TEST("vfs-5.1") { /* quotas: each one, nothing changed after failure */
  vfs_limits lim = {100, 40, 12, 35, 9, 4};
  tv t;
  tv_state s0;
  char name[64];
  int i;
  tv_open_lim(&t, &lim);
  CHECK(vfs_write(t.v, "/workspace/a", "0123456789", 10, 0, 0644, NULL) == 0);
  tv_snap(&t, &s0);
  CHECK(vfs_write(t.v, "/workspace/big", name, 41, 0, 0644, NULL) == MSB_EFBIG);
  CHECK(vfs_write(t.v, "/workspace/a", name, 31, VFS_APPEND, 0644, NULL) ==
        MSB_EFBIG);
  CHECK(vfs_write(t.v, "/workspace/abcdefghij", "", 0, 0, 0644, NULL) ==
        MSB_ENAMETOOLONG);
  CHECK(vfs_mkdir(t.v, "/workspace/1/2/3/4", 0755, VFS_MK_PARENTS) ==
        MSB_ENAMETOOLONG);
  CHECK(vfs_stat(t.v, "/workspace/abcdefghij", 0, NULL) == MSB_ENAMETOOLONG);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_mkdir(t.v, "/workspace/1/2/3", 0755, VFS_MK_PARENTS) == 0);
  CHECK(vfs_write(t.v, "/workspace/12345678/123456789/123456", "", 0,
                  VFS_PARENTS, 0644, NULL) == MSB_ENAMETOOLONG);
  for (i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "/workspace/f%d", i);
    CHECK(vfs_write(t.v, name, "0123456789012345678901234567890", 30, 0, 0644,
                    NULL) == 0);
  }
  tv_snap(&t, &s0);
  CHECK(vfs_write(t.v, "/workspace/g", "0", 1, 0, 0644, NULL) == MSB_ENOSPC);
  CHECK(vfs_copy(t.v, "/workspace/f1", "/workspace/g", 0) == MSB_ENOSPC);
  CHECK(vfs_write(t.v, "/workspace/f1", "0", 1, VFS_APPEND, 0644, NULL) ==
        MSB_ENOSPC);
  CHECK(tv_same(&t, &s0));
  /* shrinking is always allowed; then the node quota */
  CHECK(vfs_write(t.v, "/workspace/f1", "", 0, 0, 0644, NULL) == 0);
  CHECK(vfs_copy(t.v, "/workspace/f2", "/workspace/f1", VFS_CP_OVERWRITE) == 0);
  CHECK(vfs_write(t.v, "/workspace/f1", "", 0, 0, 0644, NULL) == 0);
  for (i = 0; (uint64_t)i < 20 && vfs_counted_nodes(t.v) < 12; i++) {
    snprintf(name, sizeof name, "/workspace/e%d", i);
    CHECK(vfs_write(t.v, name, "", 0, 0, 0644, NULL) == 0);
  }
  tv_snap(&t, &s0);
  CHECK(vfs_write(t.v, "/workspace/z", "", 0, 0, 0644, NULL) == MSB_EDQUOT);
  CHECK(vfs_mkdir(t.v, "/workspace/z", 0755, 0) == MSB_EDQUOT);
  CHECK(vfs_symlink(t.v, "x", "/workspace/z") == MSB_EDQUOT);
  CHECK(vfs_copy(t.v, "/workspace/1", "/workspace/z", 0) == MSB_EDQUOT);
  CHECK(tv_same(&t, &s0));
  CHECK(vfs_rename(t.v, "/workspace/e0", "/workspace/z", 0) == 0);
  CHECK(vfs_rename(t.v, "/workspace/z", "/workspace/y/z", VFS_CP_PARENTS) ==
        MSB_EDQUOT);
  CHECK(tv_close(&t));
}

TEST("vfs-6.1") { /* revision rules and batches */
  tv t;
  tv_open(&t);
  CHECK(vfs_revision(t.v) == 0);
  CHECK(tv_put(&t, "/workspace/a", "1") == 0);
  CHECK(vfs_revision(t.v) == 1);
  CHECK(tv_put(&t, "/workspace/a", "1") == 0); /* same bytes still count */
  CHECK(vfs_revision(t.v) == 2);
  CHECK(vfs_remove(t.v, "/workspace/zz", 0) == MSB_ENOENT);
  CHECK(vfs_revision(t.v) == 2);
  vfs_batch_begin(t.v);
  CHECK(tv_put(&t, "/workspace/b", "1") == 0);
  vfs_batch_begin(t.v);
  CHECK(tv_put(&t, "/workspace/c", "1") == 0);
  vfs_batch_end(t.v);
  CHECK(vfs_revision(t.v) == 2);
  CHECK(vfs_mkdir(t.v, "/workspace/d", 0755, 0) == 0);
  vfs_batch_end(t.v);
  CHECK(vfs_revision(t.v) == 3);
  vfs_batch_begin(t.v);
  CHECK(vfs_remove(t.v, "/workspace/zz", 0) == MSB_ENOENT);
  vfs_batch_end(t.v);
  CHECK(vfs_revision(t.v) == 3);
  vfs_batch_end(t.v); /* unbalanced end is harmless */
  CHECK(vfs_revision(t.v) == 3);
  vfs_set_revision(t.v, 100);
  CHECK(tv_put(&t, "/workspace/a", "2") == 0);
  CHECK(vfs_revision(t.v) == 101);
  CHECK(tv_close(&t));
}

TEST("vfs-6.2") { /* checkpoints share structure; rollback is exact */
  tv t;
  vnode *cp;
  char x[65], y[65], s[64];
  uint64_t used;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  CHECK(tv_put(&t, "/workspace/d/e/f", "before") == 0);
  CHECK(tv_put(&t, "/workspace/g", "g") == 0);
  tv_hash(&t, "/", x);
  used = t.m.used;
  cp = vfs_root_get(t.v);
  CHECK(t.m.used == used); /* O(1): no allocation */
  CHECK(tv_put(&t, "/workspace/d/e/f", "after!") == 0);
  CHECK(vfs_write(t.v, "/workspace/g", "+", 1, VFS_APPEND, 0, NULL) == 0);
  CHECK(vfs_remove(t.v, "/workspace/d", VFS_RM_RECURSIVE) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/n", 0755, 0) == 0);
  CHECK(vfs_total_bytes(t.v) == 2);
  vfs_root_set(t.v, cp);
  CHECK_STR(tv_hash(&t, "/", y), x);
  CHECK_STR(tv_get(&t, "/workspace/d/e/f", s, sizeof s), "before");
  CHECK_STR(tv_get(&t, "/workspace/g", s, sizeof s), "g");
  CHECK(vfs_total_bytes(t.v) == 7 && vfs_total_nodes(t.v) == 7);
  /* mutate again after rollback; the checkpoint stays intact */
  CHECK(tv_put(&t, "/workspace/d/e/f", "third") == 0);
  vfs_root_set(t.v, cp);
  CHECK_STR(tv_get(&t, "/workspace/d/e/f", s, sizeof s), "before");
  vnode_unref(t.v, cp);
  CHECK(tv_put(&t, "/workspace/d/e/f", "fourth") == 0);
  CHECK_STR(tv_get(&t, "/workspace/d/e/f", s, sizeof s), "fourth");
  CHECK(tv_close(&t));
}

TEST("vfs-6.3") { /* iteration pins a version while mutating */
  tv t;
  vfs_dir d;
  const char *nm;
  size_t nl;
  char got[256] = "", s[128];
  struct vfs_stat st;
  tv_open(&t);
  CHECK(tv_put(&t, "/workspace/b", "1") == 0);
  CHECK(tv_put(&t, "/workspace/a", "22") == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/c", 0755, 0) == 0);
  REQUIRE(vfs_opendir(t.v, "/workspace", &d) == 0);
  while (vfs_readdir(&d, &nm, &nl, &st)) {
    char p[64];
    strcat(got, nm);
    snprintf(p, sizeof p, "/workspace/%s", nm);
    CHECK(vfs_remove(t.v, p, VFS_RM_RECURSIVE) == 0);
    snprintf(p, sizeof p, "/workspace/%s.new", nm);
    CHECK(tv_put(&t, p, "x") == 0);
    if (!strcmp(nm, "a")) CHECK(st.kind == VFS_FILE && st.size == 2);
    if (!strcmp(nm, "c")) CHECK(st.kind == VFS_DIR && st.nlink == 2);
  }
  vfs_closedir(&d);
  CHECK_STR(got, "abc");
  CHECK_STR(tv_ls(&t, "/workspace", s, sizeof s), "a.new b.new c.new");
  CHECK(vfs_opendir(t.v, "/workspace/a.new", &d) == MSB_ENOTDIR);
  CHECK(vfs_opendir(t.v, "/workspace/none", &d) == MSB_ENOENT);
  vfs_closedir(&d); /* closing a failed open is harmless */
  CHECK(tv_close(&t));
}

TEST("vfs-6.4") { /* clone into another allocator keeps sharing */
  tv t;
  mem m2;
  vfs *c;
  uint8_t h1[32], h2[32];
  char big[4096];
  tv_open(&t);
  memset(big, 'q', sizeof big);
  CHECK(vfs_write(t.v, "/workspace/big", big, sizeof big, 0, 0644, NULL) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/d/e", 0755, VFS_MK_PARENTS) == 0);
  CHECK(vfs_symlink(t.v, "../big", "/workspace/d/l") == 0);
  CHECK(vfs_copy(t.v, "/workspace/big", "/workspace/d/e/b2", 0) == 0);
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/d2", VFS_CP_KEEP_META) == 0);
  mem_init(&m2, 0);
  c = vfs_clone(t.v, &m2);
  REQUIRE(c);
  /* the blob was copied once (a second copy would add 4096 bytes; the
   * clone may use a few more chunks, which are not deduplicated) */
  if (m2.used >= t.m.used + 4096)
    fprintf(stderr, "    clone %zu source %zu\n", m2.used, t.m.used);
  CHECK(m2.used < t.m.used + 4096);
  CHECK(vfs_hash(t.v, "/", 0, h1) == 0 && vfs_hash(c, "/", 0, h2) == 0);
  CHECK(!memcmp(h1, h2, 32));
  CHECK(vfs_total_nodes(c) == vfs_total_nodes(t.v));
  CHECK(vfs_total_bytes(c) == vfs_total_bytes(t.v));
  CHECK(vfs_write(c, "/workspace/d2/e/b2", "x", 1, 0, 0644, NULL) == 0);
  CHECK(vfs_hash(t.v, "/", 0, h2) == 0 && !memcmp(h1, h2, 32));
  vfs_destroy(c);
  CHECK(m2.used == 0 && m2.blocks == 0);
  /* clone under memory failure: every failure point is clean */
  {
    long k;
    for (k = 0; k < 200; k++) {
      mem_init(&m2, 0);
      m2.fail_after = k;
      c = vfs_clone(t.v, &m2);
      vfs_destroy(c);
      CHECK(m2.used == 0 && m2.blocks == 0);
      if (c) break;
    }
    CHECK(c != NULL);
    m2.fail_after = -1;
    c = vfs_clone(t.v, &m2); /* forwarding pointers were all cleared */
    CHECK(c && vfs_hash(c, "/", 0, h2) == 0 && !memcmp(h1, h2, 32));
    vfs_destroy(c);
  }
  CHECK(tv_close(&t));
}

TEST("vfs-6.5") { /* very deep trees: free, hash, copy without recursion */
  vfs_limits lim = {1u << 20, 1u << 20, 1000000, 4096, 255, 64};
  tv t;
  int i;
  char x[65], y[65];
  tv_open_lim(&t, &lim);
  REQUIRE(vfs_mkdir(t.v, "/workspace/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a",
                    0755, VFS_MK_PARENTS) == 0);
  /* fold the chain into itself repeatedly: depth grows beyond max_depth */
  for (i = 0; i < 3000; i++) {
    CHECK(vfs_mkdir(t.v, "/workspace/b", 0755, 0) == 0);
    CHECK(vfs_rename(t.v, "/workspace/a", "/workspace/b/a", 0) == 0);
    CHECK(vfs_rename(t.v, "/workspace/b", "/workspace/a", 0) == 0);
  }
  CHECK(vfs_total_nodes(t.v) == 3 + 19 + 3000);
  CHECK(vfs_copy(t.v, "/workspace/a", "/workspace/c", 0) == 0);
  CHECK_STR(tv_hash(&t, "/workspace/a", x), tv_hash(&t, "/workspace/c", y));
  CHECK(vfs_remove(t.v, "/workspace/a", VFS_RM_RECURSIVE) == 0);
  CHECK(tv_close(&t));
}

TEST("vfs-6.6") { /* large directory: sorted, binary search, counts */
  tv t;
  char p[64], s[64];
  int i;
  vfs_dir d;
  const char *nm, *prev = NULL;
  size_t nl, n = 0;
  tv_open(&t);
  for (i = 0; i < 2000; i++) {
    snprintf(p, sizeof p, "/workspace/f%d", (i * 7919) % 2000);
    CHECK(tv_put(&t, p, "x") == 0);
  }
  CHECK(vfs_total_nodes(t.v) == 2003 && vfs_total_bytes(t.v) == 2000);
  REQUIRE(vfs_opendir(t.v, "/workspace", &d) == 0);
  while (vfs_readdir(&d, &nm, &nl, NULL)) {
    if (prev) CHECK(strcmp(prev, nm) < 0);
    prev = nm;
    n++;
  }
  vfs_closedir(&d);
  CHECK(n == 2000);
  CHECK_STR(tv_get(&t, "/workspace/f1234", s, sizeof s), "x");
  for (i = 0; i < 2000; i += 2) {
    snprintf(p, sizeof p, "/workspace/f%d", i);
    CHECK(vfs_remove(t.v, p, 0) == 0);
  }
  CHECK(vfs_total_nodes(t.v) == 1003);
  CHECK(tv_close(&t));
}

/* A tree for the fault-injection loop; with cp, a checkpoint holds the
 * root so every mutation must copy along its path. */
static void tv_fixture(tv *t) {
  char big[300];
  tv_open(t);
  memset(big, 'b', sizeof big);
  vfs_mkdir(t->v, "/workspace/d/e", 0755, VFS_MK_PARENTS);
  vfs_write(t->v, "/workspace/d/e/f", big, sizeof big, 0, 0644, NULL);
  vfs_write(t->v, "/workspace/g", "g", 1, 0, 0644, NULL);
  vfs_symlink(t->v, "d/e", "/workspace/l");
  vfs_mkdir(t->v, "/workspace/empty", 0755, 0);
  vfs_link(t->v, "/workspace/d/e/f", "/workspace/hl"); /* f has 2 names */
}

static int tv_op(tv *t, int op) {
  vfs *v = t->v;
  uint8_t h[32];
  buf b;
  int rc;
  switch (op) {
  case 0: return vfs_write(v, "/workspace/new", "abc", 3, 0, 0644, NULL);
  case 1: return vfs_write(v, "/workspace/d/e/f", "x", 1, VFS_APPEND, 0, 0);
  case 2: return vfs_write(v, "/workspace/l/f", "xyz", 3, 0, 0644, NULL);
  case 3:
    return vfs_write(v, "/workspace/p/q/r", "1", 1, VFS_PARENTS, 0644, NULL);
  case 4: return vfs_mkdir(v, "/workspace/m/n/o", 0755, VFS_MK_PARENTS);
  case 5: return vfs_remove(v, "/workspace/d", VFS_RM_RECURSIVE);
  case 6: return vfs_remove(v, "/workspace/l/f", 0);
  case 7: return vfs_copy(v, "/workspace/d", "/workspace/c", 0);
  case 8:
    return vfs_copy(v, "/workspace/d", "/workspace/x/y/c",
                    VFS_CP_PARENTS | VFS_CP_KEEP_META);
  case 9:
    return vfs_copy(v, "/workspace/g", "/workspace/d/e/f", VFS_CP_OVERWRITE);
  case 10: return vfs_rename(v, "/workspace/d", "/workspace/empty/d", 0);
  case 11: return vfs_rename(v, "/workspace/g", "/workspace/l/f", 0);
  case 12:
    return vfs_rename(v, "/workspace/l/f", "/workspace/a/b", VFS_CP_PARENTS);
  case 13: return vfs_rename(v, "/workspace/empty", "/workspace/d/e/n", 0);
  case 14: return vfs_symlink(v, "x", "/workspace/d/e/s");
  case 15: return vfs_chmod(v, "/workspace/l/f", 0600);
  case 16: return vfs_utime(v, "/workspace/d/e", 7, 0);
  case 17:
    sha256_digest("g", 1, h);
    return vfs_write(v, "/workspace/g", "G", 1, VFS_HASH_EQ, 0644, h);
  case 18:
    buf_init(&b, &t->m);
    rc = vfs_realpath(v, "/workspace/l/../e/zz/../yy", 2, &b);
    buf_finish(&b);
    return rc;
  case 19: return vfs_write(v, "/workspace/d/e/f", "x", 1, 0, 0644, NULL);
  case 20: return vfs_link(v, "/workspace/g", "/workspace/d/g2");
  case 21: return vfs_link(v, "/workspace/hl", "/workspace/empty/h3");
  case 22: return vfs_write(v, "/workspace/hl", "y", 1, VFS_APPEND, 0, 0);
  case 23: return vfs_remove(v, "/workspace/hl", 0);
  case 24:
    return vfs_copy(v, "/workspace/d", "/workspace/c2", VFS_CP_KEEP_META);
  case 25: return vfs_rename(v, "/workspace/hl", "/workspace/d/hl", 0);
  case 26: return vfs_chmod(v, "/workspace/hl", 0600);
  case 27:
    return vfs_copy(v, "/workspace/g", "/workspace/hl", VFS_CP_OVERWRITE);
  case 28:
    return vfs_write(v, "/workspace/hl", "new", 3, VFS_REPLACE, 0644, NULL);
  }
  return -1000;
}

TEST("vfs-7.1") { /* fault injection: fail each allocation in turn */
  int op, cp;
  for (op = 0; op < 29; op++) {
    for (cp = 0; cp < 2; cp++) {
      long k;
      int rc = MSB_ENOMEM;
      for (k = 0; k < 1000 && rc == MSB_ENOMEM; k++) {
        tv t;
        tv_state s0;
        vnode *hold = NULL;
        tv_fixture(&t);
        if (cp) hold = vfs_root_get(t.v);
        tv_snap(&t, &s0);
        t.m.fail_after = k;
        rc = tv_op(&t, op);
        t.m.fail_after = -1;
        if (rc == MSB_ENOMEM) {
          CHECK(tv_same(&t, &s0));
        } else if (rc) {
          fprintf(stderr, "    op %d: rc %d\n", op, rc);
          CHECK(0);
        } else if (op != 18) {
          CHECK(vfs_revision(t.v) == s0.rev + 1);
        }
        if (hold) { /* the held version is intact */
          uint8_t h[32];
          vfs_root_set(t.v, hold);
          tv_deep_hash(&t, "/", h);
          CHECK(!memcmp(h, s0.h, 32));
        }
        vnode_unref(t.v, hold);
        CHECK(tv_close(&t));
      }
      CHECK(rc == 0);
    }
  }
}

TEST("vfs-8.1") { /* symlink edge cases */
  tv t;
  char s[64];
  struct vfs_stat st;
  tv_open(&t);
  CHECK(vfs_symlink(t.v, "made", "/workspace/dang") == 0);
  CHECK(vfs_write(t.v, "/workspace/dang", "x", 1, VFS_EXCL, 0644, NULL) ==
        MSB_EEXIST);
  CHECK(vfs_stat(t.v, "/workspace/made", 0, NULL) == MSB_ENOENT);
  CHECK(tv_put(&t, "/workspace/dang", "y") == 0); /* creates the target */
  CHECK_STR(tv_get(&t, "/workspace/made", s, sizeof s), "y");
  CHECK(vfs_mkdir(t.v, "/workspace/realdir", 0755, 0) == 0);
  CHECK(vfs_symlink(t.v, "realdir", "/workspace/ld") == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/ld/a/b", 0755, VFS_MK_PARENTS) == 0);
  CHECK(vfs_stat(t.v, "/workspace/realdir/a/b", 1, &st) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/dang", 0755, VFS_MK_EXIST_OK) == MSB_EEXIST);
  /* rename moves the link itself */
  CHECK(vfs_rename(t.v, "/workspace/ld", "/workspace/ld2", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/ld2", 0, &st) == 0 && st.kind == VFS_LINK);
  CHECK(vfs_stat(t.v, "/workspace/realdir", 0, &st) == 0 && st.kind == VFS_DIR);
  /* opendir and realpath through links; ".." at the root */
  CHECK_STR(tv_ls(&t, "/workspace/ld2/", s, sizeof s), "a");
  CHECK_STR(tv_ls(&t, "/../..", s, sizeof s), "tmp workspace");
  /* a link target longer than the path limit is refused */
  {
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK(vfs_symlink(t.v, big, "/workspace/long") == MSB_ENAMETOOLONG);
  }
  CHECK(tv_close(&t));
}

TEST("vfs-8.2") { /* inodes: stable under copy-on-write, new on copy */
  tv t;
  vnode *cp;
  struct vfs_stat a, b;
  tv_open(&t);
  CHECK(tv_put(&t, "/workspace/f", "1") == 0);
  CHECK(vfs_stat(t.v, "/workspace/f", 0, &a) == 0);
  cp = vfs_root_get(t.v);
  CHECK(tv_put(&t, "/workspace/f", "2") == 0); /* copies f's node */
  CHECK(vfs_stat(t.v, "/workspace/f", 0, &b) == 0 && a.ino == b.ino);
  CHECK(vfs_rename(t.v, "/workspace/f", "/workspace/g", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/g", 0, &b) == 0 && a.ino == b.ino);
  CHECK(vfs_copy(t.v, "/workspace/g", "/workspace/h", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/h", 0, &b) == 0 && a.ino != b.ino);
  vnode_unref(t.v, cp);
  CHECK(vfs_stat(t.v, "/", 0, &a) == 0 && a.ino == 1 && a.nlink == 4);
  CHECK(tv_close(&t));
}

TEST("vfs-8.3") { /* exact limits: at the limit passes, one past fails */
  vfs_limits lim = {10, 10, 100, 30, 16, 3};
  tv t;
  tv_open_lim(&t, &lim);
  CHECK(vfs_write(t.v, "/workspace/abcdefghijklmnop", "0123456789", 10, 0, 0644,
                  NULL) == 0);
  CHECK(vfs_write(t.v, "/workspace/abcdefghijklmnopq", "", 0, 0, 0644, NULL) ==
        MSB_ENAMETOOLONG); /* segment of 17 */
  CHECK(vfs_mkdir(t.v, "/workspace/ab/c", 0755, VFS_MK_PARENTS) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/ab/c/d", 0755, 0) == MSB_ENAMETOOLONG);
  CHECK(vfs_mkdir(t.v, "/workspace/ab/cdefghijklmnopqr", 0755, 0) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/abc", 0755, 0) == 0);
  CHECK(vfs_mkdir(t.v, "/workspace/abc/defghijklmnopqrs", 0755, 0) ==
        MSB_ENAMETOOLONG); /* path of 31 */
  CHECK(vfs_write(t.v, "/workspace/x", "", 0, 0, 0644, NULL) == 0);
  CHECK(vfs_write(t.v, "/workspace/x", "1", 1, 0, 0644, NULL) == MSB_ENOSPC);
  /* a lowered quota still lets content shrink */
  lim.max_total_bytes = 5;
  vfs_set_limits(t.v, &lim);
  CHECK(vfs_write(t.v, "/workspace/abcdefghijklmnop", "0123", 4, 0, 0644,
                  NULL) == 0);
  CHECK(vfs_write(t.v, "/workspace/x", "12", 2, 0, 0644, NULL) == MSB_ENOSPC);
  CHECK(vfs_write(t.v, "/workspace/x", "1", 1, 0, 0644, NULL) == 0);
  CHECK(vfs_get_limits(t.v)->max_total_bytes == 5);
  CHECK(tv_close(&t));
}

/* Deterministic pseudo-random numbers for the model tests. */
static uint32_t tv_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

TEST("vfs-9.1") { /* big directories against a model, with checkpoints */
  enum { N = 700 };
  static char present[N];
  tv t;
  uint64_t seed = 42;
  vnode *cps[3] = {0, 0, 0};
  uint8_t cph[3][32], h[32];
  size_t cpn[3];
  int step, i;
  char p[64], q[64], s[64];
  tv_open(&t);
  memset(present, 0, sizeof present);
  CHECK(vfs_mkdir(t.v, "/workspace/big", 0755, 0) == 0);
  for (step = 0; step < 6000; step++) {
    uint32_t r = tv_rand(&seed), k = r % N, op = (r >> 12) % 10;
    snprintf(p, sizeof p, "/workspace/big/n%u", (unsigned)k);
    if (op < 5) { /* write */
      CHECK(tv_put(&t, p, p) == 0);
      present[k] = 1;
    } else if (op < 7) { /* remove */
      CHECK(vfs_remove(t.v, p, 0) == (present[k] ? 0 : MSB_ENOENT));
      present[k] = 0;
    } else if (op < 9) { /* rename inside the directory */
      uint32_t k2 = (r >> 20) % N;
      snprintf(q, sizeof q, "/workspace/big/n%u", (unsigned)k2);
      if (present[k]) {
        CHECK(vfs_rename(t.v, p, q, 0) == 0);
        if (k2 != k) {
          present[k] = 0;
          present[k2] = 1;
          CHECK(tv_put(&t, q, q) == 0); /* content follows the name */
        }
      } else {
        CHECK(vfs_rename(t.v, p, q, 0) == MSB_ENOENT);
      }
    } else { /* checkpoint slot (r >> 20) % 3 */
      int c = (int)((r >> 20) % 3);
      vnode_unref(t.v, cps[c]);
      cps[c] = vfs_root_get(t.v);
      vfs_hash(t.v, "/", 0, cph[c]);
      cpn[c] = (size_t)vfs_total_nodes(t.v);
    }
    if (step % 500 == 0) {
      vfs_dir d;
      const char *nm, *prev = NULL;
      size_t nl, n = 0, want = 0;
      for (i = 0; i < N; i++) want += present[i];
      REQUIRE(vfs_opendir(t.v, "/workspace/big", &d) == 0);
      while (vfs_readdir(&d, &nm, &nl, NULL)) {
        if (prev) CHECK(strcmp(prev, nm) < 0);
        prev = nm;
        n++;
      }
      vfs_closedir(&d);
      CHECK(n == want);
      CHECK(vfs_total_nodes(t.v) == 4 + want);
    }
  }
  for (i = 0; i < N; i++) {
    snprintf(p, sizeof p, "/workspace/big/n%d", i);
    if (present[i]) {
      CHECK_STR(tv_get(&t, p, s, sizeof s), p);
    } else {
      CHECK(vfs_stat(t.v, p, 0, NULL) == MSB_ENOENT);
    }
  }
  /* every checkpoint still holds exactly what it held */
  for (i = 0; i < 3; i++) {
    if (!cps[i]) continue;
    vfs_root_set(t.v, cps[i]);
    CHECK(vfs_hash(t.v, "/", 0, h) == 0 && !memcmp(h, cph[i], 32));
    tv_deep_hash(&t, "/", h);
    CHECK(!memcmp(h, cph[i], 32));
    CHECK(vfs_total_nodes(t.v) == cpn[i]);
    /* recompute from scratch: a fresh copy must hash the same */
    {
      mem m2;
      vfs *c;
      uint8_t h2[32];
      mem_init(&m2, 0);
      c = vfs_clone(t.v, &m2);
      REQUIRE(c);
      CHECK(vfs_hash(c, "/", 0, h2) == 0 && !memcmp(h2, cph[i], 32));
      vfs_destroy(c);
      CHECK(m2.used == 0);
    }
    vnode_unref(t.v, cps[i]);
  }
  CHECK(tv_close(&t));
}

TEST("vfs-9.2") { /* hashes never depend on how chunks split */
  tv a, b;
  char p[64], x[65], y[65];
  int i;
  tv_open(&a);
  tv_open(&b);
  for (i = 0; i < 300; i++) {
    snprintf(p, sizeof p, "/workspace/f%03d", i);
    CHECK(tv_put(&a, p, "x") == 0);
    snprintf(p, sizeof p, "/workspace/f%03d", 299 - i);
    CHECK(tv_put(&b, p, "x") == 0);
  }
  CHECK_STR(tv_hash(&a, "/workspace", x), tv_hash(&b, "/workspace", y));
  for (i = 0; i < 300; i += 3) {
    snprintf(p, sizeof p, "/workspace/f%03d", i);
    CHECK(vfs_remove(a.v, p, 0) == 0);
    CHECK(vfs_remove(b.v, p, 0) == 0);
  }
  CHECK_STR(tv_hash(&a, "/workspace", x), tv_hash(&b, "/workspace", y));
  CHECK(tv_close(&a));
  CHECK(tv_close(&b));
}

/* A directory whose only chunk is full (64 names appended in order). */
static void tv_fixture_big(tv *t) {
  char p[64];
  int i;
  tv_open(t);
  vfs_mkdir(t->v, "/workspace/big", 0755, 0);
  for (i = 0; i < 64; i++) {
    snprintf(p, sizeof p, "/workspace/big/f%02d", i * 2);
    vfs_write(t->v, p, "x", 1, 0, 0644, NULL);
  }
  vfs_write(t->v, "/workspace/other", "o", 1, 0, 0644, NULL);
}

static int tv_op_big(tv *t, int op) {
  vfs *v = t->v;
  switch (op) {
  case 0: return vfs_write(v, "/workspace/big/f31", "n", 1, 0, 0644, NULL);
  case 1: return vfs_write(v, "/workspace/big/zz", "n", 1, 0, 0644, NULL);
  case 2: return vfs_remove(v, "/workspace/big/f10", 0);
  case 3: return vfs_rename(v, "/workspace/big/f10", "/workspace/big/f11", 0);
  case 4: return vfs_rename(v, "/workspace/big/f10", "/workspace/big/f12", 0);
  case 5: return vfs_rename(v, "/workspace/other", "/workspace/big/f13", 0);
  case 6: return vfs_rename(v, "/workspace/big/f10", "/workspace/x", 0);
  case 7: return vfs_copy(v, "/workspace/big", "/workspace/c", 0);
  case 8:
    return vfs_copy(v, "/workspace/other", "/workspace/big/f20",
                    VFS_CP_OVERWRITE);
  case 9: return vfs_chmod(v, "/workspace/big/f20", 0600);
  case 10:
    return vfs_write(v, "/workspace/big/f20", "y", 1, VFS_APPEND, 0644, 0);
  }
  return -1000;
}

TEST("vfs-9.3") { /* fault injection on full chunks (splits) */
  int op, cp;
  for (op = 0; op < 11; op++) {
    for (cp = 0; cp < 2; cp++) {
      long k;
      int rc = MSB_ENOMEM;
      for (k = 0; k < 1000 && rc == MSB_ENOMEM; k++) {
        tv t;
        tv_state s0;
        vnode *hold = NULL;
        tv_fixture_big(&t);
        if (cp) hold = vfs_root_get(t.v);
        tv_snap(&t, &s0);
        t.m.fail_after = k;
        rc = tv_op_big(&t, op);
        t.m.fail_after = -1;
        if (rc == MSB_ENOMEM) {
          CHECK(tv_same(&t, &s0));
        } else if (rc) {
          fprintf(stderr, "    op %d: rc %d\n", op, rc);
          CHECK(0);
        } else {
          CHECK(vfs_revision(t.v) == s0.rev + 1);
        }
        if (hold) { /* the held version is intact */
          uint8_t h[32];
          vfs_root_set(t.v, hold);
          tv_deep_hash(&t, "/", h);
          CHECK(!memcmp(h, s0.h, 32));
          vnode_unref(t.v, hold);
        }
        CHECK(tv_close(&t));
      }
      CHECK(rc == 0);
    }
  }
}

/* Counts nodes and file bytes below path by walking it (links not
 * followed), to check the cached totals. */
static void tv_count(tv *t, const char *path, uint64_t *nodes,
                     uint64_t *bytes) {
  struct vfs_stat st;
  vfs_dir d;
  const char *nm;
  size_t nl;
  static uint64_t seen[4096]; /* inodes of several names counted */
  static size_t nseen;
  size_t i;
  if (!strcmp(path, "/")) nseen = 0;
  if (vfs_stat(t->v, path, 0, &st)) return;
  (*nodes)++;
  if (st.kind == VFS_FILE && st.nlink > 1) {
    for (i = 0; i < nseen && seen[i] != st.ino; i++) {
    }
    if (i < nseen) return; /* its bytes count once */
    if (nseen < 4096) seen[nseen++] = st.ino;
  }
  if (st.kind == VFS_FILE) *bytes += st.size;
  if (st.kind != VFS_DIR || vfs_opendir(t->v, path, &d)) return;
  while (vfs_readdir(&d, &nm, &nl, NULL)) {
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", strcmp(path, "/") ? path : "", nm);
    tv_count(t, sub, nodes, bytes);
  }
  vfs_closedir(&d);
}

/* A random path over a small namespace, with ".", ".." and "//". */
static void tv_rpath(uint64_t *seed, char *out, size_t cap) {
  static const char *const parts[] = {"a", "b",  "c", "l", "m",
                                      ".", "..", "a", "b", "c"};
  size_t o;
  int k = 1 + (int)(tv_rand(seed) % 4), i;
  o = (size_t)snprintf(out, cap, "/workspace");
  for (i = 0; i < k && o + 8 < cap; i++)
    o += (size_t)snprintf(out + o, cap - o, "%s%s",
                          tv_rand(seed) % 16 ? "/" : "//",
                          parts[tv_rand(seed) % 10]);
}

TEST("vfs-9.4") { /* random operations keep every invariant */
  tv t;
  uint64_t seed = 7;
  vnode *hold = NULL;
  uint8_t holdh[32], h[32], h2[32];
  int step;
  tv_open(&t);
  for (step = 0; step < 12000; step++) {
    char p[128], q[128];
    uint32_t op = tv_rand(&seed) % 13;
    tv_rpath(&seed, p, sizeof p);
    tv_rpath(&seed, q, sizeof q);
    switch (op) {
    case 0:
    case 1:
      vfs_write(t.v, p, q, strlen(q) % 9, tv_rand(&seed) % 4 ? 0 : VFS_APPEND,
                0644, NULL);
      break;
    case 2:
      vfs_mkdir(t.v, p, 0755, tv_rand(&seed) % 2 ? VFS_MK_PARENTS : 0);
      break;
    case 3: vfs_remove(t.v, p, VFS_RM_RECURSIVE); break;
    case 4: vfs_remove(t.v, p, VFS_RM_DIR); break;
    case 5:
      vfs_rename(t.v, p, q, tv_rand(&seed) % 2 ? VFS_CP_OVERWRITE : 0);
      break;
    case 6: vfs_copy(t.v, p, q, tv_rand(&seed) % 3); break;
    case 7: vfs_symlink(t.v, q + (tv_rand(&seed) % 2 ? 10 : 0), p); break;
    case 8: vfs_chmod(t.v, p, tv_rand(&seed) % 0777); break;
    case 9: vfs_write(t.v, p, "x", 1, VFS_PARENTS, 0644, NULL); break;
    case 10:
      vnode_unref(t.v, hold);
      hold = vfs_root_get(t.v);
      vfs_hash(t.v, "/", 0, holdh);
      break;
    case 11: vfs_rename(t.v, p, q, VFS_CP_PARENTS); break;
    case 12: vfs_link(t.v, p, q); break;
    }
    if (step % 25 == 0) {
      uint64_t nodes = 0, bytes = 0;
      tv_count(&t, "/", &nodes, &bytes);
      CHECK(nodes == vfs_total_nodes(t.v) && bytes == vfs_total_bytes(t.v));
      CHECK(vfs_hash(t.v, "/", 0, h) == 0);
      tv_deep_hash(&t, "/", h2);
      CHECK(!memcmp(h, h2, 32));
      if (test_failed_now) {
        fprintf(stderr, "    step %d op %u %s %s\n", step, (unsigned)op, p, q);
        break;
      }
    }
  }
  if (hold) {
    vfs_root_set(t.v, hold);
    tv_deep_hash(&t, "/", h);
    CHECK(!memcmp(h, holdh, 32));
    vnode_unref(t.v, hold);
  }
  CHECK(tv_close(&t));
}

TEST("vfs-10.1") { /* hard links: one file, several names (#16 item 10) */
  tv t;
  vfs_limits lim = {1000, 1000, 10, 4096, 255, 64};
  struct vfs_stat a, b;
  char out[64], h1[65], h2[65];
  vnode *hold;
  mem m2;
  vfs *c;
  tv_open_lim(&t, &lim);
  CHECK(tv_put(&t, "/workspace/a", "hello") == 0);
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/b") == 0);
  CHECK(vfs_stat(t.v, "/workspace/a", 0, &a) == 0);
  CHECK(vfs_stat(t.v, "/workspace/b", 0, &b) == 0);
  CHECK(a.nlink == 2 && b.nlink == 2 && a.ino == b.ino && b.size == 5);
  CHECK(vfs_total_bytes(t.v) == 5); /* the bytes count once */
  /* errors as link(2) */
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/b") == MSB_EEXIST);
  CHECK(vfs_link(t.v, "/workspace", "/workspace/d") == MSB_EPERM);
  CHECK(vfs_link(t.v, "/workspace/no", "/workspace/d") == MSB_ENOENT);
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/no/d") == MSB_ENOENT);
  /* a write through one name shows through the other; mode and mtime too */
  CHECK(vfs_write(t.v, "/workspace/b", "!", 1, VFS_APPEND, 0, NULL) == 0);
  CHECK(!strcmp(tv_get(&t, "/workspace/a", out, sizeof out), "hello!"));
  CHECK(vfs_chmod(t.v, "/workspace/a", 0600) == 0);
  CHECK(vfs_utime(t.v, "/workspace/b", 42, 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/b", 0, &b) == 0 && b.mode == 0600);
  CHECK(vfs_stat(t.v, "/workspace/a", 0, &a) == 0 && a.mtime_ns == 42);
  /* a tree hashes as the same tree with copies */
  {
    tv u;
    tv_open(&u);
    CHECK(tv_put(&u, "/workspace/a", "hello!") == 0);
    CHECK(tv_put(&u, "/workspace/b", "hello!") == 0);
    CHECK(
        !strcmp(tv_hash(&t, "/workspace", h1), tv_hash(&u, "/workspace", h2)));
    CHECK(tv_close(&u));
  }
  /* a checkpoint keeps the sharing */
  hold = vfs_root_get(t.v);
  CHECK(vfs_remove(t.v, "/workspace/a", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/b", 0, &b) == 0 && b.nlink == 1);
  CHECK(vfs_total_bytes(t.v) == 6);
  vfs_root_set(t.v, hold);
  vnode_unref(t.v, hold);
  CHECK(vfs_stat(t.v, "/workspace/a", 0, &a) == 0 && a.nlink == 2);
  /* a clone keeps the sharing, and its writes stay its own */
  mem_init(&m2, 0);
  c = vfs_clone(t.v, &m2);
  REQUIRE(c);
  CHECK(vfs_write(c, "/workspace/a", "x", 1, 0, 0644, NULL) == 0);
  {
    const uint8_t *d;
    size_t n;
    CHECK(vfs_read(c, "/workspace/b", &d, &n) == 0 && n == 1 && d[0] == 'x');
  }
  CHECK(!strcmp(tv_get(&t, "/workspace/b", out, sizeof out), "hello!"));
  vfs_destroy(c);
  CHECK(m2.used == 0);
  /* a replacing write (sed -i) gives the name a file of its own */
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/r") == 0);
  CHECK(vfs_write(t.v, "/workspace/r", "new", 3, VFS_REPLACE | VFS_KEEP_MODE,
                  0644, NULL) == 0);
  CHECK(vfs_stat(t.v, "/workspace/r", 0, &b) == 0 && b.nlink == 1 &&
        b.mode == 0600);
  CHECK(!strcmp(tv_get(&t, "/workspace/a", out, sizeof out), "hello!"));
  CHECK(vfs_remove(t.v, "/workspace/r", 0) == 0);
  /* a copy is a file of its own; moving a name keeps the link */
  CHECK(vfs_copy(t.v, "/workspace/a", "/workspace/c", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/c", 0, &b) == 0 && b.nlink == 1);
  CHECK(vfs_mkdir(t.v, "/workspace/d", 0755, 0) == 0);
  CHECK(vfs_rename(t.v, "/workspace/b", "/workspace/d/b", 0) == 0);
  CHECK(vfs_write(t.v, "/workspace/d/b", "moved", 5, 0, 0644, NULL) == 0);
  CHECK(!strcmp(tv_get(&t, "/workspace/a", out, sizeof out), "moved"));
  /* a directory copied with names below gets files of its own */
  CHECK(vfs_copy(t.v, "/workspace/d", "/workspace/e", VFS_CP_KEEP_META) == 0);
  CHECK(vfs_stat(t.v, "/workspace/e/b", 0, &b) == 0 && b.nlink == 1);
  CHECK(vfs_stat(t.v, "/workspace/e", 0, &b) == 0 && b.bytes == 5);
  CHECK(vfs_total_bytes(t.v) == 5 + 6 + 5);
  /* quotas: a name is a node and no byte */
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/n1") == 0);
  {
    char p[32];
    int i;
    for (i = 0; vfs_counted_nodes(t.v) < lim.max_nodes && i < 20; i++) {
      snprintf(p, sizeof p, "/workspace/d/x%d", i);
      CHECK(vfs_mkdir(t.v, p, 0755, 0) == 0);
    }
  }
  CHECK(vfs_link(t.v, "/workspace/a", "/workspace/n2") == MSB_EDQUOT);
  /* removing a directory drops the names below it */
  CHECK(vfs_remove(t.v, "/workspace/d", VFS_RM_RECURSIVE) == 0);
  CHECK(vfs_stat(t.v, "/workspace/a", 0, &a) == 0 && a.nlink == 2);
  CHECK(vfs_remove(t.v, "/workspace/n1", 0) == 0);
  CHECK(vfs_remove(t.v, "/workspace/a", 0) == 0);
  CHECK(vfs_total_bytes(t.v) == 6 + 5);
  CHECK(tv_close(&t));
}

TEST("vfs-10.2") { /* devices: numbers, writes, endless reads (#16 item 11) */
  tv t;
  struct vfs_stat st;
  const uint8_t *d;
  size_t n;
  tv_open(&t);
  CHECK(vfs_mkdir(t.v, "/dev", 0755, 0) == 0);
  CHECK(vfs_mkdev(t.v, "/dev/full", VFS_DEV_FULL) == 0);
  CHECK(vfs_mkdev(t.v, "/dev/zero", VFS_DEV_ZERO) == 0);
  CHECK(vfs_mknull(t.v, "/dev/null") == 0);
  CHECK(vfs_mkdev(t.v, "/dev/zero", VFS_DEV_ZERO) == MSB_EEXIST);
  CHECK(vfs_stat(t.v, "/dev/zero", 0, &st) == 0 && (st.mode & VFS_CHR) &&
        st.rdev == VFS_DEV_ZERO && (st.mode & 07777) == 0666);
  /* /dev/full: opening (the empty write) works, writing does not */
  CHECK(vfs_write(t.v, "/dev/full", "", 0, 0, 0644, NULL) == 0);
  CHECK(vfs_write(t.v, "/dev/full", "x", 1, VFS_APPEND, 0644, NULL) ==
        MSB_ENOSPC);
  CHECK(vfs_write(t.v, "/dev/zero", "x", 1, 0, 0644, NULL) == 0);
  CHECK(vfs_read(t.v, "/dev/null", &d, &n) == 0 && n == 0);
  CHECK(vfs_read(t.v, "/dev/zero", &d, &n) == MSB_ENOTSUP);
  /* a copy of the null device is an empty file; of an endless one, refused */
  CHECK(tv_put(&t, "/workspace/f", "data") == 0);
  CHECK(vfs_copy(t.v, "/dev/null", "/workspace/n", 0) == 0);
  CHECK(vfs_stat(t.v, "/workspace/n", 0, &st) == 0 && !(st.mode & VFS_CHR));
  CHECK(vfs_copy(t.v, "/dev/zero", "/workspace/z", 0) == MSB_ENOTSUP);
  CHECK(vfs_copy(t.v, "/workspace/f", "/dev/full", VFS_CP_OVERWRITE) ==
        MSB_ENOSPC);
  CHECK(vfs_copy(t.v, "/workspace/f", "/dev/zero", VFS_CP_OVERWRITE) == 0);
  CHECK(vfs_stat(t.v, "/dev/zero", 0, &st) == 0 && st.rdev == VFS_DEV_ZERO);
  CHECK(tv_close(&t));
}
