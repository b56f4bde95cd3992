/* cmd.h - the command interface: what a command sees and may use.
 *
 * A command is a function of its context: arguments, the whole stdin as
 * bytes (pipelines run stage by stage), output and error buffers, the
 * filesystem and a per-invocation arena. It never touches shell internals;
 * the few commands that run other commands (xargs, find -exec, env, timeout)
 * call back through ctx->run. Commands return their exit status (0-255).
 *
 * Commands are listed once in commands.def, sorted by name:
 *   CMD(name, function, "file", flags, "one-line purpose")
 * and each lives in src/cmd/<file> (usually NAME.c), which opens with its
 * usage text. */
#ifndef MSB_CMD_H
#define MSB_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "../buf.h"
#include "../mem.h"
#include "../vfs.h"
#include "memsandbox.h"

/* in_err when stdin is closed (`<&-`): not an MSB_E* code, as the API has
 * no descriptors; cmd_strerror words it "Bad file descriptor". */
#define CMD_EBADF (-1000)

typedef struct cmd_ctx cmd_ctx;
typedef int (*cmd_fn)(cmd_ctx *c);

/* Failure classes (msb_result.failure, the reference's failure_code) of
 * the command whose status a run ends with. */
#define CMD_FAIL_USAGE "invalid_argument"
#define CMD_FAIL_WORKSPACE "workspace_failure"
#define CMD_FAIL_NO_MATCH "no_match"
#define CMD_FAIL_NOT_FOUND "command_not_found"
#define CMD_FAIL_NOT_EXEC "command_not_executable"
#define CMD_FAIL_REDIRECT "redirection_failure"
#define CMD_FAIL_LIMIT "execution_limit_exceeded"
#define CMD_FAIL_OTHER "nonzero_exit" /* a status nothing explained */

/* Descriptor flags. */
#define CMD_BUILTIN 1u /* `type` reports "is a shell builtin" */
/* Its output for the start of its input is the start of its output for
 * all of it (cat, tr, cut): what it wrote from a cut pipe is true. */
#define CMD_PREFIX 2u
/* Its main loop may pause a paced run (cmd_tick_pause), so the shell calls
 * it directly (cmd_call): a long `seq`, `cat` or `grep` no longer holds
 * the host for its whole length. */
#define CMD_PAUSES 4u

struct coro;
/* Where a paced run (issue 17) may pause inside a command: given by the
 * shell when it called the command directly (cmd_call) from a point where
 * the run may pause; NULL otherwise (pausing then would lose the frames of
 * the calls through function pointers between, which wasm's Asyncify does
 * not instrument). The steps alone decide where the run pauses. */
typedef struct cmd_pace {
  struct coro *co;       /* the run's coroutine */
  const uint64_t *steps; /* the run's steps so far */
  const uint64_t *until; /* pause once steps reach it; 0: never */
  uint64_t *at;          /* where the run paused, for the host */
} cmd_pace;

typedef struct cmd_desc {
  const char *name;
  cmd_fn fn;
  unsigned flags;
  const char *purpose;
} cmd_desc;

