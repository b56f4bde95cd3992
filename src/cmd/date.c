/* date.c - print or parse the sandbox date (GNU coreutils 9), and the
 * strftime engine shared with printf's %(...)T.
 *
 * Usage: date [OPTION]... [+FORMAT]
 *   -d, --date=STRING   display time described by STRING, not 'now'
 *   -I[FMT], --iso-8601[=FMT]  date, hours, minutes, seconds or ns
 *   -R, --rfc-email     RFC 5322 format
 *       --rfc-3339=FMT  date, seconds or ns
 *   -r, --reference=FILE  display the last modification time of FILE
 *   -u, --utc           Coordinated Universal Time (always the case here)
 * "now" is the sandbox clock and the zone is always UTC. Setting the date
 * (-s or an MMDDhhmm operand) is refused. Formatting is our own so GNU's
 * flags (-, _, 0, ^, #, width) and %N, %:z behave identically everywhere. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char *const date_days[] = {"Sunday",    "Monday",   "Tuesday",
                                        "Wednesday", "Thursday", "Friday",
                                        "Saturday"};
static const char *const date_months[] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};

/* ISO 8601 week number and week-based year. */
static void date_iso_week(const cmd_tm *tm, int64_t *year, int *week) {
  int wday = (tm->wday + 6) % 7; /* Monday = 0 */
  int w = (tm->yday - wday + 10) / 7;
  int64_t y = tm->year;
  if (w < 1) {
    int64_t py = y - 1;
    int leap = (py % 4 == 0 && py % 100 != 0) || py % 400 == 0;
    int pyday = tm->yday + 365 + leap;
    w = (pyday - wday + 10) / 7;
    y = py;
  } else {
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (w == 53 && tm->yday - wday > 365 + leap - 4) {
      w = 1;
      y++;
    }
  }
  *year = y;
  *week = w;
}

/* Emits a number with GNU's padding flags: pad is '0', ' ' or '-' (none);
 * width is the default or the user's. */
static void date_num(buf *o, int64_t v, int pad, int width) {
  char s[32];
  int n = snprintf(s, sizeof s, "%lld", (long long)(v < 0 ? -v : v));
  if (v < 0) buf_putc(o, '-');
  if (pad != '-')
    for (; n < width - (v < 0); n++) buf_putc(o, pad);
  buf_puts(o, s);
}

/* Emits text, padded to width with spaces (or zeros), uppercased for the
 * ^ and # flags (# lowercases %p and %Z instead, handled by the caller). */
