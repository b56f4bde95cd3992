/* expand.c - word expansion: brace, tilde, parameter, command and
 * arithmetic substitution, word splitting, pathname expansion and quote
 * removal, in bash's order.
 *
 * A word is expanded part by part into a field builder that keeps two
 * forms of the current field: the plain text (quote-removed) and a glob
 * pattern in which quoted characters are backslash-escaped. Unquoted
 * expansion results are split by IFS as they are appended (bash's rules for
 * IFS whitespace vs other IFS characters), so "$@" can force field breaks.
 * Fields whose unquoted text holds glob characters go through glob.h.
 * Brace expansion runs first on the word's unquoted literal text and yields
 * new part lists (built in a per-word arena). */
#include <string.h>

#include "arith.h"
#include "glob.h"
#include "interp.h"

enum { XM_FIELDS, XM_STRING, XM_PATTERN };

typedef struct xfield {
  char *text;
  char *pat; /* NULL unless the field needs pathname expansion */
} xfield;

typedef struct xw {
  shell *sh;
  int mode;
  xfield *f;
  size_t n, cap;
  buf cur, pat;
  int started, wsbreak, magic;
  int litsplit; /* literal text of ${x-word} in unquoted context splits */
  const char *ifs; /* $IFS, looked up at the first unquoted expansion */
  int ifs_set;
  uint8_t ifs_map[32]; /* the bytes of ifs, one bit each */
  int err;      /* sticky: <0 fatal, 1 expansion error */
} xw;

/* Decimal formatting without stdio. */
void expand_fmt_i64(char *b, int64_t v) {
  char t[24];
  int n = 0, k = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do t[n++] = (char)('0' + u % 10);
  while ((u /= 10));
  if (v < 0) b[k++] = '-';
  while (n) b[k++] = t[--n];
  b[k] = 0;
}

static void xw_init(xw *x, shell *sh, int mode) {
  memset(x, 0, sizeof *x);
  x->sh = sh;
  x->mode = mode;
  buf_init(&x->cur, sh->m);
  buf_init(&x->pat, sh->m);
}

static void xw_finish(xw *x) {
  size_t i;
  for (i = 0; i < x->n; i++) {
    mem_free(x->sh->m, x->f[i].text);
    mem_free(x->sh->m, x->f[i].pat);
  }
  mem_free(x->sh->m, x->f);
  buf_finish(&x->cur);
  buf_finish(&x->pat);
}

static int xw_check_size(xw *x) {
  uint64_t max = x->sh->lim->max_string_bytes;
  if (x->cur.err || x->pat.err) {
    x->err = MSB_ENOMEM;
    return x->err;
  }
  if (max && x->cur.len > max) {
    if (!x->sh->run->limit) x->sh->run->limit = LIMIT_MAX_STRING_BYTES;
    x->err = MSB_ELIMIT;
  }
  return x->err;
}

static void xw_end(xw *x) {
  xfield *nf;
  if (x->err) return;
  if (x->n == x->cap) {
    size_t nc = x->cap ? x->cap * 2 : 8;
    nf = mem_realloc(x->sh->m, x->f, nc * sizeof *nf);
    if (!nf) {
      x->err = MSB_ENOMEM;
      return;
    }
    x->f = nf;
    x->cap = nc;
  }
  if (x->sh->lim->max_array_items && x->n >= x->sh->lim->max_array_items) {
    if (!x->sh->run->limit) x->sh->run->limit = LIMIT_MAX_ARRAY_ITEMS;
    x->err = MSB_ELIMIT;
    return;
  }
  nf = &x->f[x->n];
  nf->text = buf_steal(&x->cur, NULL);
  if (!nf->text) nf->text = mem_strdup(x->sh->m, "");
  nf->pat = NULL;
  if (x->magic) nf->pat = buf_steal(&x->pat, NULL);
  buf_clear(&x->pat);
  if (!nf->text || (x->magic && !nf->pat)) {
    mem_free(x->sh->m, nf->text);
    x->err = MSB_ENOMEM;
    return;
  }
  x->n++;
  x->started = 0;
  x->magic = 0;
}

/* Bytes xw_lit cannot copy as they are: XW_ESC, a quoted one needs an
 * escape in a pattern (xw_needs_escape); XW_GLOB, an unquoted one may
 * start a glob (xw_is_glob, and extglob's @( !( +( ). */
enum { XW_ESC = 1, XW_GLOB = 2 };
static const uint8_t xw_special[256] = {
    ['*'] = XW_ESC | XW_GLOB, ['?'] = XW_ESC | XW_GLOB,
    ['['] = XW_ESC | XW_GLOB, ['@'] = XW_ESC | XW_GLOB,
    ['!'] = XW_ESC | XW_GLOB, ['+'] = XW_ESC | XW_GLOB,
    [']'] = XW_ESC,           ['\\'] = XW_ESC,
    ['('] = XW_ESC,           [')'] = XW_ESC,
    ['|'] = XW_ESC,           ['&'] = XW_ESC,
    ['^'] = XW_ESC,           ['-'] = XW_ESC};

static int xw_is_glob(int c) { return c == '*' || c == '?' || c == '['; }

static int xw_needs_escape(int c) { return xw_special[(uint8_t)c] & XW_ESC; }

static int xw_in_map(const uint8_t *map, int c) {
  return (map[c >> 3] >> (c & 7)) & 1;
}

static void xw_map_set(uint8_t *map, const char *chars) {
  for (; *chars; chars++)
    map[(uint8_t)*chars >> 3] |= (uint8_t)(1u << ((uint8_t)*chars & 7));
}

/* The length of s's first run of bytes xw_lit copies as they are, in one
 * buf_put: a long value then costs about a memcpy, not a call per byte. */
static size_t xw_plain_run(const char *s, size_t n, int quoted) {
  size_t i = 0;
  int stop = quoted ? XW_ESC : XW_GLOB;
  while (i < n && !(xw_special[(uint8_t)s[i]] & stop)) i++;
  return i;
}

/* Appends literal text: quoted (never special) or unquoted (globbing). */
static void xw_lit(xw *x, const char *s, size_t n, int quoted) {
  size_t i, run;
  uint64_t max = x->sh->lim->max_string_bytes;
  if (x->err) return;
  if (max && x->cur.len + n > max) {
    if (!x->sh->run->limit) x->sh->run->limit = LIMIT_MAX_STRING_BYTES;
    x->err = MSB_ELIMIT;
    return;
  }
  if (interp_charge_bytes(x->sh, n)) {
    x->err = MSB_ELIMIT;
    return;
  }
  x->started = 1;
  x->wsbreak = 0;
  buf_put(&x->cur, s, n);
  if (x->mode == XM_STRING) {
    xw_check_size(x);
    return;
  }
  if (x->mode == XM_PATTERN) {
    /* cur holds the pattern: escape quoted specials */
    if (quoted) {
      buf_truncate(&x->cur, x->cur.len - n);
      for (i = 0; i < n; i++) {
        run = xw_plain_run(s + i, n - i, 1);
        buf_put(&x->cur, s + i, run);
        if ((i += run) == n) break;
        if (xw_needs_escape((uint8_t)s[i])) buf_putc(&x->cur, '\\');
        buf_putc(&x->cur, s[i]);
      }
    }
    xw_check_size(x);
    return;
  }
  for (i = 0; i < n; i++) {
    int c;
    run = xw_plain_run(s + i, n - i, quoted);
    buf_put(&x->pat, s + i, run);
    if ((i += run) == n) break;
    c = (uint8_t)s[i];
    if (quoted) {
      if (xw_needs_escape(c)) buf_putc(&x->pat, '\\');
    } else if (xw_is_glob(c) || ((x->sh->shopts & SH_SO_EXTGLOB) &&
                                 (c == '@' || c == '!' || c == '+') &&
                                 i + 1 < n && s[i + 1] == '('))
      x->magic = 1;
    buf_putc(&x->pat, c);
  }
  xw_check_size(x);
}

static int xw_ifs_ws(int c) { return c == ' ' || c == '\t' || c == '\n'; }

/* Appends an expansion result, splitting it when unquoted. */
static void xw_exp(xw *x, const char *s, size_t n, int quoted) {
  const char *ifs;
  size_t i, st;
  if (quoted || x->mode != XM_FIELDS) {
    xw_lit(x, s, n, quoted);
    return;
  }
  if (interp_charge_bytes(x->sh, n)) { /* the scan for IFS bytes */
    x->err = MSB_ELIMIT;
    return;
  }
  if (!x->ifs_set) {
    x->ifs = var_value(x->sh->vars, "IFS");
    x->ifs_set = 1;
    xw_map_set(x->ifs_map, x->ifs ? x->ifs : " \t\n");
  }
  ifs = x->ifs ? x->ifs : " \t\n";
  if (!*ifs) {
    if (n) xw_lit(x, s, n, 0);
    return;
  }
  st = 0;
  for (i = 0; i < n && !x->err; i++) {
    int c = (uint8_t)s[i];
    if (!xw_in_map(x->ifs_map, c)) continue;
    if (i > st) xw_lit(x, s + st, i - st, 0);
    st = i + 1;
    if (xw_ifs_ws(c)) {
      if (x->started) {
        xw_end(x);
        x->wsbreak = 1;
      }
    } else {
      if (x->wsbreak && !x->started)
        x->wsbreak = 0;
      else {
        x->started = 1;
        xw_end(x);
      }
      x->wsbreak = 0;
      /* whitespace after a delimiter belongs to it */
      while (i + 1 < n && xw_ifs_ws((uint8_t)s[i + 1]) &&
             strchr(ifs, s[i + 1])) {
        i++;
        st = i + 1;
      }
    }
  }
  if (n > st) xw_lit(x, s + st, n - st, 0);
}

static int expand_parts(xw *x, const ast_part *p, int quoted);

/* ---- parameter values ----------------------------------------------- */

typedef struct xval {
  int set;      /* 0 unset */
  int list;     /* @ or * form */
  int star;     /* * (join) */
  char **v;
  size_t n;
} xval;

static void xval_free(shell *sh, xval *v) {
  size_t i;
  for (i = 0; i < v->n; i++) mem_free(sh->m, v->v[i]);
  mem_free(sh->m, v->v);
  memset(v, 0, sizeof *v);
}

static int xval_push(shell *sh, xval *v, const char *s, size_t len) {
  char **nv;
  if (!(v->n & (v->n + 1)) || v->n == 0) {
    size_t nc = v->n ? (v->n + 1) * 2 : 2;
    nv = mem_realloc(sh->m, v->v, nc * sizeof *nv);
    if (!nv) return MSB_ENOMEM;
    v->v = nv;
  }
  v->v[v->n] = mem_strndup(sh->m, s, len);
  if (!v->v[v->n]) return MSB_ENOMEM;
  v->n++;
  v->set = 1;
  return 0;
}

static int xval_str(shell *sh, xval *v, const char *s) {
  return xval_push(sh, v, s, strlen(s));
}

static const char *expand_opt_flags(shell *sh, char *b) {
  int k = 0;
  /* bash's order */
  if (sh->opts & SH_O_ALLEXPORT) b[k++] = 'a';
  if (sh->opts & SH_O_ERREXIT) b[k++] = 'e';
  if (sh->opts & SH_O_NOGLOB) b[k++] = 'f';
  b[k++] = 'h';
  if (sh->opts & SH_O_MONITOR) b[k++] = 'm';
  if (sh->opts & SH_O_NOUNSET) b[k++] = 'u';
  if (sh->opts & SH_O_VERBOSE) b[k++] = 'v';
  if (sh->opts & SH_O_XTRACE) b[k++] = 'x';
  if (sh->opts & SH_O_BRACE) b[k++] = 'B';
  if (sh->opts & SH_O_NOCLOBBER) b[k++] = 'C';
  if (sh->opts & SH_O_ERRTRACE) b[k++] = 'E';
  if (sh->opts & SH_O_FUNCTRACE) b[k++] = 'T';
  b[k++] = 'c';
  b[k] = 0;
  return b;
}

