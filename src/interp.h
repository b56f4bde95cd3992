/* interp.h - interpreter internals shared by src/interp*.c, expand.c and
 * src/builtin/ (not an API: the API is shell.h).
 *
 * I/O model: a shell has ten file descriptors, each a reference to a stream.
 * Output streams append to a buffer (the run's stdout/stderr, a pipe stage,
 * a command substitution) or to a vfs file (write-through, per command);
 * input streams hold bytes with a read offset (here-documents, files,
 * pipe stages). Commands get all remaining input at once and write into
 * buffers that the interpreter then delivers to the target stream. */
#ifndef MSB_INTERP_H
#define MSB_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "buf.h"
#include "cmd/cmd.h"
#include "limits.h"
#include "mem.h"
#include "parse.h"
#include "secret.h"
#include "shell.h"
#include "var.h"
#include "vfs.h"

enum { SH_S_NULL, SH_S_BUF, SH_S_FILE, SH_S_IN };

/* Pipes. Stages run one after another, so a pipe holds everything its
 * writer produced, up to a capacity of max_string_bytes. A writer that
 * reaches the capacity is stopped there as if the reader had gone and it
 * got SIGPIPE (status 141; a builtin's subshell exits): the pipe is "cut".
 * That is only what bash does when the reader stops early (head -3), so
 * the reading side checks: a reader that reaches the end of a cut pipe's
 * data would have read on, into bytes that were never made, and the run
 * stops with the pipe capacity limit instead of a wrong answer. */
typedef struct sh_stream {
  int refs;
  int kind;
  buf *ob;       /* SH_S_BUF target (borrowed; outlives the stream) */
  char *path;    /* SH_S_FILE absolute path (owned) */
  uint8_t *data; /* SH_S_IN bytes (owned) */
  size_t len, pos;
  /* SH_S_IN: how far its readers really read; pos, except that a command
   * which stopped early (head -1) read no further than where it stopped,
   * though it consumed everything (see cmd_ctx.in_stop). */
  size_t reach;
  int regular;   /* SH_S_IN read from a regular file by "<" */
  int rderr;     /* SH_S_IN: MSB_E* every read fails with (`< dir`) */
  int pipe;      /* SH_S_BUF: a pipeline's pipe (the capacity applies) */
  /* SH_S_BUF pipe: its writer was stopped at the capacity, later writes
   * are lost; SH_S_IN: the bytes are only the start of such a pipe. */
  int cut;
  const struct shell *owner; /* SH_S_BUF pipe: the shell running the
                                pipeline (its stages' subshells differ) */
  /* SH_S_FILE opened while secrets are bound: how to put the target back
   * when a write is refused (owned); after that, refused is set and every
   * later write fails the same way */
  vfs_undo *undo;
  int refused;
} sh_stream;

/* An output process substitution >(cmd) waiting for its writer: the
 * command (as text, run like bash's reparse of it), the file the writer
 * writes (/dev/fd/N) and the standard output the substitution had. */
typedef struct sh_procout {
  char *path, *text;
  sh_stream *out;
  int line;
} sh_procout;

/* Open fds per shell: 0-9 for scripts, 10 up for {var} redirections
 * (bash allocates from 10; its own ceiling is the process's fd limit). */
#define SH_NFD 64
/* The first fd a {var} redirection takes. */
#define SH_FD_VAR_BASE 10

/* Shell options (set -o). */
#define SH_O_ERREXIT 0x1u
#define SH_O_NOUNSET 0x2u
#define SH_O_XTRACE 0x4u
#define SH_O_NOGLOB 0x8u
#define SH_O_PIPEFAIL 0x10u
#define SH_O_ALLEXPORT 0x20u
#define SH_O_NOCLOBBER 0x40u
#define SH_O_VERBOSE 0x80u
#define SH_O_NOEXEC 0x100u
#define SH_O_BRACE 0x200u  /* braceexpand, on by default */
#define SH_O_HASHALL 0x400u
#define SH_O_ERRTRACE 0x800u  /* set -E: functions inherit the ERR trap */
#define SH_O_FUNCTRACE 0x1000u /* set -T: recorded for $- and set -o */
#define SH_O_MONITOR 0x2000u  /* set -m: recorded; there is no job control */
#define SH_O_CSTRING 0x10000u /* interp_run_script: text came from -c */

