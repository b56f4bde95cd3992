/* help.c - the help builtin: bash's options and layout (-d, -m, -s, glob
 * or prefix matching of topics), with texts written for this shell that
 * describe what it does, including what the sandbox leaves out.
 *
 * A builtin's topic is its builtins.def row (name and one-line purpose)
 * and the help_text beside its function: the synopsis (bash's, since it is
 * the interface) and the lines after the purpose. This file holds the
 * topics that are not builtins here: the shell's keywords, `variables`,
 * and echo, test, `[`, true, false and awk, which are commands (src/cmd/).
 * Both tables are sorted bytewise and read as one (help_next); job control's
 * `%` and the completion, history and readline topics are left out: the
 * sandbox has none of them. All of it is const data. */
#include <string.h>

#include "../glob.h"
#include "builtin.h"

typedef struct help_topic {
  const char *name, *purpose;
  const help_text *text;
} help_topic;

/* No topic: bash and sh are programs in bash, not builtins; bind, fc and
 * history belong to topics left out (readline, history). */
const help_text bi_help_none = {NULL, NULL};

static const help_topic help_others[] = {
    {"(( ... ))", "Evaluate an arithmetic expression as a command.",
     &(const help_text){
         "(( expression ))",
         "\n"
         "Evaluates EXPRESSION with the rules of $(( )), as `let' does; the\n"
         "words inside need no quoting.\n"
         "\n"
         "Exit status:\n"
         "1 when the value is 0, otherwise 0.\n"}},
    {"[", "Test a condition (the bracket form of test).",
     &(const help_text){
         "[ arg... ]",
         "\n"
         "The same as test, but the last argument must be `]'.\n"}},
    {"[[ ... ]]", "Test a condition, with no word splitting.",
     &(const help_text){
         "[[ expression ]]",
         "\n"
         "Evaluates EXPRESSION built from test's unary and binary tests.  "
         "Words\n"
         "inside are not split or globbed.  The right side of `==' and `!=' is "
         "a\n"
         "glob pattern, and of `=~' an extended regular expression whose "
         "matched\n"
         "parts go to BASH_REMATCH.  `<' and `>' compare strings.  Tests "
         "combine\n"
         "with ( ), `!', `&&' and `||'; `&&' and `||' stop as soon as the "
         "result\n"
         "is known.\n"
         "\n"
         "Exit status:\n"
         "0 when EXPRESSION is true, 1 when false, 2 on a syntax error.\n"}},
    {"awk", "Scan and process text by patterns (the awk command).",
     &(const help_text){
         "awk [-F fs] [-v var=val] [-f progfile | 'program'] [file ...]",
         "\n"
         "The awk language of POSIX with the gawk extensions scripts use most\n"
         "(gensub, asort, FPAT, BEGINFILE, switch, --csv and more).  Each\n"
         "record of the input is matched against the program's patterns and\n"
         "the actions of the patterns that match are run.  `print > file',\n"
         "`cmd | getline' and system() stay inside the sandbox; srand() and\n"
         "rand() follow the sandbox's seed, and the time functions its clock.\n"
         "Arrays of arrays, @include and @namespace are refused by name.\n"
         "`awk --help' lists the options.\n"
         "\n"
         "Exit status:\n"
         "That of the program's exit statement, 2 on an error, otherwise "
         "0.\n"}},
    {"case", "Choose commands by matching a word against patterns.",
     &(const help_text){
         "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
         "\n"
         "Expands WORD and runs the COMMANDS of the first clause that has a "
         "glob\n"
         "PATTERN matching it.  A clause ending in `;&' falls through into "
         "the\n"
         "next clause's commands; one ending in `;;&' goes on testing the\n"
         "following patterns.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run, or 0 when no pattern matches.\n"}},
    {"coproc", "Run a command as a coprocess (not available here).",
     &(const help_text){
         "coproc [NAME] command [redirections]",
         "\n"
         "A coprocess runs beside the shell with pipes both ways; the sandbox\n"
         "runs one command at a time and reports coproc as not supported.\n"}},
    {"echo", "Print the arguments.",
     &(const help_text){"echo [-neE] [arg ...]",
                        "\n"
                        "Writes the ARGs separated by single spaces and "
                        "followed by a newline.\n"
                        "\n"
                        "Options:\n"
                        "  -n   no trailing newline\n"
                        "  -e   expand backslash escapes (\\n, \\t, \\\\, "
                        "\\0NNN, \\xHH, \\c ...)\n"
                        "  -E   do not expand them (the default)\n"
                        "\n"
                        "Exit status:\n"
                        "0, unless writing fails.\n"}},
    {"false", "Fail.",
     &(const help_text){"false",
                        "\n"
                        "Does nothing.\n"
                        "\n"
                        "Exit status:\n"
                        "Always 1.\n"}},
    {"for", "Run commands once for each word of a list.",
     &(const help_text){
         "for NAME [in WORDS ... ] ; do COMMANDS; done",
         "\n"
         "Expands WORDS (or \"$@\" when `in WORDS' is absent) and runs "
         "COMMANDS\n"
         "once per word, with NAME set to it.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run, or 0 when no word is left.\n"}},
    {"for ((", "Loop with arithmetic initialise, test and step.",
     &(const help_text){
         "for (( exp1; exp2; exp3 )); do COMMANDS; done",
         "\n"
         "Evaluates EXP1 once, then runs COMMANDS and evaluates EXP3 for as\n"
         "long as EXP2 is nonzero.  An omitted expression counts as 1.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run.\n"}},
    {"function", "Define a shell function.",
     &(const help_text){
         "function name { COMMANDS ; } or name () { COMMANDS ; }",
         "\n"
         "Defines NAME as a command that runs COMMANDS in the current shell,\n"
         "with its arguments as the positional parameters.  `return' leaves "
         "it.\n"
         "\n"
         "Exit status:\n"
         "0, unless NAME is read-only.\n"}},
    {"if", "Run commands depending on a condition.",
     &(const help_text){
         "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... [ "
         "else COMMANDS; ] fi",
         "\n"
         "Runs the `if' list; when its status is 0, runs the `then' list.\n"
         "Otherwise tries each `elif' list in turn the same way, and runs the\n"
         "`else' list when none succeeds.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run, or 0 when no branch ran.\n"}},
    {"select", "Let the user pick words from a numbered menu.",
     &(const help_text){"select NAME [in WORDS ... ;] do COMMANDS; done",
                        "\n"
                        "A menu loop for a user at a terminal; the sandbox has "
                        "no terminal and\n"
                        "reports select as not supported.\n"}},
    {"test", "Test a condition.",
     &(const help_text){
         "test [expr]",
         "\n"
         "Evaluates EXPR and sets the status to 0 when it is true, 1 when "
         "false.\n"
         "With one argument, true when it is not empty.\n"
         "\n"
         "File tests (true when FILE exists and):\n"
         "  -e FILE  exists            -f FILE  is a regular file\n"
         "  -d FILE  is a directory    -L FILE  is a symbolic link (also -h)\n"
         "  -s FILE  is not empty      -r -w -x FILE  may be read, written, "
         "run\n"
         "  -b -c -p -S FILE  is a block device, character device, pipe, "
         "socket\n"
         "  -u -g -k FILE  has the setuid, setgid, sticky bit\n"
         "  -O -G FILE  is owned by the user, group\n"
         "  -N FILE  was modified since last read\n"
         "  A -nt B, A -ot B  modified after, before;  A -ef B  same file\n"
         "  -t FD  FD is a terminal (never here)\n"
         "\n"
         "String tests:\n"
         "  -z S  empty            -n S (or S)  not empty\n"
         "  A = B, A != B  equal, different;  A < B, A > B  sort order\n"
         "  -v NAME  the variable is set\n"
         "  -o OPTION  the set -o option is on\n"
         "\n"
         "Integer tests:  A -eq -ne -lt -le -gt -ge B\n"
         "\n"
         "Combine with ! EXPR, EXPR -a EXPR, EXPR -o EXPR and ( EXPR ).\n"
         "\n"
         "Exit status:\n"
         "0 true, 1 false, 2 for an invalid expression.\n"}},
    {"time", "Time a pipeline.",
     &(const help_text){
         "time [-p] pipeline",
         "\n"
         "Runs PIPELINE.  The sandbox keeps no clock for it to read, so no\n"
         "timing report is printed.\n"
         "\n"
         "Exit status:\n"
         "That of PIPELINE.\n"}},
    {"true", "Succeed.",
     &(const help_text){"true",
                        "\n"
                        "Does nothing.\n"
                        "\n"
                        "Exit status:\n"
                        "Always 0.\n"}},
    {"until", "Repeat commands until a test succeeds.",
     &(const help_text){
         "until COMMANDS; do COMMANDS-2; done",
         "\n"
         "Runs COMMANDS-2 for as long as the last command of COMMANDS fails.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run, or 0 when the body never ran.\n"}},
    {"variables", "Variables the shell sets or reads.",
     &(const help_text){
         "variables - a few variables the shell sets or reads",
         "\n"
         "Set by the shell:\n"
         "  BASH_REMATCH  the parts matched by the last [[ =~ ]]\n"
         "  BASHPID, $$   process IDs of this (sub)shell and of the shell\n"
         "  FUNCNAME, BASH_SOURCE, BASH_LINENO  the function call stack\n"
         "  LINENO        the current line of the script\n"
         "  OLDPWD, PWD   the previous and the current working directory\n"
         "  OPTARG, OPTIND  getopts' option argument and next index\n"
         "  PIPESTATUS    the statuses of the last pipeline's commands\n"
         "  RANDOM        a new pseudo-random number 0-32767 on each use\n"
         "  SHLVL         how deeply shells are nested\n"
         "\n"
         "Read by the shell:\n"
         "  CDPATH        directories cd searches for relative names\n"
         "  HOME          cd's default directory and the value of `~'\n"
         "  IFS           the characters that split words and read's fields\n"
         "  PATH          directories searched for programs\n"
         "  PS1, PS2      the prompts of the interactive shell\n"
         "  PS4           the prefix of the lines set -x prints\n"}},
    {"while", "Repeat commands while a test succeeds.",
     &(const help_text){
         "while COMMANDS; do COMMANDS-2; done",
         "\n"
         "Runs COMMANDS-2 for as long as the last command of COMMANDS "
         "succeeds.\n"
         "\n"
         "Exit status:\n"
         "That of the last command run, or 0 when the body never ran.\n"}},
    {"{ ... }", "Group commands.",
     &(const help_text){"{ COMMANDS ; }",
                        "\n"
                        "Runs COMMANDS in the current shell as one unit, so "
                        "that a redirection\n"
                        "or a pipe applies to all of them together.\n"
                        "\n"
                        "Exit status:\n"
                        "That of the last command run.\n"}},
};

