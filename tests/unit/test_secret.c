/* test_secret.c - unit tests for secret values (src/secret.c) and their
 * use by msb_exec: validation, stream redaction, the write guard, and the
 * variables scrubbed at the end of a call. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"
#include "../../src/secret.h"
#include "test.h"

/* Builds a set from bindings; returns its rc, reason in why. */
static int ts_set(mem *m, secret_set *s, const char *const *b, size_t n,
                  char *why, size_t cap) {
  buf w;
  int rc;
  buf_init(&w, m);
  rc = secret_set_init(s, m, b, n, NULL, 0, &w);
  snprintf(why, cap, "%s", buf_str(&w));
  buf_finish(&w);
  return rc;
}

/* Redacts text fed in pieces of size step (0: whole); result in out. */
static void ts_stream(const secret_set *s, const char *text, size_t step,
                      uint64_t cap, char *out, size_t outcap, uint64_t *total) {
  buf o;
  secret_stream st;
  size_t n = strlen(text), i;
  buf_init(&o, s->m);
  if (secret_stream_init(&st, s, &o, cap)) {
    snprintf(out, outcap, "ENOMEM");
    buf_finish(&o);
    return;
  }
  if (!step) step = n ? n : 1;
  for (i = 0; i < n; i += step)
    secret_stream_put(&st, text + i, n - i < step ? n - i : step);
  secret_stream_flush(&st);
  snprintf(out, outcap, "%s", buf_str(&o));
  if (total) *total = st.total;
  secret_stream_finish(&st);
  buf_finish(&o);
}

