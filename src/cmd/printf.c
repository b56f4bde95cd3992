/* printf.c - format and print data (bash builtin semantics).
 *
 * Usage: printf [-v var] FORMAT [ARGUMENTS...]
 *   %d %i %o %u %x %X  integers (C constants: 0x hex, 0 octal; 'c or "c
 *                      gives the code of byte c)
 *   %f %F %e %E %g %G %a %A  floating point (long double, as bash)
 *   %c %s              first byte / whole string
 *   %b                 string with backslash escapes expanded (\c stops)
 *   %q %Q              string quoted for reuse as shell input
 *   %(FMT)T            strftime(FMT) of the argument (seconds since the
 *                      epoch; -1 or missing = now), UTC, sandbox clock
 *   %%                 a percent sign
 * Flags - + space # 0 ' , field width and precision (digits or *), and the
 * ignored length modifiers h l L j z t. The format is reused while
 * arguments remain and a pass consumed some; missing arguments read as ""
 * or 0. A bad number is reported ("printf: x: invalid number"), printed as
 * far as it parsed, and makes the status 1; a bad conversion stops printf
 * with status 1. Format escapes: \a \b \e \E \f \n \r \t \v \\ \" \' \?
 * \NNN \xHH \uHHHH \UHHHHHHHH ("\c" is literal in the format, as in bash).
 *
 * -v VAR: the interpreter's printf builtin normally takes -v itself and
 * runs this command into a buffer. Reached here anyway, -v renders into
 * memory and assigns through the shell (c->run of `eval VAR=$'...'`); VAR
 * must be a name or name[index] with a plain index.
 * The ' flag is dropped (no grouping in the C locale). Floats use long
 * double natively; wasm builds use double (wasi-libc's printf has no long
 * double unless linked with -lc-printscan-long-double), which only shows
 * past 15 significant digits and in %a. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h> /* snprintf only: formatting, no I/O */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

#if defined(__wasm__)
typedef double printf_flt;
#define PRINTF_LEN "" /* length modifier for printf_flt */
#define printf_strtof strtod
#else
typedef long double printf_flt;
#define PRINTF_LEN "L"
#define printf_strtof strtold
#endif

/* echo.c's decoder for echo -e, shared with %b. */
int echo_escape(buf *o, const char *s, size_t n, int bare_octal, cmd_ctx *warn);

static const char printf_usage_line[] MSB_COLD =
    "printf: usage: printf [-v var] format [arguments]\n";

static const char printf_help[] MSB_COLD =
    "printf: printf [-v var] format [arguments]\n"
    "    Formats and prints ARGUMENTS under control of the FORMAT.\n"
    "    \n"
    "    Options:\n"
    "      -v var\tassign the output to shell variable VAR rather than\n"
    "    \t\tdisplay it on the standard output\n"
    "    \n"
    "    FORMAT is a character string which contains three types of "
    "objects: plain\n"
    "    characters, which are simply copied to standard output; character "
    "escape\n"
    "    sequences, which are converted and copied to the standard output; "
    "and\n"
    "    format specifications, each of which causes printing of the next "
    "successive\n"
    "    argument.\n"
    "    \n"
    "    In addition to the standard format specifications described in "
    "printf(1),\n"
    "    printf interprets:\n"
    "    \n"
    "      %b\texpand backslash escape sequences in the corresponding "
    "argument\n"
    "      %q\tquote the argument in a way that can be reused as shell "
    "input\n"
    "      %Q\tlike %q, but apply any precision to the unquoted argument "
    "before\n"
    "    \t\tquoting\n"
    "      %(fmt)T\toutput the date-time string resulting from using FMT as "
    "a format\n"
    "    \t        string for strftime(3)\n"
    "    \n"
    "    The format is re-used as necessary to consume all of the "
    "arguments.  If\n"
    "    there are fewer arguments than the format requires,  extra format\n"
    "    specifications behave as if a zero value or null string, as "
    "appropriate,\n"
    "    had been supplied.\n"
    "    \n"
    "    Exit Status:\n"
    "    Returns success unless an invalid option is given or a write or "
    "assignment\n"
    "    error occurs.\n";

