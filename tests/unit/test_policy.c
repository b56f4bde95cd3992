/* test_policy.c - the policy: parsing, longest-prefix path rules, command
 * and operation rules, their effect through the API and the shell, and
 * fault injection over msb_set_policy. */
#include <stdint.h>
#include <string.h>

#include "../../src/policy.h"
#include "../../src/sandbox.h"
#include "test.h"

static msb_sandbox *tp_open(void) {
  msb_sandbox *sb = NULL;
  if (msb_open(NULL, &sb)) return NULL;
  return sb;
}

static int tp_set(msb_sandbox *sb, const char *text) {
  return msb_set_policy(sb, text, strlen(text));
}

static int tp_put(msb_sandbox *sb, const char *path, const char *s) {
  return msb_write(sb, path, s, strlen(s), MSB_WRITE_ANY, NULL, 0, MSB_PARENTS);
}

/* Runs a script; out/err receive the streams (NUL-terminated). */
static int tp_exec(msb_sandbox *sb, const char *script, char *out, char *err,
                   size_t cap) {
  msb_result r;
  int code;
  if (msb_exec(sb, script, strlen(script), NULL, &r)) return -1000;
  snprintf(out, cap, "%.*s", (int)r.out_len, (const char *)r.out);
  snprintf(err, cap, "%.*s", (int)r.err_len, (const char *)r.err);
  code = r.exit_code;
  msb_result_finish(sb, &r);
  return code;
}

static int tp_mode(const policy *p, const char *path) {
  return policy_path_mode(p, path, strlen(path));
}