/* Special and dynamic parameters; 1 when name was one (value in *v). */
/* The call-stack arrays: 0 FUNCNAME, 1 BASH_SOURCE, 2 BASH_LINENO, -1
 * for other names. They list the frames innermost first, then a script's
 * "main" frame; FUNCNAME is empty while no function runs. */
static int expand_frame_var(const char *name) {
  if (!strcmp(name, "FUNCNAME")) return 0;
  if (!strcmp(name, "BASH_SOURCE")) return 1;
  if (!strcmp(name, "BASH_LINENO")) return 2;
  return -1;
}

static int64_t expand_frame_count(shell *sh, int which) {
  if (which == 0 && !sh->funcs_active) return 0;
  return sh->nfstack + (sh->main_src ? 1 : 0);
}

/* Element i (0 = innermost); nb holds a number's text (24 bytes). */
static const char *expand_frame_item(shell *sh, int which, int64_t i,
                                     char *nb) {
  const sh_frame *f = i < sh->nfstack ? &sh->fstack[sh->nfstack - 1 - i] : NULL;
  if (which == 0) return f ? f->name : "main";
  if (which == 1) return f ? f->src : sh->main_src;
  expand_fmt_i64(nb, f ? f->line : 0);
  return nb;
}

static int64_t expand_now(const shell *sh) {
  return sh->clock_ns ? *sh->clock_ns : 0;
}

void expand_seconds_assigned(shell *sh, const char *val) {
  int64_t s = 0;
  if (expand_arith_text(sh, val, strlen(val), &s, NULL)) s = 0;
  sh->seconds_base = expand_now(sh) - s * 1000000000;
}

static int expand_special(shell *sh, const char *name, xval *v, int *rc) {
  char nb[32];
  *rc = 0;
  if (name[0] >= '0' && name[0] <= '9') {
    int64_t k = 0;
    const char *q = name;
    while (*q >= '0' && *q <= '9' && k < 100000000) k = k * 10 + (*q++ - '0');
    if (*q) return 0;
    if (k == 0)
      *rc = xval_str(sh, v, sh->arg0 ? sh->arg0 : "bash");
    else if (k <= sh->npos)
      *rc = xval_str(sh, v, sh->pos[k - 1]);
    return 1;
  }
  if (!name[0]) return 0;
  if (!name[1]) {
    switch (name[0]) {
    case '#': expand_fmt_i64(nb, sh->npos); break;
    case '?': expand_fmt_i64(nb, sh->status); break;
    case '$': expand_fmt_i64(nb, 1000); break;
    case '!':
      if (!sh->bg_pid) return 1;
      expand_fmt_i64(nb, sh->bg_pid);
      break;
    case '-': expand_opt_flags(sh, nb); break;
    case '_':
      /* bash starts with its own name there */
      *rc = xval_str(sh, v, sh->last_arg ? sh->last_arg : "bash");
      return 1;
    default: return 0;
    }
    *rc = xval_str(sh, v, nb);
    return 1;
  }
  if (!strcmp(name, "RANDOM")) {
    var *rv = var_lookup(sh->vars, "RANDOM");
    if (rv && (rv->attr & VAR_NOVALUE) == 0 && rv->val && *rv->val == 0)
      return 0;
    expand_fmt_i64(nb, interp_random(sh));
  } else if (!strcmp(name, "SECONDS")) {
    expand_fmt_i64(nb, (expand_now(sh) - sh->seconds_base) / 1000000000);
  } else if (!strcmp(name, "EPOCHSECONDS")) {
    expand_fmt_i64(nb, (sh->clock_ns ? *sh->clock_ns : 0) / 1000000000);
  } else if (!strcmp(name, "BASH_COMMAND")) {
    buf b;
    buf_init(&b, sh->m);
    if (sh->cur_cmd) ast_print_command(&b, sh->cur_cmd, interp_stack_left(sh));
    *rc = b.err ? b.err : xval_str(sh, v, buf_str(&b));
    buf_finish(&b);
    return 1;
  } else if (!strcmp(name, "LINENO")) {
    expand_fmt_i64(nb, sh->line);
  } else if (!strcmp(name, "BASHPID")) {
    expand_fmt_i64(nb, sh->subshell ? sh->pid : 1000);
  } else if (!strcmp(name, "BASH_SUBSHELL")) {
    expand_fmt_i64(nb, sh->subshell);
  } else if (expand_frame_var(name) >= 0) {
    int which = expand_frame_var(name);
    const char *s;
    if (!expand_frame_count(sh, which)) return 1;
    s = expand_frame_item(sh, which, 0, nb);
    *rc = xval_str(sh, v, s);
    return 1;
  } else if (!strcmp(name, "SHELLOPTS")) {
    buf b;
    buf_init(&b, sh->m);
    buf_puts(&b, "braceexpand");
    if (sh->opts & SH_O_ERREXIT) buf_puts(&b, ":errexit");
    buf_puts(&b, ":hashall");
    if (sh->opts & SH_O_NOCLOBBER) buf_puts(&b, ":noclobber");
    if (sh->opts & SH_O_NOGLOB) buf_puts(&b, ":noglob");
    if (sh->opts & SH_O_NOUNSET) buf_puts(&b, ":nounset");
    if (sh->opts & SH_O_PIPEFAIL) buf_puts(&b, ":pipefail");
    if (sh->opts & SH_O_XTRACE) buf_puts(&b, ":xtrace");
    *rc = b.err ? b.err : xval_str(sh, v, buf_str(&b));
    buf_finish(&b);
    return 1;
  } else
    return 0;
  *rc = xval_str(sh, v, nb);
  return 1;
}

static int expand_unbound(shell *sh, const char *name) {
  interp_errf(sh, "%s: unbound variable", name);
  /* bash exits 127 from the main shell, 1 from a subshell */
  sh->status = sh->subshell ? 1 : 127;
  sh->flow = SH_FLOW_EXIT;
  return 1;
}

/* Evaluates a subscript word arithmetically. */
static int expand_index(shell *sh, ast_word *w, int64_t *ix) {
  return expand_arith(sh, w, ix, NULL);
}

static int expand_get(shell *sh, const char *name, int sub, ast_word *index,
                      const char *idx_text, xval *out);

/* The value of ref, "name[subscript]": the target of a nameref to an array
 * element. */
static int expand_get_element(shell *sh, const char *ref, xval *out) {
  size_t bl = strcspn(ref, "[");
  char *base = mem_strndup(sh->m, ref, bl);
  char *idx = mem_strndup(sh->m, ref + bl + 1, strlen(ref) - bl - 2);
  int rc = MSB_ENOMEM, sub = 'i';
  if (base && idx) {
    if (!strcmp(idx, "@") || !strcmp(idx, "*")) sub = idx[0];
    rc = expand_get(sh, base, sub, NULL, sub == 'i' ? idx : NULL, out);
  }
  mem_free(sh->m, base);
  mem_free(sh->m, idx);
  return rc;
}

/* Gets a parameter's value as an xval. sub: 0 / '@' / '*' / 'i' with
 * index word (or literal index text when idx_text non-NULL). */
static int expand_get(shell *sh, const char *name, int sub, ast_word *index,
                      const char *idx_text, xval *out) {
  int rc, i;
  var *v;
  memset(out, 0, sizeof *out);
  if (!strcmp(name, "@") || !strcmp(name, "*")) {
    out->list = 1;
    out->star = name[0] == '*';
    out->set = 1;
    for (i = 0; i < sh->npos; i++)
      if ((rc = xval_str(sh, out, sh->pos[i]))) return rc;
    out->set = 1;
    return 0;
  }
  if (!sub && expand_special(sh, name, out, &rc)) return rc;
  if (!strcmp(name, "PIPESTATUS") && !var_lookup(sh->vars, name)) {
    char nb[24];
    int64_t ix = 0;
    if (sub == '@' || sub == '*') {
      out->list = 1;
      out->star = sub == '*';
      out->set = 1;
      for (i = 0; i < sh->npstat; i++) {
        expand_fmt_i64(nb, sh->pstat[i]);
        if ((rc = xval_str(sh, out, nb))) return rc;
      }
      return 0;
    }
    if (sub == 'i') {
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) ix += sh->npstat;
    }
    if (ix < 0 || ix >= sh->npstat) return 0;
    expand_fmt_i64(nb, sh->pstat[ix]);
    return xval_str(sh, out, nb);
  }
  if (sub && expand_frame_var(name) >= 0 &&
      expand_frame_count(sh, expand_frame_var(name)) &&
      !var_lookup(sh->vars, name)) {
    int64_t ix = 0, cnt;
    int which = expand_frame_var(name);
    char fb[24];
    cnt = expand_frame_count(sh, which);
    if (sub != 'i') {
      out->list = 1;
      out->star = sub == '*';
      out->set = 1;
      for (ix = 0; ix < cnt; ix++)
        if ((rc = xval_str(sh, out, expand_frame_item(sh, which, ix, fb))))
          return rc;
      return 0;
    }
    if (idx_text)
      rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
    else
      rc = expand_index(sh, index, &ix);
    if (rc) return rc;
    if (ix < 0) ix += cnt;
    if (ix < 0 || ix >= cnt) return 0;
    return xval_str(sh, out, expand_frame_item(sh, which, ix, fb));
  }
  {
    const char *target;
    if (var_resolve(sh->vars, name, &target)) {
      interp_errf(sh, "warning: %s: circular name reference", name);
      return 0;
    }
    if (!sub && strchr(target, '[')) return expand_get_element(sh, target, out);
  }
  v = var_get(sh->vars, name, NULL);
  if (!v || (v->attr & VAR_NOVALUE)) {
    if (sub == '@' || sub == '*') {
      out->list = 1;
      out->star = sub == '*';
    }
    if (sub == 'i' && (index || idx_text) && !(v && (v->attr & VAR_ASSOC))) {
      int64_t ix;
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) interp_errf(sh, "%s: bad array subscript", name);
    }
    return 0;
  }
  if (sub == '@' || sub == '*') {
    var_elem **el;
    size_t n, k;
    out->list = 1;
    out->star = sub == '*';
    out->set = 1;
    if (!(v->attr & (VAR_ARRAY | VAR_ASSOC)))
      return v->val ? xval_str(sh, out, v->val) : 0;
    if ((rc = var_elems(sh->m, v, &el, &n))) return rc;
    for (k = 0; k < n && !rc; k++) rc = xval_str(sh, out, el[k]->val);
    mem_free(sh->m, el);
    return rc;
  }
  if (sub == 'i') {
    const char *val;
    if (v->attr & VAR_ASSOC) {
      char *key = NULL;
      if (idx_text)
        val = var_key_get(v, idx_text);
      else {
        rc = expand_string(sh, index, &key);
        if (rc) return rc;
        val = var_key_get(v, key);
        mem_free(sh->m, key);
      }
    } else {
      int64_t ix;
      if (idx_text)
        rc = expand_arith_text(sh, idx_text, strlen(idx_text), &ix, NULL);
      else
        rc = expand_index(sh, index, &ix);
      if (rc) return rc;
      if (ix < 0) {
        int64_t end = var_index_end(v);
        if (ix + end < 0) {
          interp_errf(sh, "%s: bad array subscript", name);
          return 0;
        }
        ix += end;
      }
      val = var_index_get(v, ix);
    }
    return val ? xval_str(sh, out, val) : 0;
  }
  if (v->attr & VAR_ARRAY) {
    const char *val = var_index_get(v, 0);
    return val ? xval_str(sh, out, val) : 0;
  }
  if (v->attr & VAR_ASSOC) {
    const char *val = var_key_get(v, "0");
    return val ? xval_str(sh, out, val) : 0;
  }
  return v->val ? xval_str(sh, out, v->val) : 0;
}