typedef struct printf_st {
  cmd_ctx *c;
  buf *o;
  char **args;
  int nargs, ai;
  int status;
  int stop; /* \c in %b, or a fatal format error */
} printf_st;

/* Widest field or precision: a command's output is at most
 * max_string_bytes (c->out_max), so a wider field is an error naming that
 * limit (the shell reports MSB_ELIMIT so), never a clamp. */
static int printf_max_field(const printf_st *p) {
  uint64_t max = p->c->out_max;
  return max && max < INT_MAX / 2 ? (int)max : INT_MAX / 2;
}

static const char *printf_next(printf_st *p) {
  return p->ai < p->nargs ? p->args[p->ai++] : 0;
}

static int printf_hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* bash's sh_invalidnum wording. */
static void printf_invalid(printf_st *p, const char *s) {
  const char *msg = "invalid number";
  if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
    msg = "invalid octal number";
  else if (s[0] == '0' && s[1] == 'x')
    msg = "invalid hex number";
  cmd_err(p->c, "%s: %s", s, msg);
  p->status = 1;
}

static void printf_erange(printf_st *p, const char *s) {
  cmd_err(p->c, "warning: %s: %s", s, "Numerical result out of range");
}

/* strtoimax/strtoumax(s, &end, 0) without locale or errno: returns the
 * magnitude parsed, its sign, where parsing stopped and whether it
 * overflowed 64 bits. */
static const char *printf_strtonum(const char *s, uint64_t *mag, int *neg,
                                   int *ovf) {
  const char *orig = s;
  unsigned base = 10;
  int d;
  *mag = 0;
  *neg = 0;
  *ovf = 0;
  while (*s == ' ' || (*s >= '\t' && *s <= '\r')) s++;
  if (*s == '+' || *s == '-') *neg = *s++ == '-';
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      printf_hexval((unsigned char)s[2]) >= 0) {
    base = 16;
    s += 2;
  } else if (s[0] == '0') {
    base = 8;
  }
  if (printf_hexval((unsigned char)*s) < 0 ||
      (unsigned)printf_hexval((unsigned char)*s) >= base)
    return orig; /* no digits: strtoimax reads nothing */
  while ((d = printf_hexval((unsigned char)*s)) >= 0 && (unsigned)d < base) {
    if (*mag > (UINT64_MAX - (uint64_t)d) / base) *ovf = 1;
    *mag = *mag * base + (uint64_t)d;
    s++;
  }
  return s;
}

