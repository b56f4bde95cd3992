/* test_interp.c - unit tests for the variable store (var.c), IFS field
 * splitting for read (expand.c) and whole-session behaviour of the
 * interpreter through shell.h (state across exec calls, limits, leaks). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../src/interp.h"
#include "../../src/var.h"
#include "../../src/vfs.h"
#include "test.h"

TEST("interp-1.1 var set get unset") {
  mem m;
  var_store *vs;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  CHECK(var_value(vs, "x") == NULL);
  CHECK(var_set(vs, "x", "1", 0) == 0);
  CHECK_STR(var_value(vs, "x"), "1");
  CHECK(var_set(vs, "x", "2", VS_APPEND) == 0);
  CHECK_STR(var_value(vs, "x"), "12");
  CHECK(var_unset(vs, "x") == 0);
  CHECK(var_value(vs, "x") == NULL);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.2 var many names grow the table") {
  mem m;
  var_store *vs;
  char name[16];
  int i, ok = 1;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  for (i = 0; i < 500; i++) {
    name[0] = 'v';
    expand_fmt_i64(name + 1, i);
    if (var_set(vs, name, name, 0)) ok = 0;
  }
  CHECK(ok);
  CHECK_STR(var_value(vs, "v0"), "v0");
  CHECK_STR(var_value(vs, "v499"), "v499");
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.10 var_compact frees unused names, every lookup still works") {
  mem m;
  var_store *vs;
  char name[32];
  int round, i, ok = 1;
  uint32_t x = 12345;
  mem_init(&m, 0);
  for (round = 0; round < 40; round++) {
    int n = 8 + round * 13;
    unsigned char gone[600];
    size_t blocks;
    vs = var_create(&m);
    REQUIRE(vs);
    for (i = 0; i < n; i++) {
      snprintf(name, sizeof name, "n%d_%d", i, round);
      if (var_set(vs, name, name, 0)) ok = 0;
    }
    for (i = 0; i < n; i++) { /* random removals make clusters wrap too */
      x = x * 1103515245u + 12345u;
      gone[i] = (x >> 16) % 3 == 0;
      snprintf(name, sizeof name, "n%d_%d", i, round);
      if (gone[i]) var_unset(vs, name);
    }
    blocks = m.blocks;
    var_compact(vs);
    if (m.blocks >= blocks && n > 20) ok = 0; /* the slots went */
    for (i = 0; i < n; i++) {
      const char *v;
      snprintf(name, sizeof name, "n%d_%d", i, round);
      v = var_value(vs, name);
      if (gone[i] ? v != NULL : !v || strcmp(v, name)) ok = 0;
      if (gone[i] && var_set(vs, name, "again", 0)) ok = 0;
    }
    for (i = 0; i < n; i++) {
      snprintf(name, sizeof name, "n%d_%d", i, round);
      if (!var_value(vs, name)) ok = 0;
    }
    var_destroy(vs);
  }
  CHECK(ok);
  CHECK(m.blocks == 0);
}

/* var.c's slot hash (FNV-1a), to build probe runs on purpose. */
static uint32_t ti_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* The first name "wN" whose slot in a 64-slot table is home. */
static void ti_name_at(uint32_t home, int skip, char *out) {
  int i;
  for (i = 0;; i++) {
    snprintf(out, 16, "w%d", i);
    if ((ti_hash(out) & 63) == home && skip-- == 0) return;
  }
}

