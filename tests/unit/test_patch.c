/* test_patch.c - unit tests for the patch engine (src/patch.c).
 *
 * Parser shapes, GNU hunk location (offset, fuzz, anchoring, reversal),
 * V4A application, and the atomic patch_apply: every case runs on its own
 * accounted allocator and checks that all memory comes back; failure cases
 * check that the filesystem revision did not move. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../src/patch.h"
#include "test.h"

typedef struct tp {
  mem m;
  vfs *v;
  buf rep;
} tp;

static void tp_open(tp *t) {
  mem_init(&t->m, 0);
  t->v = vfs_create(&t->m, NULL, 1000);
  buf_init(&t->rep, &t->m);
}

static int tp_close(tp *t) {
  buf_finish(&t->rep);
  vfs_destroy(t->v);
  return t->m.used == 0 && t->m.blocks == 0;
}

static void tp_put(tp *t, const char *path, const char *s) {
  vfs_write(t->v, path, s, strlen(s), VFS_PARENTS, 0644, NULL);
}

/* 1 when path holds exactly s. */
static int tp_is(tp *t, const char *path, const char *s) {
  const uint8_t *d;
  size_t n;
  if (vfs_read(t->v, path, &d, &n)) return 0;
  return n == strlen(s) && memcmp(d, s, n) == 0;
}

static int tp_apply(tp *t, const char *patch) {
  buf_clear(&t->rep);
  return patch_apply(t->v, "/workspace", patch, strlen(patch), NULL, &t->rep);
}

/* Applies a unified single-file patch to text with the GNU rules (fuzz 2)
 * and returns the output in out (owned by t). */
static int tp_gnu(tp *t, const char *text, const char *patch, buf *out,
                  int64_t *first_off) {
  patch_set *ps;
  patch_tgt g;
  size_t i;
  int rc = patch_parse(&t->m, patch, strlen(patch), &ps, NULL);
  if (rc) {
    patch_free(ps);
    return rc;
  }
  rc = patch_tgt_init(&g, &t->m, (const uint8_t *)text, strlen(text), 0, NULL);
  for (i = 0; !rc && i < ps->nhunks; i++) {
    int64_t where = 0, off = 0;
    int fuzz;
    int pc, sc, maxf = patch_hunk_context(ps, &ps->hunks[i], 0, &pc, &sc);
    if (maxf > 2) maxf = 2;
    for (fuzz = 0; fuzz <= maxf && !where; fuzz++)
      where = patch_tgt_locate(&g, ps, &ps->hunks[i], 0, fuzz, &off);
    if (i == 0 && first_off) *first_off = off;
    if (where <= 0) rc = -1;
    if (!rc) rc = patch_tgt_apply(&g, ps, &ps->hunks[i], 0, where);
  }
  if (!rc) rc = patch_tgt_finish(&g);
  if (!rc) buf_put(out, g.out.p ? g.out.p : "", g.out.len);
  patch_tgt_free(&g);
  patch_free(ps);
  return rc;
}

static const char p_simple[] =
    "--- a/f.txt\t2020-01-01 00:00:00\n"
    "+++ b/f.txt\n"
    "@@ -1,3 +1,3 @@\n"
    " a\n"
    "-b\n"
    "+B\n"
    " c\n";

