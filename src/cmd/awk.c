/* awk.c - pattern scanning and processing language (gawk 5 compatible,
 * C locale, bytes).
 *
 * The POSIX language with the gawk extensions scripts use (gensub,
 * patsplit, asort/asorti, PROCINFO["sorted_in"], strftime, bit functions,
 * IGNORECASE, FPAT, FIELDWIDTHS, BEGINFILE/ENDFILE, RS as a regex, RT,
 * --csv). awk_lex.c, awk_parse.c and awk_interp.c / awk_io.c /
 * awk_func.c hold the lexer, parser and interpreter; this file reads the
 * options and runs BEGIN, the main loop and END.
 *
 * Refused with a message: @include and @load, the debugger, profiler,
 * pretty printer and other options below not listed in the usage;
 * arrays of arrays; --posix and --traditional modes.
 *
 * Usage: awk [POSIX or GNU style options] -f progfile [--] file ...
 *        awk [POSIX or GNU style options] [--] 'program' file ... */
#include <stdio.h> /* snprintf only */
#include <string.h>

#include "../cold.h"
#include "awk.h"

static const char awk_usage[] MSB_COLD =
    "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n"
    "Usage: awk [POSIX or GNU style options] [--] 'program' file ...\n"
    "POSIX options:\t\tGNU long options: (standard)\n"
    "\t-f progfile\t\t--file=progfile\n"
    "\t-F fs\t\t\t--field-separator=fs\n"
    "\t-v var=val\t\t--assign=var=val\n"
    "Short options:\t\tGNU long options: (extensions)\n"
    "\t-b\t\t\t--characters-as-bytes\n"
    "\t-e 'program-text'\t--source='program-text'\n"
    "\t-h\t\t\t--help\n"
    "\t-k\t\t\t--csv\n"
    "\t-V\t\t\t--version\n"
    "\n"
    "awk is a pattern scanning and processing language.\n"
    "By default it reads standard input and writes standard output.\n"
    "\n"
    "Examples:\n"
    "\tawk '{ sum += $1 }; END { print sum }' file\n"
    "\tawk -F: '{ print $1 }' /etc/passwd\n";

static int awk_usage_err(cmd_ctx *c) {
  buf_puts(c->err, cold_get(awk_usage));
  return 1;
}

/* ---- command-line assignments ----------------------------------------- */

static int awk_is_name(const char *s, size_t n) {
  size_t i;
  if (!n || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
              (s[0] >= 'A' && s[0] <= 'Z')))
    return 0;
  for (i = 1; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
      return 0;
  return 1;
}

int awk_cmdline_assign(awk_rt *A, const char *s, size_t n) {
  const char *eq = memchr(s, '=', n);
  size_t nl;
  int slot, rc, i;
  buf b;
  awk_cell *c;
  if (!eq || !awk_is_name(s, (size_t)(eq - s))) return 0;
  nl = (size_t)(eq - s);
  for (slot = -1, i = 0; i < A->p->nglobals; i++)
    if (strlen(A->p->gnames[i]) == nl && !memcmp(A->p->gnames[i], s, nl)) {
      slot = i;
      break;
    }
  if (slot < 0) return 1; /* the program never uses it */
  c = &A->g[slot];
  if (c->kind == C_ARRAY)
    return awk_fatal(A, "cannot use array `%s' in a scalar context",
                     A->p->gnames[slot]);
  c->kind = C_SCALAR;
  buf_init(&b, A->m);
  awk_unescape(&b, eq + 1, n - nl - 1, 0);
  rc = b.err ? b.err : awk_set_str(A, &c->v, b.p ? b.p : "", b.len, 1);
  buf_finish(&b);
  if (rc) return rc;
  if (slot < V_NSPECIAL && (rc = awk_special_set(A, slot)) != 0) return rc;
  return 1;
}

/* ---- setup ------------------------------------------------------------ */

static int awk_setvar(awk_rt *A, int slot, const char *s) {
  A->g[slot].kind = C_SCALAR;
  return awk_set_str(A, &A->g[slot].v, s, strlen(s), 0);
}

static int awk_arr_set(awk_rt *A, awk_arr *a, const char *k, const char *v,
                       size_t vn) {
  awk_val *e = awk_arr_get(A, a, k, strlen(k), 1);
  if (!e) return A->err;
  return awk_set_str(A, e, v, vn, 1);
}