static const help_topic help_builtins[] = {
#define BUILTIN(name, fn, flags, help, purpose) {name, purpose, &help},
#include "builtins.def"
#undef BUILTIN
};

#define HELP_NOTHERS (sizeof help_others / sizeof help_others[0])
#define HELP_NBUILTINS (sizeof help_builtins / sizeof help_builtins[0])

/* The next topic after *b builtins and *o others, in name order, or NULL
 * after the last; skips the builtins without a topic. */
static const help_topic *help_next(size_t *b, size_t *o) {
  for (;;) {
    const help_topic *x = *b < HELP_NBUILTINS ? &help_builtins[*b] : NULL;
    const help_topic *y = *o < HELP_NOTHERS ? &help_others[*o] : NULL;
    if (!x || (y && strcmp(y->name, x->name) < 0)) {
      if (y) ++*o;
      return y;
    }
    ++*b;
    if (x->text->synopsis) return x;
  }
}

/* Body lines with a four-space indent; empty lines stay empty. */
static void help_lines(buf *out, const char *s) {
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    if (n) {
      buf_puts(out, "    ");
      buf_put(out, s, n);
    }
    buf_putc(out, '\n');
    s += n + (nl ? 1 : 0);
  }
}

/* The description: the purpose line, then the rest of the text. */
static void help_body(buf *out, const help_topic *t) {
  help_lines(out, t->purpose);
  help_lines(out, t->text->body);
}