TEST("patch-1.1 parse one unified file") {
  mem m;
  patch_set *ps;
  mem_init(&m, 0);
  REQUIRE(patch_parse(&m, p_simple, strlen(p_simple), &ps, NULL) == 0);
  CHECK(ps->nfiles == 1 && ps->nhunks == 1 && ps->nlines == 4);
  CHECK(strcmp(ps->files[0].old_name, "a/f.txt") == 0);
  CHECK(strcmp(ps->files[0].new_name, "b/f.txt") == 0);
  CHECK(ps->files[0].old_ts_len == 20);
  CHECK(ps->hunks[0].old_start == 1 && ps->hunks[0].old_count == 3);
  patch_free(ps);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("patch-1.2 omitted counts and preambles") {
  static const char p[] =
      "diff --git a/x b/x\n"
      "index 1..2 100644\n"
      "--- a/x\n+++ b/x\n@@ -3 +3 @@ fn\n-q\n+r\n"
      "diff --git a/y b/y\nnew file mode 100644\n"
      "--- /dev/null\n+++ b/y\n@@ -0,0 +1 @@\n+y\n";
  mem m;
  patch_set *ps;
  mem_init(&m, 0);
  REQUIRE(patch_parse(&m, p, strlen(p), &ps, NULL) == 0);
  CHECK(ps->nfiles == 2);
  CHECK(ps->hunks[0].old_count == 1 && ps->hunks[0].new_start == 3);
  CHECK(ps->hunks[0].fn_len == 3);
  CHECK(ps->files[1].kind == PATCH_ADD);
  CHECK(strcmp(ps->files[0].git_new, "b/x") == 0);
  patch_free(ps);
  CHECK(m.used == 0);
}

TEST("patch-1.3 malformed body and truncated hunk") {
  static const char p1[] = "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n?b\n";
  static const char p2[] = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n";
  static const char p3[] = "--- a\n+++ b\n@@ -x +1 @@\n";
  mem m;
  buf e;
  patch_set *ps;
  mem_init(&m, 0);
  buf_init(&e, &m);
  CHECK(patch_parse(&m, p1, strlen(p1), &ps, &e) == MSB_ECORRUPT);
  CHECK(strcmp(buf_str(&e), "malformed patch at line 5: ?b") == 0);
  CHECK(ps && ps->bad && ps->nfiles == 1 && ps->files[0].nhunks == 0);
  patch_free(ps);
  buf_clear(&e);
  CHECK(patch_parse(&m, p2, strlen(p2), &ps, &e) == MSB_ECORRUPT);
  CHECK(strcmp(buf_str(&e), "malformed patch at line 4:  ") == 0);
  patch_free(ps);
  CHECK(patch_parse(&m, p3, strlen(p3), &ps, NULL) == MSB_ECORRUPT);
  patch_free(ps);
  buf_finish(&e);
  CHECK(m.used == 0);
}

TEST("patch-1.4 no newline markers") {
  static const char p[] =
      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n"
      "+z\n\\ No newline at end of file\n";
  tp t;
  buf o;
  tp_open(&t);
  buf_init(&o, &t.m);
  CHECK(tp_gnu(&t, "x\ny", p, &o, NULL) == 0);
  CHECK(strcmp(buf_str(&o), "x\nz") == 0);
  buf_clear(&o);
  /* the old side lacks a newline, the file has one: no match */
  CHECK(tp_gnu(&t, "x\ny\n", p, &o, NULL) != 0);
  buf_finish(&o);
  CHECK(tp_close(&t));
}

TEST("patch-2.1 offset search") {
  tp t;
  buf o;
  int64_t off = 0;
  tp_open(&t);
  buf_init(&o, &t.m);
  CHECK(tp_gnu(&t, "p\nq\na\nb\nc\n", p_simple, &o, &off) == 0);
  CHECK(strcmp(buf_str(&o), "p\nq\na\nB\nc\n") == 0);
  CHECK(off == 2);
  buf_finish(&o);
  CHECK(tp_close(&t));
}

TEST("patch-2.2 fuzz ignores outer context") {
  static const char p[] =
      "--- a\n+++ b\n@@ -1,5 +1,5 @@\n a\n b\n-c\n+C\n d\n e\n";
  tp t;
  buf o;
  tp_open(&t);
  buf_init(&o, &t.m);
  CHECK(tp_gnu(&t, "A\nb\nc\nd\nE\n", p, &o, NULL) == 0);
  CHECK(strcmp(buf_str(&o), "A\nb\nC\nd\nE\n") == 0);
  buf_clear(&o);
  CHECK(tp_gnu(&t, "a\nb\nX\nd\ne\n", p, &o, NULL) != 0);
  buf_finish(&o);
  CHECK(tp_close(&t));
}

TEST("patch-2.3 reversed application") {
  patch_set *ps;
  patch_tgt g;
  tp t;
  int64_t off;
  tp_open(&t);
  REQUIRE(patch_parse(&t.m, p_simple, strlen(p_simple), &ps, NULL) == 0);
  REQUIRE(patch_tgt_init(&g, &t.m, (const uint8_t *)"a\nB\nc\n", 6, 0, NULL) ==
          0);
  CHECK(patch_tgt_locate(&g, ps, &ps->hunks[0], 0, 0, &off) == 0);
  CHECK(patch_tgt_locate(&g, ps, &ps->hunks[0], 1, 0, &off) == 1);
  CHECK(patch_tgt_apply(&g, ps, &ps->hunks[0], 1, 1) == 0);
  CHECK(patch_tgt_finish(&g) == 0);
  CHECK(g.out.len == 6 && memcmp(g.out.p, "a\nb\nc\n", 6) == 0);
  patch_tgt_free(&g);
  patch_free(ps);
  CHECK(tp_close(&t));
}

TEST("patch-2.4 reject text puts removals first when reversed") {
  patch_set *ps;
  tp t;
  buf b;
  tp_open(&t);
  buf_init(&b, &t.m);
  REQUIRE(patch_parse(&t.m, p_simple, strlen(p_simple), &ps, NULL) == 0);
  CHECK(patch_hunk_unified(ps, &ps->hunks[0], 1, &b) == 0);
  CHECK(strcmp(buf_str(&b), "@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n") == 0);
  buf_finish(&b);
  patch_free(ps);
  CHECK(tp_close(&t));
}

TEST("patch-2.5 work budget stops hostile searches") {
  patch_set *ps;
  patch_tgt g;
  tp t;
  buf big;
  int64_t off, i;
  static const char p[] = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-x\n+y\n z\n";
  tp_open(&t);
  buf_init(&big, &t.m);
  for (i = 0; i < 5000; i++) buf_puts(&big, "x\n");
  REQUIRE(patch_parse(&t.m, p, strlen(p), &ps, NULL) == 0);
  REQUIRE(patch_tgt_init(&g, &t.m, (const uint8_t *)big.p, big.len, 100,
                         NULL) == 0);
  CHECK(patch_tgt_locate(&g, ps, &ps->hunks[0], 0, 0, &off) == MSB_ELIMIT);
  patch_tgt_free(&g);
  patch_free(ps);
  buf_finish(&big);
  CHECK(tp_close(&t));
}

TEST("patch-3.1 apply unified to the filesystem") {
  tp t;
  tp_open(&t);
  tp_put(&t, "/workspace/f.txt", "a\nb\nc\n");
  CHECK(tp_apply(&t, p_simple) == 0);
  CHECK(tp_is(&t, "/workspace/f.txt", "a\nB\nc\n"));
  CHECK(strcmp(buf_str(&t.rep), "M f.txt\n") == 0);
  CHECK(tp_close(&t));
}

TEST("patch-3.2 all or nothing across files") {
  static const char p[] =
      "--- a/one\n+++ b/one\n@@ -1 +1 @@\n-1\n+one\n"
      "--- a/two\n+++ b/two\n@@ -1 +1 @@\n-9\n+two\n";
  tp t;
  uint64_t rev;
  tp_open(&t);
  tp_put(&t, "/workspace/one", "1\n");
  tp_put(&t, "/workspace/two", "2\n");
  rev = vfs_revision(t.v);
  CHECK(tp_apply(&t, p) == MSB_ECORRUPT);
  CHECK(strstr(buf_str(&t.rep), "two") != NULL);
  CHECK(strstr(buf_str(&t.rep), "hunk #1") != NULL);
  CHECK(tp_is(&t, "/workspace/one", "1\n"));
  CHECK(vfs_revision(t.v) == rev);
  CHECK(tp_close(&t));
}

TEST("patch-3.3 create and delete") {
  static const char p[] =
      "--- /dev/null\n+++ b/d/new\n@@ -0,0 +1,2 @@\n+n1\n+n2\n"
      "--- a/old\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n";
  tp t;
  struct vfs_stat st;
  tp_open(&t);
  tp_put(&t, "/workspace/old", "o\n");
  CHECK(tp_apply(&t, p) == 0);
  CHECK(tp_is(&t, "/workspace/d/new", "n1\nn2\n"));
  CHECK(vfs_stat(t.v, "/workspace/old", 0, &st) == MSB_ENOENT);
  CHECK(strcmp(buf_str(&t.rep), "A d/new\nD old\n") == 0);
  CHECK(tp_close(&t));
}

TEST("patch-3.4 missing file names the file") {
  tp t;
  tp_open(&t);
  CHECK(tp_apply(&t, p_simple) == MSB_ENOENT);
  CHECK(strcmp(buf_str(&t.rep), "f.txt: No such file or directory") == 0);
  CHECK(tp_close(&t));
}

TEST("patch-3.5 exact mode refuses offsets") {
  patch_opts o = {-1, 2, 1, 0, 0, 0, 0, {NULL, NULL}};
  tp t;
  tp_open(&t);
  tp_put(&t, "/workspace/f.txt", "z\na\nb\nc\n");
  CHECK(patch_apply(t.v, "/workspace", p_simple, strlen(p_simple), &o,
                    &t.rep) == MSB_ECORRUPT);
  CHECK(tp_is(&t, "/workspace/f.txt", "z\na\nb\nc\n"));
  o.exact = 0;
  buf_clear(&t.rep);
  CHECK(patch_apply(t.v, "/workspace", p_simple, strlen(p_simple), &o,
                    &t.rep) == 0);
  CHECK(tp_is(&t, "/workspace/f.txt", "z\na\nB\nc\n"));
  CHECK(tp_close(&t));
}

TEST("patch-3.6 dry run changes nothing") {
  patch_opts o = {-1, 2, 0, 0, 1, 0, 0, {NULL, NULL}};
  tp t;
  tp_open(&t);
  tp_put(&t, "/workspace/f.txt", "a\nb\nc\n");
  CHECK(patch_apply(t.v, "/workspace", p_simple, strlen(p_simple), &o,
                    &t.rep) == 0);
  CHECK(tp_is(&t, "/workspace/f.txt", "a\nb\nc\n"));
  CHECK(tp_close(&t));
}

TEST("patch-4.1 V4A update, add, delete, move") {
  static const char p[] =
      "*** Begin Patch\n"
      "*** Update File: m.py\n"
      "@@ def b():\n"
      "-    return 1\n"
      "+    return 2\n"
      "*** Add File: n/new.txt\n"
      "+hi\n"
      "*** Delete File: old.txt\n"
      "*** Update File: k.txt\n"
      "*** Move to: k2.txt\n"
      "@@\n"
      " k\n"
      "+k2\n"
      "*** End Patch\n";
  tp t;
  struct vfs_stat st;
  tp_open(&t);
  tp_put(&t, "/workspace/m.py",
         "def a():\n    return 1\n\ndef b():\n    return 1\n");
  tp_put(&t, "/workspace/old.txt", "x\n");
  tp_put(&t, "/workspace/k.txt", "k\nend\n");
  CHECK(tp_apply(&t, p) == 0);
  CHECK(tp_is(&t, "/workspace/m.py",
              "def a():\n    return 1\n\ndef b():\n    return 2\n"));
  CHECK(tp_is(&t, "/workspace/n/new.txt", "hi\n"));
  CHECK(tp_is(&t, "/workspace/k2.txt", "k\nk2\nend\n"));
  CHECK(vfs_stat(t.v, "/workspace/k.txt", 0, &st) == MSB_ENOENT);
  CHECK(vfs_stat(t.v, "/workspace/old.txt", 0, &st) == MSB_ENOENT);
  CHECK(tp_close(&t));
}

TEST("patch-4.2 V4A whitespace-tolerant matching and EOF") {
  static const char p[] =
      "*** Begin Patch\n*** Update File: f\n@@\n  a  \n-b\n+B\n"
      "@@\n-z\n+Z\n*** End of File\n*** End Patch\n";
  tp t;
  tp_open(&t);
  tp_put(&t, "/workspace/f", "a\nb\nz\nq\nz");
  CHECK(tp_apply(&t, p) == 0);
  CHECK(tp_is(&t, "/workspace/f", "a\nB\nz\nq\nZ\n"));
  CHECK(tp_close(&t));
}

TEST("patch-4.3 V4A failure names hunk and file, changes nothing") {
  static const char p[] =
      "*** Begin Patch\n*** Add File: new\n+x\n"
      "*** Update File: f\n@@\n-nothere\n+y\n*** End Patch\n";
  tp t;
  struct vfs_stat st;
  tp_open(&t);
  tp_put(&t, "/workspace/f", "a\n");
  CHECK(tp_apply(&t, p) == MSB_ECORRUPT);
  CHECK(strstr(buf_str(&t.rep), "in f (hunk #1)") != NULL);
  CHECK(vfs_stat(t.v, "/workspace/new", 0, &st) == MSB_ENOENT);
  CHECK(tp_close(&t));
}

TEST("patch-4.4 V4A stacked anchors and pure additions") {
  static const char p[] =
      "*** Begin Patch\n*** Update File: f\n@@ class A\n@@ def m\n+  new\n"
      "*** End Patch\n";
  tp t;
  tp_open(&t);
  tp_put(&t, "/workspace/f", "def m\nclass A\ndef m\n  body\n");
  CHECK(tp_apply(&t, p) == 0);
  CHECK(tp_is(&t, "/workspace/f", "def m\nclass A\ndef m\n  new\n  body\n"));
  CHECK(tp_close(&t));
}

TEST("patch-4.5 V4A envelope errors") {
  static const char *bad[] = {
      "*** Begin Patch\n*** End Patch\n",
      "*** Begin Patch\n*** Update File: f\n*** End Patch\n",
      "*** Begin Patch\n*** Add File: f\n+x\n",
      "*** Begin Patch\n*** Add File: f\nx\n*** End Patch\n",
      "*** Begin Patch\n*** Bogus: f\n*** End Patch\n"};
  size_t i;
  tp t;
  tp_open(&t);
  for (i = 0; i < sizeof bad / sizeof *bad; i++) {
    buf_clear(&t.rep);
    CHECK(tp_apply(&t, bad[i]) == MSB_ECORRUPT);
    CHECK(t.rep.len > 0);
  }
  CHECK(tp_close(&t));
}

TEST("patch-4.6 V4A adding one file twice is refused (#21 item 15)") {
  static const char twice[] =
      "*** Begin Patch\n*** Add File: a.txt\n+one\n"
      "*** Add File: ./a.txt\n+two\n*** End Patch\n";
  static const char again[] = /* deleted in between: a replacement */
      "*** Begin Patch\n*** Add File: b.txt\n+one\n"
      "*** Delete File: b.txt\n*** Add File: b.txt\n+two\n*** End Patch\n";
  tp t;
  struct vfs_stat st;
  tp_open(&t);
  CHECK(tp_apply(&t, twice) == MSB_ECORRUPT);
  CHECK_STR(buf_str(&t.rep),
            "invalid V4A patch: path './a.txt' is added twice");
  CHECK(vfs_stat(t.v, "/workspace/a.txt", 0, &st) == MSB_ENOENT);
  buf_clear(&t.rep);
  CHECK(tp_apply(&t, again) == 0);
  CHECK(tp_is(&t, "/workspace/b.txt", "two\n"));
  CHECK(tp_close(&t));
}

TEST("patch-1.5 truncated hunk with changes is padded like GNU") {
  static const char p[] = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n-l1\n+x\n";
  mem m;
  patch_set *ps;
  mem_init(&m, 0);
  REQUIRE(patch_parse(&m, p, strlen(p), &ps, NULL) == 0);
  CHECK(ps->nhunks == 1 && ps->hunks[0].nlines == 4);
  patch_free(ps);
  CHECK(m.used == 0);
}

TEST("patch-3.7 a failing commit is rolled back") {
  static const char p[] =
      "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n"
      "*** Add File: d\n+x\n*** Add File: d/x\n+y\n"
      "*** End Patch\n";
  tp t;
  struct vfs_stat st;
  uint64_t rev;
  tp_open(&t);
  tp_put(&t, "/workspace/f", "a\n");
  rev = vfs_revision(t.v);
  CHECK(tp_apply(&t, p) == MSB_ENOTDIR);
  CHECK(tp_is(&t, "/workspace/f", "a\n"));
  CHECK(vfs_stat(t.v, "/workspace/d", 0, &st) == MSB_ENOENT);
  CHECK(vfs_revision(t.v) == rev);
  CHECK(tp_close(&t));
}

TEST("patch-5.1 out of memory is an error, never a crash") {
  int k, ok = 0;
  for (k = 0; k < 200 && !ok; k++) {
    tp t;
    int rc;
    tp_open(&t);
    tp_put(&t, "/workspace/f.txt", "a\nb\nc\n");
    t.m.fail_after = k;
    rc = tp_apply(&t, p_simple);
    t.m.fail_after = -1;
    if (rc == 0) {
      ok = 1;
      CHECK(tp_is(&t, "/workspace/f.txt", "a\nB\nc\n"));
    } else {
      CHECK(rc == MSB_ENOMEM);
      CHECK(tp_is(&t, "/workspace/f.txt", "a\nb\nc\n"));
    }
    CHECK(tp_close(&t));
  }
  CHECK(ok);
}

TEST("patch-6.1 names resolve inside the working directory, as GNU's") {
  static const struct {
    const char *name;
    int rc;
    const char *out;
  } cases[] = {
      {"sub/x", 0, "/workspace/w/sub/x"},
      {"sub/new/deeper", MSB_ENOENT, "/workspace/w/sub/new/deeper"},
      {"in/x", 0, "/workspace/w/sub/x"},       /* in -> sub */
      {"here/sub/x", 0, "/workspace/w/sub/x"}, /* here -> . */
      {"abs/x", 0, "/workspace/w/sub/x"},      /* abs -> /workspace/w/sub */
      {"chain/x", 0, "/workspace/w/sub/x"},    /* chain -> in */
      {"sub/../sub/x", 0, "/workspace/w/sub/x"},
      {"out/x", MSB_EPERM, NULL},    /* out -> ../o */
      {"absout/x", MSB_EPERM, NULL}, /* absout -> /workspace/o */
      {"../o/x", MSB_EPERM, NULL},
      {"sub/../../o/x", MSB_EPERM, NULL},
      {"dangling/x", MSB_ENOENT, ""}, /* dangling -> nowhere */
      {"new/../../o/x", MSB_EPERM, NULL},
      {"file/x", MSB_ENOTDIR, NULL},
      {"loop/x", MSB_ELOOP, NULL}, /* loop -> loop */
      {"in", 0, "/workspace/w/in"}, /* the last component is not followed */
      {"/workspace/o/x", 0, "/workspace/o/x"}, /* absolute: not resolved */
  };
  tp t;
  buf out;
  size_t i;
  struct vfs_stat st;
  tp_open(&t);
  buf_init(&out, &t.m);
  tp_put(&t, "/workspace/w/sub/x", "x\n");
  tp_put(&t, "/workspace/w/file", "f\n");
  tp_put(&t, "/workspace/o/x", "o\n");
  vfs_symlink(t.v, "sub", "/workspace/w/in");
  vfs_symlink(t.v, ".", "/workspace/w/here");
  vfs_symlink(t.v, "/workspace/w/sub", "/workspace/w/abs");
  vfs_symlink(t.v, "in", "/workspace/w/chain");
  vfs_symlink(t.v, "../o", "/workspace/w/out");
  vfs_symlink(t.v, "/workspace/o", "/workspace/w/absout");
  vfs_symlink(t.v, "nowhere", "/workspace/w/dangling");
  vfs_symlink(t.v, "loop", "/workspace/w/loop");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = patch_resolve(t.v, "/workspace/w", cases[i].name, &out, &st);
    CHECK(rc == cases[i].rc);
    if (rc != cases[i].rc) fprintf(stderr, "    %s: %d\n", cases[i].name, rc);
    if (cases[i].out) CHECK_STR(buf_str(&out), cases[i].out);
  }
  CHECK(patch_resolve(t.v, "/workspace/w", "in", &out, &st) == 0 &&
        st.kind == VFS_LINK);
  CHECK(patch_name_ok("/workspace", "a/b") &&
        !patch_name_ok("/workspace", "/a"));
  CHECK(!patch_name_ok("/workspace", "a/../b") && patch_name_ok("/", "/a"));
  buf_finish(&out);
  CHECK(tp_close(&t));
}

