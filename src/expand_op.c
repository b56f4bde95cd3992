/* expand_op.c - the ${...} operators: defaults and errors, pattern
 * removal and substitution, case changes, @-transforms, substrings and
 * slices, ${!name} and ${!prefix*}. */
#include "expand_int.h"

#include <string.h>

#include "glob.h"
#include "lex.h"

/* The extglob flag for patterns outside [[ ]]: shopt -s extglob. */
static unsigned expand_extglob(const shell *sh) {
  return (sh->shopts & SH_SO_EXTGLOB) ? GLOB_EXTGLOB : 0;
}

/* Pattern matching with the shell's options. */
int expand_match(shell *sh, const char *pat, const char *s, int cond) {
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work * 16 : (uint64_t)-1;
  unsigned fl = cond ? GLOB_EXTGLOB : expand_extglob(sh);
  int rc;
  if (sh->shopts & SH_SO_NOCASEMATCH) fl |= GLOB_NOCASE;
  rc = glob_match(sh->m, pat, strlen(pat), s, strlen(s), fl, &budget);
  if (rc == MSB_ELIMIT && !sh->run->limit) sh->run->limit = LIMIT_MAX_GLOB_WORK;
  return rc;
}

/* One match of ${x#p} and ${x/p/r}: its work is paid in steps too (a
 * unit of glob work as a byte), since a loop repeats it with a fresh glob
 * budget each time. */