/* Value of a parameter as one string (for builtins). */
int expand_param_value(shell *sh, const char *name, char **out) {
  xval v;
  int rc = expand_get(sh, name, 0, NULL, NULL, &v);
  *out = NULL;
  if (rc) return rc;
  if (v.set && v.n) {
    *out = v.v[0];
    v.v[0] = NULL;
    v.n = 0;
  }
  xval_free(sh, &v);
  return 0;
}

static const char *expand_ifs0(shell *sh, char *sep) {
  const char *ifs = var_value(sh->vars, "IFS");
  sep[0] = ifs ? ifs[0] : ' ';
  sep[1] = 0;
  return sep;
}

/* Appends a value (list or scalar) to the builder. */
static void expand_put_val(xw *x, xval *v, int quoted) {
  size_t i;
  char sep[2];
  if (!v->set) return;
  if (!v->list) {
    if (v->n) xw_exp(x, v->v[0], strlen(v->v[0]), quoted);
    return;
  }
  if (x->mode != XM_FIELDS || (quoted && v->star)) {
    expand_ifs0(x->sh, sep);
    if (x->mode != XM_FIELDS && !v->star) strcpy(sep, " ");
    for (i = 0; i < v->n; i++) {
      if (i && sep[0]) xw_lit(x, sep, 1, quoted);
      xw_exp(x, v->v[i], strlen(v->v[i]), quoted);
    }
    if (quoted) x->started = 1;
    return;
  }
  for (i = 0; i < v->n && !x->err; i++) {
    if (i) {
      if (quoted) {
        x->started = 1;
        xw_end(x);
      } else if (x->started) {
        xw_end(x);
      }
    }
    if (quoted) x->started = 1;
    xw_exp(x, v->v[i], strlen(v->v[i]), quoted);
  }
}

static int expand_is_null(const xval *v, int colon) {
  size_t i;
  if (!v->set) return 1;
  if (!colon) return 0;
  if (v->list && !v->star) {
    if (!v->n) return 1;
    if (v->n > 1) return 0;
  }
  if (!v->n) return 1;
  if (v->list) {
    for (i = 0; i < v->n; i++)
      if (v->v[i][0]) return 0;
    return v->n <= 1;
  }
  return v->v[0][0] == 0;
}

/* Expands a word into a string in the given mode (no splitting). */
static int expand_word_mode(shell *sh, ast_word *w, int mode, char **out) {
  xw x;
  int rc;
  xw_init(&x, sh, mode);
  x.started = 1;
  rc = expand_parts(&x, w ? w->parts : NULL, 0);
  if (!rc) rc = x.err;
  *out = NULL;
  if (!rc) {
    *out = buf_steal(&x.cur, NULL);
    if (!*out) *out = mem_strdup(sh->m, "");
    if (!*out) rc = MSB_ENOMEM;
  }
  xw_finish(&x);
  return rc;
}

/* One string, no splitting or globbing. */
int expand_string(shell *sh, ast_word *w, char **out) {
  return expand_word_mode(sh, w, XM_STRING, out);
}

/* A pattern: quoted characters escaped. */
int expand_pattern(shell *sh, ast_word *w, char **out) {
  return expand_word_mode(sh, w, XM_PATTERN, out);
}

/* Here-document body. */
int expand_heredoc(shell *sh, ast_word *w, char **out) {
  xw x;
  int rc;
  const ast_part *p;
  xw_init(&x, sh, XM_STRING);
  x.started = 1;
  rc = 0;
  for (p = w ? w->parts : NULL; p && !rc; p = p->next) {
    ast_part one = *p;
    one.next = NULL;
    rc = expand_parts(&x, &one, 1);
  }
  if (!rc) rc = x.err;
  *out = NULL;
  if (!rc) {
    *out = buf_steal(&x.cur, NULL);
    if (!*out) *out = mem_strdup(sh->m, "");
    if (!*out) rc = MSB_ENOMEM;
  }
  xw_finish(&x);
  return rc;
}

/* Pattern matching with the shell's options. */
int expand_match(shell *sh, const char *pat, const char *s, int casefold) {
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work * 16 : (uint64_t)-1;
  int rc = glob_match(sh->m, pat, strlen(pat), s, strlen(s),
                      GLOB_EXTGLOB | (casefold ? GLOB_NOCASE : 0), &budget);
  if (rc == MSB_ELIMIT && !sh->run->limit) sh->run->limit = LIMIT_MAX_GLOB_WORK;
  return rc;
}

/* One match of ${x#p} and ${x/p/r}: its work is paid in steps too (a
 * unit of glob work as a byte), since a loop repeats it with a fresh glob
 * budget each time. */
static int expand_match_n(shell *sh, const char *pat, const char *s, size_t n,
                          uint64_t *budget) {
  uint64_t before = *budget;
  int rc = glob_match(sh->m, pat, strlen(pat), s, n, GLOB_EXTGLOB, budget);
  if (rc == MSB_ELIMIT && !sh->run->limit) sh->run->limit = LIMIT_MAX_GLOB_WORK;
  if (rc >= 0 && interp_charge_bytes(sh, before - *budget)) rc = MSB_ELIMIT;
  return rc;
}

/* ${x#p} family on one string; *res owned. */
static int expand_trim(shell *sh, int op, const char *pat, const char *s,
                       char **res) {
  size_t n = strlen(s), i;
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work * 16 : (uint64_t)-1;
  int rc;
  *res = NULL;
  switch (op) {
  case AST_PE_TRIM_SP:
    for (i = 0; i <= n; i++) {
      rc = expand_match_n(sh, pat, s, i, &budget);
      if (rc < 0) return rc;
      if (rc) {
        *res = mem_strdup(sh->m, s + i);
        return *res ? 0 : MSB_ENOMEM;
      }
    }
    break;
  case AST_PE_TRIM_LP:
    for (i = n + 1; i-- > 0;) {
      rc = expand_match_n(sh, pat, s, i, &budget);
      if (rc < 0) return rc;
      if (rc) {
        *res = mem_strdup(sh->m, s + i);
        return *res ? 0 : MSB_ENOMEM;
      }
    }
    break;
  case AST_PE_TRIM_SS:
    for (i = n + 1; i-- > 0;) {
      rc = expand_match_n(sh, pat, s + i, n - i, &budget);
      if (rc < 0) return rc;
      if (rc) {
        *res = mem_strndup(sh->m, s, i);
        return *res ? 0 : MSB_ENOMEM;
      }
    }
    break;
  default:
    for (i = 0; i <= n; i++) {
      rc = expand_match_n(sh, pat, s + i, n - i, &budget);
      if (rc < 0) return rc;
      if (rc) {
        *res = mem_strndup(sh->m, s, i);
        return *res ? 0 : MSB_ENOMEM;
      }
    }
    break;
  }
  *res = mem_strdup(sh->m, s);
  return *res ? 0 : MSB_ENOMEM;
}

/* Appends the replacement: & is the match unless escaped. */
static void expand_put_repl(buf *b, const char *r, const char *m, size_t ml) {
  for (; r && *r; r++) {
    if (*r == '\\' && r[1]) {
      r++;
      buf_putc(b, *r);
    } else if (*r == '&')
      buf_put(b, m, ml);
    else
      buf_putc(b, *r);
  }
}

/* Work a match costs beyond its bytes (a search restarted, the
 * replacement put), in bytes (interp_charge_bytes): a sixteenth of a
 * step. */
#define EXPAND_MATCH_BYTES 16

/* ${x/p/r} and ${x//p/r} for a pattern without wildcards: a scan for the
 * literal, the text between matches copied in bulk. Returns the number of
 * matches. */
static uint64_t expand_subst_lit(buf *b, int all, const buf *lit,
                                 const char *rep, const char *s, size_t n) {
  const char *at = s, *end = s + n, *hit;
  uint64_t hits = 0;
  while ((hit = buf_memmem(at, (size_t)(end - at), lit->p, lit->len))) {
    buf_put(b, at, (size_t)(hit - at));
    expand_put_repl(b, rep, hit, lit->len);
    at = hit + lit->len;
    hits++;
    if (!all) break;
  }
  buf_put(b, at, (size_t)(end - at));
  return hits;
}

/* ${x/p/r} family on one string. */
static int expand_subst(shell *sh, int op, const char *pat, const char *rep,
                        const char *s, char **res) {
  size_t n = strlen(s), i, j;
  buf b;
  int rc = 0, done = 0;
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work * 64 : (uint64_t)-1;
  int magic = glob_has_magic(pat, strlen(pat), GLOB_EXTGLOB);
  buf lit;
  buf_init(&b, sh->m);
  buf_init(&lit, sh->m);
  if (!magic) glob_unescape(pat, strlen(pat), &lit);
  *res = NULL;
  if (!magic && lit.len && op != AST_PE_SUB_PRE && op != AST_PE_SUB_SUF) {
    uint64_t hits = expand_subst_lit(&b, op == AST_PE_SUB_ALL, &lit, rep, s, n);
    rc = interp_charge_bytes(sh, hits * EXPAND_MATCH_BYTES);
    goto out;
  }
  if (!*pat && op != AST_PE_SUB_PRE && op != AST_PE_SUB_SUF) {
    /* ${x/#/r} and ${x/%/r} still add r at the start or end */
    *res = mem_strdup(sh->m, s);
    buf_finish(&lit);
    return *res ? 0 : MSB_ENOMEM;
  }
  if (op == AST_PE_SUB_PRE) {
    for (j = n + 1; j-- > 0;) {
      rc = expand_match_n(sh, pat, s, j, &budget);
      if (rc < 0) goto out;
      if (rc) {
        expand_put_repl(&b, rep, s, j);
        buf_puts(&b, s + j);
        done = 1;
        break;
      }
    }
    if (!done) buf_puts(&b, s);
    rc = 0;
    goto out;
  }
  if (op == AST_PE_SUB_SUF) {
    for (i = 0; i <= n; i++) {
      rc = expand_match_n(sh, pat, s + i, n - i, &budget);
      if (rc < 0) goto out;
      if (rc) {
        buf_put(&b, s, i);
        expand_put_repl(&b, rep, s + i, n - i);
        done = 1;
        break;
      }
    }
    if (!done) buf_puts(&b, s);
    rc = 0;
    goto out;
  }
  i = 0;
  while (i <= n) {
    size_t mlen = 0;
    int hit = 0;
    if (!magic) {
      if (lit.len && n - i >= lit.len && !memcmp(s + i, lit.p, lit.len)) {
        hit = 1;
        mlen = lit.len;
      }
    } else {
      for (j = n - i + 1; j-- > 0;) {
        rc = expand_match_n(sh, pat, s + i, j, &budget);
        if (rc < 0) goto out;
        if (rc) {
          hit = 1;
          mlen = j;
          break;
        }
      }
    }
    if (hit && (mlen > 0 || !magic || 1)) {
      expand_put_repl(&b, rep, s + i, mlen);
      if (op != AST_PE_SUB_ALL) {
        buf_puts(&b, s + i + mlen);
        break;
      }
      if (mlen == 0) {
        if (i < n) buf_putc(&b, s[i]);
        i++;
      } else
        i += mlen;
      continue;
    }
    if (i < n) buf_putc(&b, s[i]);
    i++;
  }
  rc = 0;
out:
  buf_finish(&lit);
  if (!rc) {
    if (b.err)
      rc = b.err;
    else {
      *res = buf_steal(&b, NULL);
      if (!*res) *res = mem_strdup(sh->m, "");
      if (!*res) rc = MSB_ENOMEM;
    }
  }
  buf_finish(&b);
  return rc;
}

