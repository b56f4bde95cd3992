/* options.c - shell options and a script's own options: set, shopt,
 * getopts. */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const struct {
  const char *name;
  unsigned flag;
  char letter;
} bi_setopts[] = {
    {"allexport", SH_O_ALLEXPORT, 'a'},
    {"braceexpand", SH_O_BRACE, 'B'},
    {"emacs", 0, 0},
    {"errexit", SH_O_ERREXIT, 'e'},
    {"errtrace", SH_O_ERRTRACE, 'E'},
    {"functrace", SH_O_FUNCTRACE, 'T'},
    {"hashall", SH_O_HASHALL, 'h'},
    {"histexpand", 0, 'H'},
    {"history", 0, 0},
    {"ignoreeof", 0, 0},
    {"interactive-comments", 0, 0},
    {"keyword", 0, 'k'},
    {"monitor", SH_O_MONITOR, 'm'},
    {"noclobber", SH_O_NOCLOBBER, 'C'},
    {"noexec", SH_O_NOEXEC, 'n'},
    {"noglob", SH_O_NOGLOB, 'f'},
    {"nolog", 0, 0},
    {"notify", 0, 'b'},
    {"nounset", SH_O_NOUNSET, 'u'},
    {"onecmd", 0, 't'},
    {"physical", 0, 'P'},
    {"pipefail", SH_O_PIPEFAIL, 0},
    {"posix", 0, 0},
    {"privileged", 0, 'p'},
    {"verbose", SH_O_VERBOSE, 'v'},
    {"vi", 0, 0},
    {"xtrace", SH_O_XTRACE, 'x'},
};

#define BI_NSETOPTS (sizeof bi_setopts / sizeof bi_setopts[0])

/* Whether set -o option k is on. */
static int bi_setopt_get(shell *sh, size_t k) {
  return bi_setopts[k].flag
             ? (sh->opts & bi_setopts[k].flag) != 0
             : !strcmp(bi_setopts[k].name, "interactive-comments");
}

/* One option as shopt lists it: `name<TAB>on`, or with -p the command
 * that restores it (shopt -s/-u, or set -o/+o for shopt -o). */
static void bi_shopt_line(buf *b, const char *name, int on, int print,
                          int oflag) {
  if (!print)
    buf_printf(b, "%-15s\t%s\n", name, on ? "on" : "off");
  else if (oflag)
    buf_printf(b, "set %co %s\n", on ? '-' : '+', name);
  else
    buf_printf(b, "shopt %s %s\n", on ? "-s" : "-u", name);
}

static int bi_setopt_name(shell *sh, const char *name, int on) {
  size_t k;
  for (k = 0; k < BI_NSETOPTS; k++)
    if (!strcmp(bi_setopts[k].name, name)) {
      if (bi_setopts[k].flag) {
        if (on)
          sh->opts |= bi_setopts[k].flag;
        else
          sh->opts &= ~bi_setopts[k].flag;
      } else if (on && strcmp(name, "interactive-comments") &&
                 strcmp(name, "emacs") && strcmp(name, "vi") &&
                 strcmp(name, "history") && strcmp(name, "posix") &&
                 strcmp(name, "errtrace") && strcmp(name, "functrace") &&
                 strcmp(name, "physical") && strcmp(name, "ignoreeof") &&
                 strcmp(name, "notify") && strcmp(name, "monitor")) {
        interp_errf(sh, "set: %s: not supported in memsandbox", name);
        return 1;
      }
      return 0;
    }
  interp_errf(sh, "set: %s: invalid option name", name);
  return 2;
}

static int bi_set_list(shell *sh) {
  var **list;
  size_t n, k;
  buf b;
  buf_init(&b, sh->m);
  if (var_list(sh->vars, sh->m, &list, &n)) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  for (k = 0; k < n; k++) {
    var *v = list[k];
    if (v->attr & VAR_NOVALUE) continue;
    if (v->attr & (VAR_ARRAY | VAR_ASSOC)) {
      char *line;
      buf t;
      buf_init(&t, sh->m);
      builtin_describe(sh, v, &t);
      line = t.p ? strchr(t.p, ' ') : NULL;
      if (line) line = strchr(line + 1, ' ');
      if (line) buf_puts(&b, line + 1);
      buf_finish(&t);
      continue;
    }
    buf_printf(&b, "%s=", v->name);
    expand_quote(&b, v->val ? v->val : "", 0);
    buf_putc(&b, '\n');
  }
  mem_free(sh->m, list);
  return bi_out(sh, &b);
}

