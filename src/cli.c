/* cli.c - build/msb, the native command-line front end (host side).
 *
 * Usage: msb [OPTIONS] -c SCRIPT [ARG0 [ARGS...]]
 *        msb [OPTIONS] FILE [ARGS...]     (FILE is a host file: the script)
 *        msb [OPTIONS]                    (REPL on a terminal; otherwise the
 *                                          script is read from stdin)
 * Options:
 *   --seed DIR        copy a host directory tree into /workspace first
 *                     (files with their mode bits, directories, symlinks)
 *   --profile P       normal (default) or strict limits
 *   --limits K=V,...  override msb_limits fields by name
 *   --clock NS        sandbox clock in ns since the epoch (default: now)
 *   --rng-seed N      seed for $RANDOM and friends (default 0)
 *   --policy FILE     set the policy from a host file (memsandbox.h's text
 *                     form) after seeding
 *   --events FILE     write the events (JSON lines) to a host file at exit
 *   --json            print one JSON object instead of the raw streams
 *   --load FILE       start from a snapshot (.tar.gz) or any tar archive
 *   --save FILE       write a snapshot of the final state to FILE (also
 *                     when the script fails, as the JS CLI does)
 *   --help, --version
 *
 * This is the only file allowed real stdio, the host clock and host files:
 * it is the host. Everything it does to the sandbox goes through the public
 * API in include/memsandbox.h. With -c and stdin not a terminal, stdin is
 * the script's stdin, as for bash -c. The script's stdout and stderr bytes
 * and its exit status are passed through unchanged.
 *
 * Positional parameters: msb_exec has no argv, so ARGS are set by running
 * `set -- ARGS` first (on the script's first line, keeping line numbers);
 * $0 is ARG0 with -c, FILE for a script file (msb_exec_opts.arg0), so
 * messages start with it as in bash. The REPL ends on EOF or on a
 * line that is just `exit [N]` (the API does not report that a script ran
 * exit). REPL lines starting with a dot-command manage snapshots instead of
 * running: `.save FILE`, `.load FILE`, `.help` (no shell command starts
 * with "." followed by a letter except a file named so, which the REPL
 * does not run). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memsandbox.h"

#define CLI_FAIL 125 /* the sandbox itself failed (not a script status) */

#define CLI_REPL_HELP                                                        \
  "REPL commands (a line starting with one; the shell never sees it):\n"     \
  "  .save FILE         write a snapshot of the sandbox to the host file "   \
  "FILE\n"                                                                   \
  "  .load FILE         replace the sandbox's state with a snapshot or tar " \
  "archive\n"                                                                \
  "  .help              list these commands\n"

static const char cli_usage[] =
    "Usage: msb [OPTIONS] -c SCRIPT [ARG0 [ARGS...]]\n"
    "       msb [OPTIONS] FILE [ARGS...]\n"
    "       msb [OPTIONS]            (interactive on a terminal, else the\n"
    "                                 script is read from stdin)\n"
    "Run bash-compatible scripts in an in-memory sandbox.\n"
    "\n"
    "  -c SCRIPT          run SCRIPT\n"
    "  --seed DIR         copy host directory DIR into /workspace first\n"
    "  --profile P        limits profile: normal (default) or strict\n"
    "  --limits K=V,...   set limits by field name, e.g. max_steps=1000\n"
    "  --clock NS         sandbox clock, ns since the epoch (default: now)\n"
    "  --rng-seed N       random seed (default 0)\n"
    "  --policy FILE      set the host policy from FILE (after --seed)\n"
    "  --events FILE      write the events as JSON lines to FILE at exit\n"
    "  --json             print the result as one JSON object\n"
    "  --load FILE        start from a snapshot (.tar.gz) or any tar archive\n"
    "  --save FILE        write a snapshot of the final state to FILE\n"
    "  --help             show this help\n"
    "  --version          show the version\n"
    "\n" CLI_REPL_HELP;

