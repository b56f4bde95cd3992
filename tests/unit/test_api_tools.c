/* test_api_tools.c - unit tests for msb_apply_patch and msb_session_cwd
 * (src/api_tools.c): both patch formats, the change records with their
 * hashes, atomicity across files, messages naming file and hunk, flags,
 * hostile input, and out-of-memory at every allocation. Every sandbox is
 * closed through api_close, which must report zero leaked bytes. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"
#include "../../src/sha256.h"
#include "test.h"

static msb_sandbox *tt_open(void) {
  msb_sandbox *sb = NULL;
  if (msb_open(NULL, &sb)) return NULL;
  return sb;
}

static int tt_put(msb_sandbox *sb, const char *path, const char *s) {
  return msb_write(sb, path, s, strlen(s), MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
}

/* File content as a string ("ERR<code>" on failure). */
static const char *tt_get(msb_sandbox *sb, const char *path, char *out,
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

static void tt_sha(const char *s, char out[65]) {
  static const char hx[] = "0123456789abcdef";
  uint8_t h[32];
  int i;
  sha256_digest(s, strlen(s), h);
  for (i = 0; i < 32; i++) {
    out[2 * i] = hx[h[i] >> 4];
    out[2 * i + 1] = hx[h[i] & 15];
  }
  out[64] = 0;
}

/* Applies p; the change records are joined into out as
 * "op path from prev cur;" with hashes shortened to 8 digits. */
static int tt_apply(msb_sandbox *sb, const char *p, unsigned flags, char *out,
                    size_t cap) {
  char *ch = NULL;
  size_t len = 0, count = 0, i, k;
  const char *s;
  int rc = msb_apply_patch(sb, p, strlen(p), NULL, flags, &ch, &len, &count);
  out[0] = 0;
  if (rc) return rc;
  s = ch;
  for (i = 0; i < count; i++) {
    for (k = 0; k < 5; k++) {
      size_t n = strlen(s), used = strlen(out);
      snprintf(out + used, cap - used, "%.*s%s", (int)(k >= 3 && n ? 8 : n), s,
               k < 4 ? " " : ";");
      s += n + 1;
    }
  }
  CHECK((size_t)(s - ch) == len);
  msb_free(sb, ch);
  return rc;
}

static const char *tt_short(const char *content, char hx[65]) {
  tt_sha(content, hx);
  hx[8] = 0;
  return hx;
}

TEST("tools-1.1") { /* unified diff: update, records, one revision */
  msb_sandbox *sb = tt_open();
  char out[512], got[256], want[512], h1[65], h2[65];
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tt_put(sb, "src/a.txt", "one\ntwo\nthree\n") == 0);
  rev = msb_revision(sb);
  CHECK(tt_apply(sb,
                 "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n"
                 "-two\n+TWO\n three\n",
                 0, out, sizeof out) == 0);
  snprintf(want, sizeof want, "update /workspace/src/a.txt  %s %s;",
           tt_short("one\ntwo\nthree\n", h1),
           tt_short("one\nTWO\nthree\n", h2));
  CHECK_STR(out, want);
  CHECK_STR(tt_get(sb, "src/a.txt", got, sizeof got), "one\nTWO\nthree\n");
  CHECK(msb_revision(sb) == rev + 1);
  CHECK_STR(msb_errmsg(sb), "");
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.2") { /* unified: create and delete via /dev/null, offsets */
  msb_sandbox *sb = tt_open();
  char out[512], got[256];
  REQUIRE(sb);
  REQUIRE(tt_put(sb, "old.txt", "bye\n") == 0);
  REQUIRE(tt_put(sb, "m.txt", "x\ny\nz\nk1\nk2\n") == 0);
  CHECK(tt_apply(sb,
                 "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
                 "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
                 "--- a/m.txt\n+++ b/m.txt\n@@ -2,2 +2,2 @@\n k1\n-k2\n+K2\n",
                 0, out, sizeof out) == 0);
  CHECK(strncmp(out, "add /workspace/new.txt  ", 24) == 0);
  CHECK(strstr(out, ";delete /workspace/old.txt  ") != NULL);
  CHECK(strstr(out, ";update /workspace/m.txt  ") != NULL);
  CHECK_STR(tt_get(sb, "new.txt", got, sizeof got), "hi\n");
  CHECK_STR(tt_get(sb, "old.txt", got, sizeof got), "ERR-2");
  CHECK_STR(tt_get(sb, "m.txt", got, sizeof got), "x\ny\nz\nk1\nK2\n");
  /* the same hunk at its stated line fails with MSB_PATCH_EXACT */
  CHECK(tt_apply(sb,
                 "--- a/m.txt\n+++ b/m.txt\n@@ -2,2 +2,2 @@\n k1\n-K2\n+k2\n",
                 MSB_PATCH_EXACT, out, sizeof out) == MSB_ECORRUPT);
  CHECK_STR(msb_errmsg(sb),
            "patch context for m.txt does not match at line 2 (hunk #1)");
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.3") { /* V4A: add, update with anchor, delete, move */
  msb_sandbox *sb = tt_open();
  char out[1024], got[256], h1[65], h2[65], want[1024];
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tt_put(sb, "a.py", "def f():\n    return 1\n") == 0);
  REQUIRE(tt_put(sb, "gone.txt", "x\n") == 0);
  REQUIRE(tt_put(sb, "from.txt", "keep\nold\n") == 0);
  rev = msb_revision(sb);
  CHECK(tt_apply(sb,
                 "*** Begin Patch\n"
                 "*** Add File: dir/new.txt\n+hello\n+world\n"
                 "*** Update File: a.py\n@@ def f():\n-    return 1\n"
                 "+    return 2\n"
                 "*** Delete File: gone.txt\n"
                 "*** Update File: from.txt\n*** Move to: to/moved.txt\n"
                 "@@\n keep\n-old\n+new\n"
                 "*** End Patch\n",
                 0, out, sizeof out) == 0);
  snprintf(want, sizeof want,
           "add /workspace/dir/new.txt   %s;"
           "update /workspace/a.py  %s ",
           tt_short("hello\nworld\n", h1),
           tt_short("def f():\n    return 1\n", h2));
  CHECK(strncmp(out, want, strlen(want)) == 0);
  snprintf(want, sizeof want,
           "move /workspace/to/moved.txt /workspace/from.txt %s ",
           tt_short("keep\nold\n", h1));
  CHECK(strstr(out, want) != NULL);
  CHECK(strstr(out, "delete /workspace/gone.txt  ") != NULL);
  CHECK(strstr(out, "delete /workspace/from.txt") == NULL);
  CHECK_STR(tt_get(sb, "dir/new.txt", got, sizeof got), "hello\nworld\n");
  CHECK_STR(tt_get(sb, "a.py", got, sizeof got), "def f():\n    return 2\n");
  CHECK_STR(tt_get(sb, "to/moved.txt", got, sizeof got), "keep\nnew\n");
  CHECK_STR(tt_get(sb, "from.txt", got, sizeof got), "ERR-2");
  CHECK_STR(tt_get(sb, "gone.txt", got, sizeof got), "ERR-2");
  CHECK(msb_revision(sb) == rev + 1);
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.4") { /* atomic: a failing second file changes nothing */
  msb_sandbox *sb = tt_open();
  char out[512], got[256];
  uint8_t h0[32], h1[32];
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tt_put(sb, "a.txt", "a\n") == 0);
  REQUIRE(tt_put(sb, "b.txt", "b\n") == 0);
  rev = msb_revision(sb);
  REQUIRE(msb_root_hash(sb, h0) == 0);
  CHECK(tt_apply(sb,
                 "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n"
                 "*** Update File: b.txt\n@@\n-nope\n+B\n*** End Patch\n",
                 0, out, sizeof out) == MSB_ECORRUPT);
  CHECK(strstr(msb_errmsg(sb), "b.txt (hunk #1)") != NULL);
  CHECK(tt_apply(sb,
                 "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+A\n"
                 "--- missing.txt\n+++ missing.txt\n@@ -1 +1 @@\n-a\n+A\n",
                 0, out, sizeof out) == MSB_ENOENT);
  CHECK_STR(msb_errmsg(sb), "missing.txt: No such file or directory");
  CHECK(tt_apply(sb, "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n?a\n+A\n", 0, out,
                 sizeof out) == MSB_ECORRUPT);
  CHECK(strncmp(msb_errmsg(sb), "malformed patch at line 4", 25) == 0);
  CHECK(tt_apply(sb, "*** Begin Patch\n*** Frobnicate File: a\n", 0, out,
                 sizeof out) == MSB_ECORRUPT);
  CHECK(strncmp(msb_errmsg(sb), "invalid V4A patch at line 2", 27) == 0);
  CHECK(tt_apply(sb, "hello\n", 0, out, sizeof out) == MSB_ECORRUPT);
  CHECK_STR(msb_errmsg(sb), "patch contains no file changes");
  CHECK(tt_apply(sb, "", 0, out, sizeof out) == MSB_ECORRUPT);
  CHECK(msb_apply_patch(sb, "--- a\0", 6, NULL, 0, NULL, NULL, NULL) ==
        MSB_ECORRUPT);
  CHECK(msb_apply_patch(sb, "x", 1, "rel", 0, NULL, NULL, NULL) == MSB_EINVAL);
  CHECK(msb_apply_patch(sb, "x", 1, NULL, 64, NULL, NULL, NULL) == MSB_EINVAL);
  CHECK(msb_apply_patch(sb, NULL, 3, NULL, 0, NULL, NULL, NULL) == MSB_EINVAL);
  CHECK(msb_apply_patch(NULL, "x", 1, NULL, 0, NULL, NULL, NULL) ==
        MSB_EMISUSE);
  CHECK(msb_revision(sb) == rev);
  REQUIRE(msb_root_hash(sb, h1) == 0);
  CHECK(!memcmp(h0, h1, 32));
  CHECK_STR(tt_get(sb, "a.txt", got, sizeof got), "a\n");
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.5") { /* dry run, cwd, no change list, session cwd */
  msb_sandbox *sb = tt_open();
  char out[512], got[256];
  msb_result r;
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tt_put(sb, "sub/a.txt", "a\n") == 0);
  rev = msb_revision(sb);
  CHECK(tt_apply(sb, "--- sub/a.txt\n+++ sub/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
                 MSB_PATCH_DRY_RUN, out, sizeof out) == 0);
  {
    char want[256], h1[65], h2[65];
    snprintf(want, sizeof want, "update /workspace/sub/a.txt  %s %s;",
             tt_short("a\n", h1), tt_short("A\n", h2));
    CHECK_STR(out, want);
  }
  CHECK_STR(tt_get(sb, "sub/a.txt", got, sizeof got), "a\n");
  CHECK(msb_revision(sb) == rev);
  CHECK(msb_apply_patch(sb, "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+A\n", 38,
                        "/workspace/sub", 0, NULL, NULL, NULL) == 0);
  CHECK_STR(tt_get(sb, "sub/a.txt", got, sizeof got), "A\n");
  CHECK(msb_revision(sb) == rev + 1);
  CHECK_STR(msb_session_cwd(sb), "/workspace");
  CHECK(msb_exec(sb, "cd sub", 6, NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK_STR(msb_session_cwd(sb), "/workspace/sub");
  CHECK_STR(msb_session_cwd(NULL), "");
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.6") { /* quotas: a patch past the file limit changes nothing */
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  char out[256], got[64];
  REQUIRE(msb_limits_init(&lim, MSB_PROFILE_NORMAL) == 0);
  lim.max_file_bytes = 8;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  REQUIRE(tt_put(sb, "a.txt", "a\n") == 0);
  CHECK(tt_apply(sb,
                 "*** Begin Patch\n*** Add File: b.txt\n+ok\n"
                 "*** Update File: a.txt\n@@\n-a\n+aaaaaaaaaaaa\n"
                 "*** End Patch\n",
                 0, out, sizeof out) == MSB_EFBIG);
  CHECK_STR(tt_get(sb, "b.txt", got, sizeof got), "ERR-2");
  CHECK_STR(tt_get(sb, "a.txt", got, sizeof got), "a\n");
  CHECK(api_close(sb) == 0);
}

TEST("tools-1.7") { /* out of memory at every allocation: nothing changes */
  static const char *p =
      "*** Begin Patch\n*** Add File: n.txt\n+n\n"
      "*** Update File: a.txt\n*** Move to: b/c.txt\n@@\n-a\n+A\n"
      "*** Delete File: d.txt\n*** End Patch\n";
  long k;
  int rc = MSB_ENOMEM;
  for (k = 0; k < 5000 && rc == MSB_ENOMEM; k++) {
    msb_sandbox *sb = tt_open();
    uint8_t h0[32], h1[32];
    uint64_t rev;
    char *ch = NULL;
    size_t len = 0, count = 0;
    REQUIRE(sb);
    REQUIRE(tt_put(sb, "a.txt", "a\n") == 0);
    REQUIRE(tt_put(sb, "d.txt", "d\n") == 0);
    REQUIRE(msb_root_hash(sb, h0) == 0);
    rev = msb_revision(sb);
    sb->m.fail_after = k;
    rc = msb_apply_patch(sb, p, strlen(p), NULL, 0, &ch, &len, &count);
    sb->m.fail_after = -1;
    if (rc == MSB_ENOMEM) {
      CHECK(strstr(msb_errmsg(sb), "out of memory") != NULL);
      CHECK(msb_root_hash(sb, h1) == 0 && !memcmp(h0, h1, 32));
      CHECK(msb_revision(sb) == rev);
      CHECK(ch == NULL && count == 0);
    } else {
      CHECK(rc == 0 && count == 3);
      CHECK(msb_revision(sb) == rev + 1);
    }
    msb_free(sb, ch);
    CHECK(api_close(sb) == 0);
  }
  CHECK(rc == 0);
}

/* Whether the session env list holds entry, and is sorted by name. */
static int tt_env_has(msb_sandbox *sb, const char *entry) {
  char *env = NULL, *p, *prev = NULL;
  size_t len = 0, count = 0, i;
  int found = 0;
  if (msb_session_env(sb, &env, &len, &count)) return -1;
  for (p = env, i = 0; i < count; i++) {
    if (!strcmp(p, entry)) found = 1;
    if (prev && strcmp(prev, p) >= 0) found = -1;
    prev = p;
    p += strlen(p) + 1;
  }
  if (p != env + len) found = -1;
  msb_free(sb, env);
  return found;
}

TEST("tools-2.1") { /* msb_session_env: exported variables, sorted */
  msb_sandbox *sb = tt_open();
  msb_result r;
  char *env;
  size_t len, count;
  REQUIRE(sb);
  CHECK(tt_env_has(sb, "ZZ_A=1") == 0);
  {
    static const char *sc =
        "export ZZ_B=2 ZZ_A=1; ZZ_C=3; export ZZ_D=$'x\\ny'";
    CHECK(msb_exec(sb, sc, strlen(sc), NULL, &r) == 0);
    CHECK(r.exit_code == 0);
  }
  msb_result_finish(sb, &r);
  CHECK(tt_env_has(sb, "ZZ_A=1") == 1);
  CHECK(tt_env_has(sb, "ZZ_B=2") == 1);
  CHECK(tt_env_has(sb, "ZZ_C=3") == 0);
  CHECK(tt_env_has(sb, "ZZ_D=x\ny") == 1);
  CHECK(msb_exec(sb, "unset ZZ_A", 10, NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK(tt_env_has(sb, "ZZ_A=1") == 0);
  CHECK(msb_session_env(sb, &env, &len, NULL) == MSB_EINVAL);
  CHECK(msb_session_env(NULL, &env, &len, &count) == MSB_EMISUSE);
  CHECK(api_close(sb) == 0);
}