/* The next argument as a signed integer (bash's getintmax). */
static int64_t printf_int(printf_st *p) {
  const char *a = printf_next(p), *end;
  uint64_t mag;
  int neg, ovf;
  int64_t v;
  if (!a) return 0;
  if (a[0] == '\'' || a[0] == '"') return (unsigned char)a[1];
  end = printf_strtonum(a, &mag, &neg, &ovf);
  if (!ovf && mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
    ovf = 1;
  if (ovf)
    v = neg ? INT64_MIN : INT64_MAX;
  else
    v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  if (*end) {
    printf_invalid(p, a);
    return end == a ? 0 : v;
  }
  if (ovf) printf_erange(p, a);
  return v;
}

/* The next argument as an unsigned integer (strtoumax: "-1" wraps). */
static uint64_t printf_uint(printf_st *p) {
  const char *a = printf_next(p), *end;
  uint64_t mag;
  int neg, ovf;
  if (!a) return 0;
  if (a[0] == '\'' || a[0] == '"') return (unsigned char)a[1];
  end = printf_strtonum(a, &mag, &neg, &ovf);
  if (ovf) mag = UINT64_MAX;
  if (*end) {
    printf_invalid(p, a);
    return end == a ? 0 : (neg ? 0 - mag : mag);
  }
  if (ovf) {
    printf_erange(p, a);
    return UINT64_MAX;
  }
  return neg ? 0 - mag : mag;
}

static printf_flt printf_float(printf_st *p) {
  const char *a = printf_next(p);
  char *end;
  printf_flt v;
  if (!a) return 0;
  if (a[0] == '\'' || a[0] == '"') return (unsigned char)a[1];
  if (!*a) return 0;
  errno = 0;
  v = printf_strtof(a, &end);
  if (*end) {
    printf_invalid(p, a);
  } else if (errno == ERANGE) {
    printf_erange(p, a);
  }
  return v;
}

/* Pads s[0..n) to width (negative or left: left-justified) with spaces. */
static void printf_pad(buf *o, const char *s, size_t n, long width, int left) {
  size_t w;
  if (width < 0) {
    left = 1;
    width = -width;
  }
  w = (size_t)width;
  if (!left)
    while (w > n) {
      buf_putc(o, ' ');
      w--;
    }
  buf_put(o, s, n);
  if (left)
    while (w > n) {
      buf_putc(o, ' ');
      w--;
    }
}

/* Format escapes (bash's tescape for the format string). Returns the
 * bytes consumed after the backslash. */
static size_t printf_fmt_escape(printf_st *p, const char *s, size_t n) {
  int c, v = 0, d;
  size_t k = 0;
  if (n == 0) {
    buf_putc(p->o, '\\');
    return 0;
  }
  c = (unsigned char)s[0];
  switch (c) {
  case 'a': buf_putc(p->o, 7); return 1;
  case 'b': buf_putc(p->o, 8); return 1;
  case 'e':
  case 'E': buf_putc(p->o, 27); return 1;
  case 'f': buf_putc(p->o, 12); return 1;
  case 'n': buf_putc(p->o, '\n'); return 1;
  case 'r': buf_putc(p->o, '\r'); return 1;
  case 't': buf_putc(p->o, '\t'); return 1;
  case 'v': buf_putc(p->o, 11); return 1;
  case '\\':
  case '\'':
  case '"':
  case '?': buf_putc(p->o, c); return 1;
  case 'x':
    for (k = 1; k < 3 && k < n && (d = printf_hexval((unsigned char)s[k])) >= 0;
         k++)
      v = v * 16 + d;
    if (k == 1) {
      cmd_err(p->c, "missing hex digit for \\x");
      buf_puts(p->o, "\\x");
      return 1;
    }
    buf_putc(p->o, v);
    return k;
  case 'u':
  case 'U': {
    uint32_t u = 0;
    size_t max = c == 'u' ? 5 : 9;
    for (k = 1;
         k < max && k < n && (d = printf_hexval((unsigned char)s[k])) >= 0; k++)
      u = u * 16 + (uint32_t)d;
    if (k == 1) {
      cmd_err(p->c, "missing unicode digit for \\%c", c);
      buf_putc(p->o, '\\');
      buf_putc(p->o, c);
      return 1;
    }
    if (u < 0x80)
      buf_putc(p->o, (int)u);
    else if (u < 0x10000)
      buf_printf(p->o, "\\u%04X", (unsigned)u);
    else
      buf_printf(p->o, "\\U%08X", (unsigned)u);
    return k;
  }
  default:
    if (c >= '0' && c <= '7') {
      for (k = 0; k < 3 && k < n && s[k] >= '0' && s[k] <= '7'; k++)
        v = v * 8 + (s[k] - '0');
      buf_putc(p->o, v & 255);
      return k;
    }
    buf_putc(p->o, '\\');
    buf_putc(p->o, c);
    return 1;
  }
}

/* %q: bash's printf quoting. Strings with bytes that are not printable
 * ASCII take the $'...' form; others get backslashes before shell
 * metacharacters ('~' first or after ':' '=', '#' first only). */
static void printf_quote(buf *o, const char *s, size_t n) {
  size_t i;
  int ansi = 0;
  if (n == 0) {
    buf_puts(o, "''");
    return;
  }
  for (i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch < 32 || ch >= 127) ansi = 1;
  }
  if (ansi) {
    buf_puts(o, "$'");
    for (i = 0; i < n; i++) {
      unsigned char ch = (unsigned char)s[i];
      switch (ch) {
      case 7: buf_puts(o, "\\a"); break;
      case 8: buf_puts(o, "\\b"); break;
      case 27: buf_puts(o, "\\E"); break;
      case 12: buf_puts(o, "\\f"); break;
      case '\n': buf_puts(o, "\\n"); break;
      case '\r': buf_puts(o, "\\r"); break;
      case '\t': buf_puts(o, "\\t"); break;
      case 11: buf_puts(o, "\\v"); break;
      case '\\': buf_puts(o, "\\\\"); break;
      case '\'': buf_puts(o, "\\'"); break;
      default:
        if (ch < 32 || ch >= 127)
          buf_printf(o, "\\%03o", ch);
        else
          buf_putc(o, ch);
      }
    }
    buf_putc(o, '\'');
    return;
  }
  for (i = 0; i < n; i++) {
    char ch = s[i];
    int q = strchr(" \t\n!\"$&'()*,;<>?[\\]^`{|}", ch) != 0;
    if (ch == '~' && (i == 0 || s[i - 1] == ':' || s[i - 1] == '=')) q = 1;
    if (ch == '#' && i == 0) q = 1;
    if (q) buf_putc(o, '\\');
    buf_putc(o, ch);
  }
}