/* shopt options. */
#define SH_SO_EXTGLOB 0x1u
#define SH_SO_NULLGLOB 0x2u
#define SH_SO_DOTGLOB 0x4u
#define SH_SO_GLOBSTAR 0x8u
#define SH_SO_FAILGLOB 0x10u
#define SH_SO_NOCASEGLOB 0x20u
#define SH_SO_NOCASEMATCH 0x40u
#define SH_SO_EXPAND_ALIASES 0x80u
#define SH_SO_LASTPIPE 0x100u
#define SH_SO_INHERIT_ERREXIT 0x200u

/* Control flow after a command. */
enum {
  SH_FLOW_NONE,
  SH_FLOW_BREAK,
  SH_FLOW_CONT,
  SH_FLOW_RETURN,
  SH_FLOW_EXIT,
  /* an expansion or assignment error: bash abandons the rest of the
   * command line (up to the enclosing script, eval or source line) but
   * not the shell */
  SH_FLOW_ABORT
};
/* The flows that end a subshell or command substitution. */
#define SH_FLOW_ENDS(f) ((f) == SH_FLOW_EXIT || (f) == SH_FLOW_ABORT)

typedef struct sh_func {
  char *name;
  ast_node *body;
  ast_tree *tree;
  int trace; /* declare -ft: DEBUG and RETURN traps run inside it */
} sh_func;

/* One entry of the call stack behind FUNCNAME, BASH_SOURCE, BASH_LINENO:
 * a function call or a `source`. Strings are borrowed (the function's tree
 * or the source builtin's arguments outlive the frame). */
typedef struct sh_frame {
  const char *name; /* function name or "source" */
  const char *src;  /* file the function was defined in / file sourced */
  int line;         /* line of the call in the caller */
} sh_frame;

typedef struct sh_alias {
  char *name, *value;
} sh_alias;

/* Native stack. Every recursion of the interpreter is charged what it
 * costs in native stack, and so is the parser's (parse_set_stack) and
 * arithmetic's, so that no script exhausts it: in wasm that stack is V8's,
 * 984 KB by default in Node and shared with the host's JavaScript, and
 * overflowing it fails the whole sandbox. The costs are bytes per level
 * as measured on the wasm build in V8's optimizing tier (whose frames are
 * the largest), rounded up; SH_STACK_MAX leaves room for the host's frames
 * and for the work of the innermost command. Passing it stops the run as
 * max_call_depth does, whatever that limit's value; arithmetic alone ends
 * just its expression, with bash's "expression recursion level exceeded".
 * Measured again with Asyncify (see coro.c): its frames are larger, so
 * the room is less than the 834 KB the host leaves. */
#ifndef SH_STACK_MAX
#define SH_STACK_MAX ((size_t)620 << 10)
#endif
/* Room kept below the deepest interpreter frame in wasm's stack in linear
 * memory, for the innermost command's own frames (see interp_shadow_low). */
#define SH_SHADOW_RESERVE ((uintptr_t)160 << 10)
#define SH_STACK_NODE 240    /* interp_node and a compound's handler */
#define SH_STACK_LOOP 300    /* a loop's handler, beyond its node */
#define SH_STACK_CALL 260    /* a function call, beyond its body's node */
#define SH_STACK_EVAL 420    /* eval, source, a trap: beyond the parse */
#define SH_STACK_SCRIPT 230  /* bash FILE, bash -c: beyond the eval */
#define SH_STACK_SUB 130     /* a subshell, a pipeline stage */
#define SH_STACK_CMDRUN 1300 /* find -exec, xargs, env, timeout: a command */
#define SH_STACK_CAPTURE 1000 /* $( ), beyond the word's expansion */
#define SH_STACK_WORD 330    /* one level of word expansion */
#define SH_STACK_COND 300    /* one level of [[ ]] */
#define SH_STACK_BRACE 360   /* one level of brace expansion */
#define SH_STACK_ARITH 1400  /* one level of arithmetic nesting */