/* help set */
const help_text bi_help_set = {
    "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
    "\n"
    "Each -LETTER turns a shell option on and +LETTER turns it off; -o NAME\n"
    "and +o NAME do the same by long name.  ARGs that remain become the\n"
    "positional parameters ($1, $2, ...); `--' makes the next words ARGs even\n"
    "when they start with `-', and `set --' alone clears them.  Without\n"
    "arguments, prints every variable; `set -o' lists the long options and\n"
    "`set +o' prints them as commands.\n"
    "\n"
    "Options that change what runs:\n"
    "  -e  errexit     stop at the first failing command\n"
    "  -u  nounset     expanding an unset variable is an error\n"
    "  -x  xtrace      print each command, after expansion, to stderr\n"
    "  -v  verbose     print input lines as they are read\n"
    "  -n  noexec      read commands without running them\n"
    "  -f  noglob      no pathname expansion\n"
    "  -C  noclobber   `>' refuses to overwrite a file\n"
    "  -a  allexport   export every variable that is assigned\n"
    "  -B  braceexpand expand {a,b} forms (on by default)\n"
    "  -E  errtrace    ERR traps are inherited by functions\n"
    "  -T  functrace   DEBUG and RETURN traps are inherited by functions\n"
    "  -h  hashall     remember where programs were found\n"
    "      pipefail    a pipeline fails when any of its commands fails\n"
    "\n"
    "Accepted with no effect here: -b, -m, -H, -P and the long names\n"
    "emacs, vi, history, ignoreeof, interactive-comments, nolog and posix.\n"
    "Not supported: -k, -p and -t.\n"
    "\n"
    "Exit status:\n"
    "0, unless an option is invalid.\n"};

int bi_set(shell *sh, int argc, char **argv) {
  int i = 1, rc;
  if (argc == 1) return bi_set_list(sh);
  for (; i < argc; i++) {
    const char *a = argv[i];
    int on = a[0] == '-';
    const char *o;
    if (a[0] != '-' && a[0] != '+') break;
    if (!strcmp(a, "--")) {
      i++;
      return interp_set_pos(sh, argv + i, argc - i);
    }
    if (!strcmp(a, "-")) {
      sh->opts &= ~(SH_O_XTRACE | SH_O_VERBOSE);
      i++;
      break;
    }
    for (o = a + 1; *o; o++) {
      size_t k;
      if (*o == 'o') {
        if (i + 1 >= argc) {
          buf b;
          buf_init(&b, sh->m);
          for (k = 0; k < BI_NSETOPTS; k++) {
            int st = bi_setopt_get(sh, k);
            if (on)
              buf_printf(&b, "%-15s\t%s\n", bi_setopts[k].name,
                         st ? "on" : "off");
            else
              buf_printf(&b, "set %co %s\n", st ? '-' : '+',
                         bi_setopts[k].name);
          }
          return bi_out(sh, &b);
        }
        rc = bi_setopt_name(sh, argv[++i], on);
        if (rc) return rc;
        continue;
      }
      for (k = 0; k < BI_NSETOPTS; k++)
        if (bi_setopts[k].letter == *o) break;
      if (k == BI_NSETOPTS ||
          (!bi_setopts[k].flag && *o != 'h' && *o != 'H' && *o != 'm' &&
           *o != 'B' && *o != 'E' && *o != 'T' && *o != 'P' && *o != 'b')) {
        char bad[3] = {a[0], *o, 0};
        if (k != BI_NSETOPTS) {
          interp_errf(sh, "set: %s: not supported in memsandbox", bad);
          return 1;
        }
        interp_errf(sh, "set: %s: invalid option", bad);
        interp_usagef(sh,
                      "set: usage: set [-abefhkmnptuvxBCEHPT] [-o "
                      "option-name] [--] [-] [arg ...]");
        return 2;
      }
      if (bi_setopts[k].flag) {
        if (on)
          sh->opts |= bi_setopts[k].flag;
        else
          sh->opts &= ~bi_setopts[k].flag;
      }
    }
  }
  if (i < argc) return interp_set_pos(sh, argv + i, argc - i);
  return 0;
}

