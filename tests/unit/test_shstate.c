/* test_shstate.c - the shell session in snapshots, checkpoints, atomic
 * exec and forks, through the public API.
 *
 * Each round trip compares what the shell itself reports (declare -p,
 * declare -f, pwd, set -o, shopt, alias, trap, $@) in the source and in
 * the copy, so a state the encoding loses shows up as a text difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/archive.h"
#include "../../src/sandbox.h"
#include "test.h"

static msb_sandbox *tss_open(void) {
  msb_sandbox *sb = NULL;
  msb_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.clock_ns = (int64_t)1796000000 * 1000000000;
  cfg.seed = 7;
  if (msb_open(&cfg, &sb)) return NULL;
  return sb;
}

/* Runs script; returns stdout + "|" + stderr + "|" + status (malloc). */
static char *tss_run(msb_sandbox *sb, const char *script) {
  msb_result r;
  char *s;
  if (msb_exec(sb, script, strlen(script), NULL, &r)) return NULL;
  s = malloc(r.out_len + r.err_len + 16);
  if (s) {
    if (r.out_len) memcpy(s, r.out, r.out_len);
    s[r.out_len] = '|';
    if (r.err_len) memcpy(s + r.out_len + 1, r.err, r.err_len);
    sprintf(s + r.out_len + 1 + r.err_len, "|%d", r.exit_code);
  }
  msb_result_finish(sb, &r);
  return s;
}

/* Everything the session can report about itself. */
static const char *const tss_report =
    "declare -p; declare -f; pwd; set -o; shopt; alias; trap -p; "
    "echo \"$# $*\"; echo $?; dirs; umask";

static void tss_same(msb_sandbox *a, msb_sandbox *b) {
  char *x = tss_run(a, tss_report), *y = tss_run(b, tss_report);
  CHECK(x && y);
  if (x && y) CHECK_STR(y, x);
  free(x);
  free(y);
}

static const char *const tss_setup =
    "x=1; f(){ echo hi; }; cd /tmp; set -o pipefail; "
    "declare -A m=([a]=1 [b c]='two words' [z]=$'\\x01%=\\n'); "
    "declare -a arr=([0]=zero [5]='five 5' [9]=''); declare -i n=6*7; "
    "declare -r ro=fixed; export EX=exported; declare -l lo=ABC; "
    "declare -u up=abc; declare -n ref=x; declare -x novalue; "
    "unset HOSTTYPE; shopt -s extglob globstar nullglob; set -u; "
    "alias ll='ls -l' g='grep -n'; set -- one 'two three' '' 'fo%ur'; "
    "trap 'echo bye' EXIT";
/* a second call: extglob applies from the next parse on, as in bash */
static const char *const tss_setup2 =
    "g() { local v=$1; case $v in @(a|b)) echo ab;; *) echo \"$v\" >&2;; "
    "esac; for i in 1 2; do (( n += i )); done; }; "
    "pushd /workspace >/dev/null; umask 027; "
    "empty=''; spaced='a  b'; weird=$'tab\\there\\x7f\\xff'; false";

/* Runs both setup scripts; returns the second one's report. */
static char *tss_setup_run(msb_sandbox *sb) {
  char *o = tss_run(sb, tss_setup);
  free(o);
  return tss_run(sb, tss_setup2);
}