typedef struct cli_buf {
  char *p;
  size_t len, cap;
} cli_buf;

static int cli_put(cli_buf *b, const void *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 256;
    char *np;
    while (nc < b->len + n + 1) nc *= 2;
    np = realloc(b->p, nc);
    if (!np) return -1;
    b->p = np;
    b->cap = nc;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
  return 0;
}

static int cli_puts(cli_buf *b, const char *s) {
  return cli_put(b, s, strlen(s));
}

/* Reads a whole host stream. */
static int cli_read_all(FILE *f, cli_buf *b) {
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
    if (cli_put(b, tmp, n)) return -1;
  if (!b->p && cli_put(b, "", 0)) return -1;
  return ferror(f) ? -1 : 0;
}

/* ---- limits ----------------------------------------------------------- */

typedef struct cli_limit {
  const char *name;
  size_t off;
  int is32;
  uint64_t min; /* the smallest value msb_open accepts */
} cli_limit;

#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  {#field, offsetof(msb_limits, field), sizeof(type) == 4, min},
static const cli_limit cli_limits[] = {
#include "limits.def"
};
#undef LIMIT

/* Parses an unsigned decimal number (whole string). */
static int cli_u64(const char *s, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return -1;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return 0;
}

static int cli_i64(const char *s, int64_t *out) {
  uint64_t v;
  int neg = *s == '-';
  if (cli_u64(s + neg, &v) || v > (uint64_t)INT64_MAX) return -1;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

/* Applies "k=v,k=v" to lim; prints the problem and returns -1 on error. */
static int cli_set_limits(msb_limits *lim, const char *spec) {
  char *copy = strdup(spec), *tok, *save = 0;
  int rc = 0;
  if (!copy) return -1;
  for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(0, ",", &save)) {
    char *eq = strchr(tok, '=');
    size_t i;
    uint64_t v;
    const cli_limit *l = 0;
    if (!eq) {
      fprintf(stderr, "msb: --limits: expected NAME=VALUE, got '%s'\n", tok);
      rc = -1;
      break;
    }
    *eq = 0;
    for (i = 0; i < sizeof cli_limits / sizeof cli_limits[0]; i++)
      if (!strcmp(cli_limits[i].name, tok)) l = &cli_limits[i];
    if (!l) {
      fprintf(stderr, "msb: --limits: unknown limit '%s'\n", tok);
      rc = -1;
      break;
    }
    if (cli_u64(eq + 1, &v) || (l->is32 && v > UINT32_MAX)) {
      fprintf(stderr, "msb: --limits: bad value for %s: '%s'\n", tok, eq + 1);
      rc = -1;
      break;
    }
    if (v < l->min) {
      fprintf(stderr, "msb: --limits: %s must be at least %llu\n", tok,
              (unsigned long long)l->min);
      rc = -1;
      break;
    }
    if (l->is32)
      *(uint32_t *)(void *)((char *)lim + l->off) = (uint32_t)v;
    else
      *(uint64_t *)(void *)((char *)lim + l->off) = v;
  }
  free(copy);
  return rc;
}

/* ---- seeding ---------------------------------------------------------- */

static int cli_path_join(cli_buf *b, const char *a, const char *name) {
  b->len = 0;
  if (cli_puts(b, a) || cli_puts(b, "/") || cli_puts(b, name)) return -1;
  return 0;
}

/* Copies host directory `host` into sandbox directory `box`, recursively.
 * Returns 0 or -1 after printing what failed. */