static const struct {
  const char *name;
  unsigned flag;
  int fixed; /* -1 settable, else the fixed value */
} bi_shopts[] = {
    {"autocd", 0, 0},
    {"assoc_expand_once", 0, 0},
    {"cdable_vars", 0, 0},
    {"cdspell", 0, 0},
    {"checkhash", 0, 0},
    {"checkjobs", 0, 0},
    {"checkwinsize", 0, 1},
    {"cmdhist", 0, 1},
    {"compat31", 0, 0},
    {"compat32", 0, 0},
    {"compat40", 0, 0},
    {"compat41", 0, 0},
    {"compat42", 0, 0},
    {"compat43", 0, 0},
    {"compat44", 0, 0},
    {"complete_fullquote", 0, 1},
    {"direxpand", 0, 0},
    {"dirspell", 0, 0},
    {"dotglob", SH_SO_DOTGLOB, -1},
    {"execfail", 0, 0},
    {"expand_aliases", SH_SO_EXPAND_ALIASES, -1},
    {"extdebug", 0, 0},
    {"extglob", SH_SO_EXTGLOB, -1},
    {"extquote", 0, 1},
    {"failglob", SH_SO_FAILGLOB, -1},
    {"force_fignore", 0, 1},
    {"globasciiranges", 0, 1},
    {"globskipdots", 0, 1},
    {"globstar", SH_SO_GLOBSTAR, -1},
    {"gnu_errfmt", 0, 0},
    {"histappend", 0, 0},
    {"histreedit", 0, 0},
    {"histverify", 0, 0},
    {"hostcomplete", 0, 1},
    {"huponexit", 0, 0},
    {"inherit_errexit", SH_SO_INHERIT_ERREXIT, -1},
    {"interactive_comments", 0, 1},
    {"lastpipe", SH_SO_LASTPIPE, -1},
    {"lithist", 0, 0},
    {"localvar_inherit", 0, 0},
    {"localvar_unset", 0, 0},
    {"login_shell", 0, 0},
    {"mailwarn", 0, 0},
    {"no_empty_cmd_completion", 0, 0},
    {"nocaseglob", SH_SO_NOCASEGLOB, -1},
    {"nocasematch", SH_SO_NOCASEMATCH, -1},
    {"noexpand_translation", 0, 0},
    {"nullglob", SH_SO_NULLGLOB, -1},
    {"patsub_replacement", 0, 1},
    {"progcomp", 0, 1},
    {"progcomp_alias", 0, 0},
    {"promptvars", 0, 1},
    {"restricted_shell", 0, 0},
    {"shift_verbose", 0, 0},
    {"sourcepath", 0, 1},
    {"varredir_close", 0, 0},
    {"xpg_echo", 0, 0},
};

#define BI_NSHOPTS (sizeof bi_shopts / sizeof bi_shopts[0])

static int bi_shopt_get(shell *sh, size_t k) {
  if (bi_shopts[k].fixed >= 0) return bi_shopts[k].fixed;
  return (sh->shopts & bi_shopts[k].flag) != 0;
}

/* help shopt */
const help_text bi_help_shopt = {
    "shopt [-pqsu] [-o] [optname ...]",
    "\n"
    "Shows or changes the shell options that have names only (such as\n"
    "extglob, nullglob, globstar or dotglob).  Without -s or -u, prints each\n"
    "OPTNAME, or every option, with its state.\n"
    "\n"
    "Options:\n"
    "  -s   turn the OPTNAMEs on\n"
    "  -u   turn them off\n"
    "  -q   print nothing; the status tells whether all are on\n"
    "  -p   print as shopt commands\n"
    "  -o   the OPTNAMEs are set -o names\n"
    "\n"
    "Exit status:\n"
    "0 when every OPTNAME is on (or was changed); 1 when one is off or\n"
    "unknown; 2 for an invalid option.\n"};

