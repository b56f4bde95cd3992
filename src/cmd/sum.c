/* sum.c - md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum,
 * b2sum and cksum (GNU
 * coreutils 9, which builds them all from one digest program).
 *
 * Usage: NAMEsum [OPTION]... [FILE]...
 *   -b, --binary   read in binary mode (marks names with '*')
 *   -c, --check    read checksums from the FILEs and check them
 *       --tag      create a BSD-style checksum
 *   -t, --text     read in text mode (default)
 *   -z, --zero     end each output line with NUL, not newline
 *   --ignore-missing --quiet --status --strict -w/--warn  (with --check)
 * cksum: the POSIX CRC by default ("CRC SIZE NAME"); -a/--algorithm
 *   crc|md5|sha1|sha256|sha512 (tagged output unless --untagged); the
 *   sysv, bsd, blake2b and sm3 digests are refused with a message.
 * Names holding a backslash or newline are escaped and the line starts with
 * a backslash, as GNU does. Text and binary modes read the same bytes.
 * b2sum's -l/--length is refused (only the 512-bit digest). */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../hash.h"
#include "../sha256.h"
#include "cmd.h"

typedef struct sum_algo {
  const char *cmd;  /* command name */
  const char *tag;  /* BSD tag */
  size_t len;       /* digest bytes */
} sum_algo;

static const sum_algo sum_algos[] = {
    {"cksum", "CRC", 4},         {"md5sum", "MD5", 16},
    {"sha1sum", "SHA1", 20},     {"sha256sum", "SHA256", 32},
    {"sha512sum", "SHA512", 64}, {"sha224sum", "SHA224", 28},
    {"sha384sum", "SHA384", 48}, {"b2sum", "BLAKE2b", 64}};

enum {
  SUM_TAG = 256,
  SUM_QUIET,
  SUM_STATUS,
  SUM_STRICT,
  SUM_IGNORE_MISSING,
  SUM_UNTAGGED
};

static const cmd_opt sum_opts[] = {
    {'b', "binary", CMD_ARG_NONE, 'b'},
    {'c', "check", CMD_ARG_NONE, 'c'},
    {0, "tag", CMD_ARG_NONE, SUM_TAG},
    {'t', "text", CMD_ARG_NONE, 't'},
    {'z', "zero", CMD_ARG_NONE, 'z'},
    {0, "ignore-missing", CMD_ARG_NONE, SUM_IGNORE_MISSING},
    {0, "quiet", CMD_ARG_NONE, SUM_QUIET},
    {0, "status", CMD_ARG_NONE, SUM_STATUS},
    {0, "strict", CMD_ARG_NONE, SUM_STRICT},
    {'w', "warn", CMD_ARG_NONE, 'w'},
    {0, 0, 0, 0}};

static const cmd_opt sum_cksum_opts[] = {
    {'a', "algorithm", CMD_ARG_REQ, 'a'},
    {'c', "check", CMD_ARG_NONE, 'c'},
    {0, "tag", CMD_ARG_NONE, SUM_TAG},
    {0, "untagged", CMD_ARG_NONE, SUM_UNTAGGED},
    {'z', "zero", CMD_ARG_NONE, 'z'},
    {0, "ignore-missing", CMD_ARG_NONE, SUM_IGNORE_MISSING},
    {0, "quiet", CMD_ARG_NONE, SUM_QUIET},
    {0, "status", CMD_ARG_NONE, SUM_STATUS},
    {0, "strict", CMD_ARG_NONE, SUM_STRICT},
    {'w', "warn", CMD_ARG_NONE, 'w'},
    {0, 0, 0, 0}};

static const char sum_cksum_usage[] MSB_COLD =
    "Usage: cksum [OPTION]... [FILE]...\n"
    "Print or verify checksums.\n"
    "By default use the 32 bit CRC algorithm.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -a, --algorithm=TYPE  select the digest type to use: crc, md5, "
    "sha1,\n"
    "                        sha256 or sha512\n"
    "  -c, --check           read checksums from the FILEs and check them\n"
    "      --tag             create a BSD-style checksum (the default)\n"
    "      --untagged        create a reversed style checksum, without "
    "digest type\n"
    "  -z, --zero            end each output line with NUL, not newline\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const char sum_usage[] =
    "Usage: %s [OPTION]... [FILE]...\n"
    "Print or check checksums.\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, --binary         read in binary mode\n"
    "  -c, --check          read checksums from the FILEs and check them\n"
    "      --tag            create a BSD-style checksum\n"
    "  -t, --text           read in text mode (default)\n"
    "  -z, --zero           end each output line with NUL, not newline,\n"
    "                       and disable file name escaping\n"
    "\n"
    "The following five options are useful only when verifying "
    "checksums:\n"
    "      --ignore-missing  don't fail or report status for missing "
    "files\n"
    "      --quiet          don't print OK for each successfully verified "
    "file\n"
    "      --status         don't output anything, status code shows "
    "success\n"
    "      --strict         exit non-zero for improperly formatted "
    "checksum lines\n"
    "  -w, --warn           warn about improperly formatted checksum "
    "lines\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