static int awk_setup(awk_rt *A) {
  static const char *const init[][2] = {{"FS", " "},
                                        {"OFS", " "},
                                        {"ORS", "\n"},
                                        {"RS", "\n"},
                                        {"SUBSEP", "\034"},
                                        {"CONVFMT", "%.6g"},
                                        {"OFMT", "%.6g"},
                                        {"FILENAME", ""},
                                        {"FIELDWIDTHS", ""},
                                        {"FPAT", "[^[:space:]]+"},
                                        {"RT", ""},
                                        {"ERRNO", ""},
                                        {"TEXTDOMAIN", "messages"}};
  static const int slots[] = {
      V_FS,       V_OFS,         V_ORS,  V_RS, V_SUBSEP, V_CONVFMT,   V_OFMT,
      V_FILENAME, V_FIELDWIDTHS, V_FPAT, V_RT, V_ERRNO,  V_TEXTDOMAIN};
  static const int nums[] = {V_NR,         V_FNR,     V_NF,  V_RSTART,
                             V_IGNORECASE, V_BINMODE, V_LINT};
  size_t i;
  int rc, k;
  char key[24];
  awk_arr *env, *argv, *pi;
  for (i = 0; i < sizeof slots / sizeof slots[0]; i++)
    if ((rc = awk_setvar(A, slots[i], init[i][1])) != 0) return rc;
  for (i = 0; i < sizeof nums / sizeof nums[0]; i++) {
    A->g[nums[i]].kind = C_SCALAR;
    awk_set_num(A, &A->g[nums[i]].v, 0);
  }
  A->g[V_RLENGTH].kind = C_SCALAR;
  awk_set_num(A, &A->g[V_RLENGTH].v, 0);
  if (!(env = awk_arr_new(A)) || !(argv = awk_arr_new(A)) ||
      !(pi = awk_arr_new(A)))
    return A->err;
  A->g[V_ENVIRON].kind = A->g[V_ARGV].kind = A->g[V_PROCINFO].kind = C_ARRAY;
  A->g[V_ENVIRON].a = env;
  A->g[V_ARGV].a = argv;
  A->g[V_PROCINFO].a = pi;
  for (i = 0; A->c->envp && A->c->envp[i]; i++) {
    const char *e = A->c->envp[i], *eq = strchr(e, '=');
    char *name;
    if (!eq) continue;
    name = arena_strndup(A->c->a, e, (size_t)(eq - e));
    if (!name || (rc = awk_arr_set(A, env, name, eq + 1, strlen(eq + 1))))
      return name ? rc : MSB_ENOMEM;
  }
  if ((rc = awk_arr_set(A, argv, "0", "awk", 3)) != 0) return rc;
  for (k = 0; k < A->o->nargs; k++) {
    snprintf(key, sizeof key, "%d", k + 1);
    if ((rc = awk_arr_set(A, argv, key, A->o->args[k],
                          strlen(A->o->args[k]))) != 0)
      return rc;
  }
  A->g[V_ARGC].kind = C_SCALAR;
  awk_set_num(A, &A->g[V_ARGC].v, A->o->nargs + 1);
  if ((rc = awk_arr_set(A, pi, "version", "5.2.1", 5)) != 0 ||
      (rc = awk_arr_set(A, pi, "FS", "FS", 2)) != 0 ||
      (rc = awk_arr_set(A, pi, "platform", "posix", 5)) != 0 ||
      (rc = awk_arr_set(A, pi, "strftime", AWK_STRFTIME_FMT,
                        strlen(AWK_STRFTIME_FMT))) != 0)
    return rc;
  if ((rc = awk_set_record(A, "", 0)) != 0) return rc;
  if (A->o->csv) {
    A->fs_mode = 5;
    A->rs_mode = 3;
    if ((rc = awk_setvar(A, V_FS, ",")) != 0) return rc;
  }
  if (A->o->fs) {
    buf b;
    buf_init(&b, A->m);
    awk_unescape(&b, A->o->fs, strlen(A->o->fs), 0);
    A->g[V_FS].kind = C_SCALAR;
    rc =
        b.err ? b.err : awk_set_str(A, &A->g[V_FS].v, b.p ? b.p : "", b.len, 0);
    buf_finish(&b);
    if (rc) return rc;
  }
  for (k = 0; k < A->o->nassign; k++) {
    rc = awk_cmdline_assign(A, A->o->assigns[k], strlen(A->o->assigns[k]));
    if (rc == 0) {
      A->cur_line = 0;
      return awk_fatal(A, "`%s' argument to `-v' not in `var=value' form",
                       A->o->assigns[k]);
    }
    if (rc != 1) return rc;
  }
  return 0;
}