static void date_text(buf *o, const char *s, size_t n, int pad, int width,
                      int upper) {
  size_t i;
  if (pad != '-')
    for (; (int)n < width; width--) buf_putc(o, pad == '0' ? '0' : ' ');
  for (i = 0; i < n; i++)
    buf_putc(o, upper && s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
}

/* strftime over UTC with GNU's extensions. */
int cmd_strftime(buf *o, const char *fmt, int64_t ns) {
  cmd_tm tm;
  int64_t secs = cmd_ns_to_s(ns);
  long frac = (long)(ns - secs * 1000000000);
  const char *p;
  cmd_gmtime(secs, &tm);
  for (p = fmt; *p; p++) {
    int pad = 0, width = -1, upper = 0, swap = 0, colons = 0;
    char tmp[64];
    if (*p != '%') {
      buf_putc(o, *p);
      continue;
    }
    p++;
    for (;; p++) {
      if (*p == '-' || *p == '_' || *p == '0')
        pad = *p == '_' ? ' ' : *p;
      else if (*p == '^')
        upper = 1;
      else if (*p == '#')
        swap = 1;
      else
        break;
    }
    if (*p >= '0' && *p <= '9') {
      width = 0;
      while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    }
    while (*p == ':' && colons < 3) {
      colons++;
      p++;
    }
#define DN(v, dpad, dw) \
  date_num(o, (v), pad ? pad : (dpad), width >= 0 ? width : (dw))
#define DT(s) date_text(o, (s), strlen(s), pad, width, upper || swap)
    switch (*p) {
    case 0:
      buf_putc(o, '%');
      p--;
      break;
    case '%': buf_putc(o, '%'); break;
    case 'a':
      snprintf(tmp, sizeof tmp, "%.3s", date_days[tm.wday]);
      DT(tmp);
      break;
    case 'A': DT(date_days[tm.wday]); break;
    case 'b':
    case 'h':
      snprintf(tmp, sizeof tmp, "%.3s", date_months[tm.mon - 1]);
      DT(tmp);
      break;
    case 'B': DT(date_months[tm.mon - 1]); break;
    case 'c':
      snprintf(tmp, sizeof tmp, "%.3s %.3s %2d %02d:%02d:%02d %lld",
               date_days[tm.wday], date_months[tm.mon - 1], tm.mday, tm.hour,
               tm.min, tm.sec, (long long)tm.year);
      DT(tmp);
      break;
    case 'C': DN(tm.year / 100, '0', 2); break;
    case 'd': DN(tm.mday, '0', 2); break;
    case 'D':
      snprintf(tmp, sizeof tmp, "%02d/%02d/%02d", tm.mon, tm.mday,
               (int)(tm.year % 100));
      DT(tmp);
      break;
    case 'e': DN(tm.mday, ' ', 2); break;
    case 'F':
      snprintf(tmp, sizeof tmp, "%04lld-%02d-%02d", (long long)tm.year, tm.mon,
               tm.mday);
      DT(tmp);
      break;
    case 'g':
    case 'G':
    case 'V': {
      int64_t iy;
      int iw;
      date_iso_week(&tm, &iy, &iw);
      if (*p == 'V')
        DN(iw, '0', 2);
      else if (*p == 'g')
        DN(iy % 100, '0', 2);
      else
        DN(iy, '0', 4);
      break;
    }
    case 'H': DN(tm.hour, '0', 2); break;
    case 'I': DN(tm.hour % 12 ? tm.hour % 12 : 12, '0', 2); break;
    case 'j': DN(tm.yday + 1, '0', 3); break;
    case 'k': DN(tm.hour, ' ', 2); break;
    case 'l': DN(tm.hour % 12 ? tm.hour % 12 : 12, ' ', 2); break;
    case 'm': DN(tm.mon, '0', 2); break;
    case 'M': DN(tm.min, '0', 2); break;
    case 'n': buf_putc(o, '\n'); break;
    case 'N': {
      int w = width > 0 && width < 9 ? width : 9;
      long f = frac;
      int i;
      for (i = w; i < 9; i++) f /= 10;
      snprintf(tmp, sizeof tmp, "%0*ld", w, f);
      buf_puts(o, tmp);
      break;
    }
    case 'p':
      if (swap)
        date_text(o, tm.hour < 12 ? "am" : "pm", 2, pad, width, 0);
      else
        DT(tm.hour < 12 ? "AM" : "PM");
      break;
    case 'P': DT(tm.hour < 12 ? "am" : "pm"); break;
    case 'q': DN((tm.mon - 1) / 3 + 1, '0', 1); break;
    case 'r':
      snprintf(tmp, sizeof tmp, "%02d:%02d:%02d %s",
               tm.hour % 12 ? tm.hour % 12 : 12, tm.min, tm.sec,
               tm.hour < 12 ? "AM" : "PM");
      DT(tmp);
      break;
    case 'R':
      snprintf(tmp, sizeof tmp, "%02d:%02d", tm.hour, tm.min);
      DT(tmp);
      break;
    case 's': DN(secs, '0', 1); break;
    case 'S': DN(tm.sec, '0', 2); break;
    case 't': buf_putc(o, '\t'); break;
    case 'T':
      snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm.hour, tm.min, tm.sec);
      DT(tmp);
      break;
    case 'u': DN(tm.wday ? tm.wday : 7, '0', 1); break;
    case 'U': DN((tm.yday + 7 - tm.wday) / 7, '0', 2); break;
    case 'w': DN(tm.wday, '0', 1); break;
    case 'W': DN((tm.yday + 7 - (tm.wday + 6) % 7) / 7, '0', 2); break;
    case 'x':
      snprintf(tmp, sizeof tmp, "%02d/%02d/%02d", tm.mon, tm.mday,
               (int)(tm.year % 100));
      DT(tmp);
      break;
    case 'X':
      snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm.hour, tm.min, tm.sec);
      DT(tmp);
      break;
    case 'y': DN(tm.year % 100, '0', 2); break;
    case 'Y': DN(tm.year, '0', 1); break;
    case 'z':
      DT(colons == 0   ? "+0000"
         : colons == 1 ? "+00:00"
         : colons == 2 ? "+00:00:00"
                       : "+00");
      break;
    case 'Z': date_text(o, swap ? "utc" : "UTC", 3, pad, width, upper); break;
    default:
      buf_putc(o, '%');
      buf_putc(o, *p);
      break;
    }
#undef DN
#undef DT
  }
  return o->err;
}

enum { DATE_RFC3339 = 256 };
static const cmd_opt date_opts[] = {{'d', "date", CMD_ARG_REQ, 'd'},
                                    {'I', "iso-8601", CMD_ARG_OPT, 'I'},
                                    {'R', "rfc-email", CMD_ARG_NONE, 'R'},
                                    {0, "rfc-3339", CMD_ARG_REQ, DATE_RFC3339},
                                    {'r', "reference", CMD_ARG_REQ, 'r'},
                                    {'u', "utc", CMD_ARG_NONE, 'u'},
                                    {0, "universal", CMD_ARG_NONE, 'u'},
                                    {'s', "set", CMD_ARG_REQ, 's'},
                                    {'f', "file", CMD_ARG_REQ, 'f'},
                                    {0, 0, 0, 0}};