static int expand_case(shell *sh, int op, const char *pat, const char *s,
                       char **res) {
  size_t n = strlen(s), i;
  char *r = mem_strdup(sh->m, s);
  uint64_t budget = (uint64_t)-1;
  if (!r) return MSB_ENOMEM;
  for (i = 0; i < n; i++) {
    int c = (uint8_t)r[i], nc = c;
    if (op == AST_PE_TOGGLE || op == AST_PE_TOGGLE1) {
      if (c >= 'a' && c <= 'z')
        nc = c - 32;
      else if (c >= 'A' && c <= 'Z')
        nc = c + 32;
    } else if (op == AST_PE_UPPER || op == AST_PE_UPPER1) {
      if (c >= 'a' && c <= 'z') nc = c - 32;
    } else if (c >= 'A' && c <= 'Z')
      nc = c + 32;
    if (nc != c && pat && *pat) {
      int m = expand_match_n(sh, pat, r + i, 1, &budget);
      if (m < 0) {
        mem_free(sh->m, r);
        return m;
      }
      if (!m) nc = c;
    }
    r[i] = (char)nc;
    if (op == AST_PE_UPPER1 || op == AST_PE_LOWER1 || op == AST_PE_TOGGLE1)
      break;
  }
  *res = r;
  return 0;
}

/* Bash quoting ($'...' for control characters, '...' otherwise). */
int expand_quote(buf *b, const char *s, int force) {
  const char *p;
  int need = force || !*s, ctl = 0;
  for (p = s; *p; p++) {
    int c = (uint8_t)*p;
    if (c < 32 || c == 127) ctl = 1;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || strchr("_-./:@%+,=", c) || c >= 128))
      need = 1;
  }
  if (s[0] == '=' && !force) need = 1;
  if (!need) return buf_puts(b, s);
  if (ctl) {
    buf_puts(b, "$'");
    for (p = s; *p; p++) {
      int c = (uint8_t)*p;
      switch (c) {
      case '\n': buf_puts(b, "\\n"); break;
      case '\t': buf_puts(b, "\\t"); break;
      case '\r': buf_puts(b, "\\r"); break;
      case 27: buf_puts(b, "\\E"); break;
      case 7: buf_puts(b, "\\a"); break;
      case 8: buf_puts(b, "\\b"); break;
      case 12: buf_puts(b, "\\f"); break;
      case 11: buf_puts(b, "\\v"); break;
      case '\'': buf_puts(b, "\\'"); break;
      case '\\': buf_puts(b, "\\\\"); break;
      default:
        if (c < 32 || c == 127)
          buf_printf(b, "\\%03o", c);
        else
          buf_putc(b, c);
      }
    }
    return buf_putc(b, '\'');
  }
  buf_putc(b, '\'');
  for (p = s; *p; p++) {
    if (*p == '\'')
      buf_puts(b, "'\\''");
    else
      buf_putc(b, *p);
  }
  return buf_putc(b, '\'');
}

static int expand_attr_string(var *v, char *o) {
  if (!v) {
    o[0] = 0;
    return 0;
  }
  return var_attr_letters(v->attr, o);
}

static int expand_escapes(buf *b, const char *s) {
  for (; *s; s++) {
    if (*s != '\\' || !s[1]) {
      buf_putc(b, *s);
      continue;
    }
    s++;
    switch (*s) {
    case 'n': buf_putc(b, '\n'); break;
    case 't': buf_putc(b, '\t'); break;
    case 'r': buf_putc(b, '\r'); break;
    case 'a': buf_putc(b, 7); break;
    case 'b': buf_putc(b, 8); break;
    case 'e':
    case 'E': buf_putc(b, 27); break;
    case 'f': buf_putc(b, 12); break;
    case 'v': buf_putc(b, 11); break;
    case '\\': buf_putc(b, '\\'); break;
    case '\'': buf_putc(b, '\''); break;
    case '"': buf_putc(b, '"'); break;
    default:
      if (*s >= '0' && *s <= '7') {
        int v = 0, k;
        for (k = 0; k < 3 && *s >= '0' && *s <= '7'; k++, s++)
          v = v * 8 + (*s - '0');
        s--;
        if (v) buf_putc(b, v & 255);
      } else {
        buf_putc(b, '\\');
        buf_putc(b, *s);
      }
    }
  }
  return b->err;
}

static int expand_transform(shell *sh, char op, const char *name, const char *s,
                            int is_elem, char **res) {
  buf b;
  var *v;
  char at[16];
  int rc;
  (void)is_elem;
  buf_init(&b, sh->m);
  switch (op) {
  case 'Q': expand_quote(&b, s, 1); break;
  case 'E': expand_escapes(&b, s); break;
  case 'P': buf_puts(&b, s); break;
  case 'u':
  case 'U':
  case 'L': {
    size_t i;
    buf_puts(&b, s);
    for (i = 0; i < b.len; i++) {
      if (op == 'L') {
        if (b.p[i] >= 'A' && b.p[i] <= 'Z') b.p[i] += 32;
      } else if (b.p[i] >= 'a' && b.p[i] <= 'z')
        b.p[i] -= 32;
      if (op == 'u') break;
    }
    break;
  }
  case 'a':
    v = var_get(sh->vars, name, NULL);
    expand_attr_string(v, at);
    buf_puts(&b, at);
    break;
  case 'A':
    v = var_get(sh->vars, name, NULL);
    if (expand_attr_string(v, at)) buf_printf(&b, "declare -%s ", at);
    buf_printf(&b, "%s=", name);
    expand_quote(&b, s, 1);
    break;
  case 'K':
  case 'k': expand_quote(&b, s, 1); break;
  default:
    buf_finish(&b);
    interp_errf(sh, "${%s@%c}: bad substitution", name, op);
    sh->status = 1;
    sh->flow = SH_FLOW_EXIT;
    return 1;
  }
  rc = b.err;
  *res = rc ? NULL : buf_steal(&b, NULL);
  if (!rc && !*res) *res = mem_strdup(sh->m, "");
  buf_finish(&b);
  return rc;
}

/* Applies an element-wise operation to every value. */
typedef struct xop {
  int op;
  char *pat, *rep;
  char xform;
  const char *name;
} xop;

static int expand_apply(shell *sh, xop *o, xval *v) {
  size_t i;
  int rc = 0;
  for (i = 0; i < v->n && !rc; i++) {
    char *r = NULL;
    /* every operation scans and copies the value */
    if ((rc = interp_charge_bytes(sh, strlen(v->v[i])))) break;
    switch (o->op) {
    case AST_PE_TRIM_SP:
    case AST_PE_TRIM_LP:
    case AST_PE_TRIM_SS:
    case AST_PE_TRIM_LS:
      rc = expand_trim(sh, o->op, o->pat, v->v[i], &r);
      break;
    case AST_PE_SUB:
    case AST_PE_SUB_ALL:
    case AST_PE_SUB_PRE:
    case AST_PE_SUB_SUF:
      rc = expand_subst(sh, o->op, o->pat, o->rep, v->v[i], &r);
      break;
    case AST_PE_UPPER:
    case AST_PE_UPPER1:
    case AST_PE_LOWER:
    case AST_PE_LOWER1:
    case AST_PE_TOGGLE:
    case AST_PE_TOGGLE1:
      rc = expand_case(sh, o->op, o->pat, v->v[i], &r);
      break;
    case AST_PE_TRANSFORM:
      rc = expand_transform(sh, o->xform, o->name, v->v[i], v->list, &r);
      break;
    default: return 0;
    }
    if (rc) {
      mem_free(sh->m, r);
      return rc;
    }
    mem_free(sh->m, v->v[i]);
    v->v[i] = r;
  }
  return rc;
}

/* A negative slice length where bash refuses one: its message quotes the
 * length as written. */
static int expand_slice_neg(shell *sh, ast_param *pe) {
  buf t;
  buf_init(&t, sh->m);
  ast_print_word(&t, pe->w2);
  if (t.err) return t.err;
  interp_errf(sh, "%s: substring expression < 0", buf_str(&t));
  buf_finish(&t);
  sh->status = 1;
  sh->flow = SH_FLOW_ABORT;
  return 1;
}

/* ${a[@]:off:len} of an indexed array: off is an index (negative: from
 * one past the highest), len counts the elements set from there. */
static int expand_slice_array(shell *sh, ast_param *pe, const var *a,
                              int64_t off, int64_t len, xval *v) {
  int64_t end = var_index_end(a);
  const var_elem *e;
  int rc = 0;
  size_t i;
  for (i = 0; i < v->n; i++) mem_free(sh->m, v->v[i]);
  v->n = 0;
  if (off < 0) off += end;
  if (off < 0 || off >= end) return 0;
  if (pe->w2 && len < 0) return expand_slice_neg(sh, pe);
  for (e = var_index_from(a, off); e && !rc && (!pe->w2 || len-- > 0);
       e = var_elem_next(a, e))
    rc = xval_str(sh, v, e->val);
  return rc;
}

static int expand_slice(shell *sh, ast_param *pe, xval *v) {
  int64_t off, len = 0, count;
  int rc, haslen = pe->w2 != NULL;
  const var *a;
  rc = expand_arith(sh, pe->w1, &off, NULL);
  if (rc) return rc;
  if (haslen) {
    rc = expand_arith(sh, pe->w2, &len, NULL);
    if (rc) return rc;
  }
  if (v->list && pe->subscript && (a = var_get(sh->vars, pe->name, NULL)) &&
      (a->attr & VAR_ARRAY))
    return expand_slice_array(sh, pe, a, off, len, v);
  if (v->list) {
    int pos = !strcmp(pe->name, "@") || !strcmp(pe->name, "*");
    size_t i, k = 0;
    char **all = v->v;
    size_t n = v->n;
    int64_t start;
    if (pos) {
      /* $@ slices count $0 as element 0 */
      char **na = mem_zalloc(sh->m, (n + 1) * sizeof *na);
      if (!na) return MSB_ENOMEM;
      na[0] = mem_strdup(sh->m, sh->arg0 ? sh->arg0 : "bash");
      if (!na[0]) {
        mem_free(sh->m, na);
        return MSB_ENOMEM;
      }
      for (i = 0; i < n; i++) na[i + 1] = all[i];
      mem_free(sh->m, all);
      all = na;
      n++;
    }
    count = (int64_t)n;
    start = off < 0 ? count + off : off;
    if (haslen && len < 0) {
      for (i = 0; i < n; i++) mem_free(sh->m, all[i]);
      mem_free(sh->m, all);
      v->v = NULL;
      v->n = 0;
      return expand_slice_neg(sh, pe);
    }
    for (i = 0; i < n; i++) {
      int keep = start >= 0 && (int64_t)i >= start &&
                 (!haslen || (int64_t)i < start + len);
      if (keep)
        all[k++] = all[i];
      else
        mem_free(sh->m, all[i]);
    }
    v->v = all;
    v->n = k;
    return 0;
  }
  if (v->n) {
    char *s = v->v[0], *r;
    int64_t sl = (int64_t)strlen(s), end;
    if (off < 0) off += sl;
    if (off < 0 || off > sl) {
      s[0] = 0;
      return 0;
    }
    end = sl;
    if (haslen) {
      end = len < 0 ? sl + len : off + len;
      if (len < 0 && end < off) return expand_slice_neg(sh, pe);
      if (end > sl) end = sl;
    }
    r = mem_strndup(sh->m, s + off, (size_t)(end - off));
    if (!r) return MSB_ENOMEM;
    mem_free(sh->m, s);
    v->v[0] = r;
  }
  return 0;
}