static void awk_teardown(awk_rt *A) {
  int i;
  size_t k;
  for (i = 0; i < A->p->nglobals; i++) {
    if (A->g[i].kind == C_ARRAY) awk_arr_free(A, A->g[i].a);
    awk_val_free(A, &A->g[i].v);
  }
  mem_free(A->m, A->g);
  for (k = 0; k < A->fcap; k++)
    awk_val_free(A, &A->f[k].v); /* kept strings too (awk_fields_drop) */
  mem_free(A->m, A->f);
  awk_val_free(A, &A->rec);
  awk_val_free(A, &A->nofield);
  awk_val_free(A, &A->ret);
  for (i = 0; i < 64; i++) {
    rx_free(A->rxc[i].re);
    awk_str_unref(A->m, A->rxc[i].src);
  }
  for (k = 0; k < A->nlits; k++) rx_free(A->lits[k]);
  mem_free(A->m, A->lits);
  mem_free(A->m, A->main.name);
  mem_free(A->m, A->main.abs);
  buf_finish(&A->ob);
  buf_finish(&A->tmp);
  buf_finish(&A->tmp2);
  buf_finish(&A->pline);
}

/* ---- the cycle ---------------------------------------------------------- */

static int awk_pattern(awk_rt *A, awk_node *p, int *res) {
  awk_val v;
  int rc;
  memset(&v, 0, sizeof v);
  if ((rc = awk_eval(A, p, &v)) != 0) return rc;
  *res = awk_val_bool(A, &v);
  awk_val_free(A, &v);
  return 0;
}

static int awk_rule_match(awk_rt *A, awk_rule *r, int *res) {
  int rc, m;
  if (!r->pat) return *res = 1, 0;
  if (!r->pat2) return awk_pattern(A, r->pat, res);
  if (!r->inrange) {
    if ((rc = awk_pattern(A, r->pat, &m)) != 0) return rc;
    if (!m) return *res = 0, 0;
    r->inrange = 1;
  }
  *res = 1;
  if ((rc = awk_pattern(A, r->pat2, &m)) != 0) return rc;
  if (m) r->inrange = 0;
  return 0;
}

static int awk_print_rec(awk_rt *A) {
  awk_val *rec, *ors = &A->g[V_ORS].v;
  int rc = awk_rec_val(A, &rec);
  if (rc || (rc = awk_val_str(A, ors, 0))) return rc;
  buf_put(&A->ob, rec->s->p, rec->s->len);
  buf_put(&A->ob, ors->s->p, ors->s->len);
  if (A->ob.err) return A->err = A->ob.err;
  return A->ob.len >= 65536 ? awk_ob_flush(A) : 0;
}

static int awk_main_loop(awk_rt *A) {
  int rc, got, i, m;
  for (;;) {
    if ((rc = awk_next_main(A, &got)) != 0 || !got) return rc;
    if ((rc = awk_set_record(A, A->rec_p, A->rec_n)) != 0) return rc;
    for (i = 0; i < A->p->nrules; i++) {
      awk_rule *r = &A->p->rules[i];
      if (r->kind != R_MAIN) continue;
      if ((rc = awk_rule_match(A, r, &m)) != 0) return rc;
      if (!m) continue;
      rc = r->body ? awk_exec(A, r->body) : awk_print_rec(A);
      if (rc == AWK_NEXT) break;
      if (rc == AWK_NEXTFILE) {
        A->main.pos = A->main.len;
        if ((rc = awk_end_file(A)) != 0) return rc;
        break;
      }
      if (rc) return rc;
    }
  }
}

static int awk_rules(awk_rt *A, int kind) {
  int i, rc;
  for (i = 0; i < A->p->nrules; i++)
    if (A->p->rules[i].kind == kind &&
        (rc = awk_exec(A, A->p->rules[i].body)) != 0)
      return rc;
  return 0;
}

static int awk_need_input(const awk_prog *p) {
  int i;
  for (i = 0; i < p->nrules; i++)
    if (p->rules[i].kind != R_BEGIN) return 1;
  return 0;
}

