/* options.c - shell options and a script's own options: set, shopt,
 * getopts. */
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
    "Change the value of shell attributes and positional parameters, or\n"
    "display the names and values of shell variables.\n"
    "\n"
    "Options:\n"
    "  -a  Mark variables which are modified or created for export.\n"
    "  -b  Notify of job termination immediately.\n"
    "  -e  Exit immediately if a command exits with a non-zero status.\n"
    "  -f  Disable file name generation (globbing).\n"
    "  -h  Remember the location of commands as they are looked up.\n"
    "  -k  All assignment arguments are placed in the environment for a\n"
    "      command, not just those that precede the command name.\n"
    "  -m  Job control is enabled.\n"
    "  -n  Read commands but do not execute them.\n"
    "  -o option-name\n"
    "      Set the variable corresponding to option-name:\n"
    "          allexport    same as -a\n"
    "          braceexpand  same as -B\n"
    "          emacs        use an emacs-style line editing interface\n"
    "          errexit      same as -e\n"
    "          errtrace     same as -E\n"
    "          functrace    same as -T\n"
    "          hashall      same as -h\n"
    "          histexpand   same as -H\n"
    "          history      enable command history\n"
    "          ignoreeof    the shell will not exit upon reading EOF\n"
    "          interactive-comments\n"
    "                       allow comments to appear in interactive "
    "commands\n"
    "          keyword      same as -k\n"
    "          monitor      same as -m\n"
    "          noclobber    same as -C\n"
    "          noexec       same as -n\n"
    "          noglob       same as -f\n"
    "          nolog        currently accepted but ignored\n"
    "          notify       same as -b\n"
    "          nounset      same as -u\n"
    "          onecmd       same as -t\n"
    "          physical     same as -P\n"
    "          pipefail     the return value of a pipeline is the status of\n"
    "                       the last command to exit with a non-zero "
    "status,\n"
    "                       or zero if no command exited with a non-zero "
    "status\n"
    "          posix        change the behavior of bash where the default\n"
    "                       operation differs from the Posix standard to\n"
    "                       match the standard\n"
    "          privileged   same as -p\n"
    "          verbose      same as -v\n"
    "          vi           use a vi-style line editing interface\n"
    "          xtrace       same as -x\n"
    "  -p  Turned on whenever the real and effective user ids do not match.\n"
    "      Disables processing of the $ENV file and importing of shell\n"
    "      functions.  Turning this option off causes the effective uid and\n"
    "      gid to be set to the real uid and gid.\n"
    "  -t  Exit after reading and executing one command.\n"
    "  -u  Treat unset variables as an error when substituting.\n"
    "  -v  Print shell input lines as they are read.\n"
    "  -x  Print commands and their arguments as they are executed.\n"
    "  -B  the shell will perform brace expansion\n"
    "  -C  If set, disallow existing regular files to be overwritten\n"
    "      by redirection of output.\n"
    "  -E  If set, the ERR trap is inherited by shell functions.\n"
    "  -H  Enable ! style history substitution.  This flag is on\n"
    "      by default when the shell is interactive.\n"
    "  -P  If set, do not resolve symbolic links when executing commands\n"
    "      such as cd which change the current directory.\n"
    "  -T  If set, the DEBUG and RETURN traps are inherited by shell "
    "functions.\n"
    "  --  Assign any remaining arguments to the positional parameters.\n"
    "      If there are no remaining arguments, the positional parameters\n"
    "      are unset.\n"
    "  -   Assign any remaining arguments to the positional parameters.\n"
    "      The -x and -v options are turned off.\n"
    "\n"
    "Using + rather than - causes these flags to be turned off.  The\n"
    "flags can also be used upon invocation of the shell.  The current\n"
    "set of flags may be found in $-.  The remaining n ARGs are positional\n"
    "parameters and are assigned, in order, to $1, $2, .. $n.  If no\n"
    "ARGs are given, all shell variables are printed.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option is given.\n"};

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
            int st = bi_setopts[k].flag
                         ? (sh->opts & bi_setopts[k].flag) != 0
                         : !strcmp(bi_setopts[k].name, "interactive-comments");
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
    "Change the setting of each shell option OPTNAME.  Without any option\n"
    "arguments, list each supplied OPTNAME, or all shell options if no\n"
    "OPTNAMEs are given, with an indication of whether or not each is set.\n"
    "\n"
    "Options:\n"
    "  -o\trestrict OPTNAMEs to those defined for use with `set -o'\n"
    "  -p\tprint each shell option with an indication of its status\n"
    "  -q\tsuppress output\n"
    "  -s\tenable (set) each OPTNAME\n"
    "  -u\tdisable (unset) each OPTNAME\n"
    "\n"
    "Exit Status:\n"
    "Returns success if OPTNAME is enabled; fails if an invalid option is\n"
    "given or OPTNAME is disabled.\n"};

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
  if (oflag) {
    for (; i < argc; i++) {
      int rc = bi_setopt_name(sh, argv[i], set || !unset);
      if (rc) return 1;
      if (!set && !unset) return 0;
    }
    return 0;
  }
  buf_init(&b, sh->m);
  if (i >= argc) {
    for (k = 0; k < BI_NSHOPTS; k++) {
      int v = bi_shopt_get(sh, k);
      if ((set && !v) || (unset && v)) continue;
      if (print || set || unset)
        buf_printf(&b, "shopt %s %s\n", v ? "-s" : "-u", bi_shopts[k].name);
      else
        buf_printf(&b, "%-15s\t%s\n", bi_shopts[k].name, v ? "on" : "off");
    }
    if (quiet) buf_clear(&b);
    return bi_out(sh, &b);
  }
  for (; i < argc; i++) {
    for (k = 0; k < BI_NSHOPTS; k++)
      if (!strcmp(bi_shopts[k].name, argv[i])) break;
    if (k == BI_NSHOPTS) {
      interp_errf(sh, "shopt: %s: invalid shell option name", argv[i]);
      status = 1;
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
    if (!bi_shopt_get(sh, k)) status = 1;
    if (!quiet) {
      if (print)
        buf_printf(&b, "shopt %s %s\n", bi_shopt_get(sh, k) ? "-s" : "-u",
                   bi_shopts[k].name);
      else
        buf_printf(&b, "%-15s\t%s\n", bi_shopts[k].name,
                   bi_shopt_get(sh, k) ? "on" : "off");
    }
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

/* getopts' own diagnostics name $0, even inside a function (where other
 * errors name the function's source). */
static void bi_getopts_err(shell *sh, const char *what, const char *opt) {
  buf b;
  buf_init(&b, sh->m);
  buf_printf(&b, "%s: %s -- %s\n", sh->arg0 ? sh->arg0 : "bash", what, opt);
  if (!b.err) interp_write(sh, 2, b.p, b.len);
  buf_finish(&b);
}

/* help getopts */
const help_text bi_help_getopts = {
    "getopts optstring name [arg ...]",
    "\n"
    "Getopts is used by shell procedures to parse positional parameters\n"
    "as options.\n"
    "\n"
    "OPTSTRING contains the option letters to be recognized; if a letter\n"
    "is followed by a colon, the option is expected to have an argument,\n"
    "which should be separated from it by white space.\n"
    "\n"
    "Each time it is invoked, getopts will place the next option in the\n"
    "shell variable $name, initializing name if it does not exist, and\n"
    "the index of the next argument to be processed into the shell\n"
    "variable OPTIND.  OPTIND is initialized to 1 each time the shell or\n"
    "a shell script is invoked.  When an option requires an argument,\n"
    "getopts places that argument into the shell variable OPTARG.\n"
    "\n"
    "getopts reports errors in one of two ways.  If the first character\n"
    "of OPTSTRING is a colon, getopts uses silent error reporting.  In\n"
    "this mode, no error messages are printed.  If an invalid option is\n"
    "seen, getopts places the option character found into OPTARG.  If a\n"
    "required argument is not found, getopts places a ':' into NAME and\n"
    "sets OPTARG to the option character found.  If getopts is not in\n"
    "silent mode, and an invalid option is seen, getopts places '?' into\n"
    "NAME and unsets OPTARG.  If a required argument is not found, a '?'\n"
    "is placed in NAME, OPTARG is unset, and a diagnostic message is\n"
    "printed.\n"
    "\n"
    "If the shell variable OPTERR has the value 0, getopts disables the\n"
    "printing of error messages, even if the first character of\n"
    "OPTSTRING is not a colon.  OPTERR has the value 1 by default.\n"
    "\n"
    "Getopts normally parses the positional parameters, but if arguments\n"
    "are supplied as ARG values, they are parsed instead.\n"
    "\n"
    "Exit Status:\n"
    "Returns success if an option is found; fails if the end of options is\n"
    "encountered or an error occurs.\n"};

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