static const char date_usage[] MSB_COLD =
    "Usage: date [OPTION]... [+FORMAT]\n"
    "Display the current time in the given FORMAT.\n"
    "\n"
    "  -d, --date=STRING          display time described by STRING, not "
    "'now'\n"
    "  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.\n"
    "                               FMT='date' for date only (the default),\n"
    "                               'hours', 'minutes', 'seconds', or 'ns'\n"
    "  -R, --rfc-email            output date and time in RFC 5322 format\n"
    "      --rfc-3339=FMT         output date/time in RFC 3339 format.\n"
    "                               FMT='date', 'seconds', or 'ns'\n"
    "  -r, --reference=FILE       display the last modification time of "
    "FILE\n"
    "  -u, --utc, --universal     print or set Coordinated Universal Time "
    "(UTC)\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

/* Builds the format of -I / --rfc-3339; NULL for a bad argument. */
static const char *date_iso_format(const char *arg, int rfc) {
  static const char *const names[] = {"date", "hours", "minutes", "seconds",
                                      "ns"};
  static const char *const iso[] = {"%Y-%m-%d", "%Y-%m-%dT%H%:z",
                                    "%Y-%m-%dT%H:%M%:z", "%Y-%m-%dT%H:%M:%S%:z",
                                    "%Y-%m-%dT%H:%M:%S,%N%:z"};
  static const char *const r3339[] = {"%Y-%m-%d", 0, 0, "%Y-%m-%d %H:%M:%S%:z",
                                      "%Y-%m-%d %H:%M:%S.%N%:z"};
  size_t i, n = strlen(arg ? arg : "date");
  if (!arg) return iso[0];
  for (i = 0; i < 5; i++)
    if (n && !strncmp(names[i], arg, n)) return rfc ? r3339[i] : iso[i];
  return NULL;
}

/* date: print the sandbox time, or the time of -d / -r, in a format. */
int cmd_date(cmd_ctx *c) {
  cmd_getopt g;
  const char *fmt = "%a %b %e %H:%M:%S %Z %Y", *spec = NULL, *ref = NULL;
  int64_t t = *c->clock_ns;
  int k, rc;
  cmd_opt_init(&g, c, date_opts, date_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'd': spec = g.arg; break;
    case 'r': ref = g.arg; break;
    case 'u': break;
    case 'R': fmt = "%a, %d %b %Y %H:%M:%S %z"; break;
    case 'I':
    case DATE_RFC3339:
      fmt = date_iso_format(g.arg, k != 'I');
      if (!fmt) {
        cmd_err(c, "invalid argument %s for '%s'", cmd_quote(c, g.arg),
                k == 'I' ? "--iso-8601" : "--rfc-3339");
        buf_puts(c->err, k == 'I' ? "Valid arguments are:\n  - 'hours'\n"
                                    "  - 'minutes'\n  - 'date'\n  - 'seconds'\n"
                                    "  - 'ns'\n"
                                  : "Valid arguments are:\n  - 'date'\n"
                                    "  - 'seconds'\n  - 'ns'\n");
        buf_puts(c->err, "Try 'date --help' for more information.\n");
        return 1;
      }
      break;
    case 's': cmd_err(c, "cannot set date: Operation not permitted"); return 1;
    default:
      cmd_err(c, "option '--file' is not supported in memsandbox");
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (spec && ref) {
    cmd_err(c,
            "the options to specify dates for printing are mutually "
            "exclusive");
    return cmd_usage_err(&g, "%s", "") ? 1 : 1;
  }
  if (g.nops > 1)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
  if (g.nops) {
    if (g.ops[0][0] != '+') {
      cmd_err(c, "cannot set date: Operation not permitted");
      return 1;
    }
    fmt = g.ops[0] + 1;
  }
  if (spec && cmd_parse_date(spec, t, &t)) {
    cmd_err(c, "invalid date %s", cmd_quote(c, spec));
    return 1;
  }
  if (ref) {
    struct vfs_stat st;
    const char *path = cmd_path(c, ref);
    if (!path) return MSB_ENOMEM;
    if ((rc = vfs_stat(c->fs, path, 1, &st))) {
      cmd_err(c, "%s: %s", ref, cmd_strerror(rc));
      return 1;
    }
    t = st.mtime_ns;
  }
  if ((rc = cmd_strftime(c->out, fmt, t)) < 0) return rc;
  return cmd_write(c, "\n", 1) < 0 ? MSB_ELIMIT : 0;
}
