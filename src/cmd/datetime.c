/* datetime.c - the date strings of date -d and touch -d (GNU's
 * parse_datetime, in the sandbox's UTC).
 *
 * The string is read as a sequence of items, in any order, like GNU:
 * calendar dates (2020-01-05, 2020/01/05, 01/05/2020, 1/5, 20200105,
 * "Jan 5 2020", "5 Jan 2020", "January 5, 2020"), times of day (12:00,
 * 12:00:30.5, 10am, 10:30 pm, 2020-01-05T12:00), zones (Z, UTC, GMT, UT,
 * +0200, -08:00), weekdays ("monday", "next friday", "last sun"), and
 * relative items ("3 days", "-1 week", "2 hours ago", "next month",
 * "yesterday", "tomorrow", "today", "now"). "@SECONDS[.frac]" stands alone.
 *
 * Evaluation follows GNU: start from now; a date replaces the calendar
 * day; a time replaces the clock (a date or weekday without a time means
 * midnight); a weekday moves forward (or back, with "last") unless a date
 * was given; relative years, months and days are added to the calendar
 * fields and normalised like mktime (Jan 31 + 1 month = Mar 2 or 3);
 * relative hours, minutes and seconds are added last. Anything else is
 * an invalid date. */
#include <string.h>

#include "cmd.h"

typedef struct dt_state {
  const char *s;
  int have_date, have_time, have_zone, have_day, have_year;
  int64_t year;
  int mon, mday, hour, min, sec, ns;
  int64_t zone;    /* seconds east of UTC */
  int day_ord, wday;
  int64_t ry, rmon, rday, rsec; /* relative parts */
  int64_t last_unit, last_n; /* the last relative item, for "ago" */
  int rels_seen;
} dt_state;

static int dt_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int dt_isalpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int dt_isdigit(int c) { return c >= '0' && c <= '9'; }

/* Whether the word w (n bytes) is name, or its prefix of at least min
 * letters (GNU accepts "Sept", "Wednes", "thur"...). */
static int dt_word(const char *w, size_t n, const char *name, size_t min) {
  size_t i, len = strlen(name);
  if (n > len || n < min) return 0;
  for (i = 0; i < n; i++)
    if (dt_lower(w[i]) != name[i]) return 0;
  return 1;
}

static void dt_skip(dt_state *st) {
  while (*st->s == ' ' || *st->s == '\t' || *st->s == ',' || *st->s == '\n')
    st->s++;
}

/* Reads a run of digits: value, count in *nd. */
static int64_t dt_num(dt_state *st, int *nd) {
  int64_t v = 0;
  *nd = 0;
  while (dt_isdigit(*st->s)) {
    if (v < 100000000000LL) v = v * 10 + (*st->s - '0');
    st->s++;
    (*nd)++;
  }
  return v;
}