TEST("patch-6.2 a confined patch never goes through a link outside") {
  static const char *refused[] = {
      "--- out/x\n+++ out/x\n@@ -1 +1 @@\n-o\n+pwned\n",
      "*** Begin Patch\n*** Add File: out/new\n+pwned\n*** End Patch\n",
      "*** Begin Patch\n*** Update File: f\n@@\n-x\n+pwned\n*** End Patch\n",
      "--- /workspace/o/x\n+++ /workspace/o/x\n@@ -1 +1 @@\n-o\n+pwned\n",
      "--- ../o/x\n+++ ../o/x\n@@ -1 +1 @@\n-o\n+pwned\n",
  };
  patch_opts o = {0, 2, 0, 0, 0, 0, 1, {NULL, NULL}};
  tp t;
  size_t i;
  uint64_t rev;
  tp_open(&t);
  tp_put(&t, "/workspace/w/sub/x", "x\n");
  tp_put(&t, "/workspace/o/x", "o\n");
  vfs_symlink(t.v, "../o", "/workspace/w/out");
  vfs_symlink(t.v, "sub/x", "/workspace/w/f");
  vfs_symlink(t.v, "sub", "/workspace/w/in");
  rev = vfs_revision(t.v);
  for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    buf_clear(&t.rep);
    CHECK(patch_apply(t.v, "/workspace/w", refused[i], strlen(refused[i]), &o,
                      &t.rep) == MSB_ECORRUPT);
    CHECK(strstr(buf_str(&t.rep), "invalid file name") != NULL);
  }
  CHECK(vfs_revision(t.v) == rev && tp_is(&t, "/workspace/o/x", "o\n"));
  /* the reference's wording in workspace mode */
  o.confined = 0;
  o.workspace = 1;
  buf_clear(&t.rep);
  CHECK(patch_apply(t.v, "/workspace/w", refused[0], strlen(refused[0]), &o,
                    &t.rep) == MSB_ECORRUPT);
  CHECK_STR(buf_str(&t.rep), "patch contains an invalid workspace path");
  /* a link that stays inside is followed; a host's patch is not confined */
  o.workspace = 0;
  o.confined = 1;
  buf_clear(&t.rep);
  {
    static const char in[] = "--- in/x\n+++ in/x\n@@ -1 +1 @@\n-x\n+y\n";
    CHECK(patch_apply(t.v, "/workspace/w", in, sizeof in - 1, &o, &t.rep) == 0);
  }
  CHECK(tp_is(&t, "/workspace/w/sub/x", "y\n"));
  o.confined = 0;
  buf_clear(&t.rep);
  CHECK(patch_apply(t.v, "/workspace/w", refused[0], strlen(refused[0]), &o,
                    &t.rep) == 0);
  CHECK(tp_is(&t, "/workspace/o/x", "pwned\n"));
  CHECK(tp_close(&t));
}