struct cmd_ctx {
  mem *m;                /* sandbox allocator: only for data that outlives */
  arena *a;              /* per-invocation arena, freed by the dispatcher */
  vfs *fs;
  const msb_limits *lim;
  const char *cwd;       /* absolute working directory */
  int argc;
  char **argv;           /* argv[0] is the name as invoked */
  const uint8_t *in;     /* all of stdin (borrowed) */
  size_t in_len;
  /* Bytes of stdin the command consumed (the shell drops them, so the next
   * command sees the rest): cmd_input of "-" sets in_len; commands that
   * read c->in directly set it themselves. */
  size_t in_used;
  /* stdin is a regular file (`< file`): a command may leave the offset
   * just past what it used, like GNU head does with lseek, and wc sizes
   * its columns as for a named file. */
  int in_regular;
  /* MSB_E* every read of stdin fails with (`< dir`: MSB_EISDIR), else 0;
   * cmd_input of "-" returns it, commands reading c->in check it. */
  int in_err;
  int in_failed; /* a read hit in_err (cmd_input sets it) */
  /* stdin is only the start of a pipe whose writer was stopped at the
   * pipe's capacity (the shell sets it; see interp.h): a command that
   * reads it to the end would be answering for data that does not exist,
   * and the shell stops the run then. */
  int in_cut;
  /* The command read stdin to its end: cmd_input of "-" sets it, as do
   * commands reading c->in whole; one that stops early because it has
   * what it needs (head -3, grep -m1, sed 3q) clears it again. */
  int in_eof;
  /* With in_eof cleared: how far into stdin the command had read when it
   * stopped (0, the default, counts as near the start). The shell gives a
   * pipe's writer SIGPIPE when much more than a pipe's buffer lay past it. */
  size_t in_stop;
  const unsigned *umask; /* the shell's umask (borrowed); NULL means 022 */
  buf *out;              /* stdout */
  buf *err;              /* stderr */
  /* What made the command fail (CMD_FAIL_*), recorded where it failed:
   * usage errors by the option parser, other diagnostics (cmd_err) as
   * workspace failures, grep's empty selection as no_match. */
  const char *fail;
  char **envp;           /* exported "NAME=value", NULL-terminated */
  uint64_t *rng;         /* shared random state (seeded by the host) */
  /* Bytes cmd_input gives of an endless device (/dev/zero, /dev/urandom,
   * /dev/random, /dev/full): what the command reads at most (head -c N,
   * od -N N). 0 refuses such a device (MSB_ENOTSUP): read to its end, it
   * never ends. */
  uint64_t dev_want;
  int64_t *clock_ns;     /* sandbox clock; sleep advances it */
  uint64_t out_max;      /* cmd_write fails with MSB_ELIMIT past this */
  void *shell;           /* opaque, for run() */
  /* Runs argv as a command (builtin, function or command) with the given
   * stdin; output goes to out/err. Returns the exit status, or a negative
   * MSB_E* code when a limit stops everything. */
  int (*run)(cmd_ctx *c, int argc, char **argv, const uint8_t *in,
             size_t in_len, buf *out, buf *err);
  /* When run_steps is non-zero, run() stops the command once it has used
   * that many execution steps, sets run_timedout and returns 124 (timeout
   * uses this to interrupt a runaway command). */
  uint64_t run_steps;
  int run_timedout;
  /* Charges n steps of work; returns MSB_ELIMIT when the budget is gone, in
   * which case the command must stop and return that code. */
  int (*tick)(cmd_ctx *c, uint64_t n);
  /* wasm: the lowest address the C stack may reach (the run's coroutine
   * stack, coro.h; 0 on the module's own stack, which starts at 0) */
  uintptr_t stack_floor;
  uint64_t rx_units; /* regex work paid for and not yet done (cmd_rx_exec) */
  uint64_t byte_carry; /* bytes of work not yet paid (cmd_charge_bytes) */
  const cmd_pace *pace; /* see cmd_pace; NULL: the command runs whole */
};

/* Work by volume: every CMD_BYTES_PER_STEP bytes a command copies, scans
 * or matches (files read) cost one step, so that the step limit bounds
 * time whatever a step does: moving 1 KiB takes about as long as the
 * cheapest shell step in wasm. The shell's own byte work (expansions,
 * assignments, writes to any stream, input consumed) is dearer per byte
 * and pays SH_BYTES_PER_STEP (interp.h). A script that moves a few MB
 * pays a few thousand steps, well inside either profile. */
#define CMD_BYTES_PER_STEP 1024u

/* What one byte of input costs the commands that work harder per byte
 * than a copy, in CMD_BYTES_PER_STEP bytes, paid through cmd_charge_work
 * on top of reading it. Each makes a loop over a 1 MB file end the normal
 * profile's 10,000,000 steps in about 2 s of CPU in wasm (bench/bombs.mjs,
 * 2026-12-02: before, 20 to 55 s). */
#define CMD_WORK_BATCH 16u   /* steps cmd_charge_work pays at once */
#define CMD_COST_DIGEST 24u /* md5sum, sha*sum, b2sum, cksum */
#define CMD_COST_BASE64 64u /* base64, base32, basenc: a write per symbol */
#define CMD_COST_SED 12u    /* a line through sed's script */
#define CMD_COST_AWK 32u    /* a record through awk's program */
#define CMD_COST_JQ 40u     /* a byte parsed by jq */
/* Steps jq pays to start (its prelude and the filter compiled): about
 * 0.4 ms, which a loop of `jq -n 1` repeated for 4 steps a turn. */
