/* test_run.c - incremental runs (msb_exec_start / msb_exec_step /
 * msb_exec_cancel): pausing, the same result whatever the slicing,
 * cancellation and timeouts, atomic rollback, and the sandbox refusing
 * other operations while a run is paused. */
#include <stdint.h>
#include <string.h>

#include "../../src/sandbox.h"
#include "test.h"

static msb_sandbox *tr_open(void) {
  msb_sandbox *sb = NULL;
  if (msb_open(NULL, &sb)) return NULL;
  return sb;
}

/* Runs script in slices of `steps`; returns the number of pauses, or -1. */
static int tr_run(msb_sandbox *sb, const char *script, uint64_t steps,
                  const msb_exec_opts *o, msb_result *res) {
  msb_run *run;
  int rc, pauses = 0;
  if (msb_exec_start(sb, script, strlen(script), o, &run)) return -1;
  while ((rc = msb_exec_step(run, steps, res)) == MSB_PAUSED) pauses++;
  return rc ? -1 : pauses;
}

static const char tr_script[] =
    "i=0; s=; while [ $i -lt 200 ]; do i=$((i+1)); s=$s$((i%7)); done\n"
    "f() { echo \"f $1\"; }; for w in a b c; do f $w; done\n"
    "echo $RANDOM ${#s} ${s:190}; echo err >&2; x=$(echo sub); echo $x";

TEST("run-1 a run sliced any way gives msb_exec's result") {
  static const uint64_t slices[] = {1, 2, 7, 100, 0};
  char first[512] = "";
  size_t k;
  for (k = 0; k < sizeof slices / sizeof *slices; k++) {
    msb_sandbox *sb = tr_open();
    msb_result r;
    int pauses;
    REQUIRE(sb);
    pauses = tr_run(sb, tr_script, slices[k], NULL, &r);
    REQUIRE(pauses >= 0);
    CHECK(slices[k] == 0 ? pauses == 0 : pauses > 0);
    CHECK(slices[k] != 1 || pauses > 200);
    CHECK(r.exit_code == 0 && r.err_len == 4);
    REQUIRE(r.out_len < sizeof first);
    if (!k) {
      memcpy(first, r.out, r.out_len);
      CHECK(strstr(first, "f a\nf b\nf c\n") && strstr(first, "sub\n"));
    } else {
      CHECK(r.out_len == strlen(first) && !memcmp(r.out, first, r.out_len));
    }
    msb_result_finish(sb, &r);
    CHECK(api_close(sb) == 0);
  }
}

TEST("run-2 cancel: status 130, limit cancelled, the sandbox still usable") {
  msb_sandbox *sb = tr_open();
  msb_run *run;
  msb_result r;
  uint8_t *d;
  size_t n;
  const char *loop = "echo start > /workspace/f; while :; do :; done";
  REQUIRE(sb);
  REQUIRE(msb_exec_start(sb, loop, strlen(loop), NULL, &run) == 0);
  CHECK(msb_exec_step(run, 1000, &r) == MSB_PAUSED);
  CHECK(msb_exec_step(run, 1000, &r) == MSB_PAUSED);
  /* paused: the sandbox's state is mid-run, other operations wait */
  CHECK(msb_read(sb, "/workspace/f", &d, &n) == MSB_EMISUSE);
  CHECK(msb_exec(sb, "true", 4, NULL, &r) == MSB_EMISUSE);
  msb_exec_cancel(run, MSB_CANCEL_ABORT);
  REQUIRE(msb_exec_step(run, 1000, &r) == 0);
  CHECK(r.exit_code == 130 && r.limit && !strcmp(r.limit, "cancelled"));
  CHECK(r.err_len == 0);
  msb_result_finish(sb, &r);
  REQUIRE(msb_read(sb, "/workspace/f", &d, &n) == 0);
  CHECK(n == 6 && !memcmp(d, "start\n", 6));
  msb_free(sb, d);
  REQUIRE(msb_exec(sb, "echo ok", 7, NULL, &r) == 0);
  CHECK(r.exit_code == 0 && r.out_len == 3);
  msb_result_finish(sb, &r);
  CHECK(api_close(sb) == 0);
}

TEST("run-3 timeout: 124 with a message; atomic runs roll back") {
  msb_sandbox *sb = tr_open();
  msb_exec_opts o;
  msb_run *run;
  msb_result r;
  uint8_t *d;
  size_t n;
  const char *loop = "echo x > /workspace/g; while :; do :; done";
  static const char msg[] = "bash: memsandbox: time limit exceeded (timeout)\n";
  REQUIRE(sb);
  memset(&o, 0, sizeof o);
  o.atomic = 1;
  REQUIRE(msb_exec_start(sb, loop, strlen(loop), &o, &run) == 0);
  CHECK(msb_exec_step(run, 50, &r) == MSB_PAUSED);
  msb_exec_cancel(run, MSB_CANCEL_TIMEOUT);
  REQUIRE(msb_exec_step(run, 50, &r) == 0);
  CHECK(r.exit_code == 124 && r.limit && !strcmp(r.limit, "timeout"));
  CHECK(r.rolled_back);
  CHECK(r.err_len == strlen(msg) && !memcmp(r.err, msg, r.err_len));
  msb_result_finish(sb, &r);
  CHECK(msb_read(sb, "/workspace/g", &d, &n) == MSB_ENOENT);
  /* cancelled before its first step: nothing runs */
  REQUIRE(msb_exec_start(sb, loop, strlen(loop), NULL, &run) == 0);
  msb_exec_cancel(run, MSB_CANCEL_ABORT);
  REQUIRE(msb_exec_step(run, 0, &r) == 0);
  CHECK(r.exit_code == 130);
  msb_result_finish(sb, &r);
  CHECK(msb_read(sb, "/workspace/g", &d, &n) == MSB_ENOENT);
  CHECK(api_close(sb) == 0);
}