TEST("policy-1.1") { /* parse errors name the line; nothing is kept */
  mem m;
  policy *p = (policy *)1;
  char err[256];
  mem_init(&m, 0);
  CHECK(policy_parse(&m, "deny-command ls\nfrobnicate x\n", 28, &p, err,
                     sizeof err) == MSB_EINVAL);
  CHECK(p == NULL);
  CHECK_STR(err, "line 2: unknown rule \"frobnicate\"");
  CHECK(policy_parse(&m, "path /x everything", 18, &p, err, sizeof err) ==
        MSB_EINVAL);
  CHECK_STR(err,
            "line 1: unknown access \"everything\" (none, read-only or "
            "read-write)");
  CHECK(policy_parse(&m, "\n# c\nallow-op read", 18, &p, err, sizeof err) ==
        MSB_EINVAL);
  CHECK_STR(err, "line 3: unknown operation \"read\"");
  CHECK(policy_parse(&m, "path /a none\npath /a/ read-only", 31, &p, err,
                     sizeof err) == MSB_EINVAL);
  CHECK_STR(err, "line 2: conflicting rules for /a");
  CHECK(policy_parse(&m, "deny-command /bin/ls", 20, &p, err, sizeof err) ==
        MSB_EINVAL);
  CHECK_STR(err, "line 1: invalid command name \"/bin/ls\"");
  CHECK(policy_parse(&m, "allow-command", 13, &p, err, sizeof err) ==
        MSB_EINVAL);
  CHECK_STR(err, "line 1: missing command name");
  CHECK(policy_parse(&m, "path none", 9, &p, err, sizeof err) == MSB_EINVAL);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("policy-1.2") { /* longest prefix, segment-wise, '/' ordered first */
  mem m;
  policy *p;
  char err[128];
  const char *t =
      "path / read-only\n"
      "  path   /workspace   read-write  \r\n"
      "path /workspace/a none\n"
      "path /workspace/a/b read-write\n"
      "path /workspace/a-c read-only\n"
      "path /workspace/a.d none\n"
      "path docs/../notes read-only\n"
      "path /workspace/a none\n";
  mem_init(&m, 0);
  REQUIRE(policy_parse(&m, t, strlen(t), &p, err, sizeof err) == 0);
  CHECK(p->nrules == 7); /* the duplicate is merged */
  CHECK(tp_mode(p, "/") == POLICY_RO);
  CHECK(tp_mode(p, "/tmp/x") == POLICY_RO);
  CHECK(tp_mode(p, "/workspace") == POLICY_RW);
  CHECK(tp_mode(p, "/workspace/ab") == POLICY_RW);
  CHECK(tp_mode(p, "/workspace/a") == POLICY_NONE);
  CHECK(tp_mode(p, "/workspace/a/x/y") == POLICY_NONE);
  CHECK(tp_mode(p, "/workspace/a/b") == POLICY_RW);
  CHECK(tp_mode(p, "/workspace/a/b/c") == POLICY_RW);
  CHECK(tp_mode(p, "/workspace/a/bc") == POLICY_NONE);
  CHECK(tp_mode(p, "/workspace/a-c/d") == POLICY_RO);
  CHECK(tp_mode(p, "/workspace/a.d") == POLICY_NONE);
  CHECK(tp_mode(p, "/workspace/a0") == POLICY_RW);
  CHECK(tp_mode(p, "/workspace/notes/x") == POLICY_RO);
  CHECK(tp_mode(p, "/workspace/docs") == POLICY_RW);
  CHECK(policy_below_mode(p, "/workspace", 10) == POLICY_NONE);
  CHECK(policy_below_mode(p, "/workspace/a", 12) == POLICY_RW);
  CHECK(policy_below_mode(p, "/workspace/a-c", 14) == POLICY_RW);
  CHECK(policy_below_mode(p, "/workspace/notes", 16) == POLICY_RW);
  CHECK(policy_below_mode(p, "/", 1) == POLICY_NONE);
  CHECK(policy_below_mode(p, "/tmp", 4) == POLICY_RW);
  policy_destroy(p);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("policy-1.3") { /* commands and operations */
  mem m;
  policy *p;
  char err[128];
  const char *t =
      "allow-command grep\nallow-command sed\ndeny-command sed\n"
      "deny-command echo\nallow-command grep\n"
      "allow-op read_file\nallow-op execute\ndeny-op execute\n";
  mem_init(&m, 0);
  REQUIRE(policy_parse(&m, t, strlen(t), &p, err, sizeof err) == 0);
  CHECK(policy_command_allowed(p, "grep", 0, NULL));
  CHECK(!policy_command_allowed(p, "sed", 0, NULL)); /* deny wins */
  CHECK(!policy_command_allowed(p, "awk", 0, NULL)); /* not on the allow-list */
  CHECK(policy_command_allowed(p, "cd", 1, NULL)); /* builtins stay */
  CHECK(
      !policy_command_allowed(p, "echo", 1, NULL)); /* unless denied by name */
  CHECK(policy_op_allowed(p, POLICY_OP_READ_FILE));
  CHECK(!policy_op_allowed(p, POLICY_OP_EXECUTE));
  CHECK(!policy_op_allowed(p, POLICY_OP_WRITE_FILE));
  CHECK(policy_command_allowed(NULL, "anything", 0, NULL));
  policy_destroy(p);
  CHECK(m.used == 0 && m.blocks == 0);
}

/* egrep and grep as one implementation, for policy-1.4 */
static int tp_same(const char *a, const char *b) {
  return (!strcmp(a, "grep") || !strcmp(a, "egrep")) &&
         (!strcmp(b, "grep") || !strcmp(b, "egrep"));
}

TEST("policy-1.4") { /* rules hold for every name of an implementation */
  mem m;
  policy *p;
  char err[128];
  const char *t = "deny-command grep\nallow-command egrep\nallow-command ls\n";
  mem_init(&m, 0);
  REQUIRE(policy_parse(&m, t, strlen(t), &p, err, sizeof err) == 0);
  CHECK(!policy_command_allowed(p, "egrep", 0, tp_same)); /* #21 item 9 */
  CHECK(policy_command_allowed(p, "egrep", 0, NULL)); /* by name only */
  CHECK(policy_command_allowed(p, "ls", 0, tp_same));
  CHECK(!policy_command_allowed(p, "cat", 0, tp_same));
  policy_destroy(p);
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("policy-2.1") { /* host operations: denial, atomic replacement */
  msb_sandbox *sb = tp_open();
  uint8_t *d;
  size_t n;
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tp_put(sb, "a.txt", "A") == 0);
  REQUIRE(tp_set(sb, "deny-op write_file\ndeny-op remove_path\n") == 0);
  rev = msb_revision(sb);
  CHECK(tp_put(sb, "a.txt", "B") == MSB_EPOLICY);
  CHECK_STR(msb_errmsg(sb), "operation write_file is denied by policy");
  CHECK(msb_remove(sb, "a.txt", 0) == MSB_EPOLICY);
  CHECK(msb_revision(sb) == rev);
  REQUIRE(msb_read(sb, "a.txt", &d, &n) == 0);
  CHECK(n == 1 && d[0] == 'A');
  msb_free(sb, d);
  /* a bad text keeps the old policy */
  CHECK(tp_set(sb, "deny-op nope") == MSB_EINVAL);
  CHECK_STR(msb_errmsg(sb),
            "invalid policy: line 1: unknown operation "
            "\"nope\"");
  CHECK(tp_put(sb, "a.txt", "B") == MSB_EPOLICY);
  /* an empty text allows everything again */
  CHECK(tp_set(sb, "") == 0);
  CHECK(sb->pol == NULL);
  CHECK(tp_put(sb, "a.txt", "B") == 0);
  CHECK(api_close(sb) == 0);
}

TEST("policy-2.5") { /* msb_op_open: checked once, its steps are not */
  msb_sandbox *sb = tp_open();
  uint8_t h[32];
  uint64_t rev;
  REQUIRE(sb);
  REQUIRE(tp_put(sb, "a.txt", "A") == 0);
  REQUIRE(tp_set(sb, "deny-op hash\ndeny-op remove_path\n") == 0);
  CHECK(msb_hash(sb, "a.txt", h) == MSB_EPOLICY);
  rev = msb_revision(sb);
  /* a denied operation: refused, nothing open, nothing changed */
  CHECK(msb_op_open(sb, "remove_path", NULL) == MSB_EPOLICY);
  CHECK_STR(msb_errmsg(sb), "operation remove_path is denied by policy");
  CHECK(msb_hash(sb, "a.txt", h) == MSB_EPOLICY);
  CHECK(msb_op_open(sb, "no_such_op", NULL) == MSB_EINVAL);
  /* an admitted write: its hash step is no decision of its own; nests */
  REQUIRE(msb_op_open(sb, "write_file", NULL) == 0);
  REQUIRE(msb_op_open(sb, "read_file", NULL) == 0);
  CHECK(tp_put(sb, "a.txt", "B") == 0);
  msb_op_close(sb);
  CHECK(msb_hash(sb, "a.txt", h) == 0);
  msb_op_close(sb);
  CHECK(msb_revision(sb) == rev + 1);
  CHECK(msb_hash(sb, "a.txt", h) == MSB_EPOLICY);
  msb_op_close(sb); /* an unmatched close does nothing */
  CHECK(msb_hash(sb, "a.txt", h) == MSB_EPOLICY);
  CHECK(api_close(sb) == 0);
}

TEST("policy-2.6") { /* msb_op_record: the host's own fork (#21 item 9) */
  msb_sandbox *sb = tp_open();
  uint64_t rev;
  REQUIRE(sb);
  rev = msb_revision(sb);
  CHECK(msb_op_record(sb, "fork") == 0);
  CHECK(msb_op_record(sb, "no_such_op") == MSB_EINVAL);
  REQUIRE(tp_set(sb, "deny-op fork\n") == 0);
  CHECK(msb_op_record(sb, "fork") == MSB_EPOLICY);
  CHECK_STR(msb_errmsg(sb), "operation fork is denied by policy");
  CHECK(msb_revision(sb) == rev);
  CHECK(api_close(sb) == 0);
}

TEST("policy-2.2") { /* path rules through the host API */
  msb_sandbox *sb = tp_open();
  msb_stat st;
  uint8_t *d;
  size_t n;
  char *names;
  size_t len, count;
  REQUIRE(sb);
  REQUIRE(tp_put(sb, "secret/key", "K") == 0);
  REQUIRE(tp_put(sb, "ro/file", "R") == 0);
  REQUIRE(tp_put(sb, "pub/a", "P") == 0);
  REQUIRE(msb_symlink(sb, "secret/key", "lnk") == 0);
  REQUIRE(tp_set(sb,
                 "path /workspace/secret none\n"
                 "path /workspace/ro read-only\n") == 0);
  CHECK(msb_read(sb, "secret/key", &d, &n) == MSB_EPOLICY);
  CHECK_STR(msb_errmsg(sb),
            "/workspace/secret/key: permission denied by the "
            "policy's path rules");
  CHECK(msb_read(sb, "lnk", &d, &n) == MSB_EPOLICY); /* resolved path */
  CHECK(msb_read(sb, "secret/missing", &d, &n) == MSB_EPOLICY);
  CHECK(msb_list(sb, "secret", &names, &len, &count) == MSB_EPOLICY);
  CHECK(msb_stat_path(sb, "secret", 0, &st) == 0); /* like a 000 dir */
  /* its totals, or its parent's, would count what it hides (#21 item 15) */
  CHECK(st.kind == MSB_DIR && st.nodes == 0 && st.bytes == 0);
  CHECK(msb_stat_path(sb, "/workspace", 0, &st) == 0);
  CHECK(st.nodes == 0 && st.bytes == 0);
  CHECK(msb_stat_path(sb, "pub", 0, &st) == 0);
  CHECK(st.nodes == 2 && st.bytes == 1);
  CHECK(msb_stat_path(sb, "secret/key", 0, &st) == MSB_EPOLICY);
  /* ".." out of a hidden directory must not probe what is inside */
  CHECK(msb_stat_path(sb, "/workspace/secret/../pub/a", 0, &st) == MSB_EPOLICY);
  CHECK(msb_stat_path(sb, "/workspace/secret/nope/../../pub/a", 0, &st) ==
        MSB_EPOLICY);
  CHECK(msb_stat_path(sb, "/workspace/ro/../pub/a", 0, &st) == 0);
  CHECK(msb_read(sb, "ro/file", &d, &n) == 0);
  msb_free(sb, d);
  CHECK(tp_put(sb, "ro/file", "X") == MSB_EPOLICY);
  CHECK(tp_put(sb, "ro/new", "X") == MSB_EPOLICY);
  CHECK(msb_mkdir(sb, "ro/sub/deep", 0, MSB_PARENTS) == MSB_EPOLICY);
  CHECK(msb_remove(sb, "ro", MSB_RECURSIVE) == MSB_EPOLICY);
  CHECK(msb_move(sb, "ro/file", "pub/file", 0) == MSB_EPOLICY);
  CHECK(msb_move(sb, "pub/a", "secret/a", 0) == MSB_EPOLICY);
  CHECK(msb_copy(sb, "secret", "pub/s", MSB_RECURSIVE) == MSB_EPOLICY);
  CHECK(msb_copy(sb, "/workspace/pub", "ro/p", MSB_RECURSIVE) == MSB_EPOLICY);
  CHECK(msb_chmod(sb, "ro/file", 0600) == MSB_EPOLICY);
  CHECK(msb_copy(sb, "ro/file", "pub/copy", 0) == 0);
  /* "/workspace/ro" must not match "/workspace/rox" */
  CHECK(tp_put(sb, "rox", "ok") == 0);
  /* a parent holding a protected subtree cannot go as a whole */
  CHECK(msb_remove(sb, "/workspace", MSB_RECURSIVE) == MSB_EPOLICY);
  CHECK(api_close(sb) == 0);
}

TEST("policy-2.3") { /* commands, paths and cd in the shell */
  msb_sandbox *sb = tp_open();
  char out[1024], err[1024];
  REQUIRE(sb);
  REQUIRE(tp_put(sb, "secret/key", "K\n") == 0);
  REQUIRE(tp_put(sb, "pub/a", "P\n") == 0);
  REQUIRE(tp_set(sb,
                 "path /workspace/secret none\ndeny-command wc\n"
                 "deny-command cd\n") == 0);
  CHECK(tp_exec(sb, "wc -l pub/a; echo $?", out, err, sizeof out) == 0);
  CHECK_STR(out, "126\n");
  CHECK_STR(err, "bash: line 1: wc: command denied by policy\n");
  CHECK(tp_exec(sb,
                "/usr/bin/wc pub/a; env wc pub/a; echo x | xargs wc; "
                "bash -c 'wc pub/a'; command wc; timeout 5 wc pub/a; "
                "cd /tmp",
                out, err, sizeof out) == 126);
  CHECK_STR(err,
            "bash: line 1: /usr/bin/wc: command denied by policy\n"
            "bash: line 1: wc: command denied by policy\n"
            "bash: line 1: wc: command denied by policy\n"
            "bash: line 1: wc: command denied by policy\n"
            "bash: line 1: wc: command denied by policy\n"
            "bash: line 1: wc: command denied by policy\n"
            "bash: line 1: cd: command denied by policy\n");
  CHECK(tp_exec(sb, "cat secret/key; echo s/*; ls secret; echo end", out, err,
                sizeof out) == 0);
  CHECK_STR(out, "s/*\nend\n");
  CHECK_STR(err,
            "cat: secret/key: Permission denied\n"
            "ls: cannot open directory 'secret': Permission denied\n");
  CHECK(api_close(sb) == 0);
}

TEST("policy-2.4") { /* host state: survives rollback, allow-list */
  msb_sandbox *sb = tp_open();
  char out[512], err[512];
  uint32_t cp;
  REQUIRE(sb);
  REQUIRE(msb_checkpoint(sb, &cp) == 0);
  REQUIRE(tp_set(sb, "allow-command cat\npath /workspace/ro read-only\n") == 0);
  REQUIRE(msb_rollback(sb, cp) == 0);
  CHECK(tp_exec(sb, "echo hi > ro; cat ro; ls; echo $?", out, err,
                sizeof out) == 0);
  CHECK_STR(out, "126\n");
  CHECK_STR(err,
            "bash: line 1: ro: Permission denied\n"
            "cat: ro: No such file or directory\n"
            "bash: line 1: ls: command denied by policy\n");
  CHECK(api_close(sb) == 0);
}

TEST("policy-3.1") { /* fault injection: set_policy is all or nothing */
  const char *t =
      "allow-command cat\ndeny-command rm\n"
      "path /workspace/a none\npath /workspace/b read-only\n"
      "path /workspace/a/c read-write\ndeny-op fork\n";
  long k;
  int rc = MSB_ENOMEM;
  for (k = 0; k < 200 && rc == MSB_ENOMEM; k++) {
    msb_sandbox *sb = tp_open();
    REQUIRE(sb);
    REQUIRE(tp_set(sb, "deny-op write_file") == 0);
    sb->m.fail_after = k;
    rc = tp_set(sb, t);
    sb->m.fail_after = -1;
    if (rc == MSB_ENOMEM) {
      /* the old policy is still in force */
      CHECK(strstr(msb_errmsg(sb), "out of memory") != NULL);
      CHECK(tp_put(sb, "x", "1") == MSB_EPOLICY);
    } else {
      CHECK(rc == 0);
      CHECK(tp_put(sb, "x", "1") == 0);
      CHECK(tp_put(sb, "b/x", "1") == MSB_EPOLICY);
    }
    CHECK(api_close(sb) == 0);
  }
  CHECK(rc == 0);
}

TEST("policy-3.2") { /* fault injection: operations under a policy */
  long k;
  int rc = MSB_ENOMEM;
  for (k = 0; k < 400 && rc == MSB_ENOMEM; k++) {
    msb_sandbox *sb = tp_open();
    uint64_t rev;
    REQUIRE(sb);
    REQUIRE(tp_put(sb, "a/deep/f", "1") == 0);
    REQUIRE(tp_set(sb,
                   "path /workspace/a/deep none\n"
                   "path /workspace/b read-only\n") == 0);
    rev = msb_revision(sb);
    sb->m.fail_after = k;
    rc = msb_copy(sb, "a", "c", MSB_RECURSIVE);
    if (rc == MSB_EPOLICY) rc = msb_mkdir(sb, "b/e", 0, MSB_PARENTS);
    sb->m.fail_after = -1;
    if (rc == MSB_ENOMEM) {
      CHECK(msb_revision(sb) == rev);
    } else {
      if (rc != MSB_EPOLICY) fprintf(stderr, "    k %ld rc %d\n", k, rc);
      CHECK(rc == MSB_EPOLICY);
    }
    CHECK(api_close(sb) == 0);
  }
  CHECK(rc == MSB_EPOLICY);
}

TEST("policy-1.4") { /* hostile text: random bytes and near-valid lines */
  static const char *const pieces[] = {"path ",
                                       "/",
                                       "a",
                                       "..",
                                       " none",
                                       " read-only",
                                       "\n",
                                       "\r",
                                       "\t",
                                       "allow-command ",
                                       "deny-op ",
                                       "fork",
                                       "#",
                                       " ",
                                       "\x00",
                                       "\xff",
                                       "//",
                                       "path / read-write\n",
                                       "deny-command x\n"};
  mem m;
  uint32_t x = 12345;
  int i, k;
  mem_init(&m, 0);
  for (i = 0; i < 3000; i++) {
    char text[256];
    size_t n = 0;
    policy *p = NULL;
    char err[64];
    int rc;
    for (k = 0; k < 12; k++) {
      const char *pc;
      size_t pl;
      x = x * 1103515245u + 12345u;
      pc = pieces[(x >> 16) % (sizeof pieces / sizeof pieces[0])];
      pl = pc[0] ? strlen(pc) : 1;
      if (n + pl > sizeof text) break;
      memcpy(text + n, pc, pl);
      n += pl;
    }
    rc = policy_parse(&m, text, n, &p, err, sizeof err);
    CHECK(rc == 0 || rc == MSB_EINVAL);
    CHECK((rc == 0) == (p != NULL));
    if (p) {
      /* every lookup works on whatever was accepted */
      (void)policy_path_mode(p, "/a/b", 4);
      (void)policy_below_mode(p, "/", 1);
      (void)policy_command_allowed(p, "x", 0, NULL);
    }
    policy_destroy(p);
  }
  CHECK(m.used == 0 && m.blocks == 0);
}

TEST("policy-4.1") { /* msb_fork keeps the policy; a copy, not a share */
  msb_sandbox *sb = tp_open(), *child = NULL;
  char out[256], err[256];
  uint8_t *d;
  size_t n;
  REQUIRE(sb);
  REQUIRE(tp_put(sb, "/workspace/ro/f", "x\n") == 0);
  REQUIRE(tp_set(sb, "deny-command sed\npath /workspace/ro read-only\n") == 0);
  REQUIRE(msb_fork(sb, &child) == 0);
  msb_close(sb); /* the child must not depend on the parent's copy */
  CHECK(tp_exec(child, "sed p ro/f", out, err, sizeof out) == 126);
  CHECK(strcmp(err, "bash: line 1: sed: command denied by policy\n") == 0);
  CHECK(tp_exec(child, "echo y > ro/f", out, err, sizeof out) == 1);
  CHECK(msb_read(child, "/workspace/ro/f", &d, &n) == 0 && n == 2);
  msb_free(child, d);
  CHECK(api_close(child) == 0);
}

TEST("policy-4.2") { /* policy_copy under fault injection: all or nothing */
  const char *t =
      "allow-command cat\ndeny-command rm\npath /workspace/a none\n"
      "path /workspace/b read-only\ndeny-op fork\n";
  mem m, c;
  policy *p, *q = NULL;
  char err[128];
  long k;
  int rc = MSB_ENOMEM;
  mem_init(&m, 0);
  REQUIRE(policy_parse(&m, t, strlen(t), &p, err, sizeof err) == 0);
  for (k = 0; k < 100 && rc == MSB_ENOMEM; k++) {
    mem_init(&c, 0);
    c.fail_after = k;
    rc = policy_copy(&c, p, &q);
    c.fail_after = -1;
    if (rc) CHECK(q == NULL && c.used == 0 && c.blocks == 0);
  }
  REQUIRE(rc == 0);
  CHECK(!policy_command_allowed(q, "rm", 0, NULL) &&
        policy_command_allowed(q, "cat", 0, NULL));
  CHECK(tp_mode(q, "/workspace/b/x") == tp_mode(p, "/workspace/b/x"));
  CHECK(!policy_op_allowed(q, POLICY_OP_FORK));
  policy_destroy(q);
  policy_destroy(p);
  CHECK(c.used == 0 && m.used == 0);
}