TEST("secret-1.1 validation names the problem, never the value") {
  mem m;
  secret_set s;
  char why[256];
  const char *ok[] = {"TOKEN=abcd", "K2=x"};
  const char *noeq[] = {"sk-live-123"};
  const char *badname[] = {"1X=v"};
  const char *pwd[] = {"PWD=/x"};
  const char *bash[] = {"BASH_ENV=/x"};
  const char *dup[] = {"A=1", "A=2"};
  const char *empty[] = {"A="};
  const char *many[17];
  size_t i;
  mem_init(&m, 0);
  CHECK(ts_set(&m, &s, ok, 2, why, sizeof why) == 0);
  CHECK(s.n == 2 && s.maxlen == 4);
  CHECK_STR(s.name[0], "TOKEN");
  secret_set_finish(&s);
  CHECK(ts_set(&m, &s, noeq, 1, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "secret 0 is not in NAME=value form");
  CHECK(ts_set(&m, &s, badname, 1, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "secret 0: name '1X' is not a valid identifier");
  CHECK(ts_set(&m, &s, pwd, 1, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "secret name PWD is reserved by the shell");
  CHECK(ts_set(&m, &s, bash, 1, why, sizeof why) == MSB_EINVAL);
  CHECK(ts_set(&m, &s, dup, 2, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "secret name A is bound twice");
  CHECK(ts_set(&m, &s, empty, 1, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "secret A has an empty value");
  for (i = 0; i < 17; i++) many[i] = "A=1";
  CHECK(ts_set(&m, &s, many, 17, why, sizeof why) == MSB_EINVAL);
  CHECK_STR(why, "17 secrets bound (at most 16)");
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("secret-1.2 values longer than the limit and env clashes") {
  mem m;
  secret_set s;
  buf w;
  static char big[SECRET_MAX_VALUE + 8];
  const char *b[1];
  const char *env[] = {"T=plain"};
  const char *t[] = {"T=secret"};
  mem_init(&m, 0);
  memcpy(big, "A=", 2);
  memset(big + 2, 'x', SECRET_MAX_VALUE + 1);
  b[0] = big;
  buf_init(&w, &m);
  CHECK(secret_set_init(&s, &m, b, 1, NULL, 0, &w) == MSB_EINVAL);
  CHECK_STR(buf_str(&w), "secret A is 4097 bytes long (at most 4096)");
  buf_clear(&w);
  big[2 + SECRET_MAX_VALUE] = 0; /* exactly the limit: accepted */
  CHECK(secret_set_init(&s, &m, b, 1, NULL, 0, &w) == 0);
  secret_set_finish(&s);
  CHECK(secret_set_init(&s, &m, t, 1, env, 1, &w) == MSB_EINVAL);
  CHECK_STR(buf_str(&w), "T is bound both as a secret and in env");
  buf_finish(&w);
  CHECK(m.used == 0);
}

TEST("secret-2.1 redaction: whole, split, overlapping, adjacent") {
  mem m;
  secret_set s;
  char why[64], out[256];
  const char *b[] = {"T=abcd", "U=cdef", "V=aa"};
  size_t step;
  mem_init(&m, 0);
  REQUIRE(ts_set(&m, &s, b, 3, why, sizeof why) == 0);
  for (step = 0; step < 4; step++) {
    ts_stream(&s, "x abcd y", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "x [REDACTED] y");
    /* abcd and cdef overlap: one mark */
    ts_stream(&s, "abcdef!", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "[REDACTED]!");
    ts_stream(&s, "abcdabcd", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "[REDACTED][REDACTED]");
    ts_stream(&s, "aaa", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "[REDACTED]");
    ts_stream(&s, "abc", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "abc");
    ts_stream(&s, "ababcdcd", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "ab[REDACTED]cd");
  }
  secret_set_finish(&s);
  CHECK(m.used == 0);
}

TEST("secret-2.2 a longer match found later starts earlier") {
  mem m;
  secret_set s;
  char why[64], out[256];
  const char *b[] = {"A=bc", "B=abcde"};
  size_t step;
  mem_init(&m, 0);
  REQUIRE(ts_set(&m, &s, b, 2, why, sizeof why) == 0);
  for (step = 0; step < 3; step++) {
    ts_stream(&s, "zabcdez", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "z[REDACTED]z");
    ts_stream(&s, "zabcdz", step, 0, out, sizeof out, NULL);
    CHECK_STR(out, "za[REDACTED]dz");
  }
  secret_set_finish(&s);
}

TEST("secret-2.3 the cap keeps the redacted prefix and counts all") {
  mem m;
  secret_set s;
  char why[64], out[256];
  const char *b[] = {"T=abcd"};
  uint64_t total = 0;
  mem_init(&m, 0);
  REQUIRE(ts_set(&m, &s, b, 1, why, sizeof why) == 0);
  ts_stream(&s, "12abcd34", 1, 5, out, sizeof out, &total);
  CHECK_STR(out, "12[RE");
  CHECK(total == 14);
  secret_set_finish(&s);
}

TEST("secret-2.4 find spans two pieces; redact whole strings") {
  mem m;
  secret_set s;
  char why[64];
  buf o;
  const char *b[] = {"T=abcd"};
  mem_init(&m, 0);
  REQUIRE(ts_set(&m, &s, b, 1, why, sizeof why) == 0);
  CHECK(secret_find(&s, "xxab", 4, "cdyy", 4) == 1);
  CHECK(secret_find(&s, "xxab", 4, "cyy", 3) == 0);
  CHECK(secret_find(&s, "abcd", 4, NULL, 0) == 1);
  CHECK(secret_find(NULL, "abcd", 4, NULL, 0) == 0);
  buf_init(&o, &m);
  CHECK(secret_redact(&s, "key=abcd.", 9, &o) == 0);
  CHECK_STR(buf_str(&o), "key=[REDACTED].");
  buf_finish(&o);
  secret_set_finish(&s);
  CHECK(m.used == 0);
}

TEST("secret-2.5 pathological values stay linear and exact") {
  mem m;
  secret_set s;
  char why[64];
  static char text[200001];
  static char bind[SECRET_MAX_VALUE + 3];
  const char *b[1];
  buf o;
  secret_stream st;
  size_t i;
  mem_init(&m, 0);
  memcpy(bind, "T=", 2);
  memset(bind + 2, 'a', SECRET_MAX_VALUE - 1);
  bind[2 + SECRET_MAX_VALUE - 1] = 'b';
  b[0] = bind;
  REQUIRE(ts_set(&m, &s, b, 1, why, sizeof why) == 0);
  memset(text, 'a', 200000);
  buf_init(&o, &m);
  REQUIRE(secret_stream_init(&st, &s, &o, 0) == 0);
  for (i = 0; i < 200000; i += 7)
    secret_stream_put(&st, text + i, 200000 - i < 7 ? 200000 - i : 7);
  secret_stream_put(&st, "b", 1);
  secret_stream_flush(&st);
  CHECK(o.len == 200000 - (SECRET_MAX_VALUE - 1) + 10);
  CHECK(!memcmp(o.p + o.len - 10, "[REDACTED]", 10));
  secret_stream_finish(&st);
  buf_finish(&o);
  secret_set_finish(&s);
  CHECK(m.used == 0);
}

/* ---- through msb_exec ------------------------------------------------ */

typedef struct ts_run {
  int rc, code, trunc;
  char out[4096], err[4096];
  uint64_t out_total;
} ts_run;

/* Runs script with the given secrets (and env); fills *r. */
static void ts_exec_env(msb_sandbox *sb, const char *script,
                        const char *const *sec, size_t nsec,
                        const char *const *env, size_t nenv, int atomic,
                        ts_run *r) {
  msb_exec_opts o;
  msb_result res;
  memset(&o, 0, sizeof o);
  memset(r, 0, sizeof *r);
  o.secrets = sec;
  o.secret_count = nsec;
  o.env = env;
  o.env_count = nenv;
  o.atomic = atomic;
  r->rc = msb_exec(sb, script, strlen(script), &o, &res);
  if (r->rc) {
    snprintf(r->err, sizeof r->err, "%s", msb_errmsg(sb));
    return;
  }
  r->code = res.exit_code;
  snprintf(r->out, sizeof r->out, "%.*s", (int)res.out_len,
           res.out ? (const char *)res.out : "");
  snprintf(r->err, sizeof r->err, "%.*s", (int)res.err_len,
           res.err ? (const char *)res.err : "");
  r->trunc = res.out_truncated;
  r->out_total = res.out_total;
  msb_result_finish(sb, &res);
}

static void ts_exec(msb_sandbox *sb, const char *script, const char *secret,
                    ts_run *r) {
  const char *s[1];
  s[0] = secret;
  ts_exec_env(sb, script, s, secret ? 1 : 0, NULL, 0, 0, r);
}

static msb_sandbox *ts_open(void) {
  msb_sandbox *sb = NULL;
  return msb_open(NULL, &sb) ? NULL : sb;
}

TEST("secret-3.1 exec: expansion, env, printenv are redacted") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb, "echo \"t=$TOKEN\"; printenv TOKEN; env | grep ^TOKEN=",
          "TOKEN=s3cr3t-value", &r);
  CHECK(r.rc == 0 && r.code == 0);
  CHECK_STR(r.out, "t=[REDACTED]\n[REDACTED]\nTOKEN=[REDACTED]\n");
  /* split across two writes, and on stderr */
  ts_exec(sb, "printf %s s3cr3t; printf %s -value; echo; echo $TOKEN >&2",
          "TOKEN=s3cr3t-value", &r);
  CHECK_STR(r.out, "[REDACTED]\n");
  CHECK_STR(r.err, "[REDACTED]\n");
  /* derived forms are not recognised */
  ts_exec(sb, "printf %s \"$TOKEN\" | tr a-z A-Z; echo", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "ABCD\n");
  ts_exec(sb, "declare -p TOKEN; set | grep ^TOKEN=", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "declare -x TOKEN=\"[REDACTED]\"\nTOKEN=[REDACTED]\n");
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.2 exec: the value is gone after the call") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb, "X=\"Bearer $TOKEN\"; Y=keep; f() { :; }; echo ${#X}",
          "TOKEN=abcd", &r);
  CHECK_STR(r.out, "11\n");
  CHECK_STR(r.err,
            "bash: memsandbox: X: variable not kept after this call: "
            "it holds a secret value\n");
  ts_exec(sb, "echo \"[${TOKEN-unset}] [${X-unset}] [$Y]\"", NULL, &r);
  CHECK_STR(r.out, "[unset] [unset] [keep]\n");
  /* a variable the session had before the call comes back */
  ts_exec(sb, "TOKEN=old", NULL, &r);
  ts_exec(sb, "echo $TOKEN", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "[REDACTED]\n");
  ts_exec(sb, "echo $TOKEN", NULL, &r);
  CHECK_STR(r.out, "old\n");
  /* arrays, functions, positional parameters */
  ts_exec(sb,
          "a=(x \"$TOKEN\"); declare -A m=([k]=v); m[$TOKEN]=1; "
          "eval \"g() { echo $TOKEN; }\"; set -- \"$TOKEN\"",
          "TOKEN=abcd", &r);
  CHECK(strstr(r.err, "a: variable not kept") != NULL);
  CHECK(strstr(r.err, "m: variable not kept") != NULL);
  CHECK(strstr(r.err, "g: function not kept") != NULL);
  CHECK(strstr(r.err, "positional parameters not kept") != NULL);
  ts_exec(sb, "echo \"${a[*]-none} ${m[k]-none} $# $(type -t g)\"", NULL, &r);
  CHECK_STR(r.out, "none none 0 \n");
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.3 exec: writes holding a value are refused") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  uint8_t *d;
  size_t n;
  REQUIRE(sb);
  ts_exec(sb, "echo $TOKEN > f; echo $?; test -e f; echo $?", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "1\n1\n"); /* the file the redirection made goes too */
  CHECK_STR(r.err,
            "bash: line 1: echo: write error: Refusing to write a secret "
            "value\n");
  ts_exec(sb, "printf ab >> g; printf cd >> g; echo $?; cat g; echo",
          "TOKEN=abcd", &r);
  CHECK_STR(r.out, "1\nab\n");
  ts_exec(sb, "echo $TOKEN | tee t; echo ${PIPESTATUS[1]}", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "[REDACTED]\n1\n");
  CHECK_STR(r.err, "tee: t: Refusing to write a secret value\n");
  ts_exec(sb,
          "echo x > \"$TOKEN.txt\"; mkdir -p \"d/$TOKEN\"; "
          "ln -s \"$TOKEN\" l; ls",
          "TOKEN=abcd", &r);
  CHECK_STR(r.out, "d\ng\n"); /* d made before d/abcd */
  CHECK(strstr(r.err, "[REDACTED].txt: Refusing to write a secret value") !=
        NULL);
  /* a derived form is an ordinary value */
  ts_exec(sb, "printf %s \"$TOKEN\" | base64 > b64; cat b64", "TOKEN=abcd", &r);
  CHECK_STR(r.out, "YWJjZA==\n");
  /* the guard ends with the call: the host may write the same bytes */
  CHECK(msb_write(sb, "h", "abcd", 4, MSB_WRITE_ANY, NULL, 0, 0) == 0);
  REQUIRE(msb_read(sb, "h", &d, &n) == 0);
  CHECK(n == 4);
  msb_free(sb, d);
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.4 exec: bad bindings fail with a message, nothing runs") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  const char *two[] = {"A=1", "A=2"};
  const char *env[] = {"A=x"};
  const char *one[] = {"A=secretvalue"};
  REQUIRE(sb);
  ts_exec(sb, "touch ran", "PWD=/tmp", &r);
  CHECK(r.rc == MSB_EINVAL);
  CHECK_STR(r.err, "secret name PWD is reserved by the shell");
  ts_exec(sb, "touch ran", "no-equals-secretvalue", &r);
  CHECK(r.rc == MSB_EINVAL && !strstr(r.err, "secretvalue"));
  ts_exec_env(sb, "touch ran", two, 2, NULL, 0, 0, &r);
  CHECK(r.rc == MSB_EINVAL);
  ts_exec_env(sb, "touch ran", one, 1, env, 1, 0, &r);
  CHECK(r.rc == MSB_EINVAL);
  CHECK_STR(r.err, "A is bound both as a secret and in env");
  ts_exec(sb, "test -e ran; echo $?", NULL, &r);
  CHECK_STR(r.out, "1\n");
  CHECK(msb_revision(sb) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.5 exec: truncation counts the redacted stream") {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  ts_run r;
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_output_bytes = 6;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  ts_exec(sb, "printf 'ab%s' \"$T\"", "T=0123456789abcdef", &r);
  CHECK_STR(r.out, "ab[RED");
  CHECK(r.trunc == 1 && r.out_total == 12);
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.6 exec: atomic runs and checkpoints keep working") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  const char *s[] = {"T=abcd"};
  uint32_t cp;
  REQUIRE(sb);
  REQUIRE(msb_checkpoint(sb, &cp) == 0);
  ts_exec_env(sb, "echo ok > a; X=$T; false", s, 1, NULL, 0, 1, &r);
  CHECK(r.code == 1);
  ts_exec(sb, "ls; echo \"[${X-}]\"", NULL, &r);
  CHECK_STR(r.out, "[]\n");
  ts_exec_env(sb, "echo ok > a; Y=$T", s, 1, NULL, 0, 1, &r);
  CHECK(r.code == 0);
  ts_exec(sb, "cat a; echo \"[${Y-}]\"", NULL, &r);
  CHECK_STR(r.out, "ok\n[]\n");
  CHECK(msb_rollback(sb, cp) == 0);
  ts_exec(sb, "ls | wc -l", NULL, &r);
  CHECK_STR(r.out, "0\n");
  CHECK(msb_release(sb, cp) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.7 exec: fresh state and snapshots never hold the value") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  msb_exec_opts o;
  msb_result res;
  const char *s[] = {"T=abcdefgh"};
  uint8_t *snap;
  size_t n;
  REQUIRE(sb);
  memset(&o, 0, sizeof o);
  o.secrets = s;
  o.secret_count = 1;
  o.fresh_state = 1;
  REQUIRE(msb_exec(sb, "echo $T", 7, &o, &res) == 0);
  CHECK(res.out_len == 11 && !memcmp(res.out, "[REDACTED]\n", 11));
  msb_result_finish(sb, &res);
  ts_exec(sb, "K=$T; export K2=$T; echo done", "T=abcdefgh", &r);
  CHECK_STR(r.out, "done\n");
  REQUIRE(msb_snapshot(sb, 0, &snap, &n) == 0);
  CHECK(!secret_find(NULL, snap, n, NULL, 0));
  {
    size_t i, hit = 0;
    for (i = 0; i + 8 <= n; i++)
      if (!memcmp(snap + i, "abcdefgh", 8)) hit = 1;
    CHECK(hit == 0);
  }
  msb_free(sb, snap);
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.8 exec: out of memory anywhere is a clean error") {
  int k, done = 0;
  for (k = 0; k < 4000 && !done; k++) {
    msb_sandbox *sb = ts_open();
    ts_run r;
    if (!sb) break;
    sb->m.fail_after = k;
    ts_exec(sb, "X=$T; echo \"$T\" | tee f; printf %s ab; printf %s cd",
            "T=abcd", &r);
    sb->m.fail_after = -1;
    if (r.rc == 0 && r.code == 0 && !strcmp(r.out, "[REDACTED]\n[REDACTED]"))
      done = 1;
    else
      CHECK(r.rc != 0 || !strstr(r.out, "abcd"));
    CHECK(!strstr(r.err, "abcd"));
    /* whatever failed, the session keeps nothing */
    ts_exec(sb, "echo \"${X-unset}\"; set | grep -c abcd", NULL, &r);
    CHECK_STR(r.out, "unset\n0\n");
    CHECK(api_close(sb) == 0);
  }
  CHECK(done);
}

TEST("secret-4.1 a failed redirected write is reported like bash") {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  ts_run r;
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_file_bytes = 1000;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  ts_exec(sb,
          "x=$(printf %1200s); echo \"$x\" > f; echo $?; "
          "printf %s \"$x\" > g; echo $?; cat f g | wc -c; "
          "declare -p x > h; echo $?; eval 'echo \"$x\" > i'; echo $?; "
          "printf %s \"$x\" | head -c 1100 > j; echo $?; echo ok > k; echo $?; "
          "sort <<<\"$x\" > l; echo $?; sed p <<<\"$x\" > m; echo $?",
          NULL, &r);
  CHECK_STR(r.out, "1\n1\n0\n1\n1\n1\n0\n2\n4\n");
  CHECK_STR(r.err,
            "bash: line 1: echo: write error: File too large\n"
            "bash: line 1: printf: write error: File too large\n"
            "bash: line 1: declare: write error: File too large\n"
            "bash: line 1: echo: write error: File too large\n"
            "head: write error: File too large\n"
            "sort: fflush failed: 'standard output': File too large\n"
            "sort: write error\n"
            "sed: couldn't flush stdout: File too large\n");
  CHECK(api_close(sb) == 0);
}

TEST("secret-3.9 attributes of an old binding cannot transform the value") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb, "T=old; declare -u T; declare -n R=T; declare -i N=1", NULL, &r);
  ts_exec(sb, "echo $T $R", "T=abcd", &r);
  CHECK_STR(r.out, "[REDACTED] [REDACTED]\n");
  ts_exec(sb, "echo $N", "N=7*6", &r);
  CHECK_STR(r.out, "[REDACTED]\n");
  ts_exec(sb, "declare -p T N", NULL, &r);
  CHECK_STR(r.out, "declare -u T=\"old\"\ndeclare -i N=\"1\"\n");
  CHECK(api_close(sb) == 0);
}

/* The obvious quadratic redaction, as the reference for the stream. */
static size_t ts_match_end(const char *t, size_t n, size_t i,
                           const char *const *v, size_t nv) {
  size_t k, e = 0;
  for (k = 0; k < nv; k++) {
    size_t l = strlen(v[k]);
    if (i + l <= n && !memcmp(t + i, v[k], l) && i + l > e) e = i + l;
  }
  return e;
}

static void ts_naive(const char *t, const char *const *v, size_t nv,
                     char *out) {
  size_t n = strlen(t), i = 0, o = 0;
  while (i < n) {
    size_t end = ts_match_end(t, n, i, v, nv), j;
    if (!end) {
      out[o++] = t[i++];
      continue;
    }
    for (j = i + 1; j < end; j++) { /* matches that overlap join the run */
      size_t e = ts_match_end(t, n, j, v, nv);
      if (e > end) end = e;
    }
    memcpy(out + o, "[REDACTED]", 10);
    o += 10;
    i = end;
  }
  out[o] = 0;
}

TEST("secret-2.6 the stream agrees with a naive redactor (random)") {
  mem m;
  uint32_t seed = 12345;
  int round;
  mem_init(&m, 0);
  for (round = 0; round < 3000; round++) {
    char vals[4][8], binds[4][48], text[80], want[1024], got[1024], why[64];
    const char *b[4], *vp[4];
    secret_set s;
    size_t nv, k, n, step;
    seed = seed * 1103515245u + 12345u;
    nv = 1 + (seed >> 16) % 3;
    for (k = 0; k < nv; k++) {
      size_t l, j;
      seed = seed * 1103515245u + 12345u;
      l = 1 + (seed >> 16) % 5;
      for (j = 0; j < l; j++) {
        seed = seed * 1103515245u + 12345u;
        vals[k][j] = "ab"[(seed >> 16) & 1];
      }
      vals[k][l] = 0;
      snprintf(binds[k], sizeof binds[k], "V%u=%s", (unsigned)k, vals[k]);
      b[k] = binds[k];
      vp[k] = vals[k];
    }
    seed = seed * 1103515245u + 12345u;
    n = (seed >> 16) % 60;
    for (k = 0; k < n; k++) {
      seed = seed * 1103515245u + 12345u;
      text[k] = "abab-"[(seed >> 16) % 5];
    }
    text[n] = 0;
    REQUIRE(ts_set(&m, &s, b, nv, why, sizeof why) == 0);
    ts_naive(text, vp, nv, want);
    seed = seed * 1103515245u + 12345u;
    step = (seed >> 16) % 4;
    ts_stream(&s, text, step, 0, got, sizeof got, NULL);
    if (strcmp(got, want)) {
      fprintf(stderr, "    text [%s] values", text);
      for (k = 0; k < nv; k++) fprintf(stderr, " [%s]", vals[k]);
      fprintf(stderr, " step %u\n", (unsigned)step);
      CHECK_STR(got, want);
      secret_set_finish(&s);
      return;
    }
    secret_set_finish(&s);
  }
  CHECK(m.used == 0);
}

/* ---- what a call leaves behind (issue 21 items 2, 3, 12; 22 bug 1) --- */

/* Whether the bytes hold the value v. */
static int ts_holds(const void *p, size_t n, const char *v) {
  size_t k = strlen(v), i;
  for (i = 0; i + k <= n; i++)
    if (!memcmp((const char *)p + i, v, k)) return 1;
  return 0;
}

/* Whether a snapshot or the session's environment holds v. */
static int ts_state_holds(msb_sandbox *sb, const char *v) {
  uint8_t *snap;
  char *env;
  size_t n, len, count;
  int hit = 0;
  if (msb_snapshot(sb, 0, &snap, &n) != 0) return 1;
  hit = ts_holds(snap, n, v);
  msb_free(sb, snap);
  if (msb_session_env(sb, &env, &len, &count) != 0) return 1;
  hit |= env && ts_holds(env, len, v);
  msb_free(sb, env);
  return hit;
}

TEST("secret-5.1 an EXIT trap stopped by a limit is neither run nor kept") {
  msb_sandbox *sb = NULL;
  msb_limits lim;
  msb_config cfg;
  ts_run r;
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_steps = 5000;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  ts_exec(sb, "trap \"echo LEAK:$TOKEN\" EXIT; while :; do :; done",
          "TOKEN=ghp_abc123", &r);
  CHECK(r.code == 124);
  CHECK_STR(r.out, "");
  CHECK_STR(r.err,
            "bash: memsandbox: step limit exceeded (max_steps=5000)\n"
            "bash: memsandbox: EXIT trap not run: the call stopped at a "
            "limit\n");
  CHECK(!ts_state_holds(sb, "ghp_abc123"));
  ts_exec(sb, "echo next; trap -p", NULL, &r);
  CHECK_STR(r.out, "next\n");
  /* without secrets too: the trap belongs to the call that set it */
  ts_exec(sb, "trap 'echo bye' EXIT; while :; do :; done", NULL, &r);
  CHECK(strstr(r.err, "EXIT trap not run") != NULL);
  ts_exec(sb, "echo next", NULL, &r);
  CHECK_STR(r.out, "next\n");
  /* a call that ends normally runs its trap, as bash -c does */
  ts_exec(sb, "trap 'echo bye' EXIT; echo hi", "TOKEN=ghp_abc123", &r);
  CHECK_STR(r.out, "hi\nbye\n");
  ts_exec(sb, "trap \"echo $TOKEN\" EXIT; exit 3", "TOKEN=ghp_abc123", &r);
  CHECK(r.code == 3);
  CHECK_STR(r.out, "[REDACTED]\n");
  CHECK(api_close(sb) == 0);
}

TEST("secret-5.2 every trap holding a value is dropped") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb,
          "trap \"echo $T\" ERR; trap \": $T\" RETURN; trap \"echo $T\" INT",
          "T=ghp_abc123", &r);
  CHECK_STR(r.err,
            "bash: memsandbox: signal trap not kept after this call: it holds "
            "a secret value\n"
            "bash: memsandbox: ERR trap not kept after this call: it holds "
            "a secret value\n"
            "bash: memsandbox: RETURN trap not kept after this call: it "
            "holds a secret value\n");
  ts_exec(sb, "trap -p", NULL, &r);
  CHECK_STR(r.out, "");
  CHECK(!ts_state_holds(sb, "ghp_abc123"));
  CHECK(api_close(sb) == 0);
}

TEST("secret-5.3 a value in a variable name is not kept") {
  static const char *const make[] = {
      "read \"$T\" <<< hi",
      "printf -v \"v_$T\" x",
      "getopts a \"g_$T\" -a",
      "mapfile \"M_$T\" <<< x",
      "eval \"for $T in 1; do :; done\"",
      "let \"l_$T=1\"",
      "(( m_$T = 2 ))",
      "declare -A \"A_$T\"",
      "declare -a \"a_$T\"",
      "declare -i \"i_$T\"=1",
      "declare -n \"n_$T\"=HOME",
      "declare -r \"r_$T\"=1",
      "declare -x \"x_$T\"=1",
      "export \"e_$T=1\"",
      "local \"o_$T\" 2>/dev/null; declare -g \"G_$T\"=1",
      "declare -A h; h[k_$T]=1",
      "alias \"al_$T=echo\"",
      "eval \"f_$T() { :; }\"",
  };
  size_t i;
  for (i = 0; i < sizeof make / sizeof make[0]; i++) {
    msb_sandbox *sb = ts_open(), *fork = NULL;
    ts_run r;
    REQUIRE(sb);
    ts_exec(sb, make[i], "T=ghp_abc123", &r);
    CHECK(r.code == 0);
    if (!strstr(r.err, "not kept after this call")) {
      fprintf(stderr, "    case %lu: %s\n", (unsigned long)i, make[i]);
      CHECK(0);
    }
    CHECK(!strstr(r.err, "ghp_abc123"));
    CHECK(!ts_state_holds(sb, "ghp_abc123"));
    ts_exec(sb, "set; declare -p; declare -F; alias; env", NULL, &r);
    CHECK(!strstr(r.out, "ghp_abc123"));
    REQUIRE(msb_fork(sb, &fork) == 0);
    CHECK(!ts_state_holds(fork, "ghp_abc123"));
    CHECK(api_close(fork) == 0);
    CHECK(api_close(sb) == 0);
  }
}

TEST("secret-5.4 a function defined next to a value keeps working") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  int i;
  REQUIRE(sb);
  /* g's tree is the eval's, which holds the value: g gets its own */
  ts_exec(sb,
          "eval \"g() { echo hi; }; X=$T; h() { echo $T; }\"; "
          "for i in 1 2 3; do eval \"f$i() { echo $i; }\"; done; unset -f f2",
          "T=ghp_abc123", &r);
  CHECK_STR(r.err,
            "bash: memsandbox: X: variable not kept after this call: it "
            "holds a secret value\n"
            "bash: memsandbox: h: function not kept after this call: it "
            "holds a secret value\n");
  ts_exec(sb, "g; f1; f3; declare -F", NULL, &r);
  CHECK_STR(r.out,
            "hi\n1\n3\ndeclare -f f1\ndeclare -f f3\n"
            "declare -f g\n");
  /* names set and dropped leave no slot behind, and lookups still work */
  for (i = 0; i < 3; i++)
    ts_exec(sb,
            "for i in $(seq 300); do eval \"v$i=$i\"; done; "
            "for i in $(seq 2 2 300); do unset v$i; done; "
            "for i in $(seq 40); do eval \"k$i() { :; }\"; done; "
            "for i in $(seq 2 2 40); do unset -f k$i; done; Y=$T",
            "T=ghp_abc123", &r);
  ts_exec(sb,
          "s=0; for i in $(seq 300); do n=v$i; s=$((s + ${!n:-0})); done; "
          "echo $s; declare -F | grep -c ' k'; type -t k39 k40",
          NULL, &r);
  CHECK_STR(r.out, "22500\n20\nfunction\n");
  CHECK(api_close(sb) == 0);
}