static void help_desc(buf *out, const help_topic *t) {
  buf_printf(out, "%s - %s\n", t->name, t->purpose);
}

static void help_show(buf *out, const help_topic *t, int mode) {
  if (mode == 'd') {
    help_desc(out, t);
  } else if (mode == 'm') {
    buf_puts(out, "NAME\n    ");
    help_desc(out, t);
    buf_printf(out, "\nSYNOPSIS\n    %s\n\nDESCRIPTION\n", t->text->synopsis);
    help_body(out, t);
    buf_puts(out,
             "\nSEE ALSO\n    help -s, help -d, the bash manual\n\n"
             "IMPLEMENTATION\n    MemSandbox shell builtin\n\n");
  } else if (mode == 's') {
    buf_printf(out, "%s: %s\n", t->name, t->text->synopsis);
  } else {
    buf_printf(out, "%s: %s\n", t->name, t->text->synopsis);
    help_body(out, t);
  }
}

/* Appends bash's help for the topics matching pats to out, like bash: a
 * pattern matches names equal to it or matching it as a glob; when none
 * does, names it prefixes. mode: 0 long help, 's' synopsis, 'd' short
 * description, 'm' manual page. Returns the number of topics shown (0: no
 * match) or MSB_ENOMEM. */
static int help_print(mem *m, buf *out, int mode, char **pats, int npats) {
  int i, found = 0;
  if (npats > 0 && glob_has_magic(pats[0], strlen(pats[0]), GLOB_EXTGLOB)) {
    buf_printf(out, "Shell commands matching keyword%s `",
               npats > 1 ? "s" : "");
    for (i = 0; i < npats; i++) buf_printf(out, "%s%s", i ? ", " : "", pats[i]);
    buf_puts(out, "'\n\n");
  }
  for (i = 0; i < npats; i++) {
    const char *p = pats[i];
    size_t plen = strlen(p);
    int pass, this_found = 0;
    for (pass = 1; pass <= 2 && !this_found; pass++) {
      size_t b = 0, o = 0;
      const help_topic *t;
      while ((t = help_next(&b, &o))) {
        const char *nm = t->name;
        int hit;
        if (pass == 1) {
          hit = !strcmp(p, nm);
          if (!hit) {
            hit = glob_match(m, p, plen, nm, strlen(nm), GLOB_EXTGLOB, NULL);
            if (hit < 0) return hit;
          }
        } else
          hit = !strncmp(p, nm, plen);
        if (hit) {
          this_found = 1;
          found++;
          help_show(out, t, mode);
        }
      }
    }
  }
  return out->err ? out->err : found;
}

