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
 * new part lists (built in a per-word arena).
 *
 * This file holds the field builder, the walk over a word's parts and the
 * final fields; the rest: expand_param.c (parameter values), expand_op.c
 * (the ${...} operators), expand_subst.c ($( ) and $(( ))) and
 * expand_brace.c. */
#include "expand_int.h"

#include <string.h>

#include "glob.h"

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

void xw_end(xw *x) {
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
void xw_lit(xw *x, const char *s, size_t n, int quoted) {
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
void xw_exp(xw *x, const char *s, size_t n, int quoted) {
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

/* The /dev/fd/N path of the next process substitution. */
static void expand_procsub_path(shell *sh, buf *path) {
  int n = sh->run->procsub_next--;
  if (n < 10) n = sh->run->procsub_next = 63;
  buf_printf(path, "/dev/fd/%d", n);
  vfs_mkdir(sh->fs, "/dev/fd", 0755, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
  sh->run->made_devfd = 1;
}

/* >(cmd): an empty file the command writes; cmd reads it once the command
 * is done (interp_procout_add). */
static int expand_procout(xw *x, const ast_part *p) {
  shell *sh = x->sh;
  buf path;
  int rc;
  buf_init(&path, sh->m);
  expand_procsub_path(sh, &path);
  rc = path.err ? path.err
                : vfs_write(sh->fs, buf_str(&path), "", 0, 0, 0600, NULL);
  if (!rc) rc = interp_procout_add(sh, buf_str(&path), p->cmd, sh->line);
  if (!rc) xw_lit(x, path.p, path.len, 1);
  buf_finish(&path);
  return rc == MSB_ENOMEM ? rc : rc ? 1 : 0;
}

/* The line an input substitution's reparsed text starts at: bash runs the
 * printed text from the line the parser had reached, near its last line,
 * so `cat <(echo $LINENO` newline `echo $LINENO)` prints 2 and 3. */
static int expand_procsub_line(const shell *sh, const ast_node *cmd) {
  while (cmd && cmd->kind == AST_LIST && cmd->u.list.items)
    for (cmd = cmd->u.list.items; cmd->next;) cmd = cmd->next;
  return cmd && cmd->line > sh->line ? cmd->line : sh->line;
}

/* <(cmd): runs the printed command text as bash reparses it. */
static int expand_procsub_run(shell *sh, const ast_node *cmd, buf *out) {
  buf text;
  int rc;
  buf_init(&text, sh->m);
  if (cmd) ast_print_command(&text, cmd, interp_stack_left(sh));
  rc = text.err ? MSB_ENOMEM
                : interp_capture_text(sh, text.p ? text.p : "", text.len,
                                      expand_procsub_line(sh, cmd), out);
  buf_finish(&text);
  return rc;
}

static int expand_procsub(xw *x, const ast_part *p) {
  shell *sh = x->sh;
  buf out, path;
  int rc, pid;
  if (p->text && p->text[0] == '>') return expand_procout(x, p);
  buf_init(&out, sh->m);
  pid = sh->next_pid;
  rc = expand_procsub_run(sh, p->cmd, &out);
  if (rc >= 0) rc = interp_procsub_done(sh, pid, rc & 255);
  if (rc < 0) {
    buf_finish(&out);
    return rc;
  }
  if (out.err) {
    buf_finish(&out);
    return MSB_ENOMEM;
  }
  buf_init(&path, sh->m);
  expand_procsub_path(sh, &path);
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
int expand_parts(xw *x, const ast_part *p, int quoted) {
  int rc = interp_stack_push(x->sh, SH_STACK_WORD);
  if (rc) return rc;
  rc = expand_parts_run(x, p, quoted);
  interp_stack_pop(x->sh, SH_STACK_WORD);
  return rc;
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

/* GLOBIGNORE drops names from a glob's matches; when it drops all, the
 * word matched nothing (nullglob and failglob apply). */
static int expand_globignore(shell *sh, unsigned fl, char **res, size_t *n,
                             uint64_t *budget) {
  const char *ign = var_value(sh->vars, "GLOBIGNORE");
  int rc;
  if (!ign || !*ign) return 0;
  rc = glob_ignore(sh->m, ign, fl, res, n, budget);
  if (!rc && !*n) glob_free(sh->m, res, 0);
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
  if (!rc && n) rc = expand_globignore(sh, fl, res, &n, &budget);
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