static int expand_names(shell *sh, ast_param *pe, xval *out) {
  var **list;
  size_t n, i, pl = strlen(pe->name);
  int rc;
  memset(out, 0, sizeof *out);
  out->list = 1;
  out->set = 1;
  out->star = pe->subscript == '*';
  if ((rc = var_list(sh->vars, sh->m, &list, &n))) return rc;
  for (i = 0; i < n && !rc; i++)
    if (!strncmp(list[i]->name, pe->name, pl) && !(list[i]->attr & VAR_NOVALUE))
      rc = xval_str(sh, out, list[i]->name);
  mem_free(sh->m, list);
  return rc;
}

static int expand_keys(shell *sh, ast_param *pe, xval *out) {
  var *v = var_get(sh->vars, pe->name, NULL);
  var_elem **el;
  size_t n, i;
  int rc;
  char nb[24];
  memset(out, 0, sizeof *out);
  out->list = 1;
  out->set = 1;
  out->star = pe->subscript == '*';
  if (!v || (v->attr & VAR_NOVALUE)) return 0;
  if (!(v->attr & (VAR_ARRAY | VAR_ASSOC))) return xval_str(sh, out, "0");
  if ((rc = var_elems(sh->m, v, &el, &n))) return rc;
  for (i = 0; i < n && !rc; i++) {
    if (el[i]->key)
      rc = xval_str(sh, out, el[i]->key);
    else {
      expand_fmt_i64(nb, el[i]->idx);
      rc = xval_str(sh, out, nb);
    }
  }
  mem_free(sh->m, el);
  return rc;
}

/* 1 when name is a variable but no array with a value (a scalar, or
 * declared only): what set -u refuses in ${#name[@]}. */
static int expand_not_array(shell *sh, const char *name) {
  const var *v = var_get(sh->vars, name, NULL);
  return v && (!(v->attr & (VAR_ARRAY | VAR_ASSOC)) || (v->attr & VAR_NOVALUE));
}

static int expand_is_nameref(shell *sh, const char *name) {
  const var *v = var_lookup(sh->vars, name);
  return v && (v->attr & VAR_NAMEREF);
}

/* ${!ref} for a nameref: the name it refers to, not that name's value. */
static int expand_nameref_name(shell *sh, const char *name, xval *out) {
  const char *target;
  memset(out, 0, sizeof *out);
  if (var_resolve(sh->vars, name, &target) || !strcmp(target, name)) {
    interp_errf(sh, "%s: invalid indirect expansion", name);
    sh->status = 1;
    sh->flow = SH_FLOW_ABORT;
    return 1;
  }
  return xval_str(sh, out, target);
}

static int expand_param(xw *x, ast_param *pe, int quoted) {
  shell *sh = x->sh;
  xval v;
  const char *name = pe->name;
  int rc, sub = pe->subscript, colon = (pe->flags & AST_PE_COLON) != 0;
  char *iname = NULL, *itext = NULL;
  ast_word *index = pe->index;
  memset(&v, 0, sizeof v);
  if (pe->op == AST_PE_BAD)
    rc = 0;
  else if (pe->op == AST_PE_NAMES)
    rc = expand_names(sh, pe, &v);
  else if (pe->op == AST_PE_KEYS)
    rc = expand_keys(sh, pe, &v);
  else {
    if ((pe->flags & AST_PE_INDIRECT) && !sub && expand_is_nameref(sh, name)) {
      rc = expand_nameref_name(sh, name, &v);
      if (rc) return rc;
    } else if (pe->flags & AST_PE_INDIRECT) {
      xval t;
      char *br;
      rc = expand_get(sh, name, sub, index, NULL, &t);
      if (rc) return rc;
      if (!t.set || !t.n) {
        xval_free(sh, &t);
        if (sh->opts & SH_O_NOUNSET) return expand_unbound(sh, name);
        interp_errf(sh, "%s: invalid indirect expansion", name);
        sh->status = 1;
        sh->flow = SH_FLOW_ABORT;
        return 1;
      }
      if (t.n > 1) { /* ${!a[@]:1}: bash names the words joined */
        buf j;
        size_t k, jl;
        buf_init(&j, sh->m);
        for (k = 0; k < t.n; k++) {
          if (k) buf_putc(&j, ' ');
          buf_puts(&j, t.v[k]);
        }
        iname = j.err ? NULL : buf_steal(&j, &jl);
        buf_finish(&j);
        if (!iname) {
          xval_free(sh, &t);
          return MSB_ENOMEM;
        }
      } else {
        iname = t.v[0];
        t.v[0] = NULL;
      }
      xval_free(sh, &t);
      name = iname;
      sub = 0;
      index = NULL;
      br = strchr(iname, '[');
      {
        size_t il = strlen(iname);
        if (br && il > 1 && iname[il - 1] == ']') {
          iname[il - 1] = 0;
          *br = 0;
          itext = br + 1;
          if (!strcmp(itext, "@") || !strcmp(itext, "*")) {
            sub = itext[0];
            itext = NULL;
          } else
            sub = 'i';
        }
      }
      if (!var_valid_name(name, strlen(name)) &&
          !(name[0] >= '0' && name[0] <= '9') && !strchr("@*#?$!-", name[0])) {
        interp_errf(sh, "%s: invalid variable name", iname);
        mem_free(sh->m, iname);
        sh->status = 1;
        sh->flow = SH_FLOW_ABORT;
        return 1;
      }
    }
    if (!v.set) rc = expand_get(sh, name, sub, index, itext, &v);
  }
  if (rc) goto out;
  if ((sh->opts & SH_O_NOUNSET) && pe->op == AST_PE_LENGTH &&
      (sub == '@' || sub == '*') && expand_not_array(sh, name))
    v.set = 0; /* bash counts only arrays that have a value */
  if (!v.set && (sh->opts & SH_O_NOUNSET) && pe->op != AST_PE_DEFAULT &&
      pe->op != AST_PE_ASSIGN && pe->op != AST_PE_ERROR &&
      pe->op != AST_PE_ALT && !(v.list && !strcmp(name, "@")) &&
      !(v.list && !strcmp(name, "*"))) {
    if ((sub == '@' || sub == '*') && pe->op != AST_PE_LENGTH) {
      rc = 0;
    } else if (sub && pe->op == AST_PE_LENGTH) {
      rc = expand_unbound(sh, name);
      /* bash's array length check fails with 1, and only the line */
      sh->status = 1;
      sh->flow = SH_FLOW_ABORT;
      goto out;
    } else {
      /* bash names $1 with its dollar and a[i] with its subscript */
      buf shown;
      buf_init(&shown, sh->m);
      if (!(pe->flags & AST_PE_BRACED) && name[0] >= '0' && name[0] <= '9')
        buf_printf(&shown, "$%s", name);
      else if (sub == 'i' && pe->op == AST_PE_PLAIN && pe->text &&
               pe->text_len > 3 && pe->text[0] == '$' && pe->text[1] == '{' &&
               pe->text[pe->text_len - 1] == '}')
        buf_put(&shown, pe->text + 2, pe->text_len - 3);
      else
        buf_puts(&shown, name);
      rc = shown.err ? shown.err : expand_unbound(sh, buf_str(&shown));
      buf_finish(&shown);
      goto out;
    }
  }
  switch (pe->op) {
  case AST_PE_BAD:
    interp_errf(sh, "%.*s: bad substitution", (int)pe->text_len,
                pe->text ? pe->text : "");
    sh->status = 1;
    sh->flow = SH_FLOW_ABORT;
    rc = 1;
    break;
  case AST_PE_PLAIN:
  case AST_PE_NAMES:
  case AST_PE_KEYS:
    if (quoted && v.list && !v.star && !v.n) break;
    expand_put_val(x, &v, quoted);
    break;
  case AST_PE_LENGTH: {
    char nb[24];
    size_t len = v.list ? v.n : v.n ? strlen(v.v[0]) : 0;
    /* counting a value passes over it: paid like a copy */
    if (!v.list && (rc = interp_charge_bytes(sh, len))) break;
    expand_fmt_i64(nb, (int64_t)len);
    xw_exp(x, nb, strlen(nb), quoted);
    break;
  }
  case AST_PE_DEFAULT:
  case AST_PE_ALT: {
    int null = expand_is_null(&v, colon);
    if ((pe->op == AST_PE_DEFAULT) == null) {
      int ols = x->litsplit;
      if (!quoted) x->litsplit = 1;
      if (pe->w1)
        rc = expand_parts(x, pe->w1->parts, quoted);
      else if (quoted)
        x->started = 1;
      x->litsplit = ols;
      if (quoted && pe->w1 && !pe->w1->parts) x->started = 1;
    } else if (pe->op == AST_PE_DEFAULT) {
      if (!(quoted && v.list && !v.star && !v.n)) expand_put_val(x, &v, quoted);
    }
    break;
  }
  case AST_PE_ASSIGN:
    if (expand_is_null(&v, colon)) {
      char *val = NULL;
      if (v.list || strchr("@*#?$!-", name[0]) ||
          (name[0] >= '0' && name[0] <= '9')) {
        interp_errf(sh, "$%s: cannot assign in this way", name);
        sh->status = 1;
        sh->flow = SH_FLOW_ABORT;
        rc = 1;
        break;
      }
      rc = expand_string(sh, pe->w1, &val);
      if (rc) break;
      if (sub == 'i') {
        var *vv = var_get(sh->vars, name, NULL);
        if (vv && (vv->attr & VAR_ASSOC)) {
          char *k = NULL;
          rc = expand_string(sh, index, &k);
          if (!rc) rc = var_set_key(sh->vars, name, k, val, 0);
          mem_free(sh->m, k);
        } else {
          int64_t ix;
          rc = expand_index(sh, index, &ix);
          if (!rc) rc = var_set_index(sh->vars, name, ix, val, 0);
        }
        if (rc == VAR_ERO) {
          interp_errf(sh, "%s: readonly variable", name);
          rc = 1;
        }
      } else
        rc = builtin_assign(sh, name, val, 0);
      if (!rc) {
        const char *nv = var_value(sh->vars, name);
        xw_exp(x, nv ? nv : val, strlen(nv ? nv : val), quoted);
      }
      mem_free(sh->m, val);
      if (rc > 0) {
        sh->status = 1;
        sh->flow = SH_FLOW_ABORT;
      }
    } else
      expand_put_val(x, &v, quoted);
    break;
  case AST_PE_ERROR:
    if (expand_is_null(&v, colon)) {
      char *msg = NULL;
      if (pe->w1) {
        rc = expand_string(sh, pe->w1, &msg);
        if (rc) break;
      }
      if (msg)
        interp_errf(sh, "%s: %s", name, msg);
      else
        interp_errf(sh, "%s: %s", name,
                    colon ? "parameter null or not set" : "parameter not set");
      mem_free(sh->m, msg);
      sh->status = sh->subshell ? 1 : 127;
      sh->flow = SH_FLOW_EXIT;
      rc = 1;
    } else
      expand_put_val(x, &v, quoted);
    break;
  case AST_PE_SLICE:
    rc = expand_slice(sh, pe, &v);
    if (!rc) {
      if (quoted && v.list && !v.star && !v.n) break;
      expand_put_val(x, &v, quoted);
    }
    break;
  default: {
    xop o;
    memset(&o, 0, sizeof o);
    o.op = pe->op;
    o.xform = pe->xform;
    o.name = name;
    if (pe->w1) {
      rc = expand_pattern(sh, pe->w1, &o.pat);
      if (rc) break;
    } else if (pe->op != AST_PE_TRANSFORM && pe->op != AST_PE_UPPER &&
               pe->op != AST_PE_UPPER1 && pe->op != AST_PE_LOWER &&
               pe->op != AST_PE_LOWER1 && pe->op != AST_PE_TOGGLE &&
               pe->op != AST_PE_TOGGLE1) {
      o.pat = mem_strdup(sh->m, "");
    }
    if (pe->w2) rc = expand_pattern(sh, pe->w2, &o.rep);
    if (!rc) rc = expand_apply(sh, &o, &v);
    mem_free(sh->m, o.pat);
    mem_free(sh->m, o.rep);
    if (!rc) {
      if (pe->op == AST_PE_TRANSFORM && !v.set) {
        /* a declared variable without a value still has attributes */
        char at[16];
        buf d;
        if (!expand_attr_string(var_get(sh->vars, name, NULL), at)) break;
        if (pe->xform == 'a') xw_exp(x, at, strlen(at), quoted);
        if (pe->xform != 'A') break;
        buf_init(&d, sh->m);
        buf_printf(&d, "declare -%s %s", at, name);
        if (d.err)
          rc = d.err;
        else
          xw_exp(x, d.p, d.len, quoted);
        buf_finish(&d);
        break;
      }
      if (quoted && v.list && !v.star && !v.n) break;
      expand_put_val(x, &v, quoted);
    }
    break;
  }
  }
out:
  xval_free(sh, &v);
  mem_free(sh->m, iname);
  return rc;
}