static int cli_seed_dir(msb_sandbox *sb, const char *host, const char *box) {
  DIR *d = opendir(host);
  struct dirent *e;
  cli_buf hp = {0, 0, 0}, bp = {0, 0, 0};
  int rc = 0;
  if (!d) {
    fprintf(stderr, "msb: --seed: %s: %s\n", host, strerror(errno));
    return -1;
  }
  while (!rc && (e = readdir(d))) {
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (cli_path_join(&hp, host, e->d_name) ||
        cli_path_join(&bp, box, e->d_name)) {
      rc = -1;
      break;
    }
    if (lstat(hp.p, &st)) {
      fprintf(stderr, "msb: --seed: %s: %s\n", hp.p, strerror(errno));
      rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
      int r = msb_mkdir(sb, bp.p, (uint32_t)(st.st_mode & 07777),
                        MSB_PARENTS | MSB_EXIST_OK);
      if (r) {
        fprintf(stderr, "msb: --seed: %s: %s\n", bp.p, msb_errmsg(sb));
        rc = -1;
      } else {
        char *h = strdup(hp.p), *b2 = strdup(bp.p);
        rc = h && b2 ? cli_seed_dir(sb, h, b2) : -1;
        /* mkdir applied the mode; re-apply in case it lacked write bits */
        if (!rc) msb_chmod(sb, b2, (uint32_t)(st.st_mode & 07777));
        free(h);
        free(b2);
      }
    } else if (S_ISLNK(st.st_mode)) {
      char target[4096];
      ssize_t n = readlink(hp.p, target, sizeof target - 1);
      if (n < 0) {
        fprintf(stderr, "msb: --seed: %s: %s\n", hp.p, strerror(errno));
        rc = -1;
      } else {
        target[n] = 0;
        if (msb_symlink(sb, target, bp.p)) {
          fprintf(stderr, "msb: --seed: %s: %s\n", bp.p, msb_errmsg(sb));
          rc = -1;
        }
      }
    } else if (S_ISREG(st.st_mode)) {
      FILE *f = fopen(hp.p, "rb");
      cli_buf data = {0, 0, 0};
      if (!f || cli_read_all(f, &data)) {
        fprintf(stderr, "msb: --seed: %s: %s\n", hp.p, strerror(errno));
        rc = -1;
      } else if (msb_write(sb, bp.p, data.p, data.len, MSB_WRITE_ANY, 0,
                           (uint32_t)(st.st_mode & 07777), MSB_PARENTS) ||
                 msb_chmod(sb, bp.p, (uint32_t)(st.st_mode & 07777))) {
        fprintf(stderr, "msb: --seed: %s: %s\n", bp.p, msb_errmsg(sb));
        rc = -1;
      }
      if (f) fclose(f);
      free(data.p);
    }
    /* devices, fifos and sockets are skipped: the sandbox has none */
  }
  closedir(d);
  free(hp.p);
  free(bp.p);
  return rc;
}

/* ---- output ----------------------------------------------------------- */