TEST("shstate-1.1") { /* snapshot -> restore: the same session */
  msb_sandbox *a = tss_open(), *b = tss_open();
  uint8_t *s = NULL, *s2 = NULL;
  size_t n = 0, n2 = 0;
  char *o;
  REQUIRE(a && b);
  o = tss_setup_run(a);
  CHECK_STR(o, "||1");
  free(o);
  CHECK(msb_snapshot(a, -1, &s, &n) == 0);
  REQUIRE(s);
  CHECK(msb_restore(b, s, n) == 0);
  tss_same(a, b);
  /* the restored session behaves, not only prints, the same */
  o = tss_run(b,
              "f; g a; g zz; echo $n ${m[b c]} ${arr[5]} $ref $RANDOM; "
              "ro=2; echo not reached");
  {
    char *p = tss_run(a,
                      "f; g a; g zz; echo $n ${m[b c]} ${arr[5]} $ref "
                      "$RANDOM; ro=2; echo not reached");
    CHECK_STR(o, p);
    free(p);
  }
  CHECK(o && strstr(o, "hi\nab\n48 two words five 5 1 "));
  CHECK(o && strstr(o, "|zz\nbash: line 1: ro: readonly variable\n|1"));
  free(o);
  /* and snapshots again to the same bytes */
  msb_free(b, s2);
  CHECK(msb_snapshot(b, -1, &s2, &n2) == 0);
  msb_free(a, s);
  CHECK(msb_snapshot(a, -1, &s, &n) == 0);
  CHECK(s && s2 && n == n2 && !memcmp(s, s2, n));
  msb_free(a, s);
  msb_free(b, s2);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("shstate-1.2") { /* foreign archives give a fresh session */
  msb_sandbox *a = tss_open(), *b = tss_open(), *fresh = tss_open();
  buf t;
  mem m;
  arc_wentry w;
  char *o;
  REQUIRE(a && b && fresh);
  mem_init(&m, 0);
  buf_init(&t, &m);
  memset(&w, 0, sizeof w);
  w.path = "hello.txt";
  w.type = ARC_FILE;
  w.mode = 0644;
  w.data = (const uint8_t *)"hi\n";
  w.size = 3;
  CHECK(arc_tar_put(&t, &w) == 0 && arc_tar_end(&t, 0) == 0);
  o = tss_setup_run(b);
  free(o);
  CHECK(msb_restore(b, (const uint8_t *)t.p, t.len) == 0);
  tss_same(fresh, b);
  o = tss_run(b, "cat hello.txt");
  CHECK_STR(o, "hi\n||0");
  free(o);
  buf_finish(&t);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
  CHECK(api_close(fresh) == 0);
}

static char *tss_find(char *h, size_t n, const char *needle) {
  size_t i, k = strlen(needle);
  for (i = 0; i + k <= n; i++)
    if (!memcmp(h + i, needle, k)) return h + i;
  return NULL;
}

/* Rewrites the first pax global record key (same length) and re-gzips. */
static uint8_t *tss_patch(msb_sandbox *sb, const uint8_t *s, size_t n,
                          const char *from, const char *to, size_t *outn) {
  arc_limits lim;
  arc_gz_info gi;
  const char *why = NULL;
  buf raw, out;
  char *p;
  uint8_t *r = NULL;
  memset(&lim, 0, sizeof lim);
  lim.max_in = lim.max_out = 1 << 26;
  lim.max_ratio = 1000;
  buf_init(&raw, &sb->m);
  buf_init(&out, &sb->m);
  if (arc_gunzip(s, n, &lim, &raw, &gi, &why) == 0 &&
      (p = tss_find(raw.p, raw.len, from)) != NULL &&
      strlen(from) == strlen(to)) {
    memcpy(p, to, strlen(to));
    if (!arc_gzip(&sb->m, (const uint8_t *)raw.p, raw.len, 1, NULL, 0, &out))
      r = (uint8_t *)buf_steal(&out, outn);
  }
  buf_finish(&raw);
  buf_finish(&out);
  return r;
}

/* An associative array grown past 1024 buckets, keys removed and re-added:
 * replaying its keys in insertion order would not rebuild bash's layout. */
static const char *const tss_order =
    "declare -A m s=([b]=2 [a]=1 [c]=3); i=0; "
    "while ((i < 2300)); do m[k$i]=$i; i=$((i+1)); done; "
    "i=0; while ((i < 2300)); do unset \"m[k$i]\"; i=$((i+3)); done; "
    "m[k3]=back; m[new]=n; a=([7]=x [2]=y [100]=z)";
/* What shows the layout: the order now, and after the same changes. */
static const char *const tss_order_report =
    "echo \"${!m[*]}\"; declare -p s a; m[later]=1; m[k0]=0; "
    "echo \"${!m[*]}\"; m=([p]=1 [q]=2 [r]=3 [s]=4 [t]=5 [u]=6); "
    "declare -p m; i=0; while ((i < 2000)); do s[x$i]=; i=$((i+1)); done; "
    "echo \"${!s[*]}\" | cksum";

TEST("shstate-1.3") { /* array order survives restore and fork */
  msb_sandbox *a = tss_open(), *b = tss_open(), *c = NULL;
  uint8_t *s = NULL, *p;
  size_t n = 0, pn = 0;
  char *o, *x, *y, *z;
  REQUIRE(a && b);
  o = tss_run(a, tss_order);
  CHECK_STR(o, "||0");
  free(o);
  CHECK(msb_snapshot(a, -1, &s, &n) == 0);
  REQUIRE(s);
  CHECK(msb_restore(b, s, n) == 0);
  CHECK(msb_fork(a, &c) == 0);
  REQUIRE(c);
  x = tss_run(a, tss_order_report);
  y = tss_run(b, tss_order_report);
  z = tss_run(c, tss_order_report);
  CHECK(x && strlen(x) > 10000);
  CHECK_STR(y, x);
  CHECK_STR(z, x);
  free(x);
  free(y);
  free(z);
  /* a bucket count bash cannot reach is rejected */
  p = tss_patch(b, s, n, "var.m=-A 4096 ", "var.m=-A 4097 ", &pn);
  CHECK(p && msb_restore(b, p, pn) == MSB_ECORRUPT);
  msb_free(b, p);
  msb_free(a, s);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
  CHECK(api_close(c) == 0);
}

TEST("shstate-2.1") { /* bad session records: rejected, nothing changes */
  static const char *const bad[][2] = {
      {"MEMSANDBOX.shell=1", "MEMSANDBOX.shell=9"},
      {"MEMSANDBOX.set=braceexpand errexit",
       "MEMSANDBOX.set=braceexpand errexiX"},
      {"MEMSANDBOX.var.x=- 1", "MEMSANDBOX.var.x=-Q1"},
      {"MEMSANDBOX.var.x=- 1", "MEMSANDBOX.var.x=- %"},
      {"MEMSANDBOX.var.z=- abc", "MEMSANDBOX.var.z=- %00"},
      {"MEMSANDBOX.var.z=- abc", "MEMSANDBOX.var.z=- a b"},
      {"MEMSANDBOX.var.x=- 1", "MEMSANDBOX.var.1=- 1"},
      {"MEMSANDBOX.var.x=- 1", "MEMSANDBOX.var.x=-aA"},
      {"MEMSANDBOX.var.y=- 2", "MEMSANDBOX.var.x=- 2"},
      {"MEMSANDBOX.func.f=f ()", "MEMSANDBOX.func.f=h ()"},
      {"MEMSANDBOX.func.f=f ()", "MEMSANDBOX.func.f=f (("},
      {"MEMSANDBOX.umask=0022", "MEMSANDBOX.umask=0922"},
      {"MEMSANDBOX.status=0", "MEMSANDBOX.status=x"},
      {"MEMSANDBOX.cwd=/workspace", "MEMSANDBOX.cwd=workspace/"},
  };
  msb_sandbox *a = tss_open(), *b = tss_open();
  uint8_t *s = NULL, h0[32], h1[32];
  size_t n = 0, i;
  char *o, *before;
  REQUIRE(a && b);
  o = tss_run(a,
              "declare x=1 y=2 z=abc; f(){ echo f; }; set -e; false || true");
  free(o);
  CHECK(msb_snapshot(a, 0, &s, &n) == 0);
  REQUIRE(s);
  o = tss_run(b, "v=keep; cd /tmp; k(){ :; }");
  free(o);
  before = tss_run(b, tss_report);
  msb_root_hash(b, h0);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t pn = 0;
    char from[64], to[64];
    uint8_t *p;
    uint64_t rev = msb_revision(b);
    snprintf(from, sizeof from, "%s", bad[i][0]);
    snprintf(to, sizeof to, "%s", bad[i][1]);
    p = tss_patch(b, s, n, from, to, &pn);
    if (!p) {
      fprintf(stderr, "    case %zu: cannot patch '%s'\n", i, from);
      CHECK(p != NULL);
      continue;
    }
    CHECK(msb_restore(b, p, pn) == MSB_ECORRUPT);
    CHECK(strstr(msb_errmsg(b), "archive rejected: snapshot record") != NULL);
    CHECK(msb_revision(b) == rev);
    CHECK(msb_root_hash(b, h1) == 0 && !memcmp(h0, h1, 32));
    o = tss_run(b, tss_report);
    CHECK_STR(o, before);
    free(o);
    msb_free(b, p);
  }
  free(before);
  msb_free(a, s);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("shstate-3.1") { /* checkpoints and atomic exec keep the session */
  msb_sandbox *a = tss_open(), *b = tss_open();
  msb_exec_opts eo;
  msb_result r;
  uint32_t id;
  char *o, *want;
  REQUIRE(a && b);
  o = tss_setup_run(a);
  free(o);
  want = tss_run(a, tss_report);
  CHECK(msb_checkpoint(a, &id) == 0);
  o = tss_run(a,
              "set +u +o pipefail; shopt -u extglob; unset -f f g; "
              "unalias -a; set --; trap - EXIT; cd /; x=9; "
              "declare -A m=(); popd; umask 0");
  free(o);
  CHECK(msb_rollback(a, id) == 0);
  o = tss_run(a, tss_report);
  CHECK_STR(o, want);
  free(o);
  /* atomic: a failing command puts files and the session back */
  memset(&eo, 0, sizeof eo);
  eo.atomic = 1;
  {
    const char *scr =
        "x=2; f(){ :; }; cd /; set +o pipefail; touch /tmp/new; "
        "exit 3";
    CHECK(msb_exec(a, scr, strlen(scr), &eo, &r) == 0);
  }
  CHECK(r.exit_code == 3 && r.rolled_back == 1);
  msb_result_finish(a, &r);
  o = tss_run(a, tss_report);
  CHECK_STR(o, want);
  free(o);
  o = tss_run(a, "ls /tmp/new 2>&1");
  CHECK(o && strstr(o, "No such file"));
  free(o);
  /* a limit stop is a failure too */
  {
    msb_limits lim;
    msb_sandbox *c = NULL;
    msb_config cfg;
    const char *scr = "y=1; while :; do y=2; done";
    msb_limits_init(&lim, MSB_PROFILE_NORMAL);
    lim.max_steps = 1000;
    memset(&cfg, 0, sizeof cfg);
    cfg.limits = &lim;
    REQUIRE(msb_open(&cfg, &c) == 0);
    CHECK(msb_exec(c, scr, strlen(scr), &eo, &r) == 0);
    CHECK(r.limit && !strcmp(r.limit, "max_steps") && r.rolled_back == 1);
    msb_result_finish(c, &r);
    o = tss_run(c, "echo ${y-unset}");
    CHECK_STR(o, "unset\n||0");
    free(o);
    CHECK(api_close(c) == 0);
  }
  /* a successful atomic run keeps its changes */
  CHECK(msb_exec(a, "x=5", 3, &eo, &r) == 0);
  CHECK(r.exit_code == 0 && r.rolled_back == 0);
  msb_result_finish(a, &r);
  o = tss_run(a, "echo $x");
  CHECK_STR(o, "5\n||0");
  free(o);
  free(want);
  CHECK(msb_release(a, id) == 0);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}

TEST("shstate-4.1") { /* out of memory while saving and loading a session */
  msb_sandbox *src = tss_open();
  uint8_t *s = NULL;
  size_t n = 0;
  long k;
  int ok_snap = 0, ok_rest = 0;
  char *o;
  REQUIRE(src);
  o = tss_setup_run(src);
  free(o);
  CHECK(msb_snapshot(src, 1, &s, &n) == 0);
  REQUIRE(s);
  for (k = 0; k < 3000 && !(ok_snap && ok_rest); k++) {
    msb_sandbox *sb = tss_open();
    uint8_t *d = NULL;
    size_t dn = 0;
    int rc;
    REQUIRE(sb);
    sb->m.fail_after = k;
    rc = msb_restore(sb, s, n);
    sb->m.fail_after = -1;
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    if (!rc) ok_rest = 1;
    if (rc) {
      o = tss_run(sb, "echo ${x-unset} $PWD");
      CHECK_STR(o, "unset /workspace\n||0");
      free(o);
      rc = msb_restore(sb, s, n);
      CHECK(rc == 0);
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

TEST("shstate-5.1") { /* msb_fork: same files and session, then apart */
  msb_sandbox *a = tss_open(), *f = NULL;
  uint8_t ha[32], hf[32];
  char *o, *p;
  REQUIRE(a);
  o = tss_setup_run(a);
  free(o);
  o = tss_run(a,
              "mkdir -p /workspace/d && echo x > /workspace/d/f && "
              "ln -s d/f /workspace/l && chmod 600 /workspace/d/f");
  CHECK_STR(o, "||0");
  free(o);
  REQUIRE(msb_fork(a, &f) == 0 && f);
  tss_same(a, f);
  CHECK(msb_root_hash(a, ha) == 0 && msb_root_hash(f, hf) == 0);
  CHECK(!memcmp(ha, hf, 32));
  CHECK(msb_revision(a) == msb_revision(f));
  o = tss_run(a, "echo $RANDOM; ls -l /workspace/d; cat /workspace/l");
  p = tss_run(f, "echo $RANDOM; ls -l /workspace/d; cat /workspace/l");
  CHECK_STR(p, o);
  free(o);
  free(p);
  /* independent afterwards */
  o = tss_run(f, "x=child; rm /workspace/d/f; cd /");
  free(o);
  o = tss_run(a, "echo $x; cat /workspace/d/f; pwd");
  CHECK_STR(o, "1\nx\n/workspace\n||0");
  free(o);
  CHECK(api_close(f) == 0);
  /* a fork of a fresh sandbox, and of a fork */
  {
    msb_sandbox *g = NULL, *h = NULL, *fresh = tss_open();
    REQUIRE(fresh);
    CHECK(msb_fork(fresh, &g) == 0 && g);
    CHECK(g && msb_fork(g, &h) == 0 && h);
    if (h) tss_same(fresh, h);
    CHECK(api_close(h) == 0);
    CHECK(api_close(g) == 0);
    CHECK(api_close(fresh) == 0);
  }
  CHECK(api_close(a) == 0);
}

TEST("shstate-5.2") { /* msb_fork out of memory: clean failures */
  msb_sandbox *a = tss_open();
  long k;
  int ok = 0;
  char *o;
  REQUIRE(a);
  o = tss_setup_run(a);
  free(o);
  for (k = 0; k < 3000 && !ok; k++) {
    msb_sandbox *f = NULL;
    int rc;
    a->m.fail_after = k;
    rc = msb_fork(a, &f);
    a->m.fail_after = -1;
    CHECK(rc == 0 || rc == MSB_ENOMEM);
    CHECK(rc == 0 ? f != NULL : f == NULL);
    if (!rc) ok = 1;
    if (f) CHECK(api_close(f) == 0);
  }
  CHECK(ok);
  CHECK(api_close(a) == 0);
}

TEST("shstate-1.3") { /* a large session: past the per-header bound */
  msb_sandbox *a = tss_open(), *b = tss_open();
  uint8_t *s = NULL;
  size_t n = 0;
  char *o;
  REQUIRE(a && b);
  o = tss_run(a,
              "x=$(printf '%0200000d' 0); for i in $(seq 500); do "
              "eval \"v$i=\\$i; f$i() { echo $i; }\"; done");
  CHECK_STR(o, "||0");
  free(o);
  CHECK(msb_snapshot(a, -1, &s, &n) == 0);
  REQUIRE(s);
  CHECK(msb_restore(b, s, n) == 0);
  o = tss_run(b, "echo ${#x} $v500; f321");
  CHECK_STR(o, "200000 500\n321\n||0");
  free(o);
  tss_same(a, b);
  msb_free(a, s);
  CHECK(api_close(a) == 0);
  CHECK(api_close(b) == 0);
}