/* ---- command substitution, arithmetic ------------------------------- */

/* Runs a command substitution from its text (for aliases); a backquote body
 * is unescaped first as the lexer does (\\ \` \$, and \" when quoted). */
static int expand_cmdsub_text(shell *sh, const ast_part *p, int quoted,
                              buf *out) {
  buf body;
  size_t i;
  int rc;
  if (!(p->flags & AST_PF_BACKTICK))
    return interp_capture_text(sh, p->text, p->len, p->line ? p->line : 1, out);
  buf_init(&body, sh->m);
  for (i = 0; i < p->len; i++) {
    char d = i + 1 < p->len ? p->text[i + 1] : 0;
    if (p->text[i] == '\\' &&
        (d == '\\' || d == '`' || d == '$' || (quoted && d == '"')))
      i++;
    buf_putc(&body, p->text[i]);
  }
  rc = body.err ? body.err
                : interp_capture_text(sh, body.p ? body.p : "", body.len,
                                      p->line ? p->line : 1, out);
  buf_finish(&body);
  return rc;
}

static int expand_cmdsub(xw *x, const ast_part *p, int quoted) {
  shell *sh = x->sh;
  buf out;
  int rc;
  size_t n, i, k;
  buf_init(&out, sh->m);
  if (p->flags & AST_PF_EOF) {
    int line = p->line;
    for (i = 0; i < p->len; i++)
      if (p->text[i] == '\n') line++;
    interp_errf_noline(sh,
                       "command substitution: line %d: unexpected EOF "
                       "while looking for matching `)'",
                       line);
    rc = 256;
  } else if (p->flags & AST_PF_DEFERRED) {
    rc = interp_capture_text(sh, p->text ? p->text : "", p->len,
                             p->line ? p->line : 1, &out);
  } else if ((sh->shopts & SH_SO_EXPAND_ALIASES) && sh->naliases && p->text) {
    /* bash parses the body again when it runs, with the aliases of then */
    rc = expand_cmdsub_text(sh, p, quoted, &out);
  } else {
    rc = interp_capture(sh, p->cmd, &out);
  }
  if (rc < 0) {
    buf_finish(&out);
    return rc;
  }
  if (out.err) {
    buf_finish(&out);
    return MSB_ENOMEM;
  }
  if (rc == 256 && !(p->flags & AST_PF_BACKTICK)) {
    /* the substitution did not parse: the command does not run */
    buf_finish(&out);
    sh->status = 1;
    return 1;
  }
  if (rc == 256) rc = 2; /* `...` that did not parse: empty, status 2 */
  sh->cmdsub_ran = 1;
  sh->last_cmdsub_status = rc;
  sh->status = rc;
  n = out.len;
  /* drop NUL bytes like bash (with its warning) */
  for (i = k = 0; i < n; i++)
    if (out.p[i]) out.p[k++] = out.p[i];
  if (k != n)
    interp_errf(sh,
                "warning: command substitution: ignored null "
                "byte in input");
  n = k;
  while (n && out.p && out.p[n - 1] == '\n') n--;
  if (n) xw_exp(x, out.p, n, quoted);
  buf_finish(&out);
  return 0;
}

typedef struct xarith {
  shell *sh;
  buf scratch;
} xarith;

static int expand_ar_is_assoc(void *ctx, const char *name, size_t nlen) {
  xarith *a = ctx;
  char nm[256];
  var *v;
  if (nlen >= sizeof nm) return 0;
  memcpy(nm, name, nlen);
  nm[nlen] = 0;
  v = var_get(a->sh->vars, nm, NULL);
  return v && (v->attr & VAR_ASSOC);
}

static int expand_ar_get(void *ctx, const arith_ref *r, const char **val,
                         size_t *vlen, buf *errmsg) {
  xarith *a = ctx;
  shell *sh = a->sh;
  char nm[256];
  var *v;
  const char *s = NULL;
  xval xv;
  int rc;
  *val = NULL;
  *vlen = 0;
  if (r->nlen >= sizeof nm) return 0;
  memcpy(nm, r->name, r->nlen);
  nm[r->nlen] = 0;
  buf_clear(&a->scratch);
  memset(&xv, 0, sizeof xv);
  if (r->kind == ARITH_PLAIN && expand_special(sh, nm, &xv, &rc)) {
    if (rc) return rc;
    if (xv.n) buf_puts(&a->scratch, xv.v[0]);
    xval_free(sh, &xv);
    if (a->scratch.err) return a->scratch.err;
    *val = buf_str(&a->scratch);
    *vlen = a->scratch.len;
    return 0;
  }
  v = var_get(sh->vars, nm, NULL);
  if (v && !(v->attr & VAR_NOVALUE)) {
    if (r->kind == ARITH_KEY) {
      char key[512];
      size_t kl = r->klen < sizeof key - 1 ? r->klen : sizeof key - 1;
      memcpy(key, r->key, kl);
      key[kl] = 0;
      s = var_key_get(v, key);
    } else if (r->kind == ARITH_INDEX) {
      int64_t ix = r->index;
      if (ix < 0) ix += var_index_end(v);
      s = ix >= 0 ? var_index_get(v, ix) : NULL;
    } else if (v->attr & VAR_ASSOC)
      s = var_key_get(v, "0");
    else
      s = var_index_get(v, 0);
  }
  if (!s && (sh->opts & SH_O_NOUNSET)) {
    buf_printf(errmsg, "%s: unbound variable", nm);
    return MSB_EINVAL;
  }
  if (s) {
    *val = s;
    *vlen = strlen(s);
  }
  return 0;
}

static int expand_ar_set(void *ctx, const arith_ref *r, int64_t val,
                         buf *errmsg) {
  xarith *a = ctx;
  shell *sh = a->sh;
  char nm[256], nb[24];
  int rc;
  if (r->nlen >= sizeof nm) return 0;
  memcpy(nm, r->name, r->nlen);
  nm[r->nlen] = 0;
  expand_fmt_i64(nb, val);
  if (r->kind == ARITH_KEY) {
    char key[512];
    size_t kl = r->klen < sizeof key - 1 ? r->klen : sizeof key - 1;
    memcpy(key, r->key, kl);
    key[kl] = 0;
    rc = var_set_key(sh->vars, nm, key, nb, 0);
  } else if (r->kind == ARITH_INDEX) {
    int64_t ix = r->index;
    if (ix < 0) {
      var *v = var_get(sh->vars, nm, NULL);
      ix += v ? var_index_end(v) : 0;
      if (ix < 0) {
        buf_printf(errmsg, "%s[%lld]: bad array subscript", nm,
                   (long long)r->index);
        return MSB_EINVAL;
      }
    }
    rc = var_set_index(sh->vars, nm, ix, nb, 0);
  } else {
    var *v = var_get(sh->vars, nm, NULL);
    if (v && (v->attr & VAR_READONLY))
      rc = VAR_ERO;
    else
      rc = var_set(sh->vars, nm, nb, 0);
    if (!rc && (sh->opts & SH_O_ALLEXPORT)) {
      v = var_get(sh->vars, nm, NULL);
      if (v) v->attr |= VAR_EXPORT;
    }
  }
  if (rc == VAR_ERO) {
    buf_printf(errmsg, "%s: readonly variable", nm);
    return MSB_EINVAL;
  }
  return rc;
}

/* Evaluates arithmetic text; prints errors (prefixed with what). */
int expand_arith_text(shell *sh, const char *s, size_t n, int64_t *val,
                      const char *what) {
  xarith a;
  arith_env env;
  buf err;
  int rc;
  uint64_t work = sh->lim->max_steps ? sh->lim->max_steps * 4 : (uint64_t)-1;
  a.sh = sh;
  buf_init(&a.scratch, sh->m);
  buf_init(&err, sh->m);
  env.ctx = &a;
  env.is_assoc = expand_ar_is_assoc;
  env.get = expand_ar_get;
  env.set = expand_ar_set;
  /* the first few levels are part of the caller's own cost */
  env.max_nest = (int)(interp_stack_left(sh) / SH_STACK_ARITH) + 4;
  rc = arith_eval(&env, s, n, val, &err, &work);
  if (rc == MSB_ELIMIT) {
    if (!sh->run->limit) sh->run->limit = LIMIT_MAX_STEPS;
  } else if (rc && rc != MSB_ENOMEM) {
    if (what)
      interp_errf(sh, "%s: %s", what, buf_str(&err));
    else
      interp_errf(sh, "%s", buf_str(&err));
    rc = 1;
  }
  buf_finish(&a.scratch);
  buf_finish(&err);
  return rc;
}

/* Expands an arithmetic word and evaluates it. */
int expand_arith(shell *sh, ast_word *w, int64_t *val, const char *what) {
  char *s = NULL;
  int rc;
  *val = 0;
  if (!w) return 0;
  rc = expand_string(sh, w, &s);
  if (rc) return rc;
  rc = expand_arith_text(sh, s, strlen(s), val, what);
  mem_free(sh->m, s);
  return rc;
}

