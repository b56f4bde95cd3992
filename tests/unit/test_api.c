/* test_api.c - unit tests for the public C API (src/api.c).
 *
 * Scripts passed to msb_exec use only plain bash (echo, redirection, cd,
 * exit, true, false) so the cases hold with the real shell. Every sandbox
 * is closed through api_close, which must report zero leaked bytes. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"
#include "../../src/sha256.h"
#include "test.h"

static msb_sandbox *ta_open(void) {
  msb_sandbox *sb = NULL;
  if (msb_open(NULL, &sb)) return NULL;
  return sb;
}

static int ta_put(msb_sandbox *sb, const char *path, const char *s) {
  return msb_write(sb, path, s, strlen(s), MSB_WRITE_ANY, NULL, 0, 0);
}

/* File content as a string ("ERR<code>" on failure). */
static const char *ta_get(msb_sandbox *sb, const char *path, char *out,
                          size_t cap) {
  uint8_t *d;
  size_t n;
  int rc = msb_read(sb, path, &d, &n);
  if (rc) {
    snprintf(out, cap, "ERR%d", rc);
    return out;
  }
  if (n >= cap) n = cap - 1;
  memcpy(out, d, n);
  out[n] = 0;
  msb_free(sb, d);
  return out;
}

static void ta_hex(const uint8_t *h, char *out) {
  static const char hx[] = "0123456789abcdef";
  int i;
  for (i = 0; i < 32; i++) {
    out[2 * i] = hx[h[i] >> 4];
    out[2 * i + 1] = hx[h[i] & 15];
  }
  out[64] = 0;
}

typedef struct ta_state {
  uint8_t h[32];
  uint64_t rev, bytes, nodes;
} ta_state;

static void ta_snap(msb_sandbox *sb, ta_state *s) {
  memset(s, 0, sizeof *s);
  vfs_hash(sb->fs, "/", 0, s->h);
  s->rev = msb_revision(sb);
  s->bytes = vfs_total_bytes(sb->fs);
  s->nodes = vfs_total_nodes(sb->fs);
}

static int ta_same(msb_sandbox *sb, const ta_state *a) {
  ta_state b;
  ta_snap(sb, &b);
  return !memcmp(a->h, b.h, 32) && a->rev == b.rev && a->bytes == b.bytes &&
         a->nodes == b.nodes;
}

TEST("api-1.1") { /* limit profiles */
  msb_limits l;
  CHECK(msb_limits_init(&l, MSB_PROFILE_NORMAL) == 0);
  CHECK(l.max_memory_bytes == 1073741824ull &&
        l.max_total_bytes == 268435456ull && l.max_file_bytes == 67108864ull &&
        l.max_nodes == 100000 && l.max_path_bytes == 4096 &&
        l.max_segment_bytes == 255 && l.max_depth == 256 &&
        l.max_steps == 10000000 && l.max_call_depth == 1000 &&
        l.max_script_bytes == 1048576 && l.max_output_bytes == 16777216 &&
        l.max_string_bytes == 67108864ull && l.max_array_items == 1000000 &&
        l.max_glob_work == 1000000);
  CHECK(msb_limits_init(&l, MSB_PROFILE_STRICT) == 0);
  CHECK(l.max_memory_bytes == 67108864ull && l.max_total_bytes == 16777216 &&
        l.max_file_bytes == 4194304 && l.max_nodes == 10000 &&
        l.max_path_bytes == 4096 && l.max_segment_bytes == 255 &&
        l.max_depth == 64 && l.max_steps == 100000 && l.max_call_depth == 100 &&
        l.max_script_bytes == 32768 && l.max_output_bytes == 262144 &&
        l.max_string_bytes == 1048576 && l.max_array_items == 10000 &&
        l.max_glob_work == 100000);
  CHECK(msb_limits_init(&l, 7) == MSB_EINVAL);
  CHECK(msb_limits_init(NULL, 0) == MSB_EINVAL);
}