#define CMD_COST_JQ_START 2048u
/* Bytes' worth jq pays per value it parses into a container or prints
 * (cmd_charge_bytes): a dense array of small numbers costs far more per
 * byte than its text (26 ms for 300 KB of `1,1,...`). The limit is
 * sticky, so these charges stop jq at its next checked one. */
#define CMD_COST_JQ_VALUE 512u

/* ---- Shared helpers (opt.c, util.c) ---------------------------------- */

/* Option parser: GNU getopt_long conventions, reentrant. A command lists its
 * options in a table ended by a zero entry:
 *   static const cmd_opt opts[] = {
 *     {'a', "all", CMD_ARG_NONE, 'a'},
 *     {0, "color", CMD_ARG_OPT, OPT_COLOR},    (long only: key >= 256)
 *     {'n', "lines", CMD_ARG_REQ, 'n'},
 *     {0, 0, 0, 0}};
 * Clustered short flags (-la, -n5, -n 5), --name=value / --name value,
 * unambiguous long prefixes, "--", and permutation (operands may come
 * before options) work as in GNU. --help prints `usage` to stdout and
 * --version a version line; both make cmd_opt_next return CMD_OPT_EXIT.
 * Errors are printed with GNU getopt's wording plus "Try 'NAME --help' for
 * more information." and cmd_opt_next returns CMD_OPT_ERR; the command then
 * returns g.status (set it for tools whose usage status is not 1). */
enum { CMD_ARG_NONE = 0, CMD_ARG_REQ = 1, CMD_ARG_OPT = 2 };

typedef struct cmd_opt {
  int sh;          /* short option character, 0 for none */
  const char *lng; /* long option name, NULL for none */
  int arg;         /* CMD_ARG_* */
  int key;         /* value cmd_opt_next returns (> 0) */
} cmd_opt;

/* cmd_opt_next results besides option keys. */
#define CMD_OPT_END 0     /* no more options; operands are in g.ops */
#define CMD_OPT_ERR (-1)  /* usage error printed; return g.status */
#define CMD_OPT_EXIT (-2) /* --help/--version printed; return 0 */
#define CMD_OPT_NUM \
  (-3)  /* with CMD_OPTF_NUMERIC, a word "-" DIGIT...:
                             the rest of the word ("5", "5c") is in g.arg
                             for the command to parse. It is negative, so
                             loop with `(k = cmd_opt_next(&g)) > 0 ||
                             k == CMD_OPT_NUM`. */

/* Parser flags. */
#define CMD_OPTF_NOPERMUTE 1u /* the first operand ends the options */
#define CMD_OPTF_NUMERIC \
  2u   /* a word starting "-DIGIT" yields
                                 CMD_OPT_NUM (head -5, tail -3c) */
#define CMD_OPTF_NOHELP 4u    /* no implicit --help/--version */
/* argp wording (tar): "Try 'NAME --help' or 'NAME --usage' ..." */
#define CMD_OPTF_ARGP 8u
/* diffutils wording: "NAME: Try 'NAME --help' for more information." */
#define CMD_OPTF_TRYNAME 16u

typedef struct cmd_getopt {
  cmd_ctx *c;
  const cmd_opt *opts;
  const char *usage;  /* --help text (full, ends with a newline) */
  unsigned flags;
  int status;         /* exit status for usage errors; default 1 */
  const char *arg;    /* argument of the option just returned, or NULL */
  int opt;            /* short char (or 0) of the option just returned */
  const char *optname; /* long name (no dashes) of the option just
                          returned, or NULL when it has none */
  char **ops;         /* operands in order (arena), valid after CMD_OPT_END */
  int nops;
  /* private */
  int ind;
  const char *next;
  int done;
} cmd_getopt;

/* Prepares a parse of c->argv[1..]. usage may be NULL (a generic line). */
void cmd_opt_init(cmd_getopt *g, cmd_ctx *c, const cmd_opt *opts,
                  const char *usage, unsigned flags);
/* Next option key, or CMD_OPT_END / CMD_OPT_ERR / CMD_OPT_EXIT /
 * CMD_OPT_NUM (see above). Operands are collected into g->ops. A negative
 * MSB_E* code (out of memory) may also be returned. */