static int expand_procsub(xw *x, const ast_part *p) {
  shell *sh = x->sh;
  buf out, path;
  int rc, n;
  if (p->text && p->text[0] == '>') {
    interp_errf(sh,
                "memsandbox: process substitution >(...) is not "
                "supported");
    sh->status = 2;
    sh->flow = SH_FLOW_EXIT;
    return 1;
  }
  buf_init(&out, sh->m);
  rc = interp_capture(sh, p->cmd, &out);
  if (rc < 0) {
    buf_finish(&out);
    return rc;
  }
  if (out.err) {
    buf_finish(&out);
    return MSB_ENOMEM;
  }
  n = sh->run->procsub_next--;
  if (n < 10) n = sh->run->procsub_next = 63;
  buf_init(&path, sh->m);
  buf_printf(&path, "/dev/fd/%d", n);
  vfs_mkdir(sh->fs, "/dev/fd", 0755, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
  sh->run->made_devfd = 1;
  rc = vfs_write(sh->fs, buf_str(&path), out.p ? out.p : "", out.len, 0, 0600,
                 NULL);
  buf_finish(&out);
  if (rc) {
    buf_finish(&path);
    return rc == MSB_ENOMEM ? rc : 1;
  }
  xw_lit(x, path.p, path.len, 1);
  buf_finish(&path);
  return 0;
}

static int expand_tilde(xw *x, const ast_part *p) {
  shell *sh = x->sh;
  const char *v = NULL;
  if (!p->len)
    v = var_value(sh->vars, "HOME");
  else if (p->len == 1 && p->text[0] == '+')
    v = sh->cwd;
  else if (p->len == 1 && p->text[0] == '-')
    v = var_value(sh->vars, "OLDPWD");
  else if (p->len == 4 && !memcmp(p->text, "root", 4))
    v = "/root";
  else if ((p->len == 4 && !memcmp(p->text, "user", 4)))
    v = "/workspace";
  if (!v) {
    xw_lit(x, "~", 1, 1);
    xw_lit(x, p->text, p->len, 1);
    return 0;
  }
  xw_lit(x, v, strlen(v), 1);
  return 0;
}

static int expand_parts_run(xw *x, const ast_part *p, int quoted) {
  int rc = 0;
  for (; p && !rc && !x->err; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT:
      if (x->litsplit && !quoted)
        xw_exp(x, p->text, p->len, 0);
      else
        xw_lit(x, p->text, p->len, quoted);
      break;
    case AST_P_SQ: xw_lit(x, p->text, strnlen(p->text, p->len), 1); break;
    case AST_P_DQ: {
      const ast_part *q = p->parts;
      int only_at =
          q && !q->next && q->kind == AST_P_PARAM &&
          (!strcmp(q->param->name, "@") || q->param->subscript == '@') &&
          q->param->op == AST_PE_PLAIN;
      int ols = x->litsplit;
      x->litsplit = 0;
      if (!only_at) x->started = 1;
      rc = expand_parts(x, q, 1);
      x->litsplit = ols;
      break;
    }
    case AST_P_PARAM: rc = expand_param(x, p->param, quoted); break;
    case AST_P_CMDSUB: rc = expand_cmdsub(x, p, quoted); break;
    case AST_P_ARITH: {
      int64_t v;
      char nb[24];
      rc = expand_arith(x->sh, p->expr, &v, NULL);
      if (rc > 0) {
        x->sh->status = 1;
        x->sh->flow = SH_FLOW_ABORT;
      }
      if (rc) break;
      expand_fmt_i64(nb, v);
      xw_exp(x, nb, strlen(nb), quoted);
      break;
    }
    case AST_P_PROCSUB: rc = expand_procsub(x, p); break;
    case AST_P_TILDE:
      if (quoted) {
        xw_lit(x, "~", 1, 1);
        xw_lit(x, p->text, p->len, 1);
      } else
        rc = expand_tilde(x, p);
      break;
    }
  }
  if (!rc) rc = x->err;
  return rc;
}

/* Expands parts into x: every nesting of words passes here, so this is
 * where their native stack is charged (SH_STACK_WORD). */
static int expand_parts(xw *x, const ast_part *p, int quoted) {
  int rc = interp_stack_push(x->sh, SH_STACK_WORD);
  if (rc) return rc;
  rc = expand_parts_run(x, p, quoted);
  interp_stack_pop(x->sh, SH_STACK_WORD);
  return rc;
}

/* ---- brace expansion ------------------------------------------------ */

typedef struct bitem {
  int c;                /* byte, or -1 for an opaque part */
  const ast_part *p;
} bitem;

typedef struct bseq {
  bitem *it;
  size_t n;
} bseq;

typedef struct bctx {
  shell *sh;
  arena *a;
  bseq *out;
  size_t n, cap;
  uint64_t work;
  int err;
} bctx;

static void brace_emit(bctx *b, bitem *it, size_t n) {
  if (b->err) return;
  if (b->n == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 16;
    bseq *no = mem_realloc(b->sh->m, b->out, nc * sizeof *no);
    if (!no) {
      b->err = MSB_ENOMEM;
      return;
    }
    b->out = no;
    b->cap = nc;
  }
  b->out[b->n].it = it;
  b->out[b->n].n = n;
  b->n++;
}

/* Brace work: items scanned and copied (every alternative is a copy of
 * the word, and a nested one is copied again at each level), charged
 * before the copy is made, so that a word expanding to millions of words
 * or nested thousands deep stops at max_glob_work after a bounded amount
 * of time and memory (BRACE_WORK items of it per unit of the limit). */
#define BRACE_WORK 4
static int brace_charge(bctx *b, uint64_t n) {
  uint64_t max = b->sh->lim->max_glob_work;
  b->work += n;
  if ((max && b->work > max * BRACE_WORK) ||
      (b->sh->lim->max_array_items && b->n > b->sh->lim->max_array_items)) {
    if (!b->sh->run->limit) b->sh->run->limit = LIMIT_MAX_GLOB_WORK;
    b->err = MSB_ELIMIT;
  }
  return b->err;
}

static int brace_num(const bitem *it, size_t n, int64_t *v, int *width) {
  size_t i = 0;
  int neg = 0;
  uint64_t u = 0;
  if (n && it[0].c == '-')
    neg = 1, i = 1;
  else if (n && it[0].c == '+')
    i = 1;
  if (i >= n) return 0;
  *width = (it[i].c == '0' && n - i > 1) ? (int)n : 0;
  for (; i < n; i++) {
    if (it[i].c < '0' || it[i].c > '9') return 0;
    u = u * 10 + (uint64_t)(it[i].c - '0');
    if (u > (uint64_t)1 << 62) return 0;
  }
  *v = neg ? -(int64_t)u : (int64_t)u;
  return 1;
}

static void brace_expand(bctx *b, bitem *it, size_t n);

static bitem *brace_concat(bctx *b, const bitem *a, size_t an, const bitem *m,
                           size_t mn, const bitem *z, size_t zn) {
  bitem *r;
  if (brace_charge(b, an + mn + zn)) return NULL;
  r = arena_alloc(b->a, (an + mn + zn + 1) * sizeof *r);
  if (!r) {
    b->err = MSB_ENOMEM;
    return NULL;
  }
  memcpy(r, a, an * sizeof *r);
  memcpy(r + an, m, mn * sizeof *r);
  memcpy(r + an + mn, z, zn * sizeof *r);
  return r;
}

/* Tries a sequence {x..y[..s]}; 1 when it was one. */
static int brace_seq(bctx *b, bitem *it, size_t open, size_t close, size_t n) {
  bitem *in = it + open + 1;
  size_t m = close - open - 1, d1 = 0, d2 = 0, i;
  int64_t x, y, step = 1;
  int w1 = 0, w2 = 0, w3 = 0, alpha = 0;
  for (i = 0; i + 1 < m; i++)
    if (in[i].c == '.' && in[i + 1].c == '.') {
      if (!d1)
        d1 = i + 1;
      else if (!d2)
        d2 = i + 1;
      i++;
    }
  if (!d1) return 0;
  for (i = 0; i < m; i++)
    if (in[i].c < 0) return 0;
  {
    size_t e1 = d1 - 1, s2 = d1 + 1, e2 = d2 ? d2 - 1 : m;
    if (brace_num(in, e1, &x, &w1) && brace_num(in + s2, e2 - s2, &y, &w2)) {
      alpha = 0;
    } else if (e1 == 1 && e2 - s2 == 1 &&
               ((in[0].c >= 'a' && in[0].c <= 'z') ||
                (in[0].c >= 'A' && in[0].c <= 'Z')) &&
               ((in[s2].c >= 'a' && in[s2].c <= 'z') ||
                (in[s2].c >= 'A' && in[s2].c <= 'Z'))) {
      alpha = 1;
      x = in[0].c;
      y = in[s2].c;
    } else
      return 0;
    if (d2) {
      if (!brace_num(in + d2 + 1, m - d2 - 1, &step, &w3)) return 0;
      if (step < 0) step = -step;
      if (step == 0) step = 1;
    }
  }
  {
    int width = w1 > w2 ? w1 : w2;
    int64_t v = x;
    int dir = x <= y ? 1 : -1;
    for (;;) {
      char nb[40];
      bitem tmp[40];
      size_t k, len;
      if (brace_charge(b, 1)) return 1;
      if (alpha) {
        nb[0] = (char)v;
        nb[1] = 0;
      } else {
        char t[24];
        int neg = v < 0, pad;
        expand_fmt_i64(t, neg ? -v : v);
        pad = width - (int)strlen(t) - neg;
        k = 0;
        if (neg) nb[k++] = '-';
        while (pad-- > 0 && k < 30) nb[k++] = '0';
        strcpy(nb + k, t);
      }
      len = strlen(nb);
      for (k = 0; k < len; k++) {
        tmp[k].c = (uint8_t)nb[k];
        tmp[k].p = NULL;
      }
      {
        bitem *r =
            brace_concat(b, it, open, tmp, len, it + close + 1, n - close - 1);
        if (!r) return 1;
        brace_expand(b, r, open + len + n - close - 1);
        if (b->err) return 1;
      }
      if ((dir > 0 && (v > y - step)) || (dir < 0 && (v < y + step))) break;
      v += dir * step;
    }
  }
  return 1;
}

static void brace_expand_run(bctx *b, bitem *it, size_t n);

/* Brace expansion recurses once per nesting level and alternative. */
static void brace_expand(bctx *b, bitem *it, size_t n) {
  if (b->err) return;
  if ((b->err = interp_stack_push(b->sh, SH_STACK_BRACE))) return;
  brace_expand_run(b, it, n);
  interp_stack_pop(b->sh, SH_STACK_BRACE);
}

static void brace_expand_run(bctx *b, bitem *it, size_t n) {
  size_t i, j;
  if (brace_charge(b, n / 8 + 1)) return;
  for (i = 0; i < n; i++) {
    int depth = 0, comma = 0;
    size_t close = 0;
    if (it[i].c != '{') continue;
    if (i > 0 && it[i - 1].c == '$') continue;
    for (j = i + 1; j < n; j++) {
      if (it[j].c == '{')
        depth++;
      else if (it[j].c == '}') {
        if (!depth) {
          close = j;
          break;
        }
        depth--;
      } else if (it[j].c == ',' && !depth)
        comma = 1;
    }
    if (!close) continue;
    if (!comma) {
      if (brace_seq(b, it, i, close, n)) return;
      continue;
    }
    {
      size_t st = i + 1;
      depth = 0;
      for (j = i + 1; j <= close; j++) {
        if (it[j].c == '{')
          depth++;
        else if (it[j].c == '}' && depth)
          depth--;
        else if ((it[j].c == ',' && !depth) || j == close) {
          bitem *r = brace_concat(b, it, i, it + st, j - st, it + close + 1,
                                  n - close - 1);
          if (!r) return;
          brace_expand(b, r, i + (j - st) + (n - close - 1));
          if (b->err) return;
          st = j + 1;
        }
      }
    }
    return;
  }
  brace_emit(b, it, n);
}