int awk_run(cmd_ctx *c, awk_prog *p, const awk_opts *o) {
  awk_rt A;
  int rc, r2;
  memset(&A, 0, sizeof A);
  A.c = c;
  A.m = c->m;
  A.p = p;
  A.o = o;
  A.argi = 1;
  A.prev_seed = 1; /* srand()'s first answer, as gawk */
  buf_init(&A.ob, c->m);
  buf_init(&A.tmp, c->m);
  buf_init(&A.tmp2, c->m);
  buf_init(&A.pline, c->m);
  A.g = mem_zalloc(c->m, sizeof *A.g * (size_t)(p->nglobals + 1));
  if (!A.g) return MSB_ENOMEM;
  rc = awk_setup(&A);
  if (!rc) rc = awk_rules(&A, R_BEGIN);
  if ((!rc || rc == AWK_EXIT) && rc != AWK_EXIT && awk_need_input(p)) {
    rc = awk_main_loop(&A);
    if (!rc) rc = awk_end_file(&A);
  }
  if (!rc || rc == AWK_EXIT) {
    rc = awk_rules(&A, R_END);
    if (rc == AWK_NEXT || rc == AWK_NEXTFILE) rc = 0;
  }
  if (rc == AWK_EXIT) rc = 0;
  /* pipes first, then stdout: gawk's order at exit */
  r2 = rc < 0 && rc != MSB_ELIMIT ? 0 : awk_close_all(&A);
  if (!rc && r2) rc = r2;
  if (rc != MSB_ENOMEM) {
    r2 = awk_ob_flush(&A);
    if (!rc && r2) rc = r2;
  }
  if (rc == 0)
    rc = A.exit_code;
  else if (rc == AWK_FATAL)
    rc = 2;
  else if (rc > 0)
    rc = 2;
  awk_teardown(&A);
  return rc;
}

/* ---- options ------------------------------------------------------------ */

typedef struct awk_args {
  buf prog; /* -f files and -e texts, or the program operand */
  awk_src *srcs;
  int nsrc;
} awk_args;

static int awk_add_src(cmd_ctx *c, awk_args *g, const char *name,
                       const char *text, size_t len) {
  awk_src *s = arena_alloc(c->a, sizeof *s * (size_t)(g->nsrc + 1));
  if (!s) return MSB_ENOMEM;
  if (g->nsrc) memcpy(s, g->srcs, sizeof *s * (size_t)g->nsrc);
  s[g->nsrc].name = name;
  s[g->nsrc].text = text;
  s[g->nsrc].len = len;
  g->srcs = s;
  g->nsrc++;
  return 0;
}

static int awk_progfile(cmd_ctx *c, awk_args *g, const char *name) {
  const uint8_t *d;
  size_t n;
  int rc = cmd_input(c, name, &d, &n);
  char *copy;
  if (rc) {
    buf_printf(c->err,
               "%s: fatal: cannot open source file `%s' for reading: "
               "%s\n",
               cmd_name(c), name, cmd_strerror(rc));
    return 2;
  }
  copy = arena_strndup(c->a, (const char *)d, n);
  if (!copy) return MSB_ENOMEM;
  return awk_add_src(c, g, arena_strdup(c->a, name), copy, n);
}

/* Returns the value of an option that takes one ("-fFILE", "-f FILE",
 * "--file=FILE", "--file FILE"), advancing *i; NULL when missing. */
static const char *awk_optarg(cmd_ctx *c, int *i, const char *a, size_t skip) {
  if (a[skip]) return a + skip + (a[skip] == '=' && a[1] == '-');
  if (*i + 1 < c->argc) return c->argv[++*i];
  return NULL;
}

static int awk_long(const char *a, const char *name, size_t min) {
  size_t n = strcspn(a + 2, "=");
  return n >= min && n <= strlen(name) && !strncmp(a + 2, name, n);
}