int bi_shopt(shell *sh, int argc, char **argv) {
  int i = 1, set = 0, unset = 0, quiet = 0, print = 0, oflag = 0;
  int status = 0, c;
  const char *o = NULL;
  size_t k;
  buf b;
  while ((c = bi_nextopt(argc, argv, &i, &o))) {
    if (c == 's')
      set = 1;
    else if (c == 'u')
      unset = 1;
    else if (c == 'q')
      quiet = 1;
    else if (c == 'p')
      print = 1;
    else if (c == 'o')
      oflag = 1;
    else
      return bi_badletter(sh, "shopt", c, "shopt [-pqsu] [-o] [optname ...]");
  }
  if (set && unset) {
    interp_errf(sh,
                "shopt: cannot set and unset shell options "
                "simultaneously");
    return 1;
  }
  buf_init(&b, sh->m);
  if (i >= argc) {
    const char *name;
    for (k = 0; (name = bi_option_name(!oflag, k)); k++) {
      int v = oflag ? bi_setopt_get(sh, k) : bi_shopt_get(sh, k);
      if ((set && !v) || (unset && v)) continue;
      bi_shopt_line(&b, name, v, print, oflag);
    }
    if (quiet) buf_clear(&b);
    return bi_out(sh, &b);
  }
  for (; i < argc; i++) {
    const char *name;
    for (k = 0; (name = bi_option_name(!oflag, k)); k++)
      if (!strcmp(name, argv[i])) break;
    if (!name) {
      interp_errf(sh,
                  oflag ? "shopt: %s: invalid option name"
                        : "shopt: %s: invalid shell option name",
                  argv[i]);
      status = 1;
      continue;
    }
    if ((set || unset) && oflag) {
      if (bi_setopt_name(sh, argv[i], set)) status = 1;
      continue;
    }
    if (set || unset) {
      if (bi_shopts[k].fixed >= 0) {
        if (bi_shopts[k].fixed != set) {
          interp_errf(sh, "shopt: %s: not supported in memsandbox", argv[i]);
          status = 1;
        }
        continue;
      }
      if (set)
        sh->shopts |= bi_shopts[k].flag;
      else
        sh->shopts &= ~bi_shopts[k].flag;
      continue;
    }
    {
      int v = oflag ? bi_setopt_get(sh, k) : bi_shopt_get(sh, k);
      if (!v) status = 1;
      if (!quiet) bi_shopt_line(&b, name, v, print, oflag);
    }
  }
  c = bi_out(sh, &b);
  return c ? c : status;
}

/* getopts' own diagnostics name $0, even inside a function (where other
 * errors name the function's source). */
static void bi_getopts_err(shell *sh, const char *what, const char *opt) {
  buf b;
  const char *opterr = var_value(sh->vars, "OPTERR");
  /* OPTERR whose leading number is 0 (bash reads it as atoi does: "0",
   * " 0", "abc") turns the messages off; unset or empty leaves them on */
  if (opterr && *opterr && strtol(opterr, NULL, 10) == 0) return;
  buf_init(&b, sh->m);
  buf_printf(&b, "%s: %s -- %s\n", sh->arg0 ? sh->arg0 : "bash", what, opt);
  if (!b.err) interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
}

/* help getopts */
const help_text bi_help_getopts = {
    "getopts optstring name [arg ...]",
    "\n"
    "Each call reads the next option from the positional parameters (or\n"
    "the ARGs), stores its letter in the variable NAME and the index of the\n"
    "next argument in OPTIND.  OPTSTRING lists the accepted letters; a letter\n"
    "followed by `:' takes an argument, which is stored in OPTARG.  Set\n"
    "OPTIND=1 to start again.\n"
    "\n"
    "On an unknown option or a missing argument NAME is set to `?'.  A\n"
    "leading `:' in OPTSTRING, or OPTERR=0, turns off the messages; with the\n"
    "leading `:' an unknown letter goes to OPTARG, and a missing argument "
    "sets\n"
    "NAME to `:'.\n"
    "\n"
    "Exit status:\n"
    "0 while options remain; 1 at the end of the options or on misuse.\n"};