/* How deep matched braces nest in it[0..n) ("${" excluded). Expansion
 * recurses at least that deep, so a word nested deeper than the native
 * stack allows is refused before any of its work is done. */
static size_t brace_depth(arena *a, const bitem *it, size_t n) {
  size_t *open = arena_alloc(a, (n + 1) * sizeof *open), top = 0, i;
  unsigned char *pair = arena_zalloc(a, n + 1);
  size_t d = 0, max = 0;
  if (!open || !pair) return 0; /* the expansion meets ENOMEM itself */
  for (i = 0; i < n; i++)
    if (it[i].c == '{' && !(i > 0 && it[i - 1].c == '$'))
      open[top++] = i;
    else if (it[i].c == '}' && top)
      pair[open[--top]] = pair[i] = 1;
  for (i = 0; i < n; i++)
    if (pair[i] && it[i].c == '{') {
      if (++d > max) max = d;
    } else if (pair[i])
      d--;
  return max;
}

static int brace_word(shell *sh, arena *a, ast_word *w, ast_part ***lists,
                      size_t *count) {
  bctx b;
  const ast_part *p;
  size_t n = 0, k, i;
  bitem *it;
  int has = 0;
  *lists = NULL;
  *count = 0;
  for (p = w->parts; p; p = p->next) {
    if (p->kind == AST_P_LIT) {
      n += p->len;
      if (memchr(p->text, '{', p->len)) has = 1;
    } else
      n++;
  }
  if (!has) return 0;
  it = arena_alloc(a, (n + 1) * sizeof *it);
  if (!it) return MSB_ENOMEM;
  k = 0;
  for (p = w->parts; p; p = p->next) {
    if (p->kind == AST_P_LIT)
      for (i = 0; i < p->len; i++) {
        it[k].c = (uint8_t)p->text[i];
        it[k++].p = NULL;
      }
    else {
      it[k].c = -1;
      it[k++].p = p;
    }
  }
  if (brace_depth(a, it, n) * SH_STACK_BRACE > interp_stack_left(sh))
    return interp_stack_fail(sh);
  memset(&b, 0, sizeof b);
  b.sh = sh;
  b.a = a;
  brace_expand(&b, it, n);
  if (!b.err && b.n == 1 && b.out[0].it == it) {
    mem_free(sh->m, b.out);
    return 0;
  }
  if (!b.err) {
    *lists = arena_zalloc(a, (b.n + 1) * sizeof **lists);
    if (!*lists) b.err = MSB_ENOMEM;
  }
  for (k = 0; k < b.n && !b.err; k++) {
    ast_part *head = NULL, **tail = &head;
    bseq *s = &b.out[k];
    for (i = 0; i < s->n && !b.err;) {
      ast_part *np = arena_zalloc(a, sizeof *np);
      if (!np) {
        b.err = MSB_ENOMEM;
        break;
      }
      if (s->it[i].c < 0) {
        *np = *s->it[i].p;
        np->next = NULL;
        i++;
      } else {
        size_t j = i, m;
        char *t;
        while (j < s->n && s->it[j].c >= 0) j++;
        t = arena_alloc(a, j - i + 1);
        if (!t) {
          b.err = MSB_ENOMEM;
          break;
        }
        for (m = i; m < j; m++) t[m - i] = (char)s->it[m].c;
        t[j - i] = 0;
        np->kind = AST_P_LIT;
        np->text = t;
        np->len = j - i;
        i = j;
      }
      *tail = np;
      tail = &np->next;
    }
    (*lists)[k] = head;
  }
  mem_free(sh->m, b.out);
  if (b.err) return b.err;
  *count = b.n;
  return 0;
}

/* ---- fields and globbing -------------------------------------------- */

static int expand_push(shell *sh, char ***av, int *ac, size_t *cap, char *s) {
  if (!s) return MSB_ENOMEM;
  if ((size_t)*ac + 1 >= *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    char **na = mem_realloc(sh->m, *av, nc * sizeof *na);
    if (!na) {
      mem_free(sh->m, s);
      return MSB_ENOMEM;
    }
    *av = na;
    *cap = nc;
  }
  (*av)[(*ac)++] = s;
  (*av)[*ac] = NULL;
  if (sh->lim->max_array_items && (uint64_t)*ac > sh->lim->max_array_items) {
    if (!sh->run->limit) sh->run->limit = LIMIT_MAX_ARRAY_ITEMS;
    return MSB_ELIMIT;
  }
  return 0;
}

/* Pushes the field's text as it is, handing it over. */
static int expand_push_text(shell *sh, xfield *f, char ***av, int *ac,
                            size_t *cap) {
  int rc = expand_push(sh, av, ac, cap, f->text);
  f->text = NULL;
  return rc;
}

static int expand_glob_field(shell *sh, xfield *f, char ***av, int *ac,
                             size_t *cap) {
  char **res = NULL;
  size_t n = 0, i;
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work : (uint64_t)-1;
  unsigned fl = 0;
  int rc;
  if (sh->shopts & SH_SO_EXTGLOB) fl |= GLOB_EXTGLOB;
  if (sh->shopts & SH_SO_DOTGLOB) fl |= GLOB_DOTGLOB;
  if (sh->shopts & SH_SO_GLOBSTAR) fl |= GLOB_GLOBSTAR;
  if (sh->shopts & SH_SO_NOCASEGLOB) fl |= GLOB_NOCASE;
  /* A '[' without its ']' made the word look like a pattern; it is not one,
   * so nullglob and failglob leave it alone (`[ -d . ]`). */
  if (!glob_has_magic(f->pat, strlen(f->pat), fl))
    return expand_push_text(sh, f, av, ac, cap);
  rc = glob_expand(sh->fs, sh->m, sh->cwd, f->pat, strlen(f->pat), fl, &budget,
                   &res, &n);
  if (rc == MSB_ELIMIT) {
    if (!sh->run->limit) sh->run->limit = LIMIT_MAX_GLOB_WORK;
    return rc;
  }
  if (rc) return rc;
  if (!n) {
    if (sh->shopts & SH_SO_FAILGLOB) {
      interp_errf(sh, "no match: %s", f->text);
      sh->status = 1;
      sh->flow = SH_FLOW_ABORT;
      return 1;
    }
    if (sh->shopts & SH_SO_NULLGLOB) return 0;
    return expand_push_text(sh, f, av, ac, cap);
  }
  for (i = 0; i < n; i++) {
    rc = expand_push(sh, av, ac, cap, res[i]);
    res[i] = NULL;
    if (rc) break;
  }
  glob_free(sh->m, res, n);
  return rc;
}

static int expand_fields_of(shell *sh, const ast_part *parts, char ***av,
                            int *ac, size_t *cap) {
  xw x;
  size_t i;
  int rc;
  xw_init(&x, sh, XM_FIELDS);
  rc = expand_parts(&x, parts, 0);
  if (!rc && x.started) xw_end(&x);
  if (!rc) rc = x.err;
  for (i = 0; i < x.n && !rc; i++) {
    if (x.f[i].pat && !(sh->opts & SH_O_NOGLOB))
      rc = expand_glob_field(sh, &x.f[i], av, ac, cap);
    else
      rc = expand_push_text(sh, &x.f[i], av, ac, cap);
  }
  xw_finish(&x);
  return rc;
}

/* Whether literal text needs no brace, glob or extglob processing (a NUL
 * byte also says no: strchr finds the terminator). */
static int expand_plain_lit(const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (strchr("*?[]{}()!@+,", s[i])) return 0;
  return 1;
}

/* Expands a word list into argv. */
int expand_words(shell *sh, ast_word *w, char ***argv, int *argc) {
  char **av = NULL;
  int ac = 0, rc = 0;
  size_t cap = 0, k;
  arena a;
  arena_init(&a, sh->m);
  for (; w && !rc; w = w->next) {
    ast_part **lists = NULL;
    size_t nl = 0;
    const ast_part *p = w->parts;
    if (p && !p->next && p->kind == AST_P_LIT && p->len &&
        expand_plain_lit(p->text, p->len)) {
      /* fast path: a plain literal word is its own single field */
      rc = expand_push(sh, &av, &ac, &cap, mem_strndup(sh->m, p->text, p->len));
      continue;
    }
    if ((sh->opts & SH_O_BRACE) && (rc = brace_word(sh, &a, w, &lists, &nl)))
      break;
    if (!lists)
      rc = expand_fields_of(sh, w->parts, &av, &ac, &cap);
    else
      for (k = 0; k < nl && !rc; k++)
        rc = expand_fields_of(sh, lists[k], &av, &ac, &cap);
  }
  arena_finish(&a);
  if (rc) {
    expand_free(sh, av, ac);
    *argv = NULL;
    *argc = 0;
    return rc;
  }
  if (!av) {
    av = mem_zalloc(sh->m, sizeof *av);
    if (!av) return MSB_ENOMEM;
  }
  *argv = av;
  *argc = ac;
  return 0;
}

/* Frees an argv from expand_words. */
void expand_free(shell *sh, char **argv, int argc) {
  int i;
  if (!argv) return;
  for (i = 0; i < argc; i++) mem_free(sh->m, argv[i]);
  mem_free(sh->m, argv);
}

/* read-style splitting: at most max fields, the last takes the rest. */
int expand_split_read(shell *sh, const char *s, size_t n, int max,
                      char ***fields, int *count) {
  const char *ifs = var_value(sh->vars, "IFS");
  char **av = NULL;
  int ac = 0, rc = 0;
  size_t cap = 0, i = 0, st;
  if (!ifs) ifs = " \t\n";
  *fields = NULL;
  *count = 0;
#define RD_IFS(c) ((c) && strchr(ifs, (c)))
#define RD_WS(c) (RD_IFS(c) && xw_ifs_ws((uint8_t)(c)))
  while (i < n && RD_WS(s[i])) i++;
  while (i < n && !rc) {
    if (max > 0 && ac == max - 1) {
      size_t e = n;
      while (e > i && RD_WS(s[e - 1])) e--;
      /* a trailing non-whitespace delimiter is dropped as well */
      if (e > i && RD_IFS(s[e - 1]) && !RD_WS(s[e - 1])) {
        size_t k = e - 1;
        int more = 0;
        size_t q;
        for (q = i; q < k; q++)
          if (RD_IFS(s[q]) && !RD_WS(s[q])) more = 1;
        if (!more) e = k;
      }
      rc = expand_push(sh, &av, &ac, &cap, mem_strndup(sh->m, s + i, e - i));
      i = n;
      break;
    }
    st = i;
    while (i < n && !RD_IFS(s[i])) i++;
    rc = expand_push(sh, &av, &ac, &cap, mem_strndup(sh->m, s + st, i - st));
    if (i >= n) break;
    /* consume one delimiter: whitespace run, optionally one non-ws */
    while (i < n && RD_WS(s[i])) i++;
    if (i < n && RD_IFS(s[i]) && !RD_WS(s[i])) {
      i++;
      while (i < n && RD_WS(s[i])) i++;
    }
  }
#undef RD_IFS
#undef RD_WS
  if (rc) {
    expand_free(sh, av, ac);
    return rc;
  }
  *fields = av;
  *count = ac;
  return 0;
}
