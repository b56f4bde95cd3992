/* touch.c - change file timestamps (GNU coreutils).
 *
 * Usage: touch [OPTION]... FILE...
 *   -a  change only the access time   -c, --no-create  do not create files
 *   -d, --date=STRING  use STRING instead of the current time
 *   -h, --no-dereference  affect a symbolic link itself
 *   -m  change only the modification time
 *   -r, --reference=FILE  use FILE's times   -t STAMP  [[CC]YY]MMDDhhmm[.ss]
 * The sandbox keeps only modification times and its clock is "now", so -a
 * alone changes nothing visible. Dates: see cmd_parse_date. */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char touch_usage[] MSB_COLD =
    "Usage: touch [OPTION]... FILE...\n"
    "Update the access and modification times of each FILE to the current "
    "time.\n"
    "\n"
    "A FILE argument that does not exist is created empty, unless -c or -h\n"
    "is supplied.\n"
    "\n"
    "  -a                     change only the access time\n"
    "  -c, --no-create        do not create any files\n"
    "  -d, --date=STRING      parse STRING and use it instead of current "
    "time\n"
    "  -h, --no-dereference   affect each symbolic link instead of any "
    "referenced\n"
    "                         file\n"
    "  -m                     change only the modification time\n"
    "  -r, --reference=FILE   use this file's times instead of current time\n"
    "  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of current "
    "time\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt touch_opts[] = {{'a', 0, CMD_ARG_NONE, 'a'},
                                     {'c', "no-create", CMD_ARG_NONE, 'c'},
                                     {'d', "date", CMD_ARG_REQ, 'd'},
                                     {'f', 0, CMD_ARG_NONE, 'f'},
                                     {'h', "no-dereference", CMD_ARG_NONE, 'h'},
                                     {'m', 0, CMD_ARG_NONE, 'm'},
                                     {'r', "reference", CMD_ARG_REQ, 'r'},
                                     {'t', 0, CMD_ARG_REQ, 't'},
                                     {0, 0, 0, 0}};

static int touch_2(const char *s) { return (s[0] - '0') * 10 + s[1] - '0'; }

/* Parses -t [[CC]YY]MMDDhhmm[.ss]. */
static int touch_stamp(const char *s, int64_t now_ns, int64_t *out) {
  size_t n = strlen(s), i, digits;
  const char *dot = strchr(s, '.');
  cmd_tm tm, nowtm;
  digits = dot ? (size_t)(dot - s) : n;
  for (i = 0; i < n; i++)
    if ((s[i] < '0' || s[i] > '9') && s + i != dot) return -1;
  if (dot && (n - digits != 3)) return -1;
  if (digits != 8 && digits != 10 && digits != 12) return -1;
  cmd_gmtime(cmd_ns_to_s(now_ns), &nowtm);
  memset(&tm, 0, sizeof tm);
  tm.year = nowtm.year;
  if (digits == 12) {
    tm.year = touch_2(s) * 100 + touch_2(s + 2);
    s += 4;
  } else if (digits == 10) {
    int yy = touch_2(s);
    tm.year = yy < 69 ? 2000 + yy : 1900 + yy;
    s += 2;
  }
  tm.mon = touch_2(s);
  tm.mday = touch_2(s + 2);
  tm.hour = touch_2(s + 4);
  tm.min = touch_2(s + 6);
  if (dot) tm.sec = touch_2(dot + 1);
  if (tm.mon < 1 || tm.mon > 12 || tm.mday < 1 || tm.mday > 31 ||
      tm.hour > 23 || tm.min > 59 || tm.sec > 60)
    return -1;
  {
    cmd_tm chk;
    cmd_gmtime(cmd_timegm(&tm), &chk);
    if (chk.mday != tm.mday) return -1;
  }
  *out = cmd_timegm(&tm) * 1000000000;
  return 0;
}

/* touch: create missing FILEs and set modification times. */
int cmd_touch(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, nocreate = 0, nofollow = 0, only_a = 0, only_m = 0, status = 0;
  int rc;
  int64_t now = c->clock_ns ? *c->clock_ns : vfs_clock(c->fs), t;
  const char *date = 0, *ref = 0, *stamp = 0;
  cmd_opt_init(&g, c, touch_opts, touch_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'a': only_a = 1; break;
    case 'c': nocreate = 1; break;
    case 'd': date = g.arg; break;
    case 'h': nofollow = nocreate = 1; break;
    case 'm': only_m = 1; break;
    case 'r': ref = g.arg; break;
    case 't': stamp = g.arg; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if ((date || ref) && stamp) {
    cmd_err(c, "cannot specify times from more than one source");
    buf_printf(c->err, "Try '%s --help' for more information.\n", cmd_name(c));
    return 1;
  }
  t = now;
  if (ref) {
    struct vfs_stat st;
    const char *abs = cmd_path(c, ref);
    if (!abs) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, abs, !nofollow, &st);
    if (rc < 0) {
      cmd_err(c, "failed to get attributes of %s: %s", cmd_quote(c, ref),
              cmd_strerror(rc));
      return 1;
    }
    t = st.mtime_ns;
  }
  if (date && cmd_parse_date(date, ref ? t : now, &t) < 0) {
    cmd_err(c, "invalid date format %s", cmd_quote(c, date));
    return 1;
  }
  if (stamp && touch_stamp(stamp, now, &t) < 0) {
    cmd_err(c, "invalid date format %s", cmd_quote(c, stamp));
    return 1;
  }
  if (g.nops < 1) return cmd_usage_err(&g, "missing file operand");
  for (i = 0; i < g.nops; i++) {
    const char *op = g.ops[i], *abs;
    struct vfs_stat st;
    if (!strcmp(op, "-")) continue; /* touches stdout: nothing to do */
    abs = cmd_path(c, op);
    if (!abs) return MSB_ENOMEM;
    if (cmd_slash_check(c, op, abs)) {
      cmd_err(c, "setting times of %s: %s", cmd_quote(c, op),
              cmd_strerror(MSB_ENOTDIR));
      status = 1;
      continue;
    }
    rc = vfs_stat(c->fs, abs, !nofollow, &st);
    if (rc == MSB_ENOENT && !nocreate) {
      rc = vfs_write(c->fs, abs, "", 0, 0, CMD_NEWFILE(c), 0);
      if (rc == 0 && t != vfs_clock(c->fs)) rc = vfs_utime(c->fs, abs, t, 0);
    } else if (rc == MSB_ENOENT) {
      continue;
    } else if (rc == 0 && (!only_a || only_m)) {
      rc = vfs_utime(c->fs, abs, t, nofollow);
    }
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      cmd_err(c, "cannot touch %s: %s", cmd_quote(c, op), cmd_strerror(rc));
      status = 1;
    }
  }
  return status;
}