static int expand_match_n(shell *sh, const char *pat, const char *s, size_t n,
                          uint64_t *budget) {
  uint64_t before = *budget;
  int rc =
      glob_match(sh->m, pat, strlen(pat), s, n, expand_extglob(sh), budget);
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
  int magic = glob_has_magic(pat, strlen(pat), expand_extglob(sh));
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
  /* bash tries no match at the end of a non-empty string: ${x//?(c)/-}
   * on "abc" gives "-a-b-", not "-a-b--". */
  while (i < n || (i == 0 && n == 0)) {
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

/* ${x@E}: the escapes of $'...' (lex_ansi_escape). */
static int expand_escapes(buf *b, const char *s) {
  size_t n = strlen(s), i = 0;
  int cut = 0;
  while (i < n) {
    if (s[i] != '\\' || i + 1 >= n) {
      if (!cut) buf_putc(b, s[i]);
      i++;
      continue;
    }
    i++;
    i += lex_ansi_escape(s + i, n - i, b, &cut);
  }
  return b->err;
}

/* One prompt escape of ${x@P} (c after the backslash) into b; 0 when c is
 * not one (kept as typed). The sandbox's user, host and version; times
 * (\d \t \T \@ \A \D{}) and history numbers are not expanded. */
static int expand_prompt_escape(shell *sh, int c, buf *b) {
  const char *home = var_value(sh->vars, "HOME"), *v;
  size_t hl = home ? strlen(home) : 0;
  switch (c) {
  case 'u': buf_puts(b, "user"); return 1;
  case 'h':
  case 'H':
    v = var_value(sh->vars, "HOSTNAME");
    v = v ? v : "memsandbox";
    buf_put(
        b, v,
        c == 'h' && strchr(v, '.') ? (size_t)(strchr(v, '.') - v) : strlen(v));
    return 1;
  case '$': buf_putc(b, '$'); return 1; /* the sandbox's user is not root */
  case 's': buf_puts(b, "bash"); return 1;
  case 'v': buf_puts(b, "5.2"); return 1;
  case 'V': buf_puts(b, "5.2.15"); return 1;
  case 'j': buf_putc(b, '0'); return 1;
  case 'n': buf_putc(b, '\n'); return 1;
  case 'r': buf_putc(b, '\r'); return 1;
  case 'a': buf_putc(b, 7); return 1;
  case 'e': buf_putc(b, 27); return 1;
  case '\\': buf_putc(b, '\\'); return 1;
  case '[':
  case ']': return 1; /* readline's markers: nothing without readline */
  case 'w':
  case 'W':
    v = sh->cwd;
    if (home && hl > 1 && !strncmp(v, home, hl) && (!v[hl] || v[hl] == '/')) {
      if (c == 'W' && v[hl]) {
        buf_puts(b, strrchr(v, '/') + 1);
        return 1;
      }
      buf_putc(b, '~');
      if (c == 'w') buf_puts(b, v + hl);
      return 1;
    }
    buf_puts(b, c == 'W' && strcmp(v, "/") ? strrchr(v, '/') + 1 : v);
    return 1;
  default: return 0;
  }
}

/* ${x@P}: prompt escapes, then (shopt promptvars, on in bash) the
 * parameter, command and arithmetic expansions of a double-quoted string,
 * done in a subshell. */
static int expand_prompt(shell *sh, const char *s, buf *out) {
  buf b;
  int rc = 0;
  buf_init(&b, sh->m);
  for (; *s; s++) {
    if (*s != '\\' || !s[1]) {
      buf_putc(&b, *s);
      continue;
    }
    s++;
    if (*s >= '0' && *s <= '7') {
      int v = 0, k;
      for (k = 0; k < 3 && *s >= '0' && *s <= '7'; k++, s++)
        v = v * 8 + *s - '0';
      s--;
      buf_putc(&b, v);
    } else if (!expand_prompt_escape(sh, *s, &b)) {
      buf_putc(&b, '\\');
      buf_putc(&b, *s);
    }
  }
  if (!b.err && (memchr(b.p, '$', b.len) || memchr(b.p, '`', b.len))) {
    buf cmd;
    size_t i;
    buf_init(&cmd, sh->m);
    buf_puts(&cmd, "printf %s \"");
    for (i = 0; i < b.len; i++) {
      if (b.p[i] == '"') buf_putc(&cmd, '\\');
      buf_putc(&cmd, b.p[i]);
    }
    buf_putc(&cmd, '"');
    rc = cmd.err ? cmd.err
                 : interp_capture_text(sh, cmd.p, cmd.len, sh->line, out);
    buf_finish(&cmd);
    rc = rc < 0 ? rc : 0;
  } else
    buf_put(out, b.p ? b.p : "", b.len);
  rc = rc ? rc : b.err;
  buf_finish(&b);
  return rc;
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
  case 'P':
    rc = expand_prompt(sh, s, &b);
    if (rc) {
      buf_finish(&b);
      return rc;
    }
    break;
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

/* ${a[@]@A} ${a[@]@K} ${a[@]@k} of an array: the whole array at once, as
 * bash gives it (one declare line; key "value" pairs, an associative
 * array's each followed by a space; or keys and values as words). 1 when
 * done (v replaced), 0 when not an array or another operator. */
static int expand_array_xform(shell *sh, const char *name, char op, xval *v) {
  var *a = var_get(sh->vars, name, NULL);
  var_elem **el;
  size_t n, i;
  buf b;
  int rc = 0;
  if (!a || !(a->attr & (VAR_ARRAY | VAR_ASSOC))) return 0;
  if (op != 'A' && op != 'K' && op != 'k') return 0;
  if (var_elems(sh->m, a, &el, &n)) return MSB_ENOMEM;
  xval_free(sh, v);
  v->set = 1;
  buf_init(&b, sh->m);
  if (op == 'A') {
    rc = builtin_describe(sh, a, &b);
    if (b.len && b.p[b.len - 1] == '\n') b.len--;
  }
  for (i = 0; op != 'A' && i < n && !rc; i++) {
    if (op == 'k') {
      v->list = 1;
      b.len = 0;
      if (el[i]->key)
        buf_puts(&b, el[i]->key);
      else
        buf_printf(&b, "%lld", (long long)el[i]->idx);
      rc = b.err ? b.err : xval_push(sh, v, b.p, b.len);
      if (!rc) rc = xval_push(sh, v, el[i]->val, strlen(el[i]->val));
      continue;
    }
    if (i && !el[i]->key) buf_putc(&b, ' ');
    if (el[i]->key)
      buf_puts(&b, el[i]->key);
    else
      buf_printf(&b, "%lld", (long long)el[i]->idx);
    buf_putc(&b, ' ');
    builtin_dquote(&b, el[i]->val);
    if (el[i]->key) buf_putc(&b, ' ');
  }
  if (!rc && op != 'k') {
    v->list = 0;
    rc = b.err ? b.err : xval_push(sh, v, b.p ? b.p : "", b.len);
  }
  buf_finish(&b);
  mem_free(sh->m, el);
  return rc ? rc : 1;
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

int expand_param(xw *x, ast_param *pe, int quoted) {
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
    if (!rc && pe->op == AST_PE_TRANSFORM && v.list) {
      rc = expand_array_xform(sh, name, pe->xform, &v);
      if (rc == 1) {
        rc = 0;
        mem_free(sh->m, o.pat);
        mem_free(sh->m, o.rep);
        expand_put_val(x, &v, quoted);
        break;
      }
    }
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