/* Per-exec state shared by a shell and its subshell copies. */
typedef struct sh_run {
  uint64_t steps;
  /* Step count at which a command run under `timeout` stops (0 = none);
   * reaching it sets limit to LIMIT_TIMEOUT. */
  uint64_t step_cap;
  limit_id limit;       /* the limit that stopped the run */
  shell_pace *pace;     /* the host's slicing (NULL: run to the end) */
  int no_yield;         /* inside a builtin or command: no suspension */
  int pipe_stop;        /* that was a read past the end of a cut pipe */
  size_t stack;         /* native stack charged so far (SH_STACK_*) */
  uint64_t rx_units;    /* regex work paid for and not yet done */
  uint64_t byte_carry;  /* bytes of work not yet paid (interp_charge_bytes) */
  buf out, err;         /* the run's stdout and stderr */
  uint64_t out_drop, err_drop;
  int procsub_next;     /* next /dev/fd/N number for <(...) */
  int made_devfd;       /* we created /dev/fd */
  int write_err;        /* last failed write to a file stream (MSB_E*) */
  /* secrets bound for this exec: out and err then only stage raw bytes,
   * which move through the redacting streams into red_out / red_err */
  const secret_set *sec;
  secret_stream rout, rerr;
  buf red_out, red_err;
  secret_window written; /* the tail of the file contents the run wrote */
} sh_run;

struct shell {
  int refs; /* shell_share: a shared session does not change */
  mem *m;
  vfs *fs;
  const msb_limits *lim;
  int64_t *clock_ns;
  uint64_t rng;
  var_store *vars;
  char *cwd;
  sh_func *funcs;       /* open hash by name */
  size_t funcn, funcused;
  sh_alias *aliases;
  size_t naliases;
  struct bi_compspec *compspecs; /* `complete` specs (builtin/complete.c) */
  size_t ncompspecs;
  sh_procout *procout; /* >(...) readers not run yet */
  size_t nprocout, procoutcap;
  unsigned opts, shopts;
  char **pos;           /* $1... (owned) */
  int npos;
  char *arg0;
  char *trap_exit, *trap_err;
  char **trap_sig; /* signal traps by number (trap.c), NULL while none */
  char *last_arg;  /* $_: the last word of the previous simple command */
  /* $BASH_COMMAND: the simple command running, kept while a trap runs;
   * eval, source and calls put theirs back, so it never outlives its tree */
  const struct ast_node *cur_cmd;
  int in_trap;
  int status;           /* $? */
  int bg_pid;           /* $! (0 = none) */
  /* background jobs: each ran to completion where it was started; wait
   * reports their statuses (interp_wait) */
  struct sh_job *jobs;
  int njobs, jobcap;
  int next_pid;
  int pid;              /* $BASHPID */
  int cond_neg;         /* set -x: the [[ ]] primary being traced had `!` */
  int subshell;         /* $BASH_SUBSHELL */
  int64_t seconds_base;
  unsigned umask;
  /* execution */
  sh_run *run;
  sh_stream *fd[SH_NFD];
  int flow, flow_n;
  int loops;            /* enclosing loop count (break/continue) */
  int funcs_active;     /* function call depth (local, return) */
  int sourcing;         /* source depth (return) */
  int depth;            /* call depth for max_call_depth */
  int errexit_ignore;   /* >0 inside conditions */
  int in_err_trap;
  int line;
  int last_cmdsub_status;
  int cmdsub_ran;
  const char *fail;     /* CMD_FAIL_* of the last simple command, or NULL */
  const char *funcname; /* innermost function ($FUNCNAME) */
  sh_frame *fstack;     /* calls and sources, outermost first (FUNCNAME) */
  int nfstack, fstackcap;
  const char *main_src; /* script file (the "main" frame); NULL for -c */
  const char *cur_src;  /* file being parsed (NULL: -c text, "environment") */
  const char *parse_prefix; /* syntax error prefix: "-c: ", "eval: " */
  char **dirstack;
  int ndirs;
  int syntax_error;     /* interp_string hit a parse error */
  char *trap_return;    /* RETURN trap */
  int trap_return_level; /* the call (cur_call) that set the RETURN trap */
  char *trap_debug;      /* DEBUG trap */
  int fn_traced;         /* the running function has declare -t */
  int call_seq, cur_call; /* function calls so far; the one running (0: none) */
  int xlevel; /* set -x nesting (eval, command substitution) */
  int getopts_sub; /* getopts position inside a clustered arg */
  char **decl_argv; /* declaration builtins: argv entries whose */
  ast_assign **decl_asg; /* array assignment is pending (a=(...)) */
  int ndecl;
  int *pstat; /* $PIPESTATUS of the last pipeline */
  int npstat, pstatcap;
  ast_tree *tree; /* tree of the code running (function defs) */
  parser *parser; /* top-level parser (extglob changes) */
  int script_mode; /* running a script file (errors name it) */
  shell_pace *pace; /* the host's slicing for the next exec */
  char **env_override; /* environment a command run by env/xargs gets
                           instead of the shell's exports (borrowed) */
};