/* help help */
const help_text bi_help_help = {
    "help [-dms] [pattern ...]",
    "\n"
    "Without PATTERN, lists the builtins and the sandbox's commands.  With\n"
    "PATTERN, shows every topic whose name matches it as a glob pattern, or,\n"
    "when none does, every topic whose name starts with it.\n"
    "\n"
    "Options:\n"
    "  -d   one line per topic: its name and purpose\n"
    "  -m   a manual-page layout\n"
    "  -s   the usage line only\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when no topic matches, 2 for an invalid option.\n"};

int bi_help(shell *sh, int argc, char **argv) {
  buf b;
  size_t n, k;
  const sh_builtin *t = builtin_table(&n);
  const cmd_desc *c;
  size_t cn;
  int i = 1, mode = 0, d = 0, mm = 0, s = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--help")) {
      char hn[] = "help", *hp[] = {hn};
      buf_init(&b, sh->m);
      help_print(sh->m, &b, 0, hp, 1);
      bi_out(sh, &b);
      return 2;
    }
    for (; *o; o++) {
      if (*o == 'd')
        d = 1;
      else if (*o == 'm')
        mm = 1;
      else if (*o == 's')
        s = 1;
      else {
        interp_errf(sh, "help: -%c: invalid option", *o);
        interp_usagef(sh, "help: usage: help [-dms] [pattern ...]");
        return 2;
      }
    }
  }
  mode = d ? 'd' : mm ? 'm' : s ? 's' : 0;
  if (i < argc) {
    int r;
    buf_init(&b, sh->m);
    r = help_print(sh->m, &b, mode, argv + i, argc - i);
    if (r < 0) {
      buf_finish(&b);
      return r;
    }
    r = r ? 0 : 1;
    if (r) {
      const char *p = argv[argc - 1];
      interp_errf(sh,
                  "help: no help topics match `%s'.  Try `help "
                  "help' or `man -k %s' or `info %s'.",
                  p, p, p);
    }
    bi_out(sh, &b);
    return r;
  }
  buf_init(&b, sh->m);
  buf_puts(&b, "MemSandbox bash-compatible shell. Shell builtins:\n");
  for (k = 0; k < n; k++) buf_printf(&b, " %s", t[k].name);
  buf_puts(&b, "\nCommands:\n");
  c = cmd_table(&cn);
  for (k = 0; k < cn; k++)
    buf_printf(&b, "  %-12s %s\n", c[k].name, c[k].purpose);
  return bi_out(sh, &b);
}