/* ---- %(fmt)T ------------------------------------------------------------ */

static const char *const printf_days[] = {"Sunday",    "Monday",   "Tuesday",
                                          "Wednesday", "Thursday", "Friday",
                                          "Saturday"};
static const char *const printf_months[] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};

static int printf_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* ISO 8601 week number and week-based year. */
static int printf_isoweek(const cmd_tm *tm, int64_t *iso_year) {
  int wday = (tm->wday + 6) % 7; /* Monday = 0 */
  int64_t y = tm->year;
  int week = (tm->yday - wday + 10) / 7;
  if (week < 1) {
    int pyday;
    y--;
    pyday = tm->yday + (printf_leap(y) ? 366 : 365);
    week = (pyday - wday + 10) / 7;
  } else {
    int days = printf_leap(y) ? 366 : 365;
    if (tm->yday - wday + 3 >= days) {
      week = 1;
      y++;
    }
  }
  *iso_year = y;
  return week;
}

static void printf_time(buf *o, const char *f, size_t n, int64_t secs);

/* One numeric field with strftime padding rules. */
static void printf_tnum(buf *o, int64_t v, int width, int pad, int flag) {
  char tmp[32];
  int len, neg = v < 0;
  uint64_t u = neg ? 0 - (uint64_t)v : (uint64_t)v;
  len = 0;
  do {
    tmp[sizeof tmp - 1 - len++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (flag == '-') width = 0;
  if (flag == '_') pad = ' ';
  if (flag == '0') pad = '0';
  if (neg) buf_putc(o, '-');
  while (width > len + neg) {
    buf_putc(o, pad);
    width--;
  }
  buf_put(o, tmp + sizeof tmp - len, (size_t)len);
}

static void printf_tstr(buf *o, const char *s, int width, int flag) {
  size_t n = strlen(s), i;
  while (width > (int)n) {
    buf_putc(o, flag == '0' ? '0' : ' ');
    width--;
  }
  for (i = 0; i < n; i++) {
    int ch = (unsigned char)s[i];
    if ((flag == '^' || flag == '#') && ch >= 'a' && ch <= 'z') ch -= 32;
    buf_putc(o, ch);
  }
}

static void printf_time(buf *o, const char *f, size_t n, int64_t secs) {
  cmd_tm tm;
  size_t i;
  char small[8];
  cmd_gmtime(secs, &tm);
  for (i = 0; i < n; i++) {
    int flag = 0, width = -1, c, h12;
    size_t start = i;
    int64_t iy;
    if (f[i] != '%') {
      buf_putc(o, (unsigned char)f[i]);
      continue;
    }
    i++;
    while (i < n && strchr("-_0^#", f[i])) flag = (unsigned char)f[i++];
    while (i < n && f[i] >= '0' && f[i] <= '9') {
      if (width < 0) width = 0;
      if (width < 4096) width = width * 10 + (f[i] - '0');
      i++;
    }
    while (i < n && (f[i] == 'E' || f[i] == 'O')) i++;
    if (i >= n) {
      buf_put(o, f + start, n - start);
      break;
    }
    c = (unsigned char)f[i];
    h12 = tm.hour % 12 ? tm.hour % 12 : 12;
#define TW(d) (width >= 0 ? width : (d))
    switch (c) {
    case 'a':
      memcpy(small, printf_days[tm.wday], 3);
      small[3] = 0;
      printf_tstr(o, small, TW(0), flag);
      break;
    case 'A': printf_tstr(o, printf_days[tm.wday], TW(0), flag); break;
    case 'b':
    case 'h':
      memcpy(small, printf_months[tm.mon - 1], 3);
      small[3] = 0;
      printf_tstr(o, small, TW(0), flag);
      break;
    case 'B': printf_tstr(o, printf_months[tm.mon - 1], TW(0), flag); break;
    case 'c': printf_time(o, "%a %b %e %H:%M:%S %Y", 20, secs); break;
    case 'C': printf_tnum(o, tm.year / 100, TW(2), '0', flag); break;
    case 'd': printf_tnum(o, tm.mday, TW(2), '0', flag); break;
    case 'D':
    case 'x': printf_time(o, "%m/%d/%y", 8, secs); break;
    case 'e': printf_tnum(o, tm.mday, TW(2), ' ', flag); break;
    case 'F': printf_time(o, "%Y-%m-%d", 8, secs); break;
    case 'g':
      printf_isoweek(&tm, &iy);
      printf_tnum(o, (iy % 100 + 100) % 100, TW(2), '0', flag);
      break;
    case 'G':
      printf_isoweek(&tm, &iy);
      printf_tnum(o, iy, TW(1), '0', flag);
      break;
    case 'H': printf_tnum(o, tm.hour, TW(2), '0', flag); break;
    case 'I': printf_tnum(o, h12, TW(2), '0', flag); break;
    case 'j': printf_tnum(o, tm.yday + 1, TW(3), '0', flag); break;
    case 'k': printf_tnum(o, tm.hour, TW(2), ' ', flag); break;
    case 'l': printf_tnum(o, h12, TW(2), ' ', flag); break;
    case 'm': printf_tnum(o, tm.mon, TW(2), '0', flag); break;
    case 'M': printf_tnum(o, tm.min, TW(2), '0', flag); break;
    case 'n': buf_putc(o, '\n'); break;
    case 't': buf_putc(o, '\t'); break;
    case 'p': printf_tstr(o, tm.hour < 12 ? "AM" : "PM", TW(0), flag); break;
    case 'P': printf_tstr(o, tm.hour < 12 ? "am" : "pm", TW(0), flag); break;
    case 'r': printf_time(o, "%I:%M:%S %p", 11, secs); break;
    case 'R': printf_time(o, "%H:%M", 5, secs); break;
    case 's': printf_tnum(o, secs, TW(1), '0', flag); break;
    case 'S': printf_tnum(o, tm.sec, TW(2), '0', flag); break;
    case 'T':
    case 'X': printf_time(o, "%H:%M:%S", 8, secs); break;
    case 'u': printf_tnum(o, tm.wday ? tm.wday : 7, TW(1), '0', flag); break;
    case 'U':
      printf_tnum(o, (tm.yday + 7 - tm.wday) / 7, TW(2), '0', flag);
      break;
    case 'V': printf_tnum(o, printf_isoweek(&tm, &iy), TW(2), '0', flag); break;
    case 'w': printf_tnum(o, tm.wday, TW(1), '0', flag); break;
    case 'W':
      printf_tnum(o, (tm.yday + 7 - (tm.wday + 6) % 7) / 7, TW(2), '0', flag);
      break;
    case 'y':
      printf_tnum(o, (tm.year % 100 + 100) % 100, TW(2), '0', flag);
      break;
    case 'Y': printf_tnum(o, tm.year, TW(1), '0', flag); break;
    case 'z': printf_tstr(o, "+0000", TW(0), flag); break;
    case 'Z': printf_tstr(o, "UTC", TW(0), flag); break;
    case '%': buf_putc(o, '%'); break;
    default: buf_put(o, f + start, i + 1 - start); break;
    }
#undef TW
  }
}

/* ---- conversions ------------------------------------------------------ */

/* Appends a numeric conversion through the C library's printf. spec is
 * the C format with '*' for width and precision. */
static int printf_c_num(printf_st *p, const char *spec, int w, int pr, int kind,
                        int64_t iv, uint64_t uv, printf_flt fv) {
  int need;
  char *tmp;
  switch (kind) {
  case 0: need = snprintf(0, 0, spec, w, pr, (intmax_t)iv); break;
  case 1: need = snprintf(0, 0, spec, w, pr, (uintmax_t)uv); break;
  default: need = snprintf(0, 0, spec, w, pr, fv); break;
  }
  if (need < 0) return 0;
  if (need > printf_max_field(p)) return MSB_ELIMIT;
  tmp = arena_alloc(p->c->a, (size_t)need + 1);
  if (!tmp) return MSB_ENOMEM;
  switch (kind) {
  case 0: snprintf(tmp, (size_t)need + 1, spec, w, pr, (intmax_t)iv); break;
  case 1: snprintf(tmp, (size_t)need + 1, spec, w, pr, (uintmax_t)uv); break;
  default: snprintf(tmp, (size_t)need + 1, spec, w, pr, fv); break;
  }
  buf_put(p->o, tmp, (size_t)need);
  return 0;
}

/* One more digit of a width or precision; past max it stays max + 1, so
 * that the field is refused rather than clamped. */
static int printf_digit(int v, int d, int max) {
  return v > (max - d) / 10 ? max + 1 : v * 10 + d;
}

/* Width or precision from '*': an integer argument, max + 1 (or its
 * negative) when it is beyond max. */
static int printf_star(printf_st *p, int max) {
  int64_t v = printf_int(p);
  if (v > max) return max + 1;
  if (v < -(int64_t)max) return -(max + 1);
  return (int)v;
}

/* Handles one conversion starting after '%' at f[*ip]. Returns 0, or a
 * negative code; sets p->stop for fatal format errors. */
static int printf_conv(printf_st *p, const char *f, size_t n, size_t *ip) {
  size_t i = *ip, start = i - 1, tb, te = 0;
  char flags[8], spec[32];
  size_t nf = 0;
  int width = 0, prec = -1, have_w = 0, have_p = 0, left = 0, c, rc = 0;
  int paren = 0, max = printf_max_field(p);
  while (i < n && strchr("-+ #0'", f[i])) {
    if (f[i] == '-') left = 1;
    if (f[i] != '\'' && nf < sizeof flags - 1 && !memchr(flags, f[i], nf))
      flags[nf++] = f[i];
    i++;
  }
  flags[nf] = 0;
  if (i < n && f[i] == '*') {
    i++;
    have_w = 1;
    width = printf_star(p, max);
  } else {
    while (i < n && f[i] >= '0' && f[i] <= '9') {
      have_w = 1;
      width = printf_digit(width, f[i] - '0', max);
      i++;
    }
  }
  if (i < n && f[i] == '.') {
    i++;
    have_p = 1;
    prec = 0;
    if (i < n && f[i] == '*') {
      i++;
      prec = printf_star(p, max);
    } else {
      while (i < n && f[i] >= '0' && f[i] <= '9') {
        prec = printf_digit(prec, f[i] - '0', max);
        i++;
      }
    }
  }
  tb = i;
  if (i < n && f[i] == '(') {
    /* %(fmt)T: the strftime format runs to the matching ')' */
    int lev = 0;
    for (; i < n; i++) {
      if (f[i] == '(') lev++;
      if (f[i] == ')' && --lev == 0) break;
    }
    if (i < n) {
      paren = 1;
      te = i;
      i++;
    } else {
      i = tb;
    }
  }
  while (i < n && strchr("hlLjzt", f[i])) i++;
  if (i >= n) {
    cmd_err(p->c, "`%.*s': missing format character", (int)(n - start),
            f + start);
    p->status = 1;
    p->stop = 1;
    return 0;
  }
  c = (unsigned char)f[i];
  *ip = i + 1;
  if (paren && c != 'T') {
    /* bash warns, prints the spec up to '(' and rescans from there */
    cmd_err(p->c, "warning: `%c': invalid time format specification", c);
    buf_put(p->o, f + start, tb + 1 - start);
    *ip = tb + 1;
    return 0;
  }
  if (width > max || width < -max || prec > max)
    return MSB_ELIMIT; /* the shell names max_string_bytes */
  if (prec < 0 && have_p) prec = -1; /* negative '*' precision: none */
  if (!have_w) width = 0;
  switch (c) {
  case 'd':
  case 'i':
  case 'o':
  case 'u':
  case 'x':
  case 'X':
  case 'f':
  case 'F':
  case 'e':
  case 'E':
  case 'g':
  case 'G':
  case 'a':
  case 'A': {
    int kind = (c == 'd' || c == 'i') ? 0 : strchr("ouxX", c) ? 1 : 2;
    int64_t iv = 0;
    uint64_t uv = 0;
    printf_flt fv = 0;
    if (kind == 0) iv = printf_int(p);
    if (kind == 1) uv = printf_uint(p);
    if (kind == 2) fv = printf_float(p);
    snprintf(spec, sizeof spec, "%%%s*.*%s%c", flags,
             kind == 2 ? PRINTF_LEN : "j", c);
    if (prec < 0) {
      /* no precision given: the C default, spelled as ".*" with -1 */
      prec = -1;
    }
    return printf_c_num(p, spec, width, prec, kind, iv, uv, fv);
  }
  case 'c': {
    const char *a = printf_next(p);
    char ch = a ? a[0] : 0;
    printf_pad(p->o, &ch, 1, width, left);
    return 0;
  }
  case 's':
  case 'b':
  case 'q':
  case 'Q': {
    const char *a = printf_next(p);
    size_t len;
    buf tmp;
    if (!a) a = "";
    len = strlen(a);
    buf_init(&tmp, p->c->m);
    if (c == 's') {
      buf_put(&tmp, a, len);
    } else if (c == 'b') {
      if (echo_escape(&tmp, a, len, 1, p->c)) p->stop = 1;
    } else if (c == 'q') {
      printf_quote(&tmp, a, len);
    } else {
      printf_quote(&tmp, a,
                   prec >= 0 && (size_t)prec < len ? (size_t)prec : len);
      prec = -1;
    }
    rc = tmp.err;
    if (!rc) {
      size_t out = tmp.len;
      if (prec >= 0 && (size_t)prec < out) out = (size_t)prec;
      printf_pad(p->o, tmp.p ? tmp.p : "", out, width, left);
    }
    buf_finish(&tmp);
    return rc;
  }
  case 'T': {
    int64_t t;
    buf tmp;
    size_t out;
    if (!paren) break;
    /* a missing argument means now; "" reads as 0, as in bash */
    t = p->ai < p->nargs ? printf_int(p) : -1;
    if (t == -1 || t == -2)
      t = p->c->clock_ns ? cmd_ns_to_s(*p->c->clock_ns) : 0;
    buf_init(&tmp, p->c->m);
    if (te == tb + 1)
      printf_time(&tmp, "%X", 2, t); /* bash's default for %()T */
    else
      printf_time(&tmp, f + tb + 1, te - tb - 1, t);
    rc = tmp.err;
    out = tmp.len;
    if (prec >= 0 && (size_t)prec < out) out = (size_t)prec;
    if (!rc) printf_pad(p->o, tmp.p ? tmp.p : "", out, width, left);
    buf_finish(&tmp);
    return rc;
  }
  default: break;
  }
  cmd_err(p->c, "`%c': invalid format character", c);
  p->status = 1;
  p->stop = 1;
  return 0;
}

/* One pass over the format. */
static int printf_pass(printf_st *p, const char *f, size_t n) {
  size_t i = 0;
  int rc;
  while (i < n && !p->stop) {
    size_t run = i;
    while (run < n && f[run] != '\\' && f[run] != '%') run++;
    if (run > i) {
      buf_put(p->o, f + i, run - i);
      i = run;
      continue;
    }
    if (f[i] == '\\') {
      i++;
      i += printf_fmt_escape(p, f + i, n - i);
      continue;
    }
    i++;
    if (i < n && f[i] == '%') {
      buf_putc(p->o, '%');
      i++;
      continue;
    }
    if ((rc = printf_conv(p, f, n, &i))) return rc;
    if (p->o->err) return p->o->err;
    if (p->o->len > p->c->out_max) return MSB_ELIMIT;
  }
  return p->o->err;
}

/* Assigns the rendered text to VAR through the shell (printf -v). */
static int printf_assign(cmd_ctx *c, const char *var, const buf *text) {
  buf cmd, out, err;
  char *av[3];
  const char *q = var;
  int rc, sub = 0;
  if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
    goto bad;
  for (; *q; q++) {
    if (*q == '[' && !sub) {
      sub = 1;
      continue;
    }
    if (*q == ']' && sub == 1 && !q[1]) {
      sub = 2;
      continue;
    }
    if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
          (*q >= '0' && *q <= '9') || *q == '_'))
      goto bad;
  }
  if (sub == 1) goto bad;
  if (!c->run) {
    cmd_err(c, "-v: not supported here");
    return 1;
  }
  buf_init(&cmd, c->m);
  buf_init(&out, c->m);
  buf_init(&err, c->m);
  buf_puts(&cmd, var);
  buf_puts(&cmd, "=$'");
  for (q = text->p ? text->p : ""; q < (text->p ? text->p : "") + text->len;
       q++) {
    unsigned char ch = (unsigned char)*q;
    if (ch == '\\' || ch == '\'')
      buf_printf(&cmd, "\\%c", ch);
    else if (ch < 32 || ch >= 127)
      buf_printf(&cmd, "\\%03o", ch);
    else
      buf_putc(&cmd, ch);
  }
  buf_putc(&cmd, '\'');
  av[0] = (char *)"eval";
  av[1] = cmd.p;
  av[2] = 0;
  rc = cmd.err ? cmd.err : c->run(c, 2, av, 0, 0, &out, &err);
  if (rc > 0 && err.len) buf_put(c->err, err.p, err.len);
  buf_finish(&cmd);
  buf_finish(&out);
  buf_finish(&err);
  return rc;
bad:
  cmd_err(c, "`%s': not a valid identifier", var);
  return 2;
}