/* "size mode mtime:contents" of a file, or "absent". */
static void ts_file(msb_sandbox *sb, const char *path, char *out, size_t cap) {
  msb_stat st;
  uint8_t *d;
  size_t n;
  if (msb_stat_path(sb, path, 0, &st) || msb_read(sb, path, &d, &n)) {
    snprintf(out, cap, "absent");
    return;
  }
  snprintf(out, cap, "%llu %o %lld:%.*s", (unsigned long long)st.size,
           (unsigned)st.mode, (long long)st.mtime_ns, (int)n, (char *)d);
  msb_free(sb, d);
}

TEST("secret-6.1 a refused write leaves its target exactly as it was") {
  static const char *const w[] = {
      "echo $T > f",
      "echo $T >> f",
      "echo \"x$T\" &> f",
      "echo $T | tee f",
      "echo $T | tee -a f",
      "sed -i \"s/old/$T/\" f",
      "cp f \"$T\"",
      "printf '%s\\n' '--- a/f' '+++ b/f' '@@ -1 +1 @@' -old \"+$T\" | patch f",
      "{ echo $T; echo more; } > f",
      "{ echo first; echo $T; } > f",
      "exec 3> f; echo ok >&3; echo $T >&3",
  };
  size_t i;
  for (i = 0; i < sizeof w / sizeof w[0]; i++) {
    msb_sandbox *sb = ts_open();
    ts_run r;
    char before[256], after[256];
    uint64_t rev;
    REQUIRE(sb);
    ts_exec(sb, "echo old > f; chmod 600 f; touch -d @1000 f; mkdir d", NULL,
            &r);
    ts_file(sb, "f", before, sizeof before);
    CHECK_STR(before, "4 600 1000000000000:old\n");
    rev = msb_revision(sb);
    ts_exec(sb, w[i], "T=ghp_abc123", &r);
    ts_file(sb, "f", after, sizeof after);
    if (strcmp(before, after) || msb_revision(sb) != rev ||
        (i != 2 && !strstr(r.err, "Refusing to write a secret value"))) {
      fprintf(stderr, "    case %lu: %s\n    %s\n    %s", (unsigned long)i,
              w[i], after, r.err);
      CHECK(0);
    }
    /* a file the refused redirection created goes, and its directory
     * keeps its mtime */
    ts_exec(sb, "touch -d @2000 d", NULL, &r);
    rev = msb_revision(sb);
    ts_exec(sb,
            "echo $T > d/new; echo $T >> d/new2; echo $T | tee d/new3; "
            "cp f \"d/$T\"; mkdir \"d/$T\"",
            "T=ghp_abc123", &r);
    ts_exec(sb, "ls d | wc -l; stat -c %Y d", NULL, &r);
    CHECK_STR(r.out, "0\n2000\n");
    CHECK(msb_revision(sb) == rev);
    CHECK(api_close(sb) == 0);
  }
}