typedef struct sum_opts_set {
  const sum_algo *algo;
  int binary, check, tag, zero, quiet, status, strict, warn, ignore_missing;
} sum_opts_set;

static void sum_digest(const sum_algo *a, const uint8_t *d, size_t n,
                       uint8_t *out) {
  switch (a->len) {
  case 4: {
    uint32_t crc = hash_cksum(d, n);
    int i;
    for (i = 0; i < 4; i++) out[i] = (uint8_t)(crc >> (24 - 8 * i));
    break;
  }
  case 16: hash_md5(d, n, out); break;
  case 20: hash_sha1(d, n, out); break;
  case 28: hash_sha224(d, n, out); break;
  case 32: sha256_digest(d, n, out); break;
  case 48: hash_sha384(d, n, out); break;
  default:
    if (a->tag[0] == 'B')
      hash_blake2b(d, n, out, 64);
    else
      hash_sha512(d, n, out);
    break;
  }
}

static int sum_hex(cmd_ctx *c, const uint8_t *dg, size_t n) {
  static const char hex[] = "0123456789abcdef";
  char s[128];
  size_t i;
  for (i = 0; i < n; i++) {
    s[2 * i] = hex[dg[i] >> 4];
    s[2 * i + 1] = hex[dg[i] & 15];
  }
  return cmd_write(c, s, 2 * n);
}

/* Writes a name, escaping '\\' and '\n' (escape says whether to). */
static int sum_name(cmd_ctx *c, const char *name, int escape) {
  const char *p;
  if (!escape) return cmd_puts(c, name);
  for (p = name; *p; p++) {
    int rc = *p == '\\'   ? cmd_write(c, "\\\\", 2)
             : *p == '\n' ? cmd_write(c, "\\n", 2)
                          : cmd_write(c, p, 1);
    if (rc < 0) return rc;
  }
  return 0;
}

static int sum_print(cmd_ctx *c, const sum_opts_set *o, const char *name,
                     const uint8_t *dg, size_t size) {
  int escape = !o->zero && strpbrk(name, "\\\n") != NULL, rc;
  if (o->algo->len == 4) {
    uint32_t crc = (uint32_t)dg[0] << 24 | (uint32_t)dg[1] << 16 |
                   (uint32_t)dg[2] << 8 | dg[3];
    if ((rc = cmd_outf(c, "%lu %llu", (unsigned long)crc,
                       (unsigned long long)size)) < 0)
      return rc;
    if (strcmp(name, "-") &&
        ((rc = cmd_write(c, " ", 1)) < 0 || (rc = cmd_puts(c, name)) < 0))
      return rc;
    return cmd_write(c, o->zero ? "" : "\n", 1);
  }
  if (escape && (rc = cmd_write(c, "\\", 1)) < 0) return rc;
  if (o->tag) {
    if ((rc = cmd_outf(c, "%s (", o->algo->tag)) < 0 ||
        (rc = sum_name(c, name, escape)) < 0 ||
        (rc = cmd_write(c, ") = ", 4)) < 0 ||
        (rc = sum_hex(c, dg, o->algo->len)) < 0)
      return rc;
  } else {
    if ((rc = sum_hex(c, dg, o->algo->len)) < 0 ||
        (rc = cmd_write(c, o->binary ? " *" : "  ", 2)) < 0 ||
        (rc = sum_name(c, name, escape)) < 0)
      return rc;
  }
  return cmd_write(c, o->zero ? "" : "\n", 1);
}