/* ---- src/interp*.c --------------------------------------------------- */

/* Runs a node; returns the exit status (0-255) or a negative MSB_E* code
 * that stops the whole run (limits, out of memory). */
int interp_node(shell *sh, ast_node *n);
/* Runs deferred command-substitution text in a captured subshell. */
/* Pushes a FUNCNAME / BASH_SOURCE frame; the caller pops (nfstack--). */
int interp_push_frame(shell *sh, const char *name, const char *src);
int interp_capture_text(shell *sh, const char *text, size_t len, int line,
                        buf *out);
/* Runs a script text (eval, source, bash -c) in sh. name: for messages. */
int interp_string(shell *sh, const char *src, size_t len, int first_line);
/* Charges n steps; MSB_ELIMIT (and sets run->limit) when exhausted. */
int interp_tick(shell *sh, uint64_t n);
/* interp_tick(sh, 1) at a statement or a loop's turn, where a paced run
 * may suspend (see shell_pace); MSB_ELIMIT when the host ended it. */
int interp_tick_pace(shell *sh);
/* Bytes of the shell's own work per step: 4 times the commands' rate
 * (CMD_BYTES_PER_STEP), measured in wasm on 2026-12-02. An assignment of
 * a 60 MB value costs about 90 ms (1.5 ns a byte: the expansion, the copy
 * into the variable, freeing the old value), an unquoted expansion about
 * 200 ms (IFS scan, glob scan, copies), and the cheapest step 0.13 us; at
 * 256 bytes a step the shell's byte work to the end of the normal
 * profile's budget takes seconds, not minutes (bench/bombs.mjs). */
#define SH_BYTES_PER_STEP 256u
/* Charges n bytes copied, scanned or matched, one step per
 * SH_BYTES_PER_STEP; as interp_tick. The places that move data in bulk
 * call it: expansion results and field splitting (expand.c), assignments
 * (interp_assign.c), writes to any stream and input consumed
 * (interp_io.c), pattern removal and substitution. */
int interp_charge_bytes(shell *sh, uint64_t n);
/* Charges n bytes of native stack for a recursion (SH_STACK_*): 0, or
 * MSB_ELIMIT with a message when SH_STACK_MAX would be passed (the run
 * stops). Pair a 0 with interp_stack_pop(sh, n). */
