/* help.c - the help builtin, in bash 5.2's words and layout.
 *
 * A builtin's topic is its builtins.def row (name and one-line purpose)
 * and the help_text beside its function: the synopsis and the lines after
 * the purpose, without bash's four-space indent. This file holds the topics
 * that are not builtins here: the shell's keywords, `variables`, and echo,
 * test, `[`, true and false, which are commands (src/cmd/). Both tables are
 * sorted bytewise, bash's topic order, and read as one (help_next); job
 * control's `%` and the completion, history and readline topics are left
 * out: the sandbox has none of them. All of it is const data. */
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
    {"(( ... ))", "Evaluate arithmetic expression.",
     &(const help_text){
         "(( expression ))",
         "\n"
         "The EXPRESSION is evaluated according to the rules for "
         "arithmetic\n"
         "evaluation.  Equivalent to `let \"EXPRESSION\"'.\n"
         "\n"
         "Exit Status:\n"
         "Returns 1 if EXPRESSION evaluates to 0; returns 0 otherwise.\n"}},
    {"[", "Evaluate conditional expression.",
     &(const help_text){
         "[ arg... ]",
         "\n"
         "This is a synonym for the \"test\" builtin, but the last argument "
         "must\n"
         "be a literal `]', to match the opening `['.\n"}},
    {"[[ ... ]]", "Execute conditional command.",
     &(const help_text){
         "[[ expression ]]",
         "\n"
         "Returns a status of 0 or 1 depending on the evaluation of the "
         "conditional\n"
         "expression EXPRESSION.  Expressions are composed of the same "
         "primaries used\n"
         "by the `test' builtin, and may be combined using the following "
         "operators:\n"
         "\n"
         "  ( EXPRESSION )\tReturns the value of EXPRESSION\n"
         "  ! EXPRESSION\t\tTrue if EXPRESSION is false; else false\n"
         "  EXPR1 && EXPR2\tTrue if both EXPR1 and EXPR2 are true; else "
         "false\n"
         "  EXPR1 || EXPR2\tTrue if either EXPR1 or EXPR2 is true; else "
         "false\n"
         "\n"
         "When the `==' and `!=' operators are used, the string to the "
         "right of\n"
         "the operator is used as a pattern and pattern matching is "
         "performed.\n"
         "When the `=~' operator is used, the string to the right of the "
         "operator\n"
         "is matched as a regular expression.\n"
         "\n"
         "The && and || operators do not evaluate EXPR2 if EXPR1 is "
         "sufficient to\n"
         "determine the expression's value.\n"
         "\n"
         "Exit Status:\n"
         "0 or 1 depending on value of EXPRESSION.\n"}},
    {"case", "Execute commands based on pattern matching.",
     &(const help_text){
         "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
         "\n"
         "Selectively execute COMMANDS based upon WORD matching PATTERN.  "
         "The\n"
         "`|' is used to separate multiple patterns.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"coproc", "Create a coprocess named NAME.",
     &(const help_text){
         "coproc [NAME] command [redirections]",
         "\n"
         "Execute COMMAND asynchronously, with the standard output and "
         "standard\n"
         "input of the command connected via a pipe to file descriptors "
         "assigned\n"
         "to indices 0 and 1 of an array variable NAME in the executing "
         "shell.\n"
         "The default NAME is \"COPROC\".\n"
         "\n"
         "Exit Status:\n"
         "The coproc command returns an exit status of 0.\n"}},
    {"echo", "Write arguments to the standard output.",
     &(const help_text){
         "echo [-neE] [arg ...]",
         "\n"
         "Display the ARGs, separated by a single space character and "
         "followed by a\n"
         "newline, on the standard output.\n"
         "\n"
         "Options:\n"
         "  -n\tdo not append a newline\n"
         "  -e\tenable interpretation of the following backslash escapes\n"
         "  -E\texplicitly suppress interpretation of backslash escapes\n"
         "\n"
         "`echo' interprets the following backslash-escaped characters:\n"
         "  \\a\talert (bell)\n"
         "  \\b\tbackspace\n"
         "  \\c\tsuppress further output\n"
         "  \\e\tescape character\n"
         "  \\E\tescape character\n"
         "  \\f\tform feed\n"
         "  \\n\tnew line\n"
         "  \\r\tcarriage return\n"
         "  \\t\thorizontal tab\n"
         "  \\v\tvertical tab\n"
         "  \\\\\tbackslash\n"
         "  \\0nnn\tthe character whose ASCII code is NNN (octal).  NNN can "
         "be\n"
         "\t\t0 to 3 octal digits\n"
         "  \\xHH\tthe eight-bit character whose value is HH (hexadecimal). "
         " HH\n"
         "\t\tcan be one or two hex digits\n"
         "  \\uHHHH\tthe Unicode character whose value is the hexadecimal "
         "value HHHH.\n"
         "\t\tHHHH can be one to four hex digits.\n"
         "  \\UHHHHHHHH the Unicode character whose value is the "
         "hexadecimal value\n"
         "\t\tHHHHHHHH. HHHHHHHH can be one to eight hex digits.\n"
         "\n"
         "Exit Status:\n"
         "Returns success unless a write error occurs.\n"}},
    {"false", "Return an unsuccessful result.",
     &(const help_text){"false",
                        "\n"
                        "Exit Status:\n"
                        "Always fails.\n"}},
    {"for", "Execute commands for each member in a list.",
     &(const help_text){
         "for NAME [in WORDS ... ] ; do COMMANDS; done",
         "\n"
         "The `for' loop executes a sequence of commands for each member in "
         "a\n"
         "list of items.  If `in WORDS ...;' is not present, then `in "
         "\"$@\"' is\n"
         "assumed.  For each element in WORDS, NAME is set to that element, "
         "and\n"
         "the COMMANDS are executed.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"for ((", "Arithmetic for loop.",
     &(const help_text){
         "for (( exp1; exp2; exp3 )); do COMMANDS; done",
         "\n"
         "Equivalent to\n"
         "\t(( EXP1 ))\n"
         "\twhile (( EXP2 )); do\n"
         "\t\tCOMMANDS\n"
         "\t\t(( EXP3 ))\n"
         "\tdone\n"
         "EXP1, EXP2, and EXP3 are arithmetic expressions.  If any "
         "expression is\n"
         "omitted, it behaves as if it evaluates to 1.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"function", "Define shell function.",
     &(const help_text){
         "function name { COMMANDS ; } or name () { COMMANDS ; }",
         "\n"
         "Create a shell function named NAME.  When invoked as a simple "
         "command,\n"
         "NAME runs COMMANDs in the calling shell's context.  When NAME is "
         "invoked,\n"
         "the arguments are passed to the function as $1...$n, and the "
         "function's\n"
         "name is in $FUNCNAME.\n"
         "\n"
         "Exit Status:\n"
         "Returns success unless NAME is readonly.\n"}},
    {"if", "Execute commands based on conditional.",
     &(const help_text){
         "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... "
         "[ else COMMANDS; ] fi",
         "\n"
         "The `if COMMANDS' list is executed.  If its exit status is zero, "
         "then the\n"
         "`then COMMANDS' list is executed.  Otherwise, each `elif "
         "COMMANDS' list is\n"
         "executed in turn, and if its exit status is zero, the "
         "corresponding\n"
         "`then COMMANDS' list is executed and the if command completes.  "
         "Otherwise,\n"
         "the `else COMMANDS' list is executed, if present.  The exit "
         "status of the\n"
         "entire construct is the exit status of the last command executed, "
         "or zero\n"
         "if no condition tested true.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"select", "Select words from a list and execute commands.",
     &(const help_text){
         "select NAME [in WORDS ... ;] do COMMANDS; done",
         "\n"
         "The WORDS are expanded, generating a list of words.  The\n"
         "set of expanded words is printed on the standard error, each\n"
         "preceded by a number.  If `in WORDS' is not present, `in \"$@\"'\n"
         "is assumed.  The PS3 prompt is then displayed and a line read\n"
         "from the standard input.  If the line consists of the number\n"
         "corresponding to one of the displayed words, then NAME is set\n"
         "to that word.  If the line is empty, WORDS and the prompt are\n"
         "redisplayed.  If EOF is read, the command completes.  Any other\n"
         "value read causes NAME to be set to null.  The line read is "
         "saved\n"
         "in the variable REPLY.  COMMANDS are executed after each "
         "selection\n"
         "until a break command is executed.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"test", "Evaluate conditional expression.",
     &(const help_text){
         "test [expr]",
         "\n"
         "Exits with a status of 0 (true) or 1 (false) depending on\n"
         "the evaluation of EXPR.  Expressions may be unary or binary.  "
         "Unary\n"
         "expressions are often used to examine the status of a file.  "
         "There\n"
         "are string operators and numeric comparison operators as well.\n"
         "\n"
         "The behavior of test depends on the number of arguments.  Read "
         "the\n"
         "bash manual page for the complete specification.\n"
         "\n"
         "File operators:\n"
         "\n"
         "  -a FILE        True if file exists.\n"
         "  -b FILE        True if file is block special.\n"
         "  -c FILE        True if file is character special.\n"
         "  -d FILE        True if file is a directory.\n"
         "  -e FILE        True if file exists.\n"
         "  -f FILE        True if file exists and is a regular file.\n"
         "  -g FILE        True if file is set-group-id.\n"
         "  -h FILE        True if file is a symbolic link.\n"
         "  -L FILE        True if file is a symbolic link.\n"
         "  -k FILE        True if file has its `sticky' bit set.\n"
         "  -p FILE        True if file is a named pipe.\n"
         "  -r FILE        True if file is readable by you.\n"
         "  -s FILE        True if file exists and is not empty.\n"
         "  -S FILE        True if file is a socket.\n"
         "  -t FD          True if FD is opened on a terminal.\n"
         "  -u FILE        True if the file is set-user-id.\n"
         "  -w FILE        True if the file is writable by you.\n"
         "  -x FILE        True if the file is executable by you.\n"
         "  -O FILE        True if the file is effectively owned by you.\n"
         "  -G FILE        True if the file is effectively owned by your "
         "group.\n"
         "  -N FILE        True if the file has been modified since it was "
         "last read.\n"
         "\n"
         "  FILE1 -nt FILE2  True if file1 is newer than file2 (according "
         "to\n"
         "                   modification date).\n"
         "\n"
         "  FILE1 -ot FILE2  True if file1 is older than file2.\n"
         "\n"
         "  FILE1 -ef FILE2  True if file1 is a hard link to file2.\n"
         "\n"
         "All file operators except -h and -L are acting on the target of a "
         "symbolic\n"
         "link, not on the symlink itself, if FILE is a symbolic link.\n"
         "\n"
         "String operators:\n"
         "\n"
         "  -z STRING      True if string is empty.\n"
         "\n"
         "  -n STRING\n"
         "     STRING      True if string is not empty.\n"
         "\n"
         "  STRING1 = STRING2\n"
         "                 True if the strings are equal.\n"
         "  STRING1 != STRING2\n"
         "                 True if the strings are not equal.\n"
         "  STRING1 < STRING2\n"
         "                 True if STRING1 sorts before STRING2 "
         "lexicographically.\n"
         "  STRING1 > STRING2\n"
         "                 True if STRING1 sorts after STRING2 "
         "lexicographically.\n"
         "\n"
         "Other operators:\n"
         "\n"
         "  -o OPTION      True if the shell option OPTION is enabled.\n"
         "  -v VAR         True if the shell variable VAR is set.\n"
         "  -R VAR         True if the shell variable VAR is set and is a "
         "name\n"
         "                 reference.\n"
         "  ! EXPR         True if expr is false.\n"
         "  EXPR1 -a EXPR2 True if both expr1 AND expr2 are true.\n"
         "  EXPR1 -o EXPR2 True if either expr1 OR expr2 is true.\n"
         "\n"
         "  arg1 OP arg2   Arithmetic tests.  OP is one of -eq, -ne,\n"
         "                 -lt, -le, -gt, or -ge.\n"
         "\n"
         "Arithmetic binary operators return true if ARG1 is equal, "
         "not-equal,\n"
         "less-than, less-than-or-equal, greater-than, or "
         "greater-than-or-equal\n"
         "than ARG2.\n"
         "\n"
         "See the bash manual page bash(1) for the handling of parameters "
         "(i.e.\n"
         "missing parameters).\n"
         "\n"
         "Exit Status:\n"
         "Returns success if EXPR evaluates to true; fails if EXPR "
         "evaluates to\n"
         "false or an invalid argument is given.\n"}},
    {"time", "Report time consumed by pipeline's execution.",
     &(const help_text){
         "time [-p] pipeline",
         "\n"
         "Execute PIPELINE and print a summary of the real time, user CPU "
         "time,\n"
         "and system CPU time spent executing PIPELINE when it terminates.\n"
         "\n"
         "Options:\n"
         "  -p\tprint the timing summary in the portable Posix format\n"
         "\n"
         "The value of the TIMEFORMAT variable is used as the output "
         "format.\n"
         "\n"
         "Exit Status:\n"
         "The return status is the return status of PIPELINE.\n"}},
    {"true", "Return a successful result.",
     &(const help_text){"true",
                        "\n"
                        "Exit Status:\n"
                        "Always succeeds.\n"}},
    {"until", "Execute commands as long as a test does not succeed.",
     &(const help_text){
         "until COMMANDS; do COMMANDS-2; done",
         "\n"
         "Expand and execute COMMANDS-2 as long as the final command in "
         "COMMANDS has\n"
         "an exit status which is not zero.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"variables", "Common shell variable names and usage.",
     &(const help_text){
         "variables - Names and meanings of some shell variables",
         "\n"
         "BASH_VERSION\tVersion information for this Bash.\n"
         "CDPATH\tA colon-separated list of directories to search\n"
         "\t\tfor directories given as arguments to `cd'.\n"
         "GLOBIGNORE\tA colon-separated list of patterns describing "
         "filenames to\n"
         "\t\tbe ignored by pathname expansion.\n"
         "HISTFILE\tThe name of the file where your command history is "
         "stored.\n"
         "HISTFILESIZE\tThe maximum number of lines this file can contain.\n"
         "HISTSIZE\tThe maximum number of history lines that a running\n"
         "\t\tshell can access.\n"
         "HOME\tThe complete pathname to your login directory.\n"
         "HOSTNAME\tThe name of the current host.\n"
         "HOSTTYPE\tThe type of CPU this version of Bash is running under.\n"
         "IGNOREEOF\tControls the action of the shell on receipt of an EOF\n"
         "\t\tcharacter as the sole input.  If set, then the value\n"
         "\t\tof it is the number of EOF characters that can be seen\n"
         "\t\tin a row on an empty line before the shell will exit\n"
         "\t\t(default 10).  When unset, EOF signifies the end of input.\n"
         "MACHTYPE\tA string describing the current system Bash is running "
         "on.\n"
         "MAILCHECK\tHow often, in seconds, Bash checks for new mail.\n"
         "MAILPATH\tA colon-separated list of filenames which Bash checks\n"
         "\t\tfor new mail.\n"
         "OSTYPE\tThe version of Unix this version of Bash is running on.\n"
         "PATH\tA colon-separated list of directories to search when\n"
         "\t\tlooking for commands.\n"
         "PROMPT_COMMAND\tA command to be executed before the printing of "
         "each\n"
         "\t\tprimary prompt.\n"
         "PS1\t\tThe primary prompt string.\n"
         "PS2\t\tThe secondary prompt string.\n"
         "PWD\t\tThe full pathname of the current directory.\n"
         "SHELLOPTS\tA colon-separated list of enabled shell options.\n"
         "TERM\tThe name of the current terminal type.\n"
         "TIMEFORMAT\tThe output format for timing statistics displayed by "
         "the\n"
         "\t\t`time' reserved word.\n"
         "auto_resume\tNon-null means a command word appearing on a line "
         "by\n"
         "\t\titself is first looked for in the list of currently\n"
         "\t\tstopped jobs.  If found there, that job is foregrounded.\n"
         "\t\tA value of `exact' means that the command word must\n"
         "\t\texactly match a command in the list of stopped jobs.  A\n"
         "\t\tvalue of `substring' means that the command word must\n"
         "\t\tmatch a substring of the job.  Any other value means that\n"
         "\t\tthe command must be a prefix of a stopped job.\n"
         "histchars\tCharacters controlling history expansion and quick\n"
         "\t\tsubstitution.  The first character is the history\n"
         "\t\tsubstitution character, usually `!'.  The second is\n"
         "\t\tthe `quick substitution' character, usually `^'.  The\n"
         "\t\tthird is the `history comment' character, usually `#'.\n"
         "HISTIGNORE\tA colon-separated list of patterns used to decide "
         "which\n"
         "\t\tcommands should be saved on the history list.\n"
         "\v\n"}},
    {"while", "Execute commands as long as a test succeeds.",
     &(const help_text){
         "while COMMANDS; do COMMANDS-2; done",
         "\n"
         "Expand and execute COMMANDS-2 as long as the final command in "
         "COMMANDS has\n"
         "an exit status of zero.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
    {"{ ... }", "Group commands as a unit.",
     &(const help_text){
         "{ COMMANDS ; }",
         "\n"
         "Run a set of commands in a group.  This is one way to redirect "
         "an\n"
         "entire set of commands.\n"
         "\n"
         "Exit Status:\n"
         "Returns the status of the last command executed.\n"}},
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

/* Body lines with bash's four-space indent; a line "\v" stands for an
 * empty line bash prints without the indent. */
static void help_lines(buf *out, const char *s) {
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    if (n != 1 || *s != '\v') {
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
             "\nSEE ALSO\n    bash(1)\n\nIMPLEMENTATION\n"
             "    GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\n"
             "    Copyright (C) 2022 Free Software Foundation, Inc.\n"
             "    License GPLv3+: GNU GPL version 3 or later "
             "<http://gnu.org/licenses/gpl.html>\n\n");
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
    "Displays brief summaries of builtin commands.  If PATTERN is\n"
    "specified, gives detailed help on all commands matching PATTERN,\n"
    "otherwise the list of help topics is printed.\n"
    "\n"
    "Options:\n"
    "  -d\toutput short description for each topic\n"
    "  -m\tdisplay usage in pseudo-manpage format\n"
    "  -s\toutput only a short usage synopsis for each topic matching\n"
    "\t\tPATTERN\n"
    "\n"
    "Arguments:\n"
    "  PATTERN\tPattern specifying a help topic\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless PATTERN is not found or an invalid option is "
    "given.\n"};

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