int cmd_opt_next(cmd_getopt *g);
/* Prints "NAME: msg\nTry 'NAME --help' for more information.\n" and
 * returns g->status: for usage errors the command detects itself (missing
 * operand, bad argument). */
/* For tools taking exactly two FILE operands (comm, join): the usage error
 * GNU prints for a missing or extra operand; returns g->status. */
int cmd_two_operands(cmd_getopt *g);
int cmd_usage_err(cmd_getopt *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Diagnostics. cmd_err prints "NAME: " + message + "\n" to c->err, where
 * NAME is argv[0]'s last component. */
void cmd_err(cmd_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The command name used in messages (borrowed). */
const char *cmd_name(const cmd_ctx *c);
/* GNU quoting (arena strings; "" on out of memory).
 * cmd_quote: always quoted, like coreutils quote(): 'x', "it's",
 *   'a'$'\n''b' ("rm: cannot remove 'x'").
 * cmd_quotef: quoted only when needed (shell-escape style, as in
 *   "cat: x: No such file" and "cat: 'a b': No such file"). */
const char *cmd_quote(cmd_ctx *c, const char *s);
const char *cmd_quotef(cmd_ctx *c, const char *s);
/* Shell-escape quoting of n bytes into b; always=1 forces quotes. */
int cmd_quote_buf(buf *b, const char *s, size_t n, int always);
/* The errno text GNU prints for a code ("No such file or directory"). */
const char *cmd_strerror(int code);

/* Output. cmd_write appends to c->out but never past c->out_max: it then
 * writes what fits and returns MSB_ELIMIT. Also returns MSB_ENOMEM. */
int cmd_write(cmd_ctx *c, const void *p, size_t n);
int cmd_puts(cmd_ctx *c, const char *s);
int cmd_outf(cmd_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Charges n steps through c->tick (no-op without a tick hook). Commands
 * call it about every 1000 entries or lines and stop on a non-zero return. */
int cmd_tick(cmd_ctx *c, uint64_t n);
/* cmd_tick for the main loop of a command marked CMD_PAUSES, reached from
 * the command's function through direct calls only: past the slice's end
 * it pauses the run (see cmd_pace) and, once resumed, reports whether the
 * host ended it meanwhile. */
int cmd_tick_pause(cmd_ctx *c, uint64_t n);
/* Charges n bytes of work (see CMD_BYTES_PER_STEP) through cmd_tick. */
int cmd_charge_bytes(cmd_ctx *c, uint64_t n);
/* Charges n bytes processed at cost times the price of a copy (CMD_COST_*). */
int cmd_charge_work(cmd_ctx *c, uint64_t n, unsigned cost);

/* Paths. cmd_path returns operand made absolute against c->cwd and
 * normalised, ".." after a symlink as the kernel resolves it
 * (vfs_abspath_phys; arena; NULL on out of memory). An empty operand
 * gives "", which every vfs call rejects with MSB_ENOENT, as Linux does.
 * cmd_path_lexical drops the name before each ".." (realpath -s). */
const char *cmd_path(cmd_ctx *c, const char *operand);
const char *cmd_path_lexical(cmd_ctx *c, const char *operand);
/* MSB_ENOTDIR when operand ends in '/' but abs is not a directory (after
 * links), as the kernel reports for "file/"; else 0. cmd_path drops the
 * slash, so commands call this on operands before using abs. */
int cmd_slash_check(cmd_ctx *c, const char *operand, const char *abs);
/* Last component / directory part as basename(1) / dirname(1) print them
 * (arena). */
const char *cmd_base_name(cmd_ctx *c, const char *s);
const char *cmd_dir_name(cmd_ctx *c, const char *s);

/* After a command ran on a closed stdin (`<&-`): the second error GNU
 * coreutils print when they close it at exit (name: the command). */
void cmd_stdin_close_err(cmd_ctx *c, const char *name);

/* Input. Reads operand ("-" = stdin) as a borrowed byte view: stdin is
 * c->in, a file is vfs_read's zero-copy view (valid until the next
 * mutation). Returns 0 or an MSB_E* code (MSB_EISDIR for a directory). */
int cmd_input(cmd_ctx *c, const char *operand, const uint8_t **data,
              size_t *len);

/* Where the last n records of d[0..len) start (len when n is 0; a last
 * record without its delimiter counts): head -n -N ends there, tail -n N
 * starts there. */
size_t cmd_last_records(const uint8_t *d, size_t len, uint64_t n, int delim);

/* Room for one more element in an arena array of n elements of size
 * bytes: v itself while n < *cap, else a copy with twice the room (first
 * elements when empty), *cap updated; NULL when out of memory or the size
 * would overflow (v and *cap unchanged). */
void *cmd_grow(cmd_ctx *c, void *v, size_t n, size_t *cap, size_t size,
               size_t first);

/* A set of inodes, for the listings that must not enter a directory twice
 * (ls -RL, tree -l): zeroed to start, grown in the command's arena. Only
 * directories go in, so a linear scan is enough. */
typedef struct cmd_inodes {
  uint64_t *v;
  size_t n, cap;
} cmd_inodes;
/* 1 when ino was not in s (it is now), 0 when it was, or MSB_ENOMEM. */
int cmd_inodes_add(cmd_ctx *c, cmd_inodes *s, uint64_t ino);

/* Appends val[0..vlen) laid out by a printf-style spec (flags -+ #0',
 * width, .precision) as find -printf and stat --format do: the precision
 * cuts a string (numeric 0), '0' pads a number (numeric 1) with zeros. */
void cmd_pad(buf *o, const char *spec, size_t slen, const char *val,
             size_t vlen, int numeric);

/* The operands of a filter: the command's operands, or the one operand
 * "-" (stdin) when it has none; *n is their count. */
char *const *cmd_operands(const cmd_getopt *g, int *n);

/* The shared "operands or stdin" loop of the filters that read each input
 * whole: cmd_inputs_next gives the bytes of the next operand it can read
 * (name: the operand), reporting one it cannot as GNU does ("cmd: 'NAME':
 * reason") and going on; status is then 1.
 *   cmd_inputs in;
 *   cmd_inputs_init(&in, c, &g);
 *   while (cmd_inputs_next(&in, &d, &len)) ...;
 *   return in.status; */
typedef struct cmd_inputs {
  cmd_ctx *c;
  char *const *ops;
  int n, i, status;
  const char *name;
} cmd_inputs;
void cmd_inputs_init(cmd_inputs *in, cmd_ctx *c, const cmd_getopt *g);
int cmd_inputs_next(cmd_inputs *in, const uint8_t **data, size_t *len);

/* The next answer line of stdin from *pos (advancing *pos past it): its
 * first byte, 0 for an empty line, -1 at the end of stdin. */
int cmd_answer(cmd_ctx *c, size_t *pos);
/* The answer to an -i prompt: reads the next line of stdin from *pos
 * (advancing *pos past it) and returns 1 when it starts with 'y' or 'Y',
 * GNU's affirmative in the C locale; 0 otherwise or at the end. */
int cmd_answer_yes(cmd_ctx *c, size_t *pos);

/* Record iteration over bytes with a delimiter ('\n', or 0 for -z). The
 * last record may lack its delimiter (term is then 0). */
typedef struct cmd_lines {
  const uint8_t *p, *end;
  int delim;
} cmd_lines;
void cmd_lines_init(cmd_lines *l, const uint8_t *data, size_t len, int delim);
/* 1 and the record (without its delimiter) or 0 at the end. */
int cmd_lines_next(cmd_lines *l, const uint8_t **rec, size_t *len, int *term);

/* Numbers. Results: 0, CMD_NUM_INVALID or CMD_NUM_RANGE (overflow). */
#define CMD_NUM_INVALID (-1)
#define CMD_NUM_RANGE (-2)
/* Decimal integer with optional sign, whole string. */
int cmd_parse_int(const char *s, int64_t *out);
/* Size with GNU suffixes: K M G T P E Z Y (1024), KB MB.. (1000),
 * KiB MiB.. (1024); with CMD_SZ_B also b (512), with CMD_SZ_BYTES also c
 * (1) and w (2) suffix letters. lowercase k is accepted like K. */
#define CMD_SZ_B 1u
#define CMD_SZ_BYTES 2u
int cmd_parse_size(const char *s, unsigned flags, uint64_t *out);

/* cp / mv: SOURCE... DEST (or -t DIR, -T) with GNU's operand errors;
 * calls one(arg, src, dst) per source, dst inside DEST when it is a
 * directory. Returns the exit status or a negative code (one's negative
 * codes stop the run). */
int cmd_dest_run(cmd_getopt *g, const char *tdir, int notarget,
                 int (*one)(void *arg, const char *src, const char *dst),
                 void *arg);

/* head / tail: reads operand op (GNU's messages for a missing file or a
 * directory) and prints the "==> NAME <==" header when verbose, first
 * telling whether one was printed before. 1 with d, len set, or 0 after a
 * message (the caller's status becomes 1). */
int cmd_headtail_open(cmd_ctx *c, const char *op, int verbose, int *first,
                      const uint8_t **d, size_t *len);

/* Regex search for every command (grep, sed, expr, find, nl, tac):
 * rx_search metered by the command's step budget (c->tick), so a search
 * that cannot finish (a catastrophic back-reference pattern) stops the run
 * on the named limit max_steps and returns MSB_ELIMIT. Other results as
 * rx_search. */
struct rx;
struct rx_match;
int cmd_rx_exec(cmd_ctx *c, struct rx *r, const uint8_t *s, size_t len,
                size_t start, unsigned eflags, struct rx_match *m, size_t nm);

/* File modes. CMD_UMASK is the default umask; commands creating files
 * use cmd_umask, the shell's current one: new files get 0666 & ~umask,
 * directories 0777 & ~umask. */
#define CMD_UMASK 022u
uint32_t cmd_umask(const cmd_ctx *c);
/* Mode for a file a command creates (sort -o, split, uniq OUTPUT...):
 * 0666 minus the umask. */
#define CMD_NEWFILE(c) (0666u & ~cmd_umask(c))
/* Applies a chmod-style mode (octal, or symbolic "u+x,go-w,a=r,+X,u=g")
 * to old. is_dir matters for X. Returns 0 or CMD_NUM_INVALID. */
int cmd_parse_mode(const char *s, uint32_t old, int is_dir, uint32_t umask,
                   uint32_t *out);

/* Tab stop list as expand/unexpand -t take it ("4", "2,6,10", "1 5"):
 * ascending, at most 1024 stops (stops must hold that many). Prints GNU's
 * diagnostic and returns 1 on a bad list, else 0. */
int cmd_parse_tabs(cmd_ctx *c, const char *s, uint64_t *stops, int *n);
/* The tab stop after column col for cmd_parse_tabs' list (none: every 8,
 * one: every stops[0]); 0 past the last stop of a longer list. */
uint64_t cmd_next_tab(const uint64_t *stops, int n, uint64_t col);

/* Metadata formatting. */
/* "drwxr-xr-x" style, 10 chars + NUL. */
void cmd_mode_str(int kind, uint32_t mode, char out[11]);
/* Disk usage in 512-byte blocks, a deterministic ext4-like rule: files take
 * whole 4 KiB blocks (ceil(size / 4096) * 8), directories one 4 KiB block
 * (8), symlinks none (fast symlinks). ls -s/total, du, stat %b use it. */
uint64_t cmd_blocks(const struct vfs_stat *st);
/* Size ls -l / stat report: file bytes, link target length, 4096 for a
 * directory (as on ext4). */
uint64_t cmd_size(const struct vfs_stat *st);
/* Human-readable size like GNU -h (powers of 1024, or 1000 when si):
 * rounds up, one decimal below 10: "0", "1023", "1.0K", "1.5K", "12M". */
void cmd_human(uint64_t n, int si, char out[24]);
/* Broken-down UTC time. */
typedef struct cmd_tm {
  int64_t year;
  int mon, mday, hour, min, sec, wday, yday; /* mon 1-12, wday 0=Sunday */
} cmd_tm;
void cmd_gmtime(int64_t secs, cmd_tm *tm);
/* Seconds since the epoch for a UTC civil time (fields may be out of range
 * like mktime's). */
int64_t cmd_timegm(const cmd_tm *tm);
/* Floor division of ns to seconds (works for negative times). */
int64_t cmd_ns_to_s(int64_t ns);
/* ls -l time: "Nov 30 02:40" within six months of now, else
 * "Nov 30  2025". 12 chars + NUL. */
void cmd_time_ls(int64_t t_ns, int64_t now_ns, char out[32]);
/* stat's "2026-11-30 02:40:00.000000000 +0000". */
void cmd_time_full(int64_t t_ns, char out[48]);
/* Parses a date as touch -d / date -d accept the common forms: "@EPOCH",
 * "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS[.frac]]", ISO 8601 with 'T' and an
 * optional "Z" or +HH:MM offset, "now", "today", "yesterday", "tomorrow",
 * "N days ago", month names, weekdays, am/pm and more (datetime.c),
 * relative to now_ns. 0 or
 * CMD_NUM_INVALID. Times without a zone are UTC (the sandbox's TZ). */
int cmd_parse_date(const char *s, int64_t now_ns, int64_t *out_ns);

/* strftime over UTC with GNU's flags (- _ 0 ^ # width) and %N, %:z;
 * appends to o (date.c; also printf's %(fmt)T). */
int cmd_strftime(buf *o, const char *fmt, int64_t t_ns);

/* Tree walker: iterative (no recursion), children sorted bytewise, over
 * pinned directory versions so the caller may delete or change entries
 * while walking. Entry data is valid until the next cmd_walk_next. */
#define CMD_WALK_POST 1u        /* also visit directories after children */
#define CMD_WALK_FOLLOW 2u      /* follow every symlink (-L) */
#define CMD_WALK_FOLLOW_ROOT 4u /* follow a symlink given as root (-H) */
typedef struct cmd_walk_ent {
  const char *path; /* root operand as given + "/name"... */
  const char *abs;  /* absolute path for vfs calls */
  const char *name; /* last component (the root operand itself at depth 0) */
  struct vfs_stat st; /* the entry (symlink itself unless followed) */
  int depth;        /* 0 for the root */
  int post;         /* 1 on the post-order visit of a directory */
  int err;          /* MSB_E* when the entry could not be stat'ed or a
                       directory could not be read (then no children); for
                       -L loops MSB_ELOOP */
} cmd_walk_ent;
typedef struct cmd_walk cmd_walk;
/* Starts a walk at root (an operand as the user wrote it). Allocates from
 * c->m; close with cmd_walk_close. Returns 0 or MSB_ENOMEM. */
int cmd_walk_open(cmd_ctx *c, const char *root, unsigned flags, cmd_walk **out);
/* 1 and *e for the next entry, 0 at the end, or a negative MSB_E* code
 * (out of memory, step limit) which ends the walk. */
int cmd_walk_next(cmd_walk *w, cmd_walk_ent **e);
/* Do not descend into the directory just returned (pre-order visit). */
void cmd_walk_prune(cmd_walk *w);
/* Limits descent: entries deeper than max_depth are not visited. */
void cmd_walk_max_depth(cmd_walk *w, int max_depth);
void cmd_walk_close(cmd_walk *w);

/* The value of the exported variable whose name is the n bytes at name
 * (borrowed from c->envp), or NULL when it is not set. */
const char *cmd_getenv(const cmd_ctx *c, const char *name, size_t n);

/* The sorted table from commands.def. Command functions are named cmd_NAME
 * (cmd_find_main for find, since cmd_find is this lookup); helper names
 * above avoid command names (cmd_outf, not cmd_printf). */
const cmd_desc *cmd_find(const char *name);
const cmd_desc *cmd_table(size_t *count);
/* Runs d's command with c (see CMD_PAUSES). */
int cmd_call(const cmd_desc *d, cmd_ctx *c);
/* Whether env, xargs and timeout can run NAME as a program: a path, a
 * command of the table, or the shell itself (bash, sh); shell functions
 * and builtins such as cd are not programs. */
int cmd_is_program(const char *name);
/* The number a /usr/bin file keeps as the command it is (vfs_set_prog):
 * 1 + the table index, then bash and sh; 0 for any other name. Numbers
 * live only in memory (snapshots carry the name), so a new table may
 * renumber them. cmd_prog_name is the reverse (NULL for 0 or unknown). */
unsigned cmd_prog_id(const char *name);
const char *cmd_prog_name(unsigned id);

#define CMD(name, fn, file, flags, purpose) int fn(cmd_ctx *c);
#include "commands.def"
#undef CMD

#endif