TEST("api-1.2") { /* open: configs, bad limits, close checks */
  msb_sandbox *sb = (msb_sandbox *)&sb;
  msb_limits l;
  msb_config cfg;
  memset(&cfg, 0, sizeof cfg);
  CHECK(msb_open(NULL, NULL) == MSB_EINVAL);
  msb_limits_init(&l, MSB_PROFILE_NORMAL);
  cfg.limits = &l;
  l.max_nodes = 0;
  CHECK(msb_open(&cfg, &sb) == MSB_EINVAL && sb == NULL);
  msb_limits_init(&l, MSB_PROFILE_NORMAL);
  l.max_file_bytes = l.max_total_bytes + 1;
  CHECK(msb_open(&cfg, &sb) == MSB_EINVAL);
  msb_limits_init(&l, MSB_PROFILE_NORMAL);
  l.max_segment_bytes = 8;
  CHECK(msb_open(&cfg, &sb) == MSB_EINVAL);
  msb_limits_init(&l, MSB_PROFILE_STRICT);
  l.max_steps = 0;
  CHECK(msb_open(&cfg, &sb) == MSB_EINVAL);
  msb_limits_init(&l, MSB_PROFILE_STRICT);
  cfg.clock_ns = 1234;
  CHECK(msb_open(&cfg, &sb) == 0 && sb);
  CHECK(msb_clock(sb) == 1234);
  CHECK(msb_memory_used(sb) > 0);
  CHECK(msb_revision(sb) == 0);
  CHECK(api_close(sb) == 0);
  msb_close(NULL);
  /* a memory limit too small for the sandbox itself */
  msb_limits_init(&l, MSB_PROFILE_STRICT);
  l.max_memory_bytes = 1 << 20;
  CHECK(msb_open(&cfg, &sb) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("api-1.3") { /* NULL handles are misuse, with a message */
  uint8_t h[32], *d;
  size_t n, c;
  char *s;
  uint32_t id;
  msb_stat st;
  msb_result r;
  msb_sandbox *o;
  CHECK(msb_errmsg(NULL) && *msb_errmsg(NULL));
  CHECK(msb_read(NULL, "a", &d, &n) == MSB_EMISUSE);
  CHECK(msb_write(NULL, "a", "", 0, 0, NULL, 0, 0) == MSB_EMISUSE);
  CHECK(msb_append(NULL, "a", "", 0, 0) == MSB_EMISUSE);
  CHECK(msb_stat_path(NULL, "a", 0, &st) == MSB_EMISUSE);
  CHECK(msb_list(NULL, "a", &s, &n, &c) == MSB_EMISUSE);
  CHECK(msb_mkdir(NULL, "a", 0, 0) == MSB_EMISUSE);
  CHECK(msb_remove(NULL, "a", 0) == MSB_EMISUSE);
  CHECK(msb_copy(NULL, "a", "b", 0) == MSB_EMISUSE);
  CHECK(msb_move(NULL, "a", "b", 0) == MSB_EMISUSE);
  CHECK(msb_symlink(NULL, "a", "b") == MSB_EMISUSE);
  CHECK(msb_readlink(NULL, "a", &s) == MSB_EMISUSE);
  CHECK(msb_chmod(NULL, "a", 0) == MSB_EMISUSE);
  CHECK(msb_hash(NULL, "a", h) == MSB_EMISUSE);
  CHECK(msb_root_hash(NULL, h) == MSB_EMISUSE);
  CHECK(msb_exec(NULL, "", 0, NULL, &r) == MSB_EMISUSE);
  CHECK(msb_parse_check(NULL, "", 0) == MSB_EMISUSE);
  CHECK(msb_checkpoint(NULL, &id) == MSB_EMISUSE);
  CHECK(msb_rollback(NULL, 1) == MSB_EMISUSE);
  CHECK(msb_release(NULL, 1) == MSB_EMISUSE);
  CHECK(msb_fork(NULL, &o) == MSB_EMISUSE);
  CHECK(msb_set_clock(NULL, 1) == MSB_EMISUSE);
  CHECK(msb_revision(NULL) == 0 && msb_memory_used(NULL) == 0);
  msb_free(NULL, NULL);
  msb_result_finish(NULL, NULL);
}

TEST("api-2.1") { /* read/write round trip, relative paths, messages */
  msb_sandbox *sb = ta_open();
  char s[128];
  uint8_t *d;
  size_t n;
  REQUIRE(sb);
  CHECK(ta_put(sb, "a.txt", "hello\n") == 0);
  CHECK_STR(ta_get(sb, "/workspace/a.txt", s, sizeof s), "hello\n");
  CHECK_STR(ta_get(sb, "./x/../a.txt", s, sizeof s), "ERR-2"); /* physical */
  CHECK(msb_read(sb, "missing.txt", &d, &n) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "/workspace/missing.txt does not exist");
  CHECK(ta_put(sb, "no/dir/f", "x") == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb),
            "parent directory /workspace/no/dir does not "
            "exist");
  CHECK(ta_put(sb, "a.txt/f", "x") == MSB_ENOTDIR);
  CHECK_STR(msb_errmsg(sb), "/workspace/a.txt is not a directory");
  CHECK(ta_put(sb, "/workspace", "x") == MSB_EISDIR);
  CHECK_STR(msb_errmsg(sb), "/workspace is not a file");
  CHECK(msb_read(sb, "/tmp", &d, &n) == MSB_EISDIR);
  CHECK_STR(msb_errmsg(sb), "/tmp is not a file");
  CHECK(msb_read(sb, "", &d, &n) == MSB_EINVAL);
  CHECK_STR(msb_errmsg(sb), "path must not be empty");
  CHECK(msb_read(sb, NULL, &d, &n) == MSB_EINVAL);
  CHECK(msb_write(sb, "b", "abc", 3, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS) == 0);
  CHECK(msb_write(sb, "p/q/r", "abc", 3, MSB_WRITE_ANY, NULL, 0600,
                  MSB_PARENTS) == 0);
  CHECK(msb_write(sb, "b", "abc", 3, 9, NULL, 0, 0) == MSB_EINVAL);
  CHECK(msb_write(sb, "b", "abc", 3, 0, NULL, 0, 64) == MSB_EINVAL);
  CHECK(msb_write(sb, "b", "abc", 3, 0, NULL, 010000, 0) == MSB_EINVAL);
  CHECK(msb_write(sb, "b", NULL, 3, 0, NULL, 0, 0) == MSB_EINVAL);
  CHECK(msb_write(sb, "b", NULL, 0, 0, NULL, 0, 0) == 0);
  CHECK_STR(ta_get(sb, "b", s, sizeof s), "");
  CHECK(msb_read(sb, "b", &d, &n) == 0 && n == 0);
  msb_free(sb, d);
  CHECK(api_close(sb) == 0);
}

TEST("api-2.2") { /* preconditions, append, modes */
  msb_sandbox *sb = ta_open();
  char s[128];
  uint8_t h[32];
  msb_stat st;
  REQUIRE(sb);
  CHECK(msb_write(sb, "a", "1", 1, MSB_WRITE_MUST_NOT_EXIST, NULL, 0, 0) == 0);
  CHECK(msb_write(sb, "a", "1", 1, MSB_WRITE_MUST_NOT_EXIST, NULL, 0, 0) ==
        MSB_EEXIST);
  CHECK_STR(msb_errmsg(sb), "/workspace/a already exists");
  sha256_digest("1", 1, h);
  CHECK(msb_write(sb, "a", "2", 1, MSB_WRITE_HASH_EQUALS, h, 0, 0) == 0);
  CHECK(msb_write(sb, "a", "3", 1, MSB_WRITE_HASH_EQUALS, h, 0, 0) ==
        MSB_ESTALE);
  CHECK_STR(msb_errmsg(sb),
            "/workspace/a content hash does not match the expected hash");
  CHECK(msb_write(sb, "zz", "3", 1, MSB_WRITE_HASH_EQUALS, h, 0, 0) ==
        MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "/workspace/zz does not exist");
  CHECK(msb_write(sb, "a", "3", 1, MSB_WRITE_HASH_EQUALS, NULL, 0, 0) ==
        MSB_EINVAL);
  CHECK(msb_append(sb, "a", "xy", 2, 0) == 0);
  CHECK(msb_append(sb, "new", "xy", 2, 0) == 0);
  CHECK(msb_append(sb, "d/new", "xy", 2, MSB_PARENTS) == 0);
  CHECK_STR(ta_get(sb, "a", s, sizeof s), "2xy");
  CHECK(msb_chmod(sb, "a", 0700) == 0);
  CHECK(msb_write(sb, "a", "m", 1, 0, NULL, 0, 0) == 0);
  CHECK(msb_stat_path(sb, "a", 0, &st) == 0 && st.mode == 0700 &&
        st.kind == MSB_FILE && st.size == 1 && st.nodes == 1);
  CHECK(msb_write(sb, "a", "m", 1, 0, NULL, 0640, 0) == 0);
  CHECK(msb_stat_path(sb, "a", 0, &st) == 0 && st.mode == 0640);
  CHECK(msb_chmod(sb, "a", 070000) == MSB_EINVAL);
  CHECK(msb_chmod(sb, "nope", 0600) == MSB_ENOENT);
  CHECK(msb_stat_path(sb, "/workspace", 0, &st) == 0 && st.kind == MSB_DIR &&
        st.nodes == 5 && st.bytes == 5 && st.size == 0);
  CHECK(msb_stat_path(sb, "a", 99, &st) == MSB_EINVAL);
  CHECK(api_close(sb) == 0);
}

TEST("api-2.3") { /* quotas with the reference wording */
  msb_sandbox *sb = NULL;
  msb_limits l;
  msb_config cfg;
  char big[200];
  int i;
  memset(&cfg, 0, sizeof cfg);
  memset(big, 'x', sizeof big);
  msb_limits_init(&l, MSB_PROFILE_STRICT);
  l.max_file_bytes = 100;
  l.max_total_bytes = 250;
  l.max_nodes = 8;
  cfg.limits = &l;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  CHECK(msb_write(sb, "a", big, 101, 0, NULL, 0, 0) == MSB_EFBIG);
  CHECK_STR(msb_errmsg(sb), "file contains 101 bytes; limit is 100 bytes");
  CHECK(msb_write(sb, "a", big, 100, 0, NULL, 0, 0) == 0);
  CHECK(msb_append(sb, "a", big, 1, 0) == MSB_EFBIG);
  CHECK_STR(msb_errmsg(sb), "file contains 101 bytes; limit is 100 bytes");
  CHECK(msb_write(sb, "b", big, 100, 0, NULL, 0, 0) == 0);
  CHECK(msb_write(sb, "c", big, 51, 0, NULL, 0, 0) == MSB_ENOSPC);
  CHECK_STR(msb_errmsg(sb), "workspace contains 251 bytes; limit is 250 bytes");
  CHECK(msb_copy(sb, "a", "c", 0) == MSB_ENOSPC);
  CHECK_STR(msb_errmsg(sb), "workspace contains 300 bytes; limit is 250 bytes");
  for (i = 0; i < 10; i++) {
    char p[16];
    snprintf(p, sizeof p, "e%d", i);
    if (msb_write(sb, p, "", 0, 0, NULL, 0, 0)) break;
  }
  /* /workspace, a, b, e0..e4; "/" and /tmp are the sandbox's own */
  CHECK(i == 5);
  CHECK_STR(msb_errmsg(sb), "workspace contains 9 nodes; limit is 8 nodes");
  CHECK(api_close(sb) == 0);
}

TEST("api-2.4") { /* mkdir, remove, list, symlink, readlink, hash */
  msb_sandbox *sb = ta_open();
  char *names, *t;
  size_t len, count;
  uint8_t h[32];
  char x[65];
  REQUIRE(sb);
  CHECK(msb_mkdir(sb, "d", 0, 0) == 0);
  CHECK(msb_mkdir(sb, "d", 0, 0) == MSB_EEXIST);
  CHECK_STR(msb_errmsg(sb), "/workspace/d already exists");
  CHECK(msb_mkdir(sb, "d", 0, MSB_EXIST_OK) == 0);
  CHECK(msb_mkdir(sb, "/workspace", 0, MSB_EXIST_OK) == 0);
  CHECK(msb_mkdir(sb, "x/y", 0, 0) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "parent directory /workspace/x does not exist");
  CHECK(msb_mkdir(sb, "x/y", 0, MSB_PARENTS) == 0);
  CHECK(msb_mkdir(sb, "x", 0, 256) == MSB_EINVAL);
  CHECK(ta_put(sb, "d/b", "1") == 0);
  CHECK(ta_put(sb, "d/a", "2") == 0);
  CHECK(msb_list(sb, "d", &names, &len, &count) == 0);
  CHECK(count == 2 && len == 4 && !memcmp(names, "a\0b\0", 4));
  msb_free(sb, names);
  CHECK(msb_list(sb, "x/y", &names, &len, &count) == 0);
  CHECK(count == 0 && len == 0 && names == NULL);
  CHECK(msb_list(sb, "d/a", &names, &len, &count) == MSB_ENOTDIR);
  CHECK(msb_remove(sb, "d", 0) == MSB_ENOTEMPTY);
  CHECK_STR(msb_errmsg(sb), "/workspace/d is not empty");
  CHECK(msb_remove(sb, "x/y", 0) == 0); /* empty dirs need no flag */
  CHECK(msb_remove(sb, "d", MSB_RECURSIVE) == 0);
  CHECK(msb_remove(sb, "d", 0) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "/workspace/d does not exist");
  CHECK(msb_remove(sb, "d", MSB_MISSING_OK) == 0);
  CHECK(msb_remove(sb, "/workspace", MSB_RECURSIVE) == MSB_EPERM);
  CHECK_STR(msb_errmsg(sb), "the workspace root cannot be removed");
  CHECK(msb_remove(sb, "/", MSB_RECURSIVE) == MSB_EPERM);
  CHECK_STR(msb_errmsg(sb), "/ cannot be removed");
  CHECK(msb_symlink(sb, "target/x", "l") == 0);
  CHECK(msb_readlink(sb, "l", &t) == 0);
  CHECK_STR(t, "target/x");
  msb_free(sb, t);
  CHECK(msb_readlink(sb, "x", &t) == MSB_EINVAL && t == NULL);
  CHECK_STR(msb_errmsg(sb), "/workspace/x is not a symbolic link");
  CHECK(msb_symlink(sb, "", "l2") == MSB_EINVAL);
  CHECK(msb_symlink(sb, "a", "l") == MSB_EEXIST);
  CHECK(msb_remove(sb, "l", 0) == 0);
  CHECK(msb_remove(sb, "x", 0) == 0);
  CHECK(msb_root_hash(sb, h) == 0);
  ta_hex(h, x);
  CHECK_STR(x,
            "f149ee920776190f28700ae94e3dd5d4a7c1e1608aab672d29d5806acb31258a");
  CHECK(ta_put(sb, "a.txt", "hello\n") == 0);
  CHECK(msb_root_hash(sb, h) == 0);
  ta_hex(h, x);
  CHECK_STR(x,
            "8fcb7f8771fedeaa3f857b402a14a37ec8c9cfc1a831bfcb3737b785f8162228");
  CHECK(msb_hash(sb, "/workspace", h) == 0);
  ta_hex(h, x);
  CHECK_STR(x,
            "8fcb7f8771fedeaa3f857b402a14a37ec8c9cfc1a831bfcb3737b785f8162228");
  CHECK(msb_hash(sb, "a.txt", h) == 0);
  ta_hex(h, x);
  CHECK_STR(x,
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  CHECK(msb_hash(sb, "nope", h) == MSB_ENOENT);
  CHECK(api_close(sb) == 0);
}

TEST("api-2.5") { /* copy and move */
  msb_sandbox *sb = ta_open();
  char s[64];
  msb_stat st;
  ta_state s0;
  REQUIRE(sb);
  CHECK(msb_mkdir(sb, "d/e", 0, MSB_PARENTS) == 0);
  CHECK(ta_put(sb, "d/e/f", "F") == 0);
  CHECK(ta_put(sb, "g", "G") == 0);
  ta_snap(sb, &s0);
  CHECK(msb_copy(sb, "d", "c", 0) == MSB_EISDIR);
  CHECK(msb_copy(sb, "d", "d", MSB_RECURSIVE) == MSB_ESAME);
  CHECK_STR(msb_errmsg(sb), "source and destination must differ");
  CHECK(msb_copy(sb, "d", "d/e/x", MSB_RECURSIVE) == MSB_EBUSY);
  CHECK_STR(msb_errmsg(sb), "source and destination paths must not overlap");
  CHECK(msb_move(sb, "d/e", "d", MSB_OVERWRITE) == MSB_EBUSY);
  CHECK(msb_copy(sb, "/workspace", "w2", MSB_RECURSIVE) == MSB_EPERM);
  CHECK_STR(msb_errmsg(sb), "the workspace root cannot be copied or moved");
  CHECK(msb_move(sb, "g", "/workspace", MSB_OVERWRITE) == MSB_EPERM);
  CHECK(msb_copy(sb, "g", "d", 0) == MSB_EEXIST);
  CHECK_STR(msb_errmsg(sb), "/workspace/d already exists");
  CHECK(msb_copy(sb, "nope", "x", 0) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "/workspace/nope does not exist");
  CHECK(msb_copy(sb, "g", "x/y", 0) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "parent directory /workspace/x does not exist");
  CHECK(msb_copy(sb, "g", "x", 128) == MSB_EINVAL);
  CHECK(msb_move(sb, "g", "x", MSB_RECURSIVE) == MSB_EINVAL);
  CHECK(ta_same(sb, &s0));
  CHECK(msb_copy(sb, "d", "c", MSB_RECURSIVE) == 0);
  CHECK(msb_revision(sb) == s0.rev + 1);
  CHECK_STR(ta_get(sb, "c/e/f", s, sizeof s), "F");
  CHECK(msb_copy(sb, "g", "x/y/z", MSB_PARENTS) == 0);
  CHECK_STR(ta_get(sb, "x/y/z", s, sizeof s), "G");
  /* overwrite replaces the whole node, across kinds, in one revision */
  ta_snap(sb, &s0);
  CHECK(msb_copy(sb, "g", "c", MSB_OVERWRITE) == 0);
  CHECK(msb_revision(sb) == s0.rev + 1);
  CHECK(msb_stat_path(sb, "c", 0, &st) == 0 && st.kind == MSB_FILE);
  CHECK(msb_move(sb, "d", "c", MSB_OVERWRITE) == 0);
  CHECK(msb_revision(sb) == s0.rev + 2);
  CHECK_STR(ta_get(sb, "c/e/f", s, sizeof s), "F");
  CHECK(msb_stat_path(sb, "d", 0, &st) == MSB_ENOENT);
  CHECK(msb_move(sb, "g", "c", 0) == MSB_EEXIST);
  CHECK(msb_move(sb, "g", "n/m", MSB_PARENTS) == 0);
  CHECK_STR(ta_get(sb, "n/m", s, sizeof s), "G");
  CHECK(api_close(sb) == 0);
}

TEST("api-3.1") { /* revisions: one per success, none per failure */
  msb_sandbox *sb = ta_open();
  uint64_t r;
  REQUIRE(sb);
  CHECK(ta_put(sb, "a", "1") == 0);
  CHECK(msb_revision(sb) == 1);
  CHECK(msb_mkdir(sb, "p/q/r", 0, MSB_PARENTS) == 0);
  CHECK(msb_revision(sb) == 2);
  r = msb_revision(sb);
  CHECK(msb_mkdir(sb, "p", 0, MSB_EXIST_OK) == 0);
  CHECK(msb_remove(sb, "zz", MSB_MISSING_OK) == 0);
  CHECK(msb_remove(sb, "zz", 0) == MSB_ENOENT);
  CHECK(ta_put(sb, "zz/a", "1") == MSB_ENOENT);
  CHECK(msb_revision(sb) == r);
  CHECK(msb_remove(sb, "p", MSB_RECURSIVE) == 0);
  CHECK(msb_revision(sb) == r + 1);
  CHECK(api_close(sb) == 0);
}

TEST("api-4.1") { /* checkpoints: rollback restores hash, revision, cwd */
  msb_sandbox *sb = ta_open();
  uint32_t a, b;
  uint8_t h0[32], h1[32], h[32];
  char s[64];
  msb_result r;
  REQUIRE(sb);
  CHECK(ta_put(sb, "f", "one") == 0);
  CHECK(msb_mkdir(sb, "d", 0, 0) == 0);
  CHECK(msb_root_hash(sb, h0) == 0);
  CHECK(msb_checkpoint(sb, &a) == 0);
  CHECK(ta_put(sb, "f", "two") == 0);
  CHECK(msb_exec(sb, "cd d", 4, NULL, &r) == 0);
  CHECK_STR(r.cwd, "/workspace/d");
  msb_result_finish(sb, &r);
  CHECK(msb_root_hash(sb, h1) == 0);
  CHECK(msb_checkpoint(sb, &b) == 0 && b != a);
  CHECK(msb_remove(sb, "/workspace/f", 0) == 0);
  CHECK(msb_rollback(sb, a) == 0);
  CHECK(msb_root_hash(sb, h) == 0 && !memcmp(h, h0, 32));
  CHECK(msb_revision(sb) == 2);
  CHECK_STR(ta_get(sb, "f", s, sizeof s), "one");
  CHECK(msb_exec(sb, "true", 4, NULL, &r) == 0);
  CHECK_STR(r.cwd, "/workspace");
  msb_result_finish(sb, &r);
  CHECK(msb_rollback(sb, b) == 0);
  CHECK(msb_root_hash(sb, h) == 0 && !memcmp(h, h1, 32));
  CHECK(msb_rollback(sb, a) == 0); /* still valid after use */
  CHECK(msb_root_hash(sb, h) == 0 && !memcmp(h, h0, 32));
  CHECK(msb_release(sb, a) == 0);
  CHECK(msb_release(sb, a) == MSB_EINVAL);
  CHECK(msb_rollback(sb, a) == MSB_EINVAL);
  CHECK_STR(msb_errmsg(sb), "no checkpoint 1");
  CHECK(msb_checkpoint(sb, NULL) == MSB_EINVAL);
  /* b stays held until close: close frees it without leaks */
  CHECK(api_close(sb) == 0);
}

/* Runs script and compares its stdout with want. */
static int ta_out(msb_sandbox *sb, const char *script, const char *want) {
  msb_result r;
  int ok = msb_exec(sb, script, strlen(script), NULL, &r) == 0 &&
           r.out_len == strlen(want) &&
           (!r.out_len || !memcmp(r.out, want, r.out_len));
  msb_result_finish(sb, &r);
  return ok;
}

TEST("api-4.3") { /* checkpoints share the session; each side stays apart */
  msb_sandbox *sb = ta_open();
  uint32_t a, b;
  REQUIRE(sb);
  CHECK(ta_out(sb, "x=1; f() { echo f$x; }; cd /tmp", ""));
  CHECK(msb_checkpoint(sb, &a) == 0);
  CHECK(msb_checkpoint(sb, &b) == 0);
  CHECK(ta_out(sb, "x=2; unset -f f; cd /; echo $x", "2\n"));
  CHECK(msb_rollback(sb, a) == 0);
  CHECK(ta_out(sb, "f; pwd; x=3; f() { echo g; }", "f1\n/tmp\n"));
  CHECK(msb_rollback(sb, b) == 0);
  CHECK(ta_out(sb, "f; echo $x", "f1\n1\n"));
  CHECK(msb_rollback(sb, a) == 0);
  CHECK(msb_release(sb, a) == 0); /* the session still holds it */
  CHECK(msb_release(sb, b) == 0);
  CHECK(ta_out(sb, "f; x=4; echo $x", "f1\n4\n"));
  CHECK(api_close(sb) == 0);
}

TEST("api-4.2") { /* exec: one revision per command that changed something (the
                     * reference counts mutations); atomic rollback */
  msb_sandbox *sb = ta_open();
  msb_result r;
  msb_exec_opts o;
  char s[64];
  static const char s1[] = "echo a > x.txt; echo b > y.txt";
  static const char s2[] = "echo c > x.txt; echo d > z.txt; false";
  static const char s3[] = "echo e > x.txt; true";
  REQUIRE(sb);
  CHECK(msb_exec(sb, s1, strlen(s1), NULL, &r) == 0);
  CHECK(r.exit_code == 0 && !r.rolled_back);
  msb_result_finish(sb, &r);
  CHECK(msb_revision(sb) == 2);
  CHECK(msb_exec(sb, "true", 4, NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK(msb_revision(sb) == 2);
  memset(&o, 0, sizeof o);
  o.atomic = 1;
  CHECK(msb_exec(sb, s2, strlen(s2), &o, &r) == 0);
  CHECK(r.exit_code == 1 && r.rolled_back);
  msb_result_finish(sb, &r);
  CHECK(msb_revision(sb) == 2);
  CHECK_STR(ta_get(sb, "x.txt", s, sizeof s), "a\n");
  CHECK_STR(ta_get(sb, "z.txt", s, sizeof s), "ERR-2");
  CHECK(msb_exec(sb, s3, strlen(s3), &o, &r) == 0);
  CHECK(r.exit_code == 0 && !r.rolled_back);
  msb_result_finish(sb, &r);
  CHECK(msb_revision(sb) == 3);
  CHECK_STR(ta_get(sb, "x.txt", s, sizeof s), "e\n");
  CHECK(msb_exec(sb, s2, strlen(s2), NULL, &r) == 0);
  CHECK(r.exit_code == 1 && !r.rolled_back);
  msb_result_finish(sb, &r);
  CHECK(msb_revision(sb) == 5);
  CHECK_STR(ta_get(sb, "z.txt", s, sizeof s), "d\n");
  CHECK(msb_exec(sb, "echo hi", 7, NULL, &r) == 0);
  CHECK(r.out_len == 3 && !memcmp(r.out, "hi\n", 3));
  msb_result_finish(sb, &r);
  CHECK(msb_exec(sb, NULL, 3, NULL, &r) == MSB_EINVAL);
  CHECK(msb_exec(sb, "x", 1, NULL, NULL) == MSB_EINVAL);
  CHECK(msb_parse_check(sb, "echo hi", 7) == 0);
  CHECK(msb_parse_check(sb, "fi", 2) == MSB_ESYNTAX);
  CHECK(msb_parse_check(sb, "if true; then", 13) == MSB_EINCOMPLETE);
  CHECK(api_close(sb) == 0);
}

/* Runs script with opts; returns stdout then stderr in out. */
static void ta_exec_text(msb_sandbox *sb, const char *script,
                         const msb_exec_opts *o, char *out, size_t cap) {
  msb_result r;
  out[0] = 0;
  if (msb_exec(sb, script, strlen(script), o, &r)) return;
  snprintf(out, cap, "%.*s%.*s", (int)r.out_len, r.out, (int)r.err_len, r.err);
  msb_result_finish(sb, &r);
}

TEST("api-4.4") { /* exec: arg0 is $0 and the messages' name, one call */
  msb_sandbox *sb = ta_open();
  msb_exec_opts o;
  char s[256];
  static const char script[] = "echo $0; (echo $0); nosuch";
  REQUIRE(sb);
  memset(&o, 0, sizeof o);
  o.arg0 = "job.sh";
  ta_exec_text(sb, script, &o, s, sizeof s);
  CHECK_STR(s, "job.sh\njob.sh\njob.sh: line 1: nosuch: command not found\n");
  ta_exec_text(sb, "if", &o, s, sizeof s);
  CHECK_STR(s, "job.sh: -c: line 2: syntax error: unexpected end of file\n");
  ta_exec_text(sb, script, NULL, s, sizeof s); /* the session's $0 again */
  CHECK_STR(s, "bash\nbash\nbash: line 1: nosuch: command not found\n");
  o.fresh_state = 1;
  o.arg0 = "";
  ta_exec_text(sb, "echo \"[$0]\"", &o, s, sizeof s);
  CHECK_STR(s, "[]\n");
  CHECK(api_close(sb) == 0);
}

TEST("api-4.3") { /* fork gives a second sandbox (more in shstate-5.x) */
  msb_sandbox *sb = ta_open(), *f = NULL;
  REQUIRE(sb);
  CHECK(msb_fork(sb, NULL) == MSB_EINVAL);
  CHECK(msb_fork(sb, &f) == 0 && f != NULL && f != sb);
  CHECK(api_close(f) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("api-2.6") { /* clock, links, NOFOLLOW */
  msb_sandbox *sb = ta_open();
  msb_stat st;
  uint8_t h[32], want[32];
  REQUIRE(sb);
  CHECK(msb_set_clock(sb, 777000) == 0 && msb_clock(sb) == 777000);
  CHECK(ta_put(sb, "f", "data") == 0);
  CHECK(msb_stat_path(sb, "f", 0, &st) == 0 && st.mtime_ns == 777000);
  CHECK(msb_set_clock(sb, 888000) == 0);
  CHECK(msb_symlink(sb, "f", "l") == 0);
  CHECK(msb_stat_path(sb, "l", MSB_NOFOLLOW, &st) == 0 && st.kind == MSB_LINK &&
        st.size == 1 && st.mtime_ns == 888000);
  CHECK(msb_stat_path(sb, "l", 0, &st) == 0 && st.kind == MSB_FILE &&
        st.size == 4 && st.mtime_ns == 777000);
  CHECK(msb_hash(sb, "l", h) == 0);
  sha256_digest("f", 1, want);
  CHECK(!memcmp(h, want, 32)); /* a link hashes as its target string */
  CHECK(msb_symlink(sb, "l2", "l1") == 0);
  CHECK(msb_symlink(sb, "l1", "l2") == 0);
  CHECK(msb_stat_path(sb, "l1", 0, &st) == MSB_ELOOP);
  CHECK_STR(msb_errmsg(sb), "/workspace/l1: too many levels of symbolic links");
  CHECK(api_close(sb) == 0);
}

/* One API operation for the fault-injection loop. */
static int ta_op(msb_sandbox *sb, int op) {
  uint8_t *d, h[32];
  size_t n, c;
  char *s;
  uint32_t id;
  int rc;
  msb_result r;
  static const char sc[] = "echo z > d/e/new; echo w > d/f";
  switch (op) {
  case 0: return ta_put(sb, "new", "abc");
  case 1: return msb_append(sb, "d/f", "x", 1, 0);
  case 2: return msb_write(sb, "p/q/r", "1", 1, 0, NULL, 0, MSB_PARENTS);
  case 3: return msb_mkdir(sb, "m/n", 0, MSB_PARENTS);
  case 4: return msb_remove(sb, "d", MSB_RECURSIVE);
  case 5: return msb_copy(sb, "d", "c", MSB_RECURSIVE);
  case 6: return msb_copy(sb, "g", "d", MSB_OVERWRITE);
  case 7: return msb_move(sb, "d", "g", MSB_OVERWRITE);
  case 8: return msb_move(sb, "d/f", "x/y", MSB_PARENTS);
  case 9: return msb_symlink(sb, "d", "l");
  case 10: return msb_chmod(sb, "d/f", 0600);
  case 11:
    rc = msb_read(sb, "d/f", &d, &n);
    if (!rc) msb_free(sb, d);
    return rc;
  case 12:
    rc = msb_list(sb, "d", &s, &n, &c);
    if (!rc) msb_free(sb, s);
    return rc;
  case 13: return msb_hash(sb, "d", h);
  case 14:
    rc = msb_checkpoint(sb, &id);
    if (!rc) rc = msb_rollback(sb, id);
    if (!rc) rc = msb_release(sb, id);
    return rc;
  case 15:
    memset(&r, 0, sizeof r);
    rc = msb_exec(sb, sc, strlen(sc), NULL, &r);
    msb_result_finish(sb, &r);
    return rc;
  case 16: {
    msb_exec_opts o;
    memset(&o, 0, sizeof o);
    o.atomic = 1;
    rc = msb_exec(sb, "echo z > d/f; false", 19, &o, &r);
    msb_result_finish(sb, &r);
    return rc;
  }
  case 17:
    rc = msb_readlink(sb, "lk", &s);
    if (!rc) msb_free(sb, s);
    return rc;
  case 18: {
    msb_exec_opts o;
    memset(&o, 0, sizeof o);
    o.arg0 = "name";
    rc = msb_exec(sb, "echo $0 > d/f; false", 20, &o, &r);
    msb_result_finish(sb, &r);
    return rc;
  }
  }
  return -1000;
}

/* Runs ops [from, to) with every allocation failing in turn. */
static void ta_fault_loop(int from, int to) {
  int op;
  for (op = from; op < to; op++) {
    long k;
    int rc = MSB_ENOMEM;
    for (k = 0; k < 2000 && rc == MSB_ENOMEM; k++) {
      msb_sandbox *sb = ta_open();
      ta_state s0;
      REQUIRE(sb);
      REQUIRE(msb_mkdir(sb, "d/e", 0, MSB_PARENTS) == 0);
      REQUIRE(ta_put(sb, "d/f", "F") == 0);
      REQUIRE(ta_put(sb, "g", "G") == 0);
      REQUIRE(msb_symlink(sb, "d/f", "lk") == 0);
      ta_snap(sb, &s0);
      sb->m.fail_after = k;
      rc = ta_op(sb, op);
      sb->m.fail_after = -1;
      if (rc == MSB_ENOMEM) {
        if (!ta_same(sb, &s0)) fprintf(stderr, "    op %d k %ld\n", op, k);
        CHECK(ta_same(sb, &s0));
        CHECK(strstr(msb_errmsg(sb), "out of memory") != NULL);
      } else if (rc) {
        fprintf(stderr, "    op %d: rc %d (%s)\n", op, rc, msb_errmsg(sb));
        CHECK(0);
      }
      CHECK(api_close(sb) == 0);
    }
    CHECK(rc == 0);
  }
}

TEST("api-5.1") { /* fault injection: filesystem operations */
  ta_fault_loop(0, 14);
  ta_fault_loop(17, 18);
}

TEST("api-5.2") { /* fault injection: checkpoints and exec (the shell) */
  ta_fault_loop(14, 17);
  ta_fault_loop(18, 19);
}