TEST("run-4 closing a sandbox with a paused run frees everything") {
  msb_sandbox *sb = tr_open();
  msb_run *run;
  msb_result r;
  const char *loop = "while :; do echo y; done";
  REQUIRE(sb);
  REQUIRE(msb_exec_start(sb, loop, strlen(loop), NULL, &run) == 0);
  CHECK(msb_exec_step(run, 100, &r) == MSB_PAUSED);
  CHECK(api_close(sb) == 0);
}

TEST("run-5 a paused run's output so far, redacted, a prefix of the end's") {
  msb_sandbox *sb = tr_open();
  msb_exec_opts o;
  msb_run *run;
  msb_result r;
  const uint8_t *d;
  size_t n, last = 0;
  int grew = 0, rc;
  const char *sec[] = {"TOKEN=abcdef"};
  const char *s = "for i in 1 2 3; do echo $i; echo -n ab; done; echo cdef";
  REQUIRE(sb);
  memset(&o, 0, sizeof o);
  o.secrets = sec;
  o.secret_count = 1;
  REQUIRE(msb_exec_start(sb, s, strlen(s), &o, &run) == 0);
  while ((rc = msb_exec_step(run, 1, &r)) == MSB_PAUSED) {
    msb_exec_output(run, 1, &d, &n);
    CHECK(n >= last);
    if (n > last) grew++;
    last = n;
    /* "ab" may start the secret: never released before it is decided */
    CHECK(!n || d[n - 1] != 'a');
  }
  REQUIRE(rc == 0);
  CHECK(grew >= 3);
  CHECK(r.out_len == 21 && !memcmp(r.out, "1\nab2\nab3\n[REDACTED]\n", 21));
  CHECK(r.out_len >= last);
  msb_result_finish(sb, &r);
  CHECK(api_close(sb) == 0);
}

/* One command, many slices: its output and the pipeline's result are
 * msb_exec's, and a cancel stops the command itself. */
TEST("run-6 long commands pause inside (cat grep sed seq yes)") {
  static const char s[] =
      "seq 1 30000 | grep 7 | sed s/7/x/ | tail -2; yes ab | head -c 50000 "
      "| cat -n | tail -1; seq 1 3000 > f; cat -A f | grep -c 0";
  static const uint64_t slices[] = {0, 1, 5, 50};
  char first[256] = "";
  size_t k;
  msb_sandbox *sb;
  msb_run *run;
  msb_result r;
  for (k = 0; k < sizeof slices / sizeof *slices; k++) {
    int pauses;
    REQUIRE((sb = tr_open()));
    pauses = tr_run(sb, s, slices[k], NULL, &r);
    REQUIRE(pauses >= 0);
    CHECK(r.exit_code == 0);
    REQUIRE(r.out_len < sizeof first);
    if (!k) {
      memcpy(first, r.out, r.out_len);
      CHECK(!strcmp(first, "2998x\n2999x\n 16667\tab723\n"));
    } else {
      /* a pause every slice: most of them inside the commands */
      CHECK(pauses > (int)(10 / slices[k]));
      CHECK(r.out_len == strlen(first) && !memcmp(r.out, first, r.out_len));
    }
    msb_result_finish(sb, &r);
    CHECK(api_close(sb) == 0);
  }
  REQUIRE((sb = tr_open()));
  REQUIRE(msb_exec_start(sb, "seq 1 100000000", 15, NULL, &run) == 0);
  CHECK(msb_exec_step(run, 100, &r) == MSB_PAUSED);
  msb_exec_cancel(run, MSB_CANCEL_ABORT);
  REQUIRE(msb_exec_step(run, 100, &r) == 0);
  CHECK(r.exit_code == 130 && r.limit && !strcmp(r.limit, "cancelled"));
  msb_result_finish(sb, &r);
  CHECK(api_close(sb) == 0);
}

/* A command substitution pauses inside (it ran whole within a step):
 * the same output, a pause per loop turn, and a cancel stops it. */
TEST("run-7 a run pauses inside $( )") {
  static const char s[] =
      "x=$(i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; echo $i); "
      "echo \"$x $(echo in)\"";
  static const char loop[] = "x=$(while :; do :; done); echo no";
  msb_sandbox *sb;
  msb_run *run;
  msb_result r;
  REQUIRE((sb = tr_open()));
  CHECK(tr_run(sb, s, 1, NULL, &r) > 300);
  CHECK(r.exit_code == 0 && r.out_len == 7 && !memcmp(r.out, "300 in\n", 7));
  msb_result_finish(sb, &r);
  REQUIRE(msb_exec_start(sb, loop, strlen(loop), NULL, &run) == 0);
  CHECK(msb_exec_step(run, 100, &r) == MSB_PAUSED);
  msb_exec_cancel(run, MSB_CANCEL_ABORT);
  REQUIRE(msb_exec_step(run, 100, &r) == 0);
  CHECK(r.exit_code == 130 && r.out_len == 0);
  msb_result_finish(sb, &r);
  CHECK(api_close(sb) == 0);
}