TEST("secret-6.2 writes through a refused redirection all fail") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb, "echo old > f", NULL, &r);
  ts_exec(sb,
          "{ echo a; echo $T; echo b; } > f; echo $?; cat f; "
          "{ echo a; echo $T; echo b; } > new; echo $?; ls",
          "T=ghp_abc123", &r);
  CHECK_STR(r.out, "1\nold\n1\nf\n");
  CHECK_STR(
      r.err,
      "bash: line 1: echo: write error: Refusing to write a secret value\n"
      "bash: line 1: echo: write error: Refusing to write a secret value\n"
      "bash: line 1: echo: write error: Refusing to write a secret value\n"
      "bash: line 1: echo: write error: Refusing to write a secret value\n");
  /* a write that follows other changes puts the file back, and counts */
  ts_exec(sb, "touch g; echo $T > f; cat f", "T=ghp_abc123", &r);
  CHECK_STR(r.out, "old\n");
  CHECK(api_close(sb) == 0);
}

TEST("secret-7.1 a value written in consecutive pieces to several files") {
  msb_sandbox *sb = ts_open();
  ts_run r;
  REQUIRE(sb);
  ts_exec(sb, "echo \"$T\" | split -b 4 - part_; echo $?; ls; cat part_*",
          "T=ghp_abc123", &r);
  CHECK_STR(r.out, "1\npart_aa\npart_ab\nghp_abc1");
  CHECK_STR(r.err, "split: part_ac: Refusing to write a secret value\n");
  ts_exec(sb,
          "for i in $(seq 0 9); do printf %s \"${T:i:1}\" > c$i; done; ls c*",
          "T=ghp_abc123", &r);
  CHECK_STR(r.out, "c0\nc1\nc2\nc3\nc4\nc5\nc6\nc7\nc8\n");
  /* documented as not caught: pieces out of order, or other bytes written
   * in between, and names (each name is checked alone) */
  ts_exec(sb,
          "printf %s \"${T:5}\" > b; printf %s \"${T:0:5}\" > a; "
          "printf %s \"${T:0:5}\" > x; echo > y; printf %s \"${T:5}\" > z; "
          "touch \"${T:0:5}\" \"${T:5}\"; cat a b; echo; cat x y z",
          "T=ghp_abc123", &r);
  CHECK_STR(r.err, "");
  CHECK_STR(r.out, "[REDACTED]\nghp_a\nbc123");
  /* the window starts empty in every call */
  ts_exec(sb, "printf %s \"${T:0:5}\" > p", "T=ghp_abc123", &r);
  ts_exec(sb, "printf %s \"${T:5}\" > q; cat p q", "T=ghp_abc123", &r);
  CHECK_STR(r.err, "");
  CHECK(api_close(sb) == 0);
}