int cmd_awk(cmd_ctx *c) {
  awk_args g;
  awk_opts o;
  awk_prog prog;
  int i, k, rc, nassign = 0, nargs = 0;
  char **assigns = arena_alloc(c->a, sizeof(char *) * (size_t)(c->argc + 1));
  char **args = arena_alloc(c->a, sizeof(char *) * (size_t)(c->argc + 1));
  if (!assigns || !args) return MSB_ENOMEM;
  memset(&g, 0, sizeof g);
  memset(&o, 0, sizeof o);
  for (i = 1; i < c->argc; i++) {
    const char *a = c->argv[i], *v;
    if (a[0] != '-' || !a[1]) break;
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (a[1] == '-') {
      if (awk_long(a, "file", 1) || awk_long(a, "source", 1)) {
        int isf = a[2] == 'f';
        if (!(v = awk_optarg(c, &i, a, 2 + strcspn(a + 2, "=")))) goto missing;
        rc = isf ? awk_progfile(c, &g, v)
                 : awk_add_src(c, &g, "cmd. line", v, strlen(v));
        if (rc) return rc;
      } else if (awk_long(a, "field-separator", 2)) {
        if (!(o.fs = awk_optarg(c, &i, a, 2 + strcspn(a + 2, "="))))
          goto missing;
      } else if (awk_long(a, "assign", 1)) {
        if (!(v = awk_optarg(c, &i, a, 2 + strcspn(a + 2, "=")))) goto missing;
        assigns[nassign++] = (char *)v;
      } else if (awk_long(a, "csv", 2))
        o.csv = 1;
      else if (awk_long(a, "characters-as-bytes", 2))
        ;
      else if (awk_long(a, "help", 1)) {
        buf_puts(c->out, cold_get(awk_usage));
        return 0;
      } else if (awk_long(a, "version", 1)) {
        buf_printf(c->out, "awk (memsandbox) %s\n", MSB_VERSION);
        return 0;
      } else {
        buf_printf(c->err, "%s: option `%s' is not supported\n", cmd_name(c),
                   a);
        return awk_usage_err(c);
      }
      continue;
    }
    for (a++; *a; a++) {
      switch (*a) {
      case 'f':
      case 'e':
      case 'F':
      case 'v':
        v = a[1] ? a + 1 : (i + 1 < c->argc ? c->argv[++i] : NULL);
        if (!v) {
          buf_printf(c->err, "%s: option requires an argument -- %c\n",
                     cmd_name(c), *a);
          return awk_usage_err(c);
        }
        if (*a == 'f' && (rc = awk_progfile(c, &g, v)) != 0) return rc;
        if (*a == 'e' &&
            (rc = awk_add_src(c, &g, "cmd. line", v, strlen(v))) != 0)
          return rc;
        if (*a == 'F') o.fs = v;
        if (*a == 'v') assigns[nassign++] = (char *)v;
        a = " ";
        break;
      case 'b': break;
      case 'k': o.csv = 1; break;
      case 'h': buf_puts(c->out, cold_get(awk_usage)); return 0;
      case 'V':
        buf_printf(c->out, "awk (memsandbox) %s\n", MSB_VERSION);
        return 0;
      default:
        buf_printf(c->err, "%s: invalid option -- '%c'\n", cmd_name(c), *a);
        return awk_usage_err(c);
      }
      if (*a == ' ') break;
    }
  }
  /* gawk checks -v operands before it looks for the program */
  for (k = 0; k < nassign; k++) {
    const char *eq = strchr(assigns[k], '=');
    if (!eq || !awk_is_name(assigns[k], (size_t)(eq - assigns[k]))) {
      buf_printf(c->err,
                 "%s: `%s' argument to `-v' not in `var=value' form\n\n",
                 cmd_name(c), assigns[k]);
      return awk_usage_err(c);
    }
  }
  if (!g.nsrc) {
    if (i >= c->argc) return awk_usage_err(c);
    rc = awk_add_src(c, &g, "cmd. line", c->argv[i], strlen(c->argv[i]));
    if (rc) return rc;
    i++;
  }
  for (; i < c->argc; i++) args[nargs++] = c->argv[i];
  o.assigns = assigns;
  o.nassign = nassign;
  o.args = args;
  o.nargs = nargs;
  if (o.csv && o.fs)
    buf_printf(c->err, "%s: warning: -v FS is ignored with --csv\n",
               cmd_name(c));
  rc = awk_parse(c, g.srcs, g.nsrc, &prog);
  if (rc) return rc < 0 ? rc : rc;
  return awk_run(c, &prog, &o);
missing:
  buf_printf(c->err, "%s: option '%s' requires an argument\n", cmd_name(c),
             c->argv[i]);
  return awk_usage_err(c);
}