/* Length of a valid UTF-8 sequence at s (max n bytes), or 0. */
static size_t cli_utf8(const unsigned char *s, size_t n) {
  size_t len, i;
  uint32_t cp;
  if (s[0] < 0x80) return 1;
  if ((s[0] & 0xE0) == 0xC0) {
    len = 2;
    cp = s[0] & 0x1F;
  } else if ((s[0] & 0xF0) == 0xE0) {
    len = 3;
    cp = s[0] & 0x0F;
  } else if ((s[0] & 0xF8) == 0xF0) {
    len = 4;
    cp = s[0] & 0x07;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

/* A JSON string. Invalid UTF-8 bytes become \u00XX (their Latin-1
 * reading), so any byte string can be shown. */
static void cli_json_str(FILE *f, const uint8_t *s, size_t n) {
  size_t i = 0;
  fputc('"', f);
  while (i < n) {
    unsigned char c = s[i];
    size_t k;
    if (c == '"' || c == '\\') {
      fprintf(f, "\\%c", c);
      i++;
    } else if (c == '\n') {
      fputs("\\n", f);
      i++;
    } else if (c == '\t') {
      fputs("\\t", f);
      i++;
    } else if (c == '\r') {
      fputs("\\r", f);
      i++;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
      i++;
    } else if ((k = cli_utf8(s + i, n - i)) > 0) {
      fwrite(s + i, 1, k, f);
      i += k;
    } else {
      fprintf(f, "\\u%04x", c);
      i++;
    }
  }
  fputc('"', f);
}

static void cli_print(const msb_result *r, int json) {
  if (!json) {
    if (r->out_len) fwrite(r->out, 1, r->out_len, stdout);
    fflush(stdout);
    if (r->err_len) fwrite(r->err, 1, r->err_len, stderr);
    fflush(stderr);
    return;
  }
  printf("{\"exit_code\":%d,\"stdout\":", r->exit_code);
  cli_json_str(stdout, r->out, r->out_len);
  printf(",\"stderr\":");
  cli_json_str(stdout, r->err, r->err_len);
  printf(",\"cwd\":");
  cli_json_str(stdout, (const uint8_t *)(r->cwd ? r->cwd : ""),
               r->cwd ? strlen(r->cwd) : 0);
  printf(
      ",\"stdout_truncated\":%s,\"stderr_truncated\":%s,"
      "\"stdout_total\":%llu,\"stderr_total\":%llu,\"limit\":",
      r->out_truncated ? "true" : "false", r->err_truncated ? "true" : "false",
      (unsigned long long)r->out_total, (unsigned long long)r->err_total);
  if (r->limit)
    cli_json_str(stdout, (const uint8_t *)r->limit, strlen(r->limit));
  else
    printf("null");
  printf("}\n");
  fflush(stdout);
}

/* Appends s as one single-quoted shell word. */
static int cli_shell_word(cli_buf *b, const char *s) {
  if (cli_puts(b, "'")) return -1;
  for (; *s; s++) {
    if (*s == '\'') {
      if (cli_puts(b, "'\\''")) return -1;
    } else if (cli_put(b, s, 1)) {
      return -1;
    }
  }
  return cli_puts(b, "'");
}

/* Runs one script; prints the result. Returns the exit status. */
static int cli_run(msb_sandbox *sb, const char *script, size_t len,
                   const char *arg0, const uint8_t *in, size_t in_len,
                   int json) {
  msb_exec_opts o;
  msb_result r;
  int status;
  memset(&o, 0, sizeof o);
  o.stdin_data = in;
  o.stdin_len = in_len;
  o.arg0 = arg0;
  if (msb_exec(sb, script, len, &o, &r)) {
    fprintf(stderr, "msb: %s\n", msb_errmsg(sb));
    return CLI_FAIL;
  }
  cli_print(&r, json);
  status = r.exit_code;
  msb_result_finish(sb, &r);
  return status;
}

/* ---- snapshots ------------------------------------------------------- */

/* Restores a host archive file into sb. 0 or -1 (message printed). */
static int cli_load(msb_sandbox *sb, const char *path) {
  cli_buf b = {0, 0, 0};
  FILE *f = fopen(path, "rb");
  int rc;
  if (!f || cli_read_all(f, &b)) {
    fprintf(stderr, "msb: %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    free(b.p);
    return -1;
  }
  fclose(f);
  rc = msb_restore(sb, (const uint8_t *)b.p, b.len);
  free(b.p);
  if (rc) {
    fprintf(stderr, "msb: %s: %s\n", path, msb_errmsg(sb));
    return -1;
  }
  return 0;
}

/* Writes a snapshot of sb to a host file. 0 or -1 (message printed). */
static int cli_save(msb_sandbox *sb, const char *path) {
  uint8_t *d = 0;
  size_t n = 0;
  FILE *f;
  int bad;
  if (msb_snapshot(sb, -1, &d, &n)) {
    fprintf(stderr, "msb: %s\n", msb_errmsg(sb));
    return -1;
  }
  f = fopen(path, "wb");
  bad = !f || fwrite(d, 1, n, f) != n;
  if (f && fclose(f)) bad = 1;
  if (bad) fprintf(stderr, "msb: %s: %s\n", path, strerror(errno));
  msb_free(sb, d);
  return bad ? -1 : 0;
}

static const char cli_repl_help[] = CLI_REPL_HELP;

/* Runs a REPL dot-command line; 0 when line is not one. */
static int cli_dot(msb_sandbox *sb, const char *line) {
  const char *p = line, *arg;
  size_t n;
  char *path;
  while (*p == ' ' || *p == '\t') p++;
  if (p[0] != '.' || !((p[1] >= 'a' && p[1] <= 'z'))) return 0;
  n = strcspn(p, " \t\n");
  arg = p + n;
  while (*arg == ' ' || *arg == '\t') arg++;
  path = strdup(arg);
  if (!path) return 1;
  path[strcspn(path, "\n")] = 0;
  while (*path &&
         (path[strlen(path) - 1] == ' ' || path[strlen(path) - 1] == '\t'))
    path[strlen(path) - 1] = 0;
  if (n == 5 && !strncmp(p, ".help", 5)) {
    fputs(cli_repl_help, stdout);
  } else if ((n == 5 && !strncmp(p, ".save", 5)) ||
             (n == 5 && !strncmp(p, ".load", 5))) {
    if (!*path)
      fprintf(stderr, "msb: %.5s: a FILE is required\n", p);
    else if (p[1] == 's' && !cli_save(sb, path))
      printf("saved %s\n", path);
    else if (p[1] == 'l' && !cli_load(sb, path))
      printf("loaded %s\n", path);
  } else {
    fprintf(stderr, "msb: %.*s: unknown REPL command (try .help)\n", (int)n, p);
  }
  free(path);
  return 1;
}

/* Whether a REPL line is just `exit [N]`; stores N (or -1 for none). */
static int cli_is_exit(const char *line, int *code) {
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "exit", 4)) return 0;
  p += 4;
  if (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != ';') return 0;
  while (*p == ' ' || *p == '\t') p++;
  *code = -1;
  if (*p >= '0' && *p <= '9') {
    *code = 0;
    while (*p >= '0' && *p <= '9') *code = (*code * 10 + (*p++ - '0')) & 255;
  }
  while (*p == ' ' || *p == '\t' || *p == ';') p++;
  return *p == '\n' || *p == 0;
}

/* Sets the policy from a host file. */
static int cli_policy(msb_sandbox *sb, const char *path) {
  cli_buf t = {0, 0, 0};
  FILE *f = fopen(path, "rb");
  int rc;
  if (!f || cli_read_all(f, &t)) {
    fprintf(stderr, "msb: %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    free(t.p);
    return 1;
  }
  fclose(f);
  rc = msb_set_policy(sb, t.p ? t.p : "", t.len);
  free(t.p);
  if (rc) fprintf(stderr, "msb: --policy: %s\n", msb_errmsg(sb));
  return rc != 0;
}

/* Writes the pending events to a host file. */
static int cli_events(msb_sandbox *sb, const char *path) {
  char *json = 0;
  size_t len = 0;
  FILE *f;
  if (msb_events_take(sb, &json, &len)) {
    fprintf(stderr, "msb: events: %s\n", msb_errmsg(sb));
    return 1;
  }
  f = fopen(path, "wb");
  if (!f || (len && fwrite(json, 1, len, f) != len)) {
    fprintf(stderr, "msb: %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    msb_free(sb, json);
    return 1;
  }
  fclose(f);
  msb_free(sb, json);
  return 0;
}

static int cli_repl(msb_sandbox *sb, int json) {
  cli_buf script = {0, 0, 0};
  char *line = 0, *cwd = 0;
  size_t cap = 0;
  int last = 0, code;
  cwd = strdup("/workspace");
  for (;;) {
    ssize_t n;
    if (script.len == 0)
      printf("mem-sandbox:%s> ", cwd ? cwd : "?");
    else
      printf("> ");
    fflush(stdout);
    n = getline(&line, &cap, stdin);
    if (n < 0) {
      putchar('\n');
      break;
    }
    if (script.len == 0 && cli_is_exit(line, &code)) {
      if (code >= 0) last = code;
      break;
    }
    if (script.len == 0 && cli_dot(sb, line)) {
      msb_result r;
      /* the prompt shows the (possibly restored) working directory */
      if (!msb_exec(sb, "", 0, NULL, &r)) {
        if (r.cwd) {
          free(cwd);
          cwd = strdup(r.cwd);
        }
        msb_result_finish(sb, &r);
      }
      continue;
    }
    if (cli_put(&script, line, (size_t)n)) break;
    if (msb_parse_check(sb, script.p, script.len) == MSB_EINCOMPLETE) continue;
    {
      msb_exec_opts o;
      msb_result r;
      memset(&o, 0, sizeof o);
      if (msb_exec(sb, script.p, script.len, &o, &r)) {
        fprintf(stderr, "msb: %s\n", msb_errmsg(sb));
      } else {
        cli_print(&r, json);
        last = r.exit_code;
        if (r.cwd) {
          free(cwd);
          cwd = strdup(r.cwd);
        }
        msb_result_finish(sb, &r);
      }
    }
    script.len = 0;
  }
  free(line);
  free(cwd);
  free(script.p);
  return last;
}

int main(int argc, char **argv) {
  msb_limits lim;
  msb_config cfg;
  msb_sandbox *sb = 0;
  const char *seed = 0, *limits = 0, *script_arg = 0, *file = 0, *arg0 = 0;
  const char *policy_file = 0, *events_file = 0, *load = 0, *save = 0;
  int profile = MSB_PROFILE_NORMAL, json = 0, i, status, have_c = 0;
  int64_t clock_ns;
  uint64_t rng = 0;
  struct timespec ts;
  cli_buf script = {0, 0, 0}, in = {0, 0, 0};
  char **args = 0;
  int nargs = 0;

  clock_gettime(CLOCK_REALTIME, &ts);
  clock_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = 0;
    if (!strcmp(a, "--help")) {
      fputs(cli_usage, stdout);
      return 0;
    }
    if (!strcmp(a, "--version")) {
      printf("msb (MemSandbox) %s\n", MSB_VERSION);
      return 0;
    }
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (!strcmp(a, "-c")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "msb: -c: option requires an argument\n");
        return 2;
      }
      have_c = 1;
      script_arg = argv[++i];
      args = argv + i + 1;
      nargs = argc - i - 1;
      break;
    }
    if (!strncmp(a, "--", 2) && a[2]) {
      const char *eq = strchr(a, '=');
      size_t nl = eq ? (size_t)(eq - a) : strlen(a);
      static const char *const known[] = {
          "--seed",   "--profile", "--limits", "--clock", "--rng-seed",
          "--policy", "--events",  "--load",   "--save",  0};
      int k, hit = -1;
      for (k = 0; known[k]; k++)
        if (strlen(known[k]) == nl && !strncmp(a, known[k], nl)) hit = k;
      if (hit < 0) {
        fprintf(stderr, "msb: unrecognized option '%s'\n", a);
        fprintf(stderr, "Try 'msb --help' for more information.\n");
        return 2;
      }
      if (eq)
        val = eq + 1;
      else if (i + 1 < argc)
        val = argv[++i];
      else {
        fprintf(stderr, "msb: option '%s' requires an argument\n", a);
        return 2;
      }
      if (hit == 0) seed = val;
      if (hit == 1) {
        if (!strcmp(val, "normal"))
          profile = MSB_PROFILE_NORMAL;
        else if (!strcmp(val, "strict"))
          profile = MSB_PROFILE_STRICT;
        else {
          fprintf(stderr, "msb: --profile: expected normal or strict\n");
          return 2;
        }
      }
      if (hit == 2) limits = val;
      if (hit == 7) load = val;
      if (hit == 8) save = val;
      if (hit == 3 && cli_i64(val, &clock_ns)) {
        fprintf(stderr, "msb: --clock: bad number '%s'\n", val);
        return 2;
      }
      if (hit == 4 && cli_u64(val, &rng)) {
        fprintf(stderr, "msb: --rng-seed: bad number '%s'\n", val);
        return 2;
      }
      if (hit == 5) policy_file = val;
      if (hit == 6) events_file = val;
      continue;
    }
    if (a[0] == '-' && a[1]) {
      fprintf(stderr, "msb: invalid option -- '%s'\n", a + 1);
      fprintf(stderr, "Try 'msb --help' for more information.\n");
      return 2;
    }
    file = arg0 = a;
    args = argv + i + 1;
    nargs = argc - i - 1;
    break;
  }

  if (msb_limits_init(&lim, profile) ||
      (limits && cli_set_limits(&lim, limits)))
    return 2;
  memset(&cfg, 0, sizeof cfg);
  cfg.limits = &lim;
  cfg.clock_ns = clock_ns;
  cfg.seed = rng;
  if ((status = msb_open(&cfg, &sb))) {
    fprintf(stderr, "msb: cannot open a sandbox: %s\n",
            status == MSB_EINVAL ? "max_file_bytes exceeds max_total_bytes"
                                 : msb_strerror(status));
    return CLI_FAIL;
  }
  if ((load && cli_load(sb, load)) ||
      (seed && cli_seed_dir(sb, seed, "/workspace"))) {
    msb_close(sb);
    return CLI_FAIL;
  }
  if (policy_file && cli_policy(sb, policy_file)) {
    msb_close(sb);
    return 2;
  }

  if (!have_c && !file && isatty(0)) {
    status = cli_repl(sb, json);
    if (save && cli_save(sb, save)) status = CLI_FAIL;
    msb_close(sb);
    return status;
  }

  /* positional parameters: `set -- ARGS; ` on the first line; with -c the
   * first extra word is $0 */
  if (have_c && nargs > 0) {
    arg0 = *args++;
    nargs--;
  }
  if (nargs > 0) {
    cli_puts(&script, "set --");
    for (i = 0; i < nargs; i++) {
      cli_puts(&script, " ");
      cli_shell_word(&script, args[i]);
    }
    cli_puts(&script, "; ");
  }
  if (have_c) {
    cli_puts(&script, script_arg);
    if (!isatty(0) && cli_read_all(stdin, &in)) {
      fprintf(stderr, "msb: cannot read stdin: %s\n", strerror(errno));
      msb_close(sb);
      return CLI_FAIL;
    }
  } else if (file) {
    FILE *f = fopen(file, "rb");
    if (!f || cli_read_all(f, &script)) {
      fprintf(stderr, "msb: %s: %s\n", file, strerror(errno));
      if (f) fclose(f);
      msb_close(sb);
      return 127;
    }
    fclose(f);
    if (!isatty(0) && cli_read_all(stdin, &in)) {
      fprintf(stderr, "msb: cannot read stdin: %s\n", strerror(errno));
      msb_close(sb);
      return CLI_FAIL;
    }
  } else if (cli_read_all(stdin, &script)) {
    fprintf(stderr, "msb: cannot read stdin: %s\n", strerror(errno));
    msb_close(sb);
    return CLI_FAIL;
  }
  status = cli_run(sb, script.p ? script.p : "", script.len, arg0,
                   (const uint8_t *)in.p, in.len, json);
  if (save && cli_save(sb, save)) status = CLI_FAIL;
  free(script.p);
  free(in.p);
  if (events_file && cli_events(sb, events_file)) status = CLI_FAIL;
  msb_close(sb);
  return status;
}