TEST("interp-1.11 var_compact keeps a probe run that wraps the table") {
  mem m;
  var_store *vs;
  char g[16], f[16], e[16];
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  ti_name_at(62, 0, g); /* g at 62, f at 63, e (home 63) wraps to 0 */
  ti_name_at(62, 1, f);
  ti_name_at(63, 0, e);
  CHECK(var_set(vs, g, "g", 0) == 0);
  CHECK(var_set(vs, f, "f", 0) == 0);
  CHECK(var_set(vs, e, "e", 0) == 0);
  CHECK(var_unset(vs, g) == 0);
  var_compact(vs); /* f moves to 62: e must not be cut off from 63 */
  CHECK_STR(var_value(vs, f), "f");
  CHECK_STR(var_value(vs, e), "e");
  CHECK(var_value(vs, g) == NULL);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.3 var dynamic scopes") {
  mem m;
  var_store *vs;
  var *v;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  var_set(vs, "x", "global", 0);
  var_push_scope(vs);
  v = var_local(vs, "x");
  REQUIRE(v);
  CHECK(var_value(vs, "x") == NULL); /* local x: declared, no value */
  var_set(vs, "x", "local", 0);
  CHECK_STR(var_value(vs, "x"), "local");
  var_set(vs, "y", "fromfunc", 0); /* not local: global */
  var_pop_scope(vs);
  CHECK_STR(var_value(vs, "x"), "global");
  CHECK_STR(var_value(vs, "y"), "fromfunc");
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.4 var readonly and attributes") {
  mem m;
  var_store *vs;
  var *v;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  v = var_bind(vs, "r", 0);
  REQUIRE(v);
  var_set(vs, "r", "1", 0);
  v->attr |= VAR_READONLY;
  CHECK(var_set(vs, "r", "2", 0) == VAR_ERO);
  CHECK(var_unset(vs, "r") == VAR_ERO);
  v = var_bind(vs, "u", 0);
  v->attr |= VAR_UPPER;
  var_set(vs, "u", "abc", 0);
  CHECK_STR(var_value(vs, "u"), "ABC");
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.5 var indexed arrays are sparse and sorted") {
  mem m;
  var_store *vs;
  var *v;
  var_elem **el;
  size_t n;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  var_set_index(vs, "a", 5, "five", 0);
  var_set_index(vs, "a", 1, "one", 0);
  var_set_index(vs, "a", 3, "three", 0);
  v = var_get(vs, "a", NULL);
  REQUIRE(v && (v->attr & VAR_ARRAY));
  CHECK(var_index_end(v) == 6);
  CHECK_STR(var_index_get(v, 3), "three");
  CHECK(var_index_get(v, 2) == NULL);
  REQUIRE(var_elems(&m, v, &el, &n) == 0);
  CHECK(n == 3);
  if (n == 3) {
    CHECK(el[0]->idx == 1 && el[1]->idx == 3 && el[2]->idx == 5);
  }
  mem_free(&m, el);
  var_unset_elem(vs, v, 3, NULL);
  CHECK(var_index_get(v, 3) == NULL);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.6 var assoc iteration follows bash's hash order") {
  mem m;
  var_store *vs;
  var *v;
  var_elem **el;
  size_t n, i;
  static const char *const keys[] = {"a",   "b",  "c",  "foo",
                                     "bar", "zz", "x1", "x2"};
  /* bash 5.2: declare -A a; for k in ...; do a[$k]=1; done; "${!a[@]}" */
  static const char *const want[] = {"x1", "x2", "c",   "b",
                                     "a",  "zz", "foo", "bar"};
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  v = var_bind(vs, "h", 0);
  REQUIRE(v);
  var_make_array(vs, v, 1);
  for (i = 0; i < 8; i++) var_set_key(vs, "h", keys[i], "1", 0);
  REQUIRE(var_elems(&m, v, &el, &n) == 0);
  REQUIRE(n == 8);
  for (i = 0; i < 8; i++) CHECK_STR(el[i]->key, want[i]);
  mem_free(&m, el);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.7 var clone is deep and keeps scopes") {
  mem m;
  var_store *vs, *c;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  var_set(vs, "g", "1", 0);
  var_push_scope(vs);
  var_local(vs, "g");
  var_set(vs, "g", "2", 0);
  c = var_clone(vs, &m);
  REQUIRE(c);
  var_set(c, "g", "3", 0);
  CHECK_STR(var_value(vs, "g"), "2");
  var_pop_scope(c);
  CHECK_STR(var_value(c, "g"), "1");
  var_destroy(c);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.8 var namerefs") {
  mem m;
  var_store *vs;
  var *r;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  var_set(vs, "target", "t", 0);
  r = var_bind(vs, "ref", 0);
  REQUIRE(r);
  var_set(vs, "ref", "target", 0);
  r->attr |= VAR_NAMEREF;
  CHECK_STR(var_value(vs, "ref"), "t");
  var_set(vs, "ref", "changed", 0);
  CHECK_STR(var_value(vs, "target"), "changed");
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

TEST("interp-1.9 var environ lists exported scalars only") {
  mem m;
  var_store *vs;
  char **env;
  var *v;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  var_set(vs, "B", "2", 0);
  var_set(vs, "A", "1", 0);
  var_set(vs, "hidden", "x", 0);
  var_lookup(vs, "A")->attr |= VAR_EXPORT;
  var_lookup(vs, "B")->attr |= VAR_EXPORT;
  v = var_bind(vs, "ARR", 0);
  var_make_array(vs, v, 0);
  v->attr |= VAR_EXPORT;
  var_changed(vs);
  env = var_environ(vs);
  REQUIRE(env);
  CHECK_STR(env[0], "A=1");
  CHECK_STR(env[1], "B=2");
  CHECK(env[2] == NULL);
  var_destroy(vs);
  CHECK(m.blocks == 0);
}

/* ---- whole sessions ------------------------------------------------- */

typedef struct interp_t {
  mem m;
  msb_limits lim;
  vfs *fs;
  shell *sh;
  int64_t clock;
} interp_t;

static int interp_t_open(interp_t *t) {
  vfs_limits vl;
  mem_init(&t->m, 0);
  msb_limits_init(&t->lim, MSB_PROFILE_NORMAL);
  vl.max_total_bytes = t->lim.max_total_bytes;
  vl.max_file_bytes = t->lim.max_file_bytes;
  vl.max_nodes = t->lim.max_nodes;
  vl.max_path_bytes = t->lim.max_path_bytes;
  vl.max_segment_bytes = t->lim.max_segment_bytes;
  vl.max_depth = t->lim.max_depth;
  t->clock = 0;
  t->fs = vfs_create(&t->m, &vl, 0);
  t->sh = t->fs ? shell_create(&t->m, t->fs, &t->lim, 7, &t->clock) : NULL;
  return t->sh != NULL;
}

static void interp_t_close(interp_t *t) {
  shell_destroy(t->sh);
  vfs_destroy(t->fs);
}

/* Runs a script; out receives stdout (NUL-terminated, truncated to 255). */
static int interp_t_run(interp_t *t, const char *script, char *out,
                        const msb_exec_opts *o) {
  msb_result r;
  size_t n;
  if (shell_exec(t->sh, script, strlen(script), o, &r)) return -1;
  n = r.out_len < 255 ? r.out_len : 255;
  if (out) {
    if (n) memcpy(out, r.out, n);
    out[n] = 0;
  }
  mem_free(&t->m, r.out);
  mem_free(&t->m, r.err);
  mem_free(&t->m, r.cwd);
  return r.exit_code;
}

TEST("interp-2.1 state persists across exec calls") {
  interp_t t;
  char out[256];
  REQUIRE(interp_t_open(&t));
  CHECK(interp_t_run(&t, "x=5; f() { echo \"f$1\"; }; cd /tmp", out, NULL) ==
        0);
  CHECK(interp_t_run(&t, "echo $x; f 2; pwd", out, NULL) == 0);
  CHECK_STR(out, "5\nf2\n/tmp\n");
  CHECK_STR(shell_cwd(t.sh), "/tmp");
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}

TEST("interp-2.2 env and fresh_state options") {
  interp_t t;
  char out[256];
  const char *env[] = {"GREETING=hi"};
  msb_exec_opts o;
  REQUIRE(interp_t_open(&t));
  memset(&o, 0, sizeof o);
  o.env = env;
  o.env_count = 1;
  interp_t_run(&t, "keep=1", out, NULL);
  CHECK(interp_t_run(&t, "echo $GREETING; bash -c 'echo $GREETING'", out, &o) ==
        0);
  CHECK_STR(out, "hi\nhi\n");
  CHECK(interp_t_run(&t, "echo \"[$GREETING]\"", out, NULL) == 0);
  CHECK_STR(out, "[]\n");
  memset(&o, 0, sizeof o);
  o.fresh_state = 1;
  interp_t_run(&t, "echo \"[$keep]\"", out, &o);
  CHECK_STR(out, "[]\n");
  interp_t_run(&t, "echo \"[$keep]\"", out, NULL);
  CHECK_STR(out, "[1]\n");
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}

TEST("interp-2.3 limits end runs with status 124 and a name") {
  interp_t t;
  msb_result r;
  const char *s = "f() { f; }; f";
  REQUIRE(interp_t_open(&t));
  t.lim.max_steps = 1000;
  REQUIRE(shell_exec(t.sh, "while :; do :; done", 19, NULL, &r) == 0);
  CHECK(r.exit_code == 124);
  CHECK(r.limit && !strcmp(r.limit, "max_steps"));
  mem_free(&t.m, r.out);
  mem_free(&t.m, r.err);
  mem_free(&t.m, r.cwd);
  t.lim.max_steps = 1000000;
  REQUIRE(shell_exec(t.sh, s, strlen(s), NULL, &r) == 0);
  CHECK(r.exit_code == 124);
  CHECK(r.limit && !strcmp(r.limit, "max_call_depth"));
  mem_free(&t.m, r.out);
  mem_free(&t.m, r.err);
  mem_free(&t.m, r.cwd);
  /* the session still works afterwards */
  CHECK(interp_t_run(&t, "echo ok", NULL, NULL) == 0);
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}

TEST("interp-2.4 output truncation keeps totals") {
  interp_t t;
  msb_result r;
  const char *s = "for i in 1 2 3 4 5 6 7 8 9 10; do echo 0123456789; done";
  REQUIRE(interp_t_open(&t));
  t.lim.max_output_bytes = 25;
  REQUIRE(shell_exec(t.sh, s, strlen(s), NULL, &r) == 0);
  CHECK(r.out_len == 25);
  CHECK(r.out_total == 110);
  CHECK(r.out_truncated);
  CHECK(r.exit_code == 0);
  mem_free(&t.m, r.out);
  mem_free(&t.m, r.err);
  mem_free(&t.m, r.cwd);
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}

TEST("interp-2.5 out of memory is a result, never a crash") {
  int k, ok = 1;
  for (k = 0; k < 400; k += 7) {
    interp_t t;
    msb_result r;
    const char *s =
        "a=(1 2 3); f() { local x=$1; echo ${x}${a[@]}; }; "
        "f q | cat; echo $((2+3)) {a,b}";
    if (!interp_t_open(&t)) continue;
    t.m.fail_after = k;
    if (shell_exec(t.sh, s, strlen(s), NULL, &r) == 0) {
      mem_free(&t.m, r.out);
      mem_free(&t.m, r.err);
      mem_free(&t.m, r.cwd);
    }
    t.m.fail_after = -1;
    interp_t_close(&t);
    if (t.m.blocks != 0) ok = 0;
  }
  CHECK(ok);
}

TEST("interp-2.6 read splits by IFS like bash") {
  interp_t t;
  char out[256];
  REQUIRE(interp_t_open(&t));
  interp_t_run(&t, "IFS=: read -r a b c <<< 'x::y:z:w'; echo \"$a|$b|$c\"", out,
               NULL);
  CHECK_STR(out, "x||y:z:w\n");
  interp_t_run(&t, "read -r a b <<< '  lead  trail  '; echo \"[$a][$b]\"", out,
               NULL);
  CHECK_STR(out, "[lead][trail]\n");
  interp_t_run(&t, "IFS=, read -r a b <<< 'p,q,'; echo \"[$a][$b]\"", out,
               NULL);
  CHECK_STR(out, "[p][q]\n");
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}

/* Collects the keys (or indexes) of v in iteration order, space-separated. */
static void tvar_keys(const var *v, char *out, size_t cap) {
  const var_elem *e;
  size_t k = 0;
  out[0] = 0;
  for (e = var_elem_next(v, NULL); e && k + 24 < cap; e = var_elem_next(v, e))
    k += (size_t)(e->key
                      ? snprintf(out + k, cap - k, "%s ", e->key)
                      : snprintf(out + k, cap - k, "%lld ", (long long)e->idx));
}

/* 1 when v and w iterate the same keys in the same order. */
static int tvar_same_order(const var *v, const var *w) {
  const var_elem *e1 = var_elem_next(v, NULL), *e2 = var_elem_next(w, NULL);
  while (e1 && e2 && !strcmp(e1->key, e2->key)) {
    e1 = var_elem_next(v, e1);
    e2 = var_elem_next(w, e2);
  }
  return !e1 && !e2;
}

TEST("var-2.1") { /* indexed arrays: any insertion order, index order out */
  mem m;
  var_store *vs;
  var *v;
  char keys[256];
  int64_t i;
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  for (i = 5000; i > 0; i--) CHECK(var_set_index(vs, "a", i * 2, "x", 0) == 0);
  v = var_lookup(vs, "a");
  REQUIRE(v);
  CHECK(v->n == 5000 && var_index_end(v) == 10001);
  /* an AVL tree of 5000 is at most 1.44 log2(5000) + 1 < 19 high */
  CHECK(v->root && v->root->height <= 18);
  for (i = 1; i <= 5000; i++)
    if (i % 3) CHECK(var_unset_elem(vs, v, i * 2, NULL) == 0);
  CHECK(v->n == 1666 && var_index_get(v, 6) && !var_index_get(v, 4));
  CHECK(var_index_from(v, 7)->idx == 12 && !var_index_from(v, 10000));
  CHECK(var_set_index(vs, "a", 1, "p", 0) == 0);
  CHECK(var_set_index(vs, "a", 1, "q", VS_APPEND) == 0);
  CHECK_STR(var_index_get(v, 1), "pq");
  var_set_limit(vs, 1667, NULL);
  CHECK(var_set_index(vs, "a", 3, "r", 0) == MSB_ELIMIT);
  CHECK(var_set_index(vs, "a", 1, "r", 0) == 0); /* replacing is fine */
  var_set_limit(vs, 0, NULL);
  var_make_array(vs, v, 0);
  CHECK(var_set_index(vs, "a", 3, "c", 0) == 0);
  CHECK(var_set_index(vs, "a", 0, "a", 0) == 0);
  CHECK(var_set_index(vs, "a", 9, "z", 0) == 0);
  tvar_keys(v, keys, sizeof keys);
  CHECK_STR(keys, "0 3 9 ");
  var_destroy(vs);
  CHECK(m.used == 0);
}

TEST("var-2.2") { /* associative arrays: bash's buckets, growth, restore */
  mem m;
  var_store *vs, *c;
  var *v, *w;
  var_elem **el;
  size_t n, i;
  char k[32], keys[256];
  mem_init(&m, 0);
  vs = var_create(&m);
  REQUIRE(vs);
  v = var_bind(vs, "m", 0);
  REQUIRE(v && var_make_array(vs, v, 1) == 0);
  CHECK(var_assoc_buckets(v) == 1024);
  CHECK(var_set_key(vs, "m", "b", "2", 0) == 0);
  CHECK(var_set_key(vs, "m", "a", "1", 0) == 0);
  CHECK(var_set_key(vs, "m", "c", "3", 0) == 0);
  tvar_keys(v, keys, sizeof keys);
  CHECK_STR(keys, "c b a "); /* what bash 5.2 prints */
  for (i = 0; i < 2049; i++) {
    snprintf(k, sizeof k, "k%zu", i);
    CHECK(var_set_key(vs, "m", k, k, 0) == 0);
  }
  CHECK(var_assoc_buckets(v) == 4096 && v->n == 2052);
  CHECK_STR(var_key_get(v, "k2048"), "k2048");
  CHECK(var_unset_elem(vs, v, 0, "k7") == 0 && !var_key_get(v, "k7"));
  /* a clone keeps the layout; a rebuild order replays it */
  c = var_clone(vs, &m);
  REQUIRE(c);
  w = var_lookup(c, "m");
  REQUIRE(w);
  CHECK(w->n == 2051 && tvar_same_order(v, w));
  CHECK(var_elems_rebuild(&m, v, &el, &n) == 0);
  var_make_array(c, w, 1); /* keeps its 4096 buckets, as bash does */
  CHECK(var_assoc_buckets(w) == 4096);
  for (i = 0; i < n; i++)
    CHECK(var_set_key(c, "m", el[i]->key, el[i]->val, 0) == 0);
  mem_free(&m, el);
  CHECK(w->n == 2051 && tvar_same_order(v, w));
  var_destroy(c);
  /* bucket counts bash can reach, only before the first key */
  w = var_bind(vs, "r", 0);
  REQUIRE(w && var_make_array(vs, w, 1) == 0);
  CHECK(var_assoc_set_buckets(w, 2048) == MSB_EINVAL);
  CHECK(var_assoc_set_buckets(w, 16384) == 0);
  CHECK(var_set_key(vs, "r", "x", "1", 0) == 0);
  CHECK(var_assoc_set_buckets(w, 4096) == MSB_EINVAL);
  tvar_keys(w, keys, sizeof keys);
  CHECK_STR(keys, "x ");
  var_destroy(vs);
  CHECK(m.used == 0);
}

TEST("interp-2.9 one element past max_array_items stops the run") {
  static const char *const s[] = {
      "declare -A m; i=0; while :; do m[k$i]=v; i=$((i+1)); done",
      "i=0; while :; do a[i]=v; i=$((i+1)); done",
      "while :; do (( b[i++] = 1 )); done",
      "( c[0]=1; c[1]=2; c[2]=3; c[3]=4 ); echo not reached",
  };
  interp_t t;
  msb_result r;
  size_t i;
  char out[256];
  REQUIRE(interp_t_open(&t));
  t.lim.max_array_items = 3;
  for (i = 0; i < sizeof s / sizeof s[0]; i++) {
    REQUIRE(shell_exec(t.sh, s[i], strlen(s[i]), NULL, &r) == 0);
    CHECK(r.exit_code == 124);
    CHECK(r.limit && !strcmp(r.limit, "max_array_items"));
    CHECK(r.out_len == 0);
    mem_free(&t.m, r.out);
    mem_free(&t.m, r.err);
    mem_free(&t.m, r.cwd);
  }
  /* replacing elements adds none */
  CHECK(interp_t_run(&t, "a[0]=x; a[2]=y; echo ${#a[@]} ${a[2]}", out, NULL) ==
        0);
  CHECK_STR(out, "3 y\n");
  interp_t_close(&t);
  CHECK(t.m.blocks == 0);
}