static int sum_unhex(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* Parses hex digits of the expected digest; 0 when not exactly n bytes. */
static int sum_parse_hex(const uint8_t *s, size_t len, uint8_t *out, size_t n) {
  size_t i;
  if (len != 2 * n) return 0;
  for (i = 0; i < n; i++) {
    int hi = sum_unhex(s[2 * i]), lo = sum_unhex(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return 0;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return 1;
}

/* Undoes the \\ and \n escapes of a name (in place, arena copy). */
static char *sum_unescape(cmd_ctx *c, const uint8_t *s, size_t n, int escaped) {
  char *o = arena_alloc(c->a, n + 1), *q = o;
  size_t i;
  if (!o) return NULL;
  for (i = 0; i < n; i++) {
    if (escaped && s[i] == '\\' && i + 1 < n) {
      i++;
      *q++ = s[i] == 'n' ? '\n' : (char)s[i];
    } else {
      *q++ = (char)s[i];
    }
  }
  *q = 0;
  return o;
}

/* Splits one check line into the expected digest and the name; 0 when the
 * line is improperly formatted. */
static int sum_parse_line(cmd_ctx *c, const sum_opts_set *o, const uint8_t *s,
                          size_t n, uint8_t *want, char **name) {
  size_t tl = strlen(o->algo->tag), hl = 2 * o->algo->len, i;
  int escaped = 0;
  if (n && s[0] == '\\') {
    escaped = 1;
    s++;
    n--;
  }
  if (n > tl + 2 && !memcmp(s, o->algo->tag, tl) && s[tl] == ' ' &&
      s[tl + 1] == '(') {
    /* BSD form: TAG (NAME) = HEX */
    if (n < tl + 2 + 4 + hl) return 0;
    i = n - hl;
    if (memcmp(s + i - 4, ") = ", 4)) return 0;
    if (!sum_parse_hex(s + i, hl, want, o->algo->len)) return 0;
    *name = sum_unescape(c, s + tl + 2, i - 4 - (tl + 2), escaped);
    return *name != NULL;
  }
  if (n < hl + 2 || !sum_parse_hex(s, hl, want, o->algo->len)) return 0;
  if (s[hl] != ' ' || (s[hl + 1] != ' ' && s[hl + 1] != '*')) return 0;
  if (n == hl + 2) return 0;
  *name = sum_unescape(c, s + hl + 2, n - hl - 2, escaped);
  return *name != NULL;
}

typedef struct sum_tally {
  unsigned long bad_format, bad_sum, bad_read, lines_ok;
} sum_tally;

/* GNU reports these per checked file, and only when it had at least one
 * properly formatted line. */
static void sum_warn(cmd_ctx *c, const sum_opts_set *o, const char *list,
                     const sum_tally *t) {
  if (!t->lines_ok) {
    cmd_err(c, "%s: no properly formatted checksum lines found",
            cmd_quotef(c, list));
    return;
  }
  if (o->status) return;
  if (t->bad_format)
    cmd_err(c, "WARNING: %lu line%s improperly formatted", t->bad_format,
            t->bad_format == 1 ? " is" : "s are");
  if (t->bad_read)
    cmd_err(c, "WARNING: %lu listed file%s could not be read", t->bad_read,
            t->bad_read == 1 ? "" : "s");
  if (t->bad_sum)
    cmd_err(c, "WARNING: %lu computed checksum%s did NOT match", t->bad_sum,
            t->bad_sum == 1 ? "" : "s");
}

/* Checks one list; returns the exit status for it (0/1) or a negative
 * MSB_E* code. */
static int sum_check_file(cmd_ctx *c, const sum_opts_set *o, const char *list) {
  const uint8_t *data, *rec, *fd;
  size_t len, rl, fl;
  int term, rc;
  unsigned long lineno = 0;
  sum_tally t = {0, 0, 0, 0};
  cmd_lines it;
  rc = cmd_input(c, list, &data, &len);
  if (rc) {
    cmd_err(c, "%s: %s", cmd_quotef(c, list), cmd_strerror(rc));
    return 1;
  }
  cmd_lines_init(&it, data, len, '\n');
  while (cmd_lines_next(&it, &rec, &rl, &term)) {
    uint8_t want[64], got[64];
    char *name = NULL;
    lineno++;
    if (rl && rec[rl - 1] == '\r') rl--;
    if (!sum_parse_line(c, o, rec, rl, want, &name)) {
      t.bad_format++;
      if (o->warn)
        cmd_err(c, "%s: %lu: improperly formatted %s checksum line",
                cmd_quotef(c, list), lineno, o->algo->tag);
      continue;
    }
    t.lines_ok++;
    rc = cmd_input(c, name, &fd, &fl);
    if (rc) {
      if (rc == MSB_ENOENT && o->ignore_missing) continue;
      t.bad_read++;
      cmd_err(c, "%s: %s", cmd_quotef(c, name), cmd_strerror(rc));
      if (!o->status &&
          (rc = cmd_outf(c, "%s: FAILED open or read\n", name)) < 0)
        return rc;
      continue;
    }
    if ((rc = cmd_charge_work(c, fl, CMD_COST_DIGEST)) < 0) return rc;
    sum_digest(o->algo, fd, fl, got);
    if (memcmp(want, got, o->algo->len)) {
      t.bad_sum++;
      if (!o->status && (rc = cmd_outf(c, "%s: FAILED\n", name)) < 0) return rc;
    } else if (!o->status && !o->quiet) {
      if ((rc = cmd_outf(c, "%s: OK\n", name)) < 0) return rc;
    }
  }
  sum_warn(c, o, list, &t);
  return !t.lines_ok || t.bad_sum || t.bad_read || (o->strict && t.bad_format);
}

static int sum_check(cmd_ctx *c, const sum_opts_set *o, char **ops, int nops) {
  int i, status = 0, rc;
  if (!nops) return sum_check_file(c, o, "-");
  for (i = 0; i < nops; i++) {
    rc = sum_check_file(c, o, ops[i]);
    if (rc < 0) return rc;
    status |= rc;
  }
  return status;
}

/* Selects cksum's -a algorithm; 0 or a usage error status. */
static int sum_cksum_algo(cmd_getopt *g, sum_opts_set *o, const char *arg) {
  static const char *const names[] = {"crc", "md5", "sha1", "sha256", "sha512"};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(arg, names[i])) {
      o->algo = &sum_algos[i];
      return 0;
    }
  if (!strcmp(arg, "sysv") || !strcmp(arg, "bsd") || !strcmp(arg, "blake2b") ||
      !strcmp(arg, "sm3")) {
    cmd_err(g->c, "the %s algorithm is not supported in memsandbox", arg);
    return 1;
  }
  return cmd_usage_err(g, "invalid argument %s for '--algorithm'",
                       cmd_quote(g->c, arg));
}

/* The digest commands and cksum: print or check digests. */
int cmd_sum(cmd_ctx *c) {
  sum_opts_set o;
  cmd_getopt g;
  char usage[sizeof sum_usage + 16];
  const char *name = cmd_name(c);
  int k, i, status = 0, rc, text_mode = 0, cksum, untagged = 0;
  size_t a;
  memset(&o, 0, sizeof o);
  o.algo = &sum_algos[0];
  for (a = 0; a < sizeof sum_algos / sizeof sum_algos[0]; a++)
    if (!strcmp(name, sum_algos[a].cmd)) o.algo = &sum_algos[a];
  cksum = o.algo == &sum_algos[0];
  snprintf(usage, sizeof usage, sum_usage, o.algo->cmd);
  if (cksum)
    cmd_opt_init(&g, c, sum_cksum_opts, sum_cksum_usage, 0);
  else
    cmd_opt_init(&g, c, sum_opts, usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'a':
      if ((rc = sum_cksum_algo(&g, &o, g.arg))) return rc;
      break;
    case SUM_UNTAGGED: untagged = 1; break;
    case 'b': o.binary = 1; break;
    case 't':
      o.binary = 0;
      text_mode = 1;
      break;
    case 'c': o.check = 1; break;
    case 'z': o.zero = 1; break;
    case 'w': o.warn = 1; break;
    case SUM_TAG: o.tag = 1; break;
    case SUM_QUIET: o.quiet = 1; break;
    case SUM_STATUS: o.status = 1; break;
    case SUM_STRICT: o.strict = 1; break;
    case SUM_IGNORE_MISSING: o.ignore_missing = 1; break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (cksum && o.algo != &sum_algos[0]) o.tag = !untagged;
  if (o.check && o.algo == &sum_algos[0]) {
    cmd_err(c, "--check is not supported with --algorithm={bsd,sysv,crc}");
    return 1;
  }
  if (o.check) {
    if (o.tag && !cksum)
      return cmd_usage_err(&g,
                           "the --tag option is meaningless when "
                           "verifying checksums");
    return sum_check(c, &o, g.ops, g.nops);
  }
  if (o.quiet || o.status || o.strict || o.warn || o.ignore_missing)
    return cmd_usage_err(&g,
                         "the --%s option is meaningful only when "
                         "verifying checksums",
                         o.quiet    ? "quiet"
                         : o.status ? "status"
                         : o.strict ? "strict"
                         : o.warn   ? "warn"
                                    : "ignore-missing");
  if (o.tag && text_mode)
    return cmd_usage_err(&g, "--tag does not support --text mode");
  for (i = 0; i < (g.nops ? g.nops : 1); i++) {
    const char *op = g.nops ? g.ops[i] : "-";
    const uint8_t *d;
    size_t n;
    uint8_t dg[64];
    rc = cmd_input(c, op, &d, &n);
    if (rc) {
      cmd_err(c, "%s: %s", cmd_quotef(c, op), cmd_strerror(rc));
      status = 1;
      continue;
    }
    if ((rc = cmd_charge_work(c, n, CMD_COST_DIGEST)) < 0) return rc;
    sum_digest(o.algo, d, n, dg);
    if ((rc = sum_print(c, &o, op, dg, n)) < 0) return rc;
  }
  return status;
}
