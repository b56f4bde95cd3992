/* test_events.c - the event queue: JSON encoding and escaping, the events
 * each operation emits, bounds and the dropped count, and fault injection
 * over emission and draining. */
#include <stdint.h>
#include <string.h>

#include "../../src/events.h"
#include "../../src/sandbox.h"
#include "test.h"

static msb_sandbox *te_open(void) {
  msb_sandbox *sb = NULL;
  if (msb_open(NULL, &sb)) return NULL;
  return sb;
}

/* Drains the events into out (NUL-terminated; "" when none). */
static int te_take(msb_sandbox *sb, char *out, size_t cap) {
  char *j;
  size_t n;
  int rc = msb_events_take(sb, &j, &n);
  out[0] = 0;
  if (rc) return rc;
  if (j) {
    snprintf(out, cap, "%.*s", (int)n, j);
    msb_free(sb, j);
  }
  return 0;
}

static size_t te_lines(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

TEST("events-1.1") { /* JSON strings: escapes, UTF-8 kept, bad bytes */
  mem m;
  buf b;
  static const char in[] =
      "a\"b\\c\n\t\x01\x7f"
      "\xc3\xa9"         /* valid e-acute */
      "\xff"             /* invalid lead */
      "\xc0\x80"         /* overlong NUL */
      "\xed\xa0\x80"     /* surrogate */
      "\xe2\x82"         /* truncated */
      "\xf0\x9f\x98\x80"; /* valid 4-byte */
  mem_init(&m, 0);
  buf_init(&b, &m);
  CHECK(events_add(&b, in, sizeof in - 1) == 0);
  CHECK_STR(buf_str(&b),
            "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\xc3\xa9\\u00ff"
            "\\u00c0\\u0080\\u00ed\\u00a0\\u0080\\u00e2\\u0082"
            "\xf0\x9f\x98\x80\"");
  buf_finish(&b);
  CHECK(m.used == 0);
}

TEST("events-1.2") { /* one operation: started, exactly one terminal */
  msb_sandbox *sb = te_open();
  char out[4096];
  uint8_t *d;
  size_t n;
  REQUIRE(sb);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK_STR(out, "{\"seq\":1,\"kind\":\"sandbox.created\"}\n");
  CHECK(msb_write(sb, "/workspace/./a\nb.txt", "hello", 5, MSB_WRITE_ANY, NULL,
                  0, 0) == 0);
  CHECK(msb_read(sb, "/workspace/missing", &d, &n) == MSB_ENOENT);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK_STR(out,
            "{\"seq\":2,\"kind\":\"operation.started\",\"operation\":1,"
            "\"op\":\"write_file\",\"paths\":[\"/workspace/a\\nb.txt\"]}\n"
            "{\"seq\":3,\"kind\":\"operation.completed\",\"operation\":1,"
            "\"op\":\"write_file\",\"revision\":1,\"paths\":[\"/workspace/"
            "a\\nb.txt\"],\"bytes\":{\"written\":5}}\n"
            "{\"seq\":4,\"kind\":\"operation.started\",\"operation\":2,"
            "\"op\":\"read_file\",\"paths\":[\"/workspace/missing\"]}\n"
            "{\"seq\":5,\"kind\":\"operation.failed\",\"operation\":2,"
            "\"op\":\"read_file\",\"revision\":1,\"paths\":[\"/workspace/"
            "missing\"],\"code\":\"MSB_ENOENT\"}\n");
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK_STR(out, "");
  CHECK(api_close(sb) == 0);
}

TEST("events-1.3") { /* execute: exit code, byte counts, no text */
  msb_sandbox *sb = te_open();
  msb_result r;
  char out[4096];
  msb_limits lim;
  msb_config cfg;
  const char *s = "echo SECRETWORD; echo err >&2; exit 3";
  REQUIRE(sb);
  te_take(sb, out, sizeof out);
  REQUIRE(msb_exec(sb, s, strlen(s), NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK_STR(out,
            "{\"seq\":2,\"kind\":\"operation.started\",\"operation\":1,"
            "\"op\":\"execute\"}\n"
            "{\"seq\":3,\"kind\":\"operation.completed\",\"operation\":"
            "1,\"op\":\"execute\",\"revision\":0,\"exit_code\":3,"
            "\"bytes\":{\"stdout\":11,\"stderr\":4}}\n");
  CHECK(api_close(sb) == 0);
  /* a limit stop is a result and a limit.exceeded event */
  msb_limits_init(&lim, MSB_PROFILE_NORMAL);
  lim.max_steps = 50;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  REQUIRE(msb_open(&cfg, &sb) == 0);
  te_take(sb, out, sizeof out);
  s = "while :; do :; done";
  REQUIRE(msb_exec(sb, s, strlen(s), NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(strstr(out,
               "{\"seq\":3,\"kind\":\"limit.exceeded\",\"operation\":1,"
               "\"op\":\"execute\",\"limit\":\"max_steps\"}\n") != NULL);
  CHECK(te_lines(out) == 3);
  CHECK(api_close(sb) == 0);
}

TEST("events-1.4") { /* policy denials and snapshots */
  msb_sandbox *sb = te_open();
  msb_result r;
  char out[4096];
  uint8_t *d;
  size_t n;
  const char *s = "curl x; cat /workspace/s/k; cat /workspace/s/j";
  REQUIRE(sb);
  REQUIRE(msb_write(sb, "s/k", "k", 1, MSB_WRITE_ANY, NULL, 0, MSB_PARENTS) ==
          0);
  REQUIRE(msb_set_policy(sb,
                         "deny-op read_file\ndeny-command curl\n"
                         "path /workspace/s none\n",
                         strlen("deny-op read_file\ndeny-command curl\n"
                                "path /workspace/s none\n")) == 0);
  te_take(sb, out, sizeof out);
  CHECK(msb_read(sb, "s/k", &d, &n) == MSB_EPOLICY);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK_STR(out,
            "{\"seq\":4,\"kind\":\"operation.started\",\"operation\":2,"
            "\"op\":\"read_file\",\"paths\":[\"/workspace/s/k\"]}\n"
            "{\"seq\":5,\"kind\":\"policy.denied\",\"operation\":2,"
            "\"op\":\"read_file\",\"paths\":[\"/workspace/s/k\"],"
            "\"reason\":\"operation\"}\n"
            "{\"seq\":6,\"kind\":\"operation.failed\",\"operation\":2,"
            "\"op\":\"read_file\",\"revision\":1,\"paths\":[\"/workspace/"
            "s/k\"],\"code\":\"MSB_EPOLICY\"}\n");
  REQUIRE(msb_exec(sb, s, strlen(s), NULL, &r) == 0);
  msb_result_finish(sb, &r);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(strstr(out,
               "\"kind\":\"policy.denied\",\"operation\":3,\"op\":"
               "\"execute\",\"count\":1,\"reason\":\"command\"}") != NULL);
  CHECK(strstr(out,
               "\"kind\":\"policy.denied\",\"operation\":3,\"op\":"
               "\"execute\",\"count\":2,\"reason\":\"path\"}") != NULL);
  REQUIRE(msb_snapshot(sb, 1, &d, &n) == 0);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(strstr(out,
               "{\"seq\":12,\"kind\":\"snapshot.created\",\"operation\":"
               "4,\"op\":\"create_snapshot\",\"revision\":1,") != NULL);
  REQUIRE(msb_restore(sb, d, n) == 0);
  msb_free(sb, d);
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(strstr(out, "\"kind\":\"snapshot.restored\",\"operation\":5") != NULL);
  CHECK(strstr(out, "\"kind\":\"operation.completed\",\"operation\":5") !=
        NULL);
  CHECK(api_close(sb) == 0);
}

TEST("events-1.5") { /* bounded: one events.dropped with the count */
  msb_sandbox *sb = te_open();
  static char out[EVENTS_MAX_BYTES + 4096];
  const char *last;
  int i;
  REQUIRE(sb);
  for (i = 0; i < 300; i++) {
    msb_stat st;
    msb_stat_path(sb, "/workspace", 0, &st);
  }
  /* 1 created + 600 operation events: 256 kept, 345 dropped */
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(te_lines(out) == EVENTS_MAX + 1);
  last = strstr(out,
                "{\"seq\":602,\"kind\":\"events.dropped\",\"count\":345}"
                "\n");
  CHECK(last != NULL && last[strlen(last) - 1] == '\n' &&
        strchr(last, '\n')[1] == 0);
  CHECK(sb->ev.len == 0 && sb->ev.p == NULL);
  /* numbering goes on after the drop */
  msb_revision(sb);
  {
    msb_stat st;
    msb_stat_path(sb, "/", 0, &st);
  }
  CHECK(te_take(sb, out, sizeof out) == 0);
  CHECK(strncmp(out, "{\"seq\":603,", 11) == 0);
  CHECK(api_close(sb) == 0);
}

TEST("events-2.1") { /* fault injection: emission never fails an op,
                        draining is all or nothing */
  long k;
  int rc = MSB_ENOMEM;
  for (k = 0; k < 200 && rc == MSB_ENOMEM; k++) {
    msb_sandbox *sb = te_open();
    char *j = NULL;
    size_t n = 0;
    REQUIRE(sb);
    sb->m.fail_after = k;
    rc = msb_mkdir(sb, "x/y", 0, MSB_PARENTS);
    if (rc == 0) rc = msb_events_take(sb, &j, &n);
    sb->m.fail_after = -1;
    if (rc == MSB_ENOMEM) {
      CHECK(j == NULL);
    } else {
      CHECK(rc == 0);
      if (j) {
        /* whatever was kept is whole lines, plus a dropped count */
        CHECK(n > 0 && j[n - 1] == '\n');
        msb_free(sb, j);
      }
    }
    CHECK(api_close(sb) == 0);
  }
  CHECK(rc == 0);
}