/* printf: format and print arguments. */
int cmd_printf(cmd_ctx *c) {
  printf_st p;
  buf o;
  const char *var = 0, *fmt;
  int i = 1, rc;
  size_t flen;
  while (i < c->argc && c->argv[i][0] == '-' && c->argv[i][1]) {
    const char *a = c->argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (!strcmp(a, "--help")) {
      cmd_puts(c, cold_get(printf_help));
      return 2;
    }
    if (a[1] == 'v') {
      if (a[2])
        var = a + 2;
      else if (i + 1 < c->argc)
        var = c->argv[++i];
      else {
        cmd_err(c, "-v: option requires an argument");
        buf_puts(c->err, cold_get(printf_usage_line));
        return 2;
      }
      i++;
      continue;
    }
    cmd_err(c, "-%c: invalid option", a[1]);
    buf_puts(c->err, cold_get(printf_usage_line));
    return 2;
  }
  if (i >= c->argc) {
    buf_puts(c->err, cold_get(printf_usage_line));
    return 2;
  }
  fmt = c->argv[i++];
  flen = strlen(fmt);
  memset(&p, 0, sizeof p);
  buf_init(&o, c->m);
  p.c = c;
  p.o = &o;
  p.args = c->argv + i;
  p.nargs = c->argc - i;
  rc = 0;
  for (;;) {
    int before = p.ai;
    if ((rc = printf_pass(&p, fmt, flen))) break;
    if (p.stop || p.ai == before || p.ai >= p.nargs) break;
    if (c->tick && (rc = c->tick(c, 1))) break;
  }
  if (!rc) rc = o.err;
  if (!rc) {
    if (var)
      rc = printf_assign(c, var, &o);
    else
      rc = cmd_write(c, o.p ? o.p : "", o.len);
  }
  buf_finish(&o);
  if (rc < 0) return rc;
  if (rc > 0) return rc;
  return p.status;
}