int bi_getopts(shell *sh, int argc, char **argv) {
  const char *spec, *name, *ind;
  char **args;
  int nargs, optind, silent, rc;
  char opt[2] = {0, 0};
  const char *arg;
  char nb[24];
  if (argc < 3) {
    return bi_usage(sh, "getopts", "getopts optstring name [arg ...]");
  }
  spec = argv[1];
  name = argv[2];
  silent = spec[0] == ':';
  if (silent) spec++;
  if (argc > 3) {
    args = argv + 3;
    nargs = argc - 3;
  } else {
    args = sh->pos;
    nargs = sh->npos;
  }
  ind = var_value(sh->vars, "OPTIND");
  {
    int64_t v = 1;
    if (ind) bi_parse_int(ind, &v);
    optind = (int)v;
  }
  if (optind < 1) optind = 1;
  if (optind == 1 && sh->getopts_sub > 0 && !ind) sh->getopts_sub = 0;
  for (;;) {
    if (optind - 1 >= nargs) goto done;
    arg = args[optind - 1];
    if (sh->getopts_sub == 0) {
      if (arg[0] != '-' || !arg[1]) goto done;
      if (!strcmp(arg, "--")) {
        optind++;
        goto done;
      }
      sh->getopts_sub = 1;
    }
    break;
  }
  opt[0] = arg[sh->getopts_sub];
  sh->getopts_sub++;
  {
    const char *p = strchr(spec, opt[0]);
    int last = arg[sh->getopts_sub] == 0;
    if (!p || opt[0] == ':') {
      if (last) {
        sh->getopts_sub = 0;
        optind++;
      }
      if (silent) {
        builtin_assign(sh, name, "?", 0);
        builtin_assign(sh, "OPTARG", opt, 0);
      } else {
        bi_getopts_err(sh, "illegal option", opt);
        builtin_assign(sh, name, "?", 0);
        var_unset(sh->vars, "OPTARG");
      }
    } else if (p[1] == ':') {
      if (!last) {
        builtin_assign(sh, "OPTARG", arg + sh->getopts_sub, 0);
        sh->getopts_sub = 0;
        optind++;
        builtin_assign(sh, name, opt, 0);
      } else if (optind < nargs) {
        builtin_assign(sh, "OPTARG", args[optind], 0);
        sh->getopts_sub = 0;
        optind += 2;
        builtin_assign(sh, name, opt, 0);
      } else {
        sh->getopts_sub = 0;
        optind++;
        if (silent) {
          builtin_assign(sh, name, ":", 0);
          builtin_assign(sh, "OPTARG", opt, 0);
        } else {
          bi_getopts_err(sh, "option requires an argument", opt);
          builtin_assign(sh, name, "?", 0);
          var_unset(sh->vars, "OPTARG");
        }
      }
    } else {
      if (last) {
        sh->getopts_sub = 0;
        optind++;
      }
      builtin_assign(sh, name, opt, 0);
      var_unset(sh->vars, "OPTARG");
    }
  }
  expand_fmt_i64(nb, optind);
  rc = builtin_assign(sh, "OPTIND", nb, 0);
  return rc < 0 ? rc : 0;
done:
  sh->getopts_sub = 0;
  expand_fmt_i64(nb, optind);
  builtin_assign(sh, "OPTIND", nb, 0);
  builtin_assign(sh, name, "?", 0);
  return 1;
}

const char *bi_option_name(int shopt, size_t i) {
  if (shopt) return i < BI_NSHOPTS ? bi_shopts[i].name : NULL;
  return i < BI_NSETOPTS ? bi_setopts[i].name : NULL;
}

int builtin_optlist(shell *sh, int shopt, buf *b) {
  const char *name;
  size_t k;
  int first = 1;
  for (k = 0; (name = bi_option_name(shopt, k)); k++) {
    if (!(shopt ? bi_shopt_get(sh, k) : bi_setopt_get(sh, k))) continue;
    if (!first) buf_putc(b, ':');
    buf_puts(b, name);
    first = 0;
  }
  return b->err;
}
