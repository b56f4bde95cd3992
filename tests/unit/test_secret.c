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
                      uint64_t cap, char *out, size_t outcap,
                      uint64_t *total) {
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