int interp_stack_push(shell *sh, size_t n);
void interp_stack_pop(shell *sh, size_t n);
/* Stops the run as interp_stack_push does when the stack is exhausted. */
int interp_stack_fail(shell *sh);
/* Native stack left for a nested parse or evaluation. */
size_t interp_stack_left(const shell *sh);
/* Writes to fd 1 / fd 2 / any fd. */
int interp_write(shell *sh, int fd, const void *p, size_t n);
/* Formats a diagnostic "bash: line N: " + text + "\n" on fd 2. */
int interp_errf(shell *sh, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A builtin's usage line ("NAME: usage: ..."), printed without prefix. */
int interp_usagef(shell *sh, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* As interp_errf without the "line N: " part. */
int interp_errf_noline(shell *sh, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends the set -x prefix (PS4 with its first byte repeated). */
int interp_ps4(shell *sh, buf *b);
/* Remaining input on fd (borrowed), without consuming it. */
int interp_input(shell *sh, int fd, const uint8_t **p, size_t *n);
/* Consumes n bytes of input on fd. */
void interp_consume(shell *sh, int fd, size_t n);
/* A reader (read, mapfile) reached the end of fd's input. 0, or when that
 * input is a cut pipe (see sh_stream) MSB_ELIMIT: the run stops. */
int interp_input_end(shell *sh, int fd);
/* Runs a subshell copy of sh with fd 1 captured into out (command
 * substitution). Returns the status or a fatal code. */
int interp_capture(shell *sh, ast_node *n, buf *out);
/* Registers the reader of an output process substitution: cmd runs once
 * the command that expanded it is done writing path (see interp_node). */
int interp_procout_add(shell *sh, const char *path, const ast_node *cmd,
                       int line);
/* Frees the readers not run yet (shell teardown). */
void interp_procout_free(shell *sh);
/* $! and the job table after a process substitution ran as pid. */
int interp_procsub_done(shell *sh, int pid, int status);
/* Runs argv through the lookup (functions, builtins, table). */
int interp_run_argv(shell *sh, int argc, char **argv, int no_funcs);
/* Whether name is an executable file in a $PATH directory (a script the
 * user put there); its path in full. */
int interp_path_script(shell *sh, const char *name, buf *full);
/* Performs an assignment word (fl: VS_GLOBAL). 0, 1 (error printed) or a
 * fatal code. */
int interp_assign(shell *sh, ast_assign *a, unsigned fl);
/* wait [-n] [-p var] [pid ...] for the finished background jobs; argv
 * past the options bi_wait checked. */
int interp_wait(shell *sh, int argc, char **argv);
/* 1 when pid is a background job this shell ran (and so has finished). */
int interp_job_known(shell *sh, int pid);
/* bind, fc, history, suspend and disown as a non-interactive bash answers
 * them (no line editing, no history list, no job control). */
int interp_interactive_builtin(shell *sh, int argc, char **argv);
/* Assigns val to ref, "name[subscript]" (the target of a nameref to an
 * array element); fl: VS_APPEND. 0, 1 (message printed) or a fatal code. */
int interp_assign_element(shell *sh, const char *ref, const char *val,
                          unsigned fl);
/* Makes nameref v refer to target, checked as bash (cmd names the builtin
 * in the message, NULL for none). 0, 1 (message printed) or MSB_ENOMEM. */
int interp_set_nameref(shell *sh, var *v, const char *target, const char *cmd);
/* Runs a command from the table with the current fds. */
int interp_cmd(shell *sh, const cmd_desc *d, int argc, char **argv);
/* Function table. */
sh_func *interp_func_get(shell *sh, const char *name);
int interp_func_set(shell *sh, const char *name, ast_node *body,
                    ast_tree *tree);
void interp_func_unset(shell *sh, const char *name);
/* Copies a shell for a subshell (shares the run). NULL on ENOMEM. */
shell *interp_clone(shell *sh);
/* Absolute path of p against cwd (appends to out). */
int interp_abspath(shell *sh, const char *p, buf *out);
/* Sets $? style helpers. */
int interp_set_var(shell *sh, const char *name, const char *val);
/* Positional parameters. */
int interp_set_pos(shell *sh, char **argv, int argc);
/* Stream helpers. */
sh_stream *interp_stream_new(shell *sh, int kind);
void interp_stream_unref(shell *sh, sh_stream *s);
/* Records $PIPESTATUS. */
int interp_set_pipestatus(shell *sh, const int *codes, int n);
/* Runs a trap string. */
int interp_run_trap(shell *sh, const char *cmd);
/* Runs the DEBUG trap before a command: never inside a trap, and inside a
 * function only under set -T or declare -t (bash's rules). 0 or a fatal
 * error. */
int interp_debug_trap(shell *sh);
/* Next pseudo-random 15-bit number ($RANDOM). */
int interp_random(shell *sh);
/* Runs a shell-script file (bash f.sh, ./f.sh): a child shell with only
 * exported variables. */
int interp_run_script(shell *sh, const char *path, const char *src, size_t len,
                      int argc, char **argv, unsigned setopts);

/* ---- expand.c ------------------------------------------------------- */

/* Expands a word list into fields (brace, tilde, parameter, command,
 * arithmetic, split, glob, quote removal). *argv is an arena-free owned
 * array (free with expand_free). Returns 0, 1 (expansion error, message
 * printed, status in sh->status) or a fatal negative code. */
int expand_words(shell *sh, ast_word *w, char ***argv, int *argc);
void expand_free(shell *sh, char **argv, int argc);
/* Expands one word without splitting or globbing (assignment values,
 * redirection targets when not ambiguous, here-strings). *out owned. */
int expand_string(shell *sh, ast_word *w, char **out);
/* Expands a word as a pattern: quoted characters backslash-escaped. */
int expand_pattern(shell *sh, ast_word *w, char **out);
/* Expands an arithmetic word and evaluates it; errors are printed with
 * what ("((", "let") as prefix when not NULL. */
int expand_arith(shell *sh, ast_word *w, int64_t *val, const char *what);
/* Decimal text of v (b holds at least 24 bytes). */
void expand_fmt_i64(char *b, int64_t v);
/* SECONDS=val: $SECONDS counts on from val. */
void expand_seconds_assigned(shell *sh, const char *val);
/* Evaluates arithmetic text directly. what: prefix for errors ("((" or
 * "let" or NULL). */
int expand_arith_text(shell *sh, const char *s, size_t n, int64_t *val,
                      const char *what);
/* Expands a here-document body. */
int expand_heredoc(shell *sh, ast_word *w, char **out);
/* Value of a parameter name ("1", "@", "x"); NULL when unset. Owned copy
 * in *out (NULL when unset). */
int expand_param_value(shell *sh, const char *name, char **out);
/* Bash-style quoting for set -x and ${x@Q} / declare -p. */
int expand_quote(buf *b, const char *s, int force);
/* Splits s by IFS into fields like read does (max fields; the last takes
 * the rest). */
int expand_split_read(shell *sh, const char *s, size_t n, int max,
                      char ***fields, int *count);
/* Pattern match with shell options (nocasematch; extglob as shopt says,
 * or always for [[ ]] when cond is set, as in bash 5.2). */
int expand_match(shell *sh, const char *pat, const char *s, int cond);

/* Appends a function definition in bash's `declare -f` layout (the
 * parser's ast_print_function) and a newline. A body the printer cannot
 * reproduce exactly is refused with a message and MSB_ENOTSUP. */
int interp_print_func(shell *sh, const char *name, const ast_node *body,
                      buf *b);

/* ---- builtin/ (table.c, vars.c, util.c) ---------------------------- */

typedef int (*sh_builtin_fn)(shell *sh, int argc, char **argv);
typedef struct sh_builtin {
  const char *name;
  sh_builtin_fn fn;
  int special;
} sh_builtin;

/* Runs a shell builtin as any call of it does (the policy checked). */
int interp_builtin(shell *sh, const sh_builtin *b, int argc, char **argv);
/* The shell's own builtins (binary search). NULL when not one. */
const sh_builtin *builtin_find(const char *name);
const sh_builtin *builtin_table(size_t *count);
/* Runs builtin b (argv[0] is its name); see builtin.c for why some are
 * called directly. */
int builtin_run(shell *sh, const sh_builtin *b, int argc, char **argv);
/* Assigns name=value honoring attributes (integer). Prints errors. */
int builtin_assign(shell *sh, const char *name, const char *val,
                   unsigned flags);
/* GLOBIGNORE may have changed: dotglob follows it as in bash. */
void builtin_globignore_changed(shell *sh);
/* Frees the completion specs `complete` recorded (shell teardown). */
void bi_complete_free(shell *sh);
/* Gives c (a copy of sh) sh's completion specs: 0 or MSB_ENOMEM. */
int bi_complete_copy(shell *c, const shell *sh);
/* $SHELLOPTS (shopt 0) or $BASHOPTS (1): the options on, `:`-joined. */
int builtin_optlist(shell *sh, int shopt, buf *b);
/* A value as declare -p shows it: "..." or $'...'. */
void builtin_dquote(buf *b, const char *s);
/* declare -p style description of one variable into b. */
int builtin_describe(shell *sh, var *v, buf *b);

#endif