static int dt_month_name(const char *w, size_t n) {
  static const char *const names[] = {
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  int i;
  for (i = 0; i < 12; i++)
    if (dt_word(w, n, names[i], 3) || (i == 8 && dt_word(w, n, "sept", 4)))
      return i + 1;
  return 0;
}

static int dt_day_name(const char *w, size_t n) {
  static const char *const names[] = {"sunday",    "monday",   "tuesday",
                                      "wednesday", "thursday", "friday",
                                      "saturday"};
  int i;
  for (i = 0; i < 7; i++)
    if (dt_word(w, n, names[i], 3)) return i;
  return -1;
}

/* Relative unit: seconds per unit, or -1 month, -2 year, -3 day, 0. */
static int64_t dt_unit(const char *w, size_t n) {
  static const struct {
    const char *name;
    int64_t secs;
  } units[] = {{"year", -2},  {"month", -1},  {"fortnight", 14}, {"week", 7},
               {"day", -3},   {"hour", 3600}, {"minute", 60},    {"min", 60},
               {"second", 1}, {"sec", 1}};
  size_t i;
  for (i = 0; i < sizeof units / sizeof units[0]; i++) {
    size_t l = strlen(units[i].name);
    if ((n == l || (n == l + 1 && dt_lower(w[l]) == 's')) &&
        dt_word(w, l, units[i].name, l))
      return units[i].secs;
  }
  return 0;
}

/* Adds n units (from dt_unit) to the relative parts. */
static void dt_add_rel(dt_state *st, int64_t unit, int64_t n) {
  if (unit == -2)
    st->ry += n;
  else if (unit == -1)
    st->rmon += n;
  else if (unit == -3 || unit == 7 || unit == 14)
    st->rday += n * (unit == -3 ? 1 : unit);
  else
    st->rsec += n * unit;
  st->last_unit = unit;
  st->last_n = n;
  st->rels_seen = 1;
}

/* Optional "am"/"pm" after an hour; 0, or -1 when the hour is out of
 * range for it. */
static int dt_meridian(dt_state *st) {
  const char *p = st->s;
  int pm;
  while (*p == ' ' || *p == '\t') p++;
  if ((dt_lower(p[0]) != 'a' && dt_lower(p[0]) != 'p') || dt_lower(p[1]) != 'm')
    return 0;
  if (p[2] == '.' && dt_lower(p[1]) == 'm') p++;
  if (dt_isalpha(p[2])) return 0;
  pm = dt_lower(p[0]) == 'p';
  st->s = p + 2;
  if (st->hour < 1 || st->hour > 12) return -1;
  st->hour = st->hour % 12 + (pm ? 12 : 0);
  return 0;
}

/* A numeric zone "+HH", "+HHMM" or "+HH:MM" at st->s (sign included). */
static int dt_numzone(dt_state *st) {
  int sign = *st->s == '-' ? -1 : 1, nd, nd2;
  int64_t v, m = 0;
  st->s++;
  v = dt_num(st, &nd);
  if (*st->s == ':' && nd <= 2) {
    st->s++;
    m = dt_num(st, &nd2);
    if (nd2 != 2) return -1;
  } else if (nd == 3 || nd == 4) {
    m = v % 100;
    v /= 100;
  } else if (nd < 1 || nd > 2) {
    return -1;
  }
  if (v > 24 || m > 59 || st->have_zone) return -1;
  st->zone = sign * (v * 3600 + m * 60);
  st->have_zone = 1;
  return 0;
}

/* "H:MM[:SS[.frac]]" with the hour already read; then am/pm and a zone. */
static int dt_time(dt_state *st, int64_t h) {
  int nd;
  if (st->have_time) return -1;
  st->s++; /* ':' */
  st->hour = (int)(h > 99 ? 99 : h);
  st->min = (int)dt_num(st, &nd);
  if (nd != 2) return -1;
  st->sec = 0;
  st->ns = 0;
  if (*st->s == ':' && dt_isdigit(st->s[1])) {
    st->s++;
    st->sec = (int)dt_num(st, &nd);
    if (nd != 2) return -1;
    if ((*st->s == '.' || *st->s == ',') && dt_isdigit(st->s[1])) {
      int scale = 100000000;
      for (st->s++; dt_isdigit(*st->s); st->s++, scale /= 10)
        st->ns += (*st->s - '0') * scale;
    }
  }
  st->have_time = 1;
  if (dt_meridian(st) < 0) return -1;
  if (st->hour > 23 || st->min > 59 || st->sec > 60) return -1;
  if (*st->s == '+' || *st->s == '-') return dt_numzone(st);
  return 0;
}

static int dt_set_date(dt_state *st, int64_t y, int ny, int64_t m, int64_t d) {
  if (st->have_date) return -1;
  if (ny > 0 && ny <= 2) y += y < 69 ? 2000 : 1900;
  st->year = y;
  st->have_year = ny > 0;
  st->mon = (int)m;
  st->mday = (int)d;
  st->have_date = 1;
  if (m < 1 || m > 12 || d < 1 || d > 31) return -1;
  return 0;
}

/* An item starting with a digit. */
static int dt_number_item(dt_state *st) {
  int nd, nd2, nd3;
  int64_t a = dt_num(st, &nd), b, c;
  if (*st->s == ':' && dt_isdigit(st->s[1])) return dt_time(st, a);
  if (*st->s == '-' && dt_isdigit(st->s[1]) && nd >= 1) {
    /* ISO 8601 YYYY-MM-DD, then maybe 'T' and a time. */
    st->s++;
    b = dt_num(st, &nd2);
    if (*st->s != '-' || !dt_isdigit(st->s[1])) return -1;
    st->s++;
    c = dt_num(st, &nd3);
    if (dt_set_date(st, a, nd, b, c) < 0) return -1;
    if ((*st->s == 'T' || *st->s == 't') && dt_isdigit(st->s[1])) {
      int ndh;
      int64_t h;
      st->s++;
      h = dt_num(st, &ndh);
      if (*st->s != ':') return -1;
      return dt_time(st, h);
    }
    return 0;
  }
  if (*st->s == '/' && dt_isdigit(st->s[1])) {
    st->s++;
    b = dt_num(st, &nd2);
    if (*st->s == '/' && dt_isdigit(st->s[1])) {
      st->s++;
      c = dt_num(st, &nd3);
      if (nd >= 3) return dt_set_date(st, a, nd, b, c);
      return dt_set_date(st, c, nd3, a, b);
    }
    return dt_set_date(st, 0, 0, a, b);
  }
  dt_skip(st);
  if (dt_isalpha(*st->s)) {
    const char *w = st->s;
    size_t n = 0;
    int64_t u;
    int mo;
    while (dt_isalpha(w[n])) n++;
    if ((u = dt_unit(w, n)) != 0) {
      st->s = w + n;
      dt_add_rel(st, u, a);
      return 0;
    }
    if ((mo = dt_month_name(w, n)) != 0) {
      /* "5 Jan [2020]" */
      st->s = w + n;
      dt_skip(st);
      if (dt_isdigit(*st->s) && !(dt_isdigit(st->s[1]) && st->s[2] == ':') &&
          !(st->s[1] == ':')) {
        c = dt_num(st, &nd3);
        return dt_set_date(st, c, nd3, mo, a);
      }
      return dt_set_date(st, 0, 0, mo, a);
    }
    if ((dt_lower(w[0]) == 'a' || dt_lower(w[0]) == 'p') &&
        dt_lower(w[1]) == 'm' && !dt_isalpha(w[2]) && nd <= 2) {
      if (st->have_time) return -1;
      st->hour = (int)a;
      st->min = st->sec = st->ns = 0;
      st->have_time = 1;
      return dt_meridian(st);
    }
    return -1;
  }
  /* A bare number: YYYYMMDD, a year after "Jan 5", or HHMM after a date. */
  if (!st->have_date && nd == 8)
    return dt_set_date(st, a / 10000, 4, a / 100 % 100, a % 100);
  if (st->have_date && !st->have_year && !st->have_time && nd == 4) {
    st->year = a;
    st->have_year = 1;
    return 0;
  }
  if (st->have_date && !st->have_time && nd <= 4) {
    st->hour = (int)(nd <= 2 ? a : a / 100);
    st->min = (int)(nd <= 2 ? 0 : a % 100);
    st->sec = st->ns = 0;
    st->have_time = 1;
    return st->hour > 23 || st->min > 59 ? -1 : 0;
  }
  return -1;
}

/* An item starting with a letter. */
static int dt_word_item(dt_state *st) {
  const char *w = st->s;
  size_t n = 0;
  int64_t u;
  int mo, wd, nd;
  while (dt_isalpha(w[n]) || (n && w[n] == '.')) n++;
  while (n && w[n - 1] == '.') n--;
  st->s = w + n;
  if (dt_word(w, n, "now", 3) || dt_word(w, n, "today", 5)) {
    st->rels_seen = 1;
    return 0;
  }
  if (dt_word(w, n, "yesterday", 9) || dt_word(w, n, "tomorrow", 8)) {
    dt_add_rel(st, -3, dt_lower(w[0]) == 'y' ? -1 : 1);
    st->last_unit = 0;
    return 0;
  }
  if (dt_word(w, n, "ago", 3)) {
    /* "ago" turns round the item just before it, and only that one. */
    if (!st->last_unit) return -1;
    dt_add_rel(st, st->last_unit, -2 * st->last_n);
    st->last_unit = 0;
    return 0;
  }
  if (dt_word(w, n, "utc", 3) || dt_word(w, n, "gmt", 3) ||
      dt_word(w, n, "ut", 2) || dt_word(w, n, "z", 1)) {
    if (st->have_zone) return -1;
    st->have_zone = 1;
    st->zone = 0;
    if (*st->s == '+' || *st->s == '-') {
      st->have_zone = 0;
      return dt_numzone(st);
    }
    return 0;
  }
  if (dt_word(w, n, "next", 4) || dt_word(w, n, "last", 4) ||
      dt_word(w, n, "this", 4)) {
    int ord = dt_lower(w[0]) == 'n' ? 1 : dt_lower(w[0]) == 'l' ? -1 : 0;
    const char *x;
    size_t m = 0;
    dt_skip(st);
    x = st->s;
    while (dt_isalpha(x[m])) m++;
    st->s = x + m;
    if ((u = dt_unit(x, m)) != 0) {
      dt_add_rel(st, u, ord);
      return 0;
    }
    if ((wd = dt_day_name(x, m)) >= 0 && !st->have_day) {
      st->have_day = 1;
      st->wday = wd;
      st->day_ord = ord;
      if (*st->s == '.') st->s++;
      return 0;
    }
    return -1;
  }
  if ((u = dt_unit(w, n)) != 0) {
    dt_add_rel(st, u, 1);
    return 0;
  }
  if ((wd = dt_day_name(w, n)) >= 0) {
    if (st->have_day) return -1;
    st->have_day = 1;
    st->wday = wd;
    st->day_ord = 0;
    if (*st->s == '.') st->s++;
    return 0;
  }
  if ((mo = dt_month_name(w, n)) != 0) {
    /* "Jan 5 [2020]" or "Jan 2020"? GNU reads "Jan 5, 2020". */
    int64_t d, y;
    int ny = 0;
    if (*st->s == '.') st->s++;
    dt_skip(st);
    if (!dt_isdigit(*st->s)) return dt_set_date(st, 0, 0, mo, 1);
    d = dt_num(st, &nd);
    if (*st->s == ':') return -1;
    y = 0;
    {
      const char *save = st->s;
      dt_skip(st);
      if (dt_isdigit(*st->s)) {
        const char *p = st->s;
        while (dt_isdigit(*p)) p++;
        if (*p != ':') {
          y = dt_num(st, &ny);
        } else {
          st->s = save;
        }
      } else {
        st->s = save;
      }
    }
    return dt_set_date(st, y, ny, mo, d);
  }
  return -1;
}

int cmd_parse_date(const char *s, int64_t now_ns, int64_t *out_ns) {
  dt_state st;
  cmd_tm tm;
  int64_t now_s = cmd_ns_to_s(now_ns), t, ns;
  memset(&st, 0, sizeof st);
  st.s = s;
  dt_skip(&st);
  if (*st.s == '@') {
    int64_t v = 0, sign = 1, frac = 0;
    s = st.s + 1;
    if (*s == '-' || *s == '+') sign = *s++ == '-' ? -1 : 1;
    if (!dt_isdigit(*s)) return CMD_NUM_INVALID;
    while (dt_isdigit(*s)) {
      if (v > 9000000000LL) return CMD_NUM_INVALID;
      v = v * 10 + (*s++ - '0');
    }
    if (*s == '.' || *s == ',') {
      int64_t scale = 100000000;
      for (s++; dt_isdigit(*s); s++, scale /= 10) frac += (*s - '0') * scale;
    }
    st.s = s;
    dt_skip(&st);
    if (*st.s) return CMD_NUM_INVALID;
    *out_ns = sign * (v * 1000000000 + frac);
    return 0;
  }
  while (dt_skip(&st), *st.s) {
    int r;
    char ch = *st.s;
    if (dt_isdigit(ch)) {
      r = dt_number_item(&st);
    } else if (dt_isalpha(ch)) {
      r = dt_word_item(&st);
    } else if (ch == '+' || ch == '-') {
      /* A signed number: a relative item, or a zone after a time. */
      const char *save = st.s;
      int nd, sign = ch == '-' ? -1 : 1;
      int64_t v, u;
      const char *w;
      size_t n = 0;
      st.s++;
      while (*st.s == ' ' || *st.s == '\t') st.s++;
      v = dt_num(&st, &nd);
      if (!nd) return CMD_NUM_INVALID;
      dt_skip(&st);
      w = st.s;
      while (dt_isalpha(w[n])) n++;
      if (n && (u = dt_unit(w, n)) != 0) {
        st.s = w + n;
        dt_add_rel(&st, u, sign * v);
        r = 0;
      } else if (st.have_time && dt_isdigit(save[1])) {
        st.s = save;
        r = dt_numzone(&st);
      } else {
        r = -1;
      }
    } else {
      r = -1;
    }
    if (r < 0) return CMD_NUM_INVALID;
  }
  cmd_gmtime(now_s, &tm);
  ns = now_ns - now_s * 1000000000;
  if (st.have_date) {
    if (st.have_year) tm.year = st.year;
    tm.mon = st.mon;
    tm.mday = st.mday;
    {
      /* A day that does not exist in its month is invalid, not Mar 1. */
      cmd_tm chk = tm;
      chk.hour = chk.min = chk.sec = 0;
      cmd_gmtime(cmd_timegm(&chk), &chk);
      if (chk.mday != st.mday) return CMD_NUM_INVALID;
    }
  }
  if (st.have_time) {
    tm.hour = st.hour;
    tm.min = st.min;
    tm.sec = st.sec;
    ns = st.ns;
  } else if (st.have_date || st.have_day || !st.rels_seen) {
    /* Without a time, only relative items keep the current clock. */
    tm.hour = tm.min = tm.sec = 0;
    ns = 0;
  }
  if (st.have_day && !st.have_date) {
    int64_t base;
    int cur;
    cmd_tm w = tm;
    cmd_gmtime(cmd_timegm(&w), &w);
    cur = w.wday;
    base = (st.wday - cur + 7) % 7;
    base += 7 * (st.day_ord - (st.day_ord > 0 && cur != st.wday));
    tm.mday += (int)base;
  }
  tm.year += st.ry;
  tm.mon += (int)st.rmon;
  tm.mday += (int)st.rday;
  t = cmd_timegm(&tm) - st.zone + st.rsec;
  *out_ns = t * 1000000000 + ns;
  return 0;
}
