/* memsandbox.h - the public C API of MemSandbox, and its manual.
 *
 * MemSandbox is an in-memory workspace with a bash-compatible command
 * language. A sandbox owns a virtual filesystem rooted at "/" (with
 * "/workspace", the default working directory and HOME, and "/tmp"), a shell
 * session, limits, and an allocator with a byte cap. Nothing inside it can
 * reach the host: no host files, processes, clock, randomness or network.
 *
 * Conventions
 *   - Every function returns 0 (MSB_OK) on success or a negative MSB_E* code.
 *     After a failure, msb_errmsg(sb) describes it in one line.
 *   - Failed operations change nothing: no partial writes, no revision bump.
 *   - Paths are byte strings without NUL. A relative path is taken relative
 *     to "/workspace". "." and ".." resolve like Linux, never above "/".
 *   - Ownership is stated for every pointer: "borrowed" means the sandbox
 *     keeps it and it stays valid until the next call on the same sandbox;
 *     "caller frees" means release it with msb_free(sb, p).
 *   - A sandbox is not thread-safe; distinct sandboxes are independent.
 *
 * Hashes
 *   A file hashes to SHA-256 of its bytes. A directory hashes to SHA-256 of
 *   "mem-sandbox-directory-v1" and one NUL byte, followed for each child in
 *   byte order of names by: a kind byte ('F' file, 'D' directory), the name
 *   length as 4 bytes big-endian, the name bytes, and the child's 32-byte
 *   digest. Symbolic links hash as a file whose bytes are the link target
 *   (kind byte 'L'), so two trees with different links never collide; a tree
 *   without links hashes exactly as the reference product does. Mode and mtime
 *   never count. The root hash is the hash of "/workspace". */
#ifndef MEMSANDBOX_H
#define MEMSANDBOX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSB_VERSION "0.1.0"

/* Result codes. Named after errno where one fits. */
#define MSB_OK 0
#define MSB_ENOENT (-2)        /* no such file or directory */
#define MSB_EEXIST (-3)        /* already exists */
#define MSB_ENOTDIR (-4)       /* a path component is not a directory */
#define MSB_EISDIR (-5)        /* is a directory */
#define MSB_ENOTEMPTY (-6)     /* directory not empty */
#define MSB_EINVAL (-7)        /* invalid argument (bad path, bad value) */
#define MSB_ENOSPC (-8)        /* total byte quota exceeded */
#define MSB_EDQUOT (-9)        /* node count quota exceeded */
#define MSB_EFBIG (-10)        /* file size quota exceeded */
#define MSB_ENAMETOOLONG (-11) /* path, segment or depth limit exceeded */
#define MSB_ELOOP (-12)        /* too many levels of symbolic links */
#define MSB_ENOMEM (-13)       /* the sandbox's memory limit was reached */
#define MSB_ELIMIT (-14)       /* an execution limit was reached */
#define MSB_ESYNTAX (-15)      /* shell syntax error */
#define MSB_EPOLICY (-16)      /* denied by the host's policy */
#define MSB_ECORRUPT (-17)     /* malformed archive, snapshot or patch */
#define MSB_EMISUSE (-18)      /* API misuse: NULL handle, closed sandbox */
#define MSB_ESTALE (-19)       /* content hash precondition failed */
#define MSB_EPERM (-20)        /* operation not permitted (e.g. on "/") */
#define MSB_EINCOMPLETE (-21)  /* script is incomplete (REPL: read more) */
#define MSB_ENOTSUP (-22)      /* feature not supported */
#define MSB_EBUSY (-23)        /* source and destination overlap */
#define MSB_ESECRET (-24)      /* a secret value would be written */
#define MSB_ESAME (-25)        /* copy or move onto itself */
#define MSB_EROFS (-26)        /* /usr/bin and /bin are read-only */

/* Static English name of a code, e.g. "MSB_ENOENT". Never NULL. */
const char *msb_code_name(int code);
/* Static one-line description of a code, e.g. "No such file or directory". */
const char *msb_strerror(int code);

typedef struct msb_sandbox msb_sandbox;

/* Limits. Every field is a hard cap; 0 never means unlimited except where
 * noted. Fill with msb_limits_init and change what you need.
 *
 * How a limit shows:
 *   - Execution limits and max_memory_bytes stop an exec: exit status 124,
 *     msb_result.limit names the field, and stderr ends with e.g. "bash:
 *     memsandbox: step limit exceeded (max_steps=100)".
 *   - max_output_bytes truncates: out_truncated / err_truncated, with
 *     out_total / err_total the full sizes.
 *   - Filesystem quotas are errors the script sees, like a full disk:
 *     commands print GNU's wording ("No space left on device" for
 *     max_total_bytes, "Disk quota exceeded" for max_nodes, "File too
 *     large" for max_file_bytes, "File name too long" for the path limits)
 *     and fail, and the script goes on; msb_result.limit stays NULL, since
 *     nothing stopped the run. Host calls fail with MSB_ENOSPC, MSB_EDQUOT,
 *     MSB_EFBIG or MSB_ENAMETOOLONG and a message giving the size and the
 *     limit ("file contains 101 bytes; limit is 100 bytes"). */
typedef struct msb_limits {
  /* memory */
  uint64_t max_memory_bytes;   /* allocator cap for the whole sandbox */
  /* filesystem quotas */
  uint64_t max_total_bytes;    /* sum of file sizes */
  uint64_t max_file_bytes;     /* one file */
  uint64_t max_nodes; /* files + directories + links, root included */
  uint32_t max_path_bytes; /* normalised absolute path */
  uint32_t max_segment_bytes; /* one path component */
  uint32_t max_depth; /* components below "/" */
  /* execution */
  uint64_t max_steps; /* commands + loop iterations per exec */
  /* function / source / eval / subshell nesting. All nesting is also
   * bounded by the native stack it takes (wasm: V8's, 984 KB by default in
   * Node): past about 700 KB of it the run stops with this limit too,
   * whatever its value, rather than overflow. */
  uint32_t max_call_depth;
  uint64_t max_script_bytes; /* script text per exec */
  uint64_t max_output_bytes; /* per stream (stdout, stderr) per exec */
  /* one expanded word, variable, here-doc or pipe. Pipeline stages run in
   * turn: a writer that fills a pipe stops there with status 141, as if
   * its reader had gone (bash's result when the reader stops early, as
   * head does), and a reader reaching the end of such a pipe stops the run
   * ("pipe capacity limit exceeded"). */
  uint64_t max_string_bytes;
  uint64_t max_array_items; /* elements of one array; words of one command */
  uint64_t max_glob_work; /* directory entries visited per glob / brace */
} msb_limits;

enum msb_profile { MSB_PROFILE_NORMAL = 0, MSB_PROFILE_STRICT = 1 };

/* Fills *lim with a profile's values. Returns MSB_EINVAL for an unknown
 * profile. */
int msb_limits_init(msb_limits *lim, int profile);

typedef struct msb_config {
  const msb_limits *limits; /* borrowed during the call; NULL = normal */
  int64_t clock_ns; /* sandbox clock, ns since the epoch (UTC) */
  uint64_t seed; /* seeds $RANDOM, shuf, sort -R, mktemp */
} msb_config;

/* Opens a sandbox. *out receives the handle (close with msb_close).
 * cfg may be NULL (normal limits, clock 0, seed 0). */
int msb_open(const msb_config *cfg, msb_sandbox **out);
/* Closes a sandbox and frees everything it holds. NULL is accepted. */
void msb_close(msb_sandbox *sb);

/* One-line description of the last failure on sb (borrowed; "" if none).
 * Works on a NULL sb (describes misuse). */
const char *msb_errmsg(const msb_sandbox *sb);
/* Frees memory the sandbox returned with "caller frees". NULL accepted. */
void msb_free(msb_sandbox *sb, void *p);

/* Sets the sandbox clock (ns since the epoch). The clock only moves when the
 * host sets it or a command such as sleep advances it. */
int msb_set_clock(msb_sandbox *sb, int64_t clock_ns);
int64_t msb_clock(const msb_sandbox *sb);

/* Memory in use by the sandbox's allocator, in bytes. */
uint64_t msb_memory_used(const msb_sandbox *sb);

/* ---- Filesystem ------------------------------------------------------ */

enum msb_kind { MSB_FILE = 1, MSB_DIR = 2, MSB_LINK = 3 };

typedef struct msb_stat {
  int kind; /* MSB_FILE, MSB_DIR, MSB_LINK */
  uint32_t mode; /* permission bits, e.g. 0644 */
  uint64_t size; /* bytes (files, link target length); 0 for dirs */
  int64_t mtime_ns; /* sandbox clock at the last change */
  /* Subtree totals. Both 0 for a directory the policy hides in part (a
   * "none" rule at or below it): they would count what it hides. */
  uint64_t nodes; /* nodes in the subtree, itself included */
  uint64_t bytes; /* file bytes in the subtree */
} msb_stat;

/* Write preconditions. */
enum msb_write_cond {
  MSB_WRITE_ANY = 0, /* create or replace */
  MSB_WRITE_MUST_NOT_EXIST, /* create only, else MSB_EEXIST */
  MSB_WRITE_HASH_EQUALS /* replace only if the current hash matches,
                               else MSB_ESTALE (MSB_ENOENT if missing) */
};

/* Option flags for file operations. */
#define MSB_PARENTS 1u /* create missing parent directories */
#define MSB_RECURSIVE 2u /* remove/copy whole directory trees */
#define MSB_OVERWRITE 4u /* copy/move may replace the destination */
#define MSB_MISSING_OK 8u /* remove: a missing path is success */
#define MSB_EXIST_OK 16u /* mkdir: an existing directory is success */
#define MSB_NOFOLLOW 32u /* stat: do not follow a final symlink */

/* Reads a whole file. *data receives a caller-freed copy, *len its size. */
int msb_read(msb_sandbox *sb, const char *path, uint8_t **data, size_t *len);

/* Writes a whole file. cond is an msb_write_cond; expect_hash (32 raw bytes)
 * is read only for MSB_WRITE_HASH_EQUALS. mode 0 keeps an existing file's
 * mode or uses 0644. flags: MSB_PARENTS. */
int msb_write(msb_sandbox *sb, const char *path, const void *data, size_t len,
              int cond, const uint8_t *expect_hash, uint32_t mode,
              unsigned flags);
/* Appends to a file, creating it if absent; one atomic mutation. */
int msb_append(msb_sandbox *sb, const char *path, const void *data, size_t len,
               unsigned flags);
/* Stats a path; follows a final symlink unless MSB_NOFOLLOW. */
int msb_stat_path(msb_sandbox *sb, const char *path, unsigned flags,
                  msb_stat *st);
/* Lists a directory's entry names, sorted bytewise, each followed by a NUL
 * byte. *names is caller-freed, *len its total size, *count the entries. */
int msb_list(msb_sandbox *sb, const char *path, char **names, size_t *len,
             size_t *count);
/* Creates a directory. flags: MSB_PARENTS, MSB_EXIST_OK. mode 0 = 0755. */
int msb_mkdir(msb_sandbox *sb, const char *path, uint32_t mode, unsigned flags);
/* Removes a file, link or directory. flags: MSB_RECURSIVE (non-empty
 * directories), MSB_MISSING_OK. "/" and "/workspace" cannot be removed. */
int msb_remove(msb_sandbox *sb, const char *path, unsigned flags);
/* Copies src to dst (a deep copy sharing storage). flags: MSB_RECURSIVE
 * (required for directories), MSB_OVERWRITE, MSB_PARENTS. */
int msb_copy(msb_sandbox *sb, const char *src, const char *dst, unsigned flags);
/* Moves src to dst atomically. flags: MSB_OVERWRITE, MSB_PARENTS. */
int msb_move(msb_sandbox *sb, const char *src, const char *dst, unsigned flags);
/* Creates a symbolic link at linkpath pointing to target (not resolved). */
int msb_symlink(msb_sandbox *sb, const char *target, const char *linkpath);
/* Reads a link target: *target is caller-freed and NUL-terminated. */
int msb_readlink(msb_sandbox *sb, const char *path, char **target);
/* Sets permission bits (mode & 07777). */
int msb_chmod(msb_sandbox *sb, const char *path, uint32_t mode);
/* SHA-256 of a path (file, directory or link), 32 raw bytes into out. */
int msb_hash(msb_sandbox *sb, const char *path, uint8_t out[32]);

/* The workspace revision: starts at 0 and grows by exactly one for every
 * successful mutation (a host call, or an exec that changed anything). */
uint64_t msb_revision(const msb_sandbox *sb);
/* Hash of "/workspace" (see Hashes above), 32 raw bytes. */
int msb_root_hash(msb_sandbox *sb, uint8_t out[32]);

/* ---- Patches --------------------------------------------------------- */

/* Patch flags: MSB_PATCH_EXACT applies unified hunks only at their stated
 * line (the reference product's rule); MSB_PATCH_DRY_RUN checks and
 * reports but changes nothing; MSB_PATCH_WORKSPACE refuses any path with
 * a ".." component or outside /workspace (MSB_ECORRUPT, "patch contains
 * an invalid workspace path"; the reference product's rule for a model's
 * patches). */
#define MSB_PATCH_EXACT 1u
#define MSB_PATCH_DRY_RUN 2u
#define MSB_PATCH_WORKSPACE 4u

/* Applies a patch to the workspace, all or nothing. Two formats:
 *   - unified diffs ("--- a/x" / "+++ b/x" / "@@ -l,n +l,n @@"), as diff -u
 *     and git diff write them: a leading "a/" or "b/" is stripped, /dev/null
 *     headers create and delete files, CRLF is accepted. Context and
 *     removed lines must match exactly (no fuzz); a hunk may sit at another
 *     line than stated (GNU patch's offset search) unless MSB_PATCH_EXACT.
 *   - OpenAI V4A ("*** Begin Patch" ... "*** End Patch" with Add File,
 *     Update File [+ Move to], Delete File; "@@ anchor" lines; context
 *     found by content, tolerating trailing and surrounding whitespace).
 * Relative paths in the patch are taken against cwd (NULL = "/workspace";
 * otherwise absolute). Every file's new content is computed before
 * anything is written; on any failure nothing changes and msb_errmsg says
 * why: MSB_ECORRUPT for a malformed patch ("malformed patch at line 5:
 * ...", "invalid V4A patch at line 3: ...") and for context that does not
 * match, naming the file and hunk ("patch context for src/a.c does not
 * match at line 12 (hunk #2)", "Failed to find context ... in a.txt (hunk
 * #1)"); MSB_ENOENT when a file to change is missing; quota codes as for
 * msb_write. Success bumps the revision once.
 *
 * changes (may be NULL) receives a caller-freed list of what changed, in
 * patch order, one record per file, *count records, *changes_len bytes in
 * all. A record is five NUL-terminated fields: the operation ("add",
 * "update", "delete" or "move"), the absolute path (the destination for a
 * move), the source path of a move (else empty), and the file's SHA-256
 * as lowercase hex before and after (empty for a file that did not exist
 * before or does not exist after). */
int msb_apply_patch(msb_sandbox *sb, const char *text, size_t len,
                    const char *cwd, unsigned flags, char **changes,
                    size_t *changes_len, size_t *count);

/* The shell session's working directory, where relative paths given to
 * commands resolve (borrowed; "" for a NULL sb). Agent tools resolve the
 * model's relative paths against it, as a terminal would. */
const char *msb_session_cwd(const msb_sandbox *sb);

/* The shell session's exported variables, as the commands it runs see
 * them: "NAME=value" strings sorted by name, each followed by a NUL byte.
 * *env is caller-freed (NULL when there are none), *len its size, *count
 * the entries. Agent tools diff it around a run to report which
 * variables a command set or unset. */
int msb_session_env(msb_sandbox *sb, char **env, size_t *len, size_t *count);

/* ---- Shell ----------------------------------------------------------- */

typedef struct msb_exec_opts {
  const uint8_t *stdin_data; /* borrowed; NULL = empty stdin */
  size_t stdin_len;
  const char *cwd; /* NULL = the session's current directory */
  int fresh_state; /* run in a fresh shell state; session kept */
  int atomic;      /* roll back the workspace and shell state when the
                      exit status is non-zero */
  const char *const *env; /* "NAME=value" strings for this call only */
  size_t env_count;
  const char *const *secrets; /* "NAME=value" secrets for this call only;
                                 see Secrets below */
  size_t secret_count;
  const char *arg0; /* $0 for this call, and the name the shell's messages
                       start with, as NAME in `bash -c SCRIPT NAME`; NULL =
                       "bash" */
} msb_exec_opts;

/* Secrets
 *   msb_exec_opts.secrets binds up to MSB_SECRET_MAX values to exported
 *   variables for one call: `$NAME`, env and printenv see them; commands
 *   run with them. Bindings are checked first (MSB_EINVAL naming the
 *   problem, never quoting a value, and nothing runs): "NAME=value" form,
 *   NAME a shell identifier not already bound in env or twice, not one the
 *   shell manages (PWD, OLDPWD, HOME, PATH, IFS, CDPATH, PS1-PS4, OPTIND,
 *   OPTARG, RANDOM, SECONDS, LINENO, UID, EUID, PPID, SHLVL, FUNCNAME,
 *   PIPESTATUS, GLOBIGNORE, SHELLOPTS, BASHOPTS, _, or BASH*), value
 *   non-empty and at most MSB_SECRET_MAX_VALUE bytes.
 *   - Redaction: every occurrence of a value in the call's stdout and
 *     stderr becomes "[REDACTED]"; overlapping occurrences (of one value or
 *     several) become one mark; an occurrence split across writes is found.
 *     It happens where the call's output is collected, so every command,
 *     builtin, trace and shell message is covered; out_total and truncation
 *     describe the redacted stream. msb_errmsg is redacted the same way.
 *     Matching is on exact bytes: derived forms (base64, changed case,
 *     shell quoting such as `printf %q`) are not recognised.
 *   - Never written: during the call, a file write whose bytes contain a
 *     value, a new file or directory name containing one, or a symlink
 *     target containing one fails with MSB_ESECRET and writes nothing.
 *     The new bytes of a file are searched together with what comes
 *     before them: for an append the file's old tail, and in every case
 *     the tail of all the file contents this call wrote before, to any
 *     file. So a value written in consecutive pieces, to one file or
 *     several (`split -b 4`, a loop writing one character per file), is
 *     refused at the write that completes it; the earlier pieces stay.
 *     Not caught: pieces written out of order or with other file contents
 *     written between them, pieces spread over several names or link
 *     targets (each is searched alone), and derived forms (above). Copies
 *     and moves of existing files are not searched (their bytes are not
 *     new).
 *     Commands report a refusal like a write error, in their usual wording
 *     with the text "Refusing to write a secret value": a redirection,
 *     `bash: line 1: echo: write error: ...` (exit status 1); a command writing a
 *     file itself, e.g. `tee: out.txt: ...`. A refused write leaves its
 *     target exactly as it was: contents, mode, mtime, inode and the
 *     revision. A write a command makes itself (tee, cp, sed -i, patch,
 *     split...) is checked whole before anything changes, so a refused one
 *     changes nothing. A redirection (`>`, `>>`, `&>`, `exec 3>`)
 *     truncates or creates its target when it opens, as in bash; when a
 *     write through it is refused, the target goes back to what it was
 *     before the open (a file the open created is removed; the directory's
 *     mtime and the revision go back too unless something else changed the
 *     filesystem meanwhile), earlier writes through it included, and every
 *     later write through it is refused the same way.
 *   - Never kept: at the end of the call the bindings go (a variable of the
 *     same name the session had before comes back), and any session state
 *     holding a value - in what it holds or in its name - is dropped with a
 *     note on stderr ("bash: memsandbox: X: variable not kept after this
 *     call: it holds a secret value"): variables (names, values, array
 *     elements, associative keys; so `read "$T"`, `printf -v`, `declare
 *     "p_$T"`, `export "e_$T=1"` leave nothing), functions (names and
 *     bodies), aliases (names and values), traps (EXIT, ERR, RETURN; the
 *     shell stores no others), positional parameters, directory stack
 *     entries. So a later call, msb_session_env, a checkpoint, fork or
 *     snapshot never holds a value. An atomic call that fails goes back to
 *     the state before the call. Names the host itself gave files are not
 *     secret data: a working directory inside one stays.
 *   - Not left in memory: while a call with secrets runs, every heap block
 *     the sandbox frees is zeroed first, the names dropped above leave no
 *     copy in the shell's tables, and a function whose definition shared a
 *     parsed text with a value is re-parsed from its printed form (only its
 *     $LINENO values change). In the WebAssembly module, the exec operation
 *     also zeroes the value strings the host passed, and the stack the call
 *     used is zeroed before the host copies the memory (a memory fork), so
 *     neither the module's memory nor a copy of it holds a value once the
 *     call has returned. */
#define MSB_SECRET_MAX 16
#define MSB_SECRET_MAX_VALUE 4096

typedef struct msb_result {
  int exit_code;
  uint8_t *out; /* stdout bytes, caller frees */
  size_t out_len;
  uint8_t *err; /* stderr bytes, caller frees */
  size_t err_len;
  uint64_t out_total; /* bytes produced before truncation */
  uint64_t err_total;
  int out_truncated;
  int err_truncated;
  char *cwd; /* working directory afterwards, caller frees */
  const char *limit; /* static name of the limit that stopped the run,
                          e.g. "max_steps"; NULL when none */
  int rolled_back; /* atomic run failed and was rolled back */
  /* Why exit_code is not 0, as recorded by the command or the shell that
   * failed last (the reference's failure_code): "invalid_argument",
   * "workspace_failure", "no_match", "command_not_found",
   * "command_not_executable", "redirection_failure",
   * "execution_limit_exceeded" or "nonzero_exit" (a status no failure
   * explained: `exit 3`, `false`). Static; NULL when exit_code is 0. */
  const char *failure;
} msb_result;

/* Runs a script in the sandbox's shell session. A script that runs returns
 * MSB_OK with its exit status in res (a limit stop is a result too). Syntax
 * errors are results (exit status 2, bash's message on stderr). Returns an
 * error only for misuse or when the sandbox itself failed.
 * Each call is one `bash -c`: an EXIT trap set in it runs when its script
 * ends (end of text, `exit`, a syntax error) and never outlives the call.
 * A call stopped by a limit ends like a process killed with SIGKILL: the
 * trap does not run (it would need the budget that ran out) and is
 * dropped, with the note "bash: memsandbox: EXIT trap not run: the call
 * stopped at a limit" on stderr. */
int msb_exec(msb_sandbox *sb, const char *script, size_t len,
             const msb_exec_opts *opts, msb_result *res);
/* Frees the buffers a result holds (not the struct). */
void msb_result_finish(msb_sandbox *sb, msb_result *res);

/* Incremental runs: the host runs a script a slice at a time, so it can
 * keep its own loop responsive and stop a run between slices. msb_exec
 * is msb_exec_start and one msb_exec_step to the end.
 *
 * msb_exec_start begins a run of script in the session (as msb_exec; it
 * does no work yet) and sets *run. script, opts and everything they point
 * to are borrowed until the run ends. One run at a time per sandbox;
 * while it is paused every other operation on the sandbox fails with
 * MSB_EMISUSE (msb_errmsg, msb_free, msb_set_clock and msb_close work;
 * msb_close cancels the run).
 *
 * msb_exec_step runs it until about `steps` more steps (of max_steps'
 * kind) have been spent, then pauses at the next statement or loop turn
 * (also inside $( ) and the main loop of cat, grep, sed, seq and yes) and
 * returns MSB_PAUSED; steps == 0 runs to the end. Builtins and the other
 * commands run whole within a step. Where a run pauses depends on
 * the steps, and a paused run resumes exactly where it was, so results
 * do not depend on the slicing. When the run ends, the step returns what
 * msb_exec would (res filled, caller frees it with msb_result_finish) and
 * *run is freed.
 *
 * msb_exec_cancel makes the run end when next resumed: why is
 * MSB_CANCEL_ABORT (exit status 130 as for SIGINT, limit "cancelled", no
 * message) or MSB_CANCEL_TIMEOUT (the host's wall-clock budget: status
 * 124, limit "timeout", "bash: memsandbox: time limit exceeded
 * (timeout)"). An atomic run rolls back as for any non-zero status. */
typedef struct msb_run msb_run;
#define MSB_PAUSED 1
#define MSB_CANCEL_ABORT 1
#define MSB_CANCEL_TIMEOUT 2
int msb_exec_start(msb_sandbox *sb, const char *script, size_t len,
                   const msb_exec_opts *opts, msb_run **run);
int msb_exec_step(msb_run *run, uint64_t steps, msb_result *res);
void msb_exec_cancel(msb_run *run, int why);
/* While a run is paused: its stdout (fd 1) or stderr (fd 2) so far, as
 * the result will begin (redacted, with a possible secret's start held
 * back), borrowed until the next step. A host streams output by passing
 * on what grew since the last pause. */
void msb_exec_output(const msb_run *run, int fd, const uint8_t **data,
                     size_t *len);

/* Whether a script is complete (0), incomplete (MSB_EINCOMPLETE, a REPL
 * should read another line) or has a syntax error (MSB_ESYNTAX). */
int msb_parse_check(msb_sandbox *sb, const char *script, size_t len);

/* ---- Checkpoints, snapshots, forks ----------------------------------- */

/* Takes an O(1) checkpoint of the filesystem and shell state; *id receives
 * its number. */
int msb_checkpoint(msb_sandbox *sb, uint32_t *id);
/* Returns to a checkpoint (O(1)); the checkpoint stays valid. */
int msb_rollback(msb_sandbox *sb, uint32_t id);
/* Releases a checkpoint. */
int msb_release(msb_sandbox *sb, uint32_t id);

/* Serialises the whole state as a deterministic tar.gz: /tmp and
 * /workspace as members, and in MEMSANDBOX.* pax global records the
 * format version, revision, root hash, cwd and the shell session
 * (variables with attributes and arrays, functions, set -o and shopt
 * options, aliases, traps, positional parameters, $?, umask, the pushd
 * stack, the $RANDOM state). Equal states give equal bytes. level: 0-9, or
 * -1 for the default (1: fastest, see bench/). Fails with MSB_ENOTSUP when
 * a function body cannot be printed back exactly. *data is caller-freed. */
int msb_snapshot(msb_sandbox *sb, int level, uint8_t **data, size_t *len);
/* Replaces the whole state with an archive: a snapshot, or a .tar / .tar.gz
 * from any tool (loaded into /workspace, with a fresh shell session). All
 * or nothing: a malformed or hostile archive (MSB_ECORRUPT) or a quota
 * leaves files, revision and session untouched. The recorded root hash
 * is checked against the files of an uncompressed snapshot; in a .tar.gz
 * the gzip CRC-32 covers every byte, so hashing waits for msb_root_hash. */
int msb_restore(msb_sandbox *sb, const uint8_t *data, size_t len);
/* Content-addressed state (src/cas.h has the format): appends nothing
 * but returns in *data records holding every directory's listing piece,
 * /tmp's and /workspace's keys, the root hash, revision, cwd and session.
 * Files are named by their cached hashes and never copied: the host reads
 * the ones its store lacks. Fails as msb_snapshot does; *data is
 * caller-freed. */
int msb_state_export(msb_sandbox *sb, unsigned flags, uint8_t **data,
                     size_t *len);
/* msb_state_export flag: a directory unchanged since the previous export
 * is one 'U' record (its key) instead of its listings, so the cost follows
 * what changed; for a host that keeps the previous export's listings. */
#define MSB_STATE_SINCE_LAST 1u
/* Replaces the whole state from import records: the export's records
 * without its 'D' and 'L' records, plus one 'P' record per piece (its key
 * and bytes; the key is checked unless a leading 'K' record says the host
 * vouches for its store). Validated as msb_restore validates a snapshot, all or
 * nothing; a missing or malformed piece is MSB_ECORRUPT with the piece's
 * key in msb_errmsg. */
int msb_state_import(msb_sandbox *sb, const uint8_t *data, size_t len);
/* Creates an independent sandbox with identical state: the same limits,
 * clock and seed, the files under /tmp and /workspace, the revision and
 * the shell session, handed over as an uncompressed snapshot (O(size)).
 * The policy is copied too; checkpoints are not carried over. *out
 * receives the new handle (close it with msb_close); errors are recorded
 * on sb. */
int msb_fork(msb_sandbox *sb, msb_sandbox **out);

/* ---- Host controls --------------------------------------------------- */

/* Policy
 *   The host's policy is checked in the core before anything runs; a
 *   denial changes nothing. It is host state: checkpoints and rollbacks
 *   leave it as it is, forks (the JS memory copy) carry it, snapshots do
 *   not contain it. Text form, one rule per line; blank lines and lines
 *   starting with '#' are ignored, surrounding blanks are trimmed:
 *
 *     allow-command NAME   when any is given, only these commands run
 *     deny-command NAME    never run NAME (wins over allow-command)
 *     path PREFIX ACCESS   ACCESS: none | read-only | read-write
 *     allow-op OP          when any is given, only these host operations
 *     deny-op OP           refuse a host operation (wins over allow-op)
 *
 *   Commands. Shell builtins (cd, echo, test, printf, eval, ...) are part of
 *   the language: an allow-list does not restrict them, only deny-command
 *   by name does. Functions are not commands; what they run is checked.
 *   Rules hold by implementation: a rule for one name holds for every
 *   name of the same code (`.` and source; bash, sh and running a script
 *   file; typeset and declare; readarray and mapfile; [ and [[ and test;
 *   egrep, fgrep and grep; zcat, gunzip and gzip; ...: README.md lists
 *   them). A denied command is refused however it is reached (directly,
 *   through /usr/bin/NAME or a copy or link of it, env, xargs, find
 *   -exec, timeout, command, builtin, exec, eval, bash -c or a script):
 *   it fails like a missing command, with status 126 and
 *   "bash: line N: NAME: command denied by policy" on stderr, and the
 *   script goes on as bash does after a failed command. A denied name that
 *   nothing provides says so too.
 *
 *   Paths. PREFIX is normalised like a path argument (relative to
 *   /workspace, "." and ".." resolved lexically, no trailing '/'). A path's
 *   access is that of the longest rule that is a prefix of it segment-wise
 *   ("/workspace/a" covers "/workspace/a/b", never "/workspace/ab");
 *   without a matching rule it is read-write. Rules apply to the resolved
 *   path (after symlinks), for commands, redirections, globbing, cd and
 *   host operations alike:
 *     none        contents cannot be read, listed, globbed, found or
 *                 entered ("Permission denied", like a mode 000 directory
 *                 seen by an ordinary user); the entry itself stays
 *                 visible in its parent's listing
 *     read-only   reads work; every change fails ("Permission denied")
 *     read-write  no restriction
 *   Removing, moving or copying a whole tree also needs every rule inside
 *   it to allow that (copy: no "none" inside; remove/move: nothing but
 *   read-write inside). Two different accesses for one prefix are an
 *   error. Whole-state host operations (checkpoint, rollback, release,
 *   create_snapshot, restore_snapshot, fork, msb_root_hash) are governed
 *   by operation rules only. The core's own /usr/bin listing is exempt.
 *   /usr/bin (and the /bin link, and /usr as a whole) is read-only to
 *   scripts and host calls (MSB_EROFS, "Read-only file system") unless a
 *   rule `path /usr/bin read-write` says otherwise. Its files are the
 *   commands they name: a copy or link of one runs that command.
 *
 *   Host operations (OP), the reference product's names plus ours:
 *     execute (msb_exec), read_file (msb_read), write_file (msb_write,
 *     msb_append), stat (msb_stat_path), list_entries (msb_list),
 *     create_directory (msb_mkdir), remove_path (msb_remove), copy_path
 *     (msb_copy), move_path (msb_move), create_symlink (msb_symlink),
 *     read_link (msb_readlink), change_mode (msb_chmod), hash (msb_hash,
 *     msb_root_hash), checkpoint, rollback, release, create_snapshot
 *     (msb_snapshot), restore_snapshot (msb_restore), fork (msb_fork),
 *     apply_patch (msb_apply_patch).
 *   A denied operation or path returns MSB_EPOLICY; msb_errmsg names the
 *   operation ("operation write_file is denied by policy") or the path.
 *
 * Events
 *   Every operation above emits "operation.started", then any of
 *   "policy.denied", "limit.exceeded", "snapshot.created" /
 *   "snapshot.restored", then exactly one of "operation.completed" or
 *   "operation.failed". msb_open queues "sandbox.created"; a host adds
 *   "sandbox.closed" / "sandbox.failed" (the JS package does). One compact
 *   JSON object per line, keys in this order, absent ones left out:
 *     seq        per sandbox, strictly increasing (gaps when dropped)
 *     kind       the event kind
 *     operation  operation id, increasing per sandbox
 *     op         operation kind (the OP names above)
 *     revision   workspace revision after the operation (terminal events)
 *     exit_code  execute's exit status
 *     paths      normalised path arguments (at most 8)
 *     bytes      {"stdout","stderr"} for execute, {"read"} / {"written"}
 *     count      policy.denied: denials in the operation; events.dropped
 *     limit      limit.exceeded: the limit's name, e.g. "max_steps"
 *     code       operation.failed: the code name, e.g. "MSB_ENOENT"
 *     reason     policy.denied: "operation", "command" or "path"
 *   Events never hold file contents, command text, output or environment
 *   values; they carry no sandbox id (the host adds its own). Strings are
 *   JSON-escaped; bytes that are not valid UTF-8 appear as \u00XX, one per
 *   byte. The queue holds 256 events and 64 KiB; beyond that events are
 *   counted, and the next drain ends with one "events.dropped" event
 *   carrying the count. Running out of memory drops events, never fails an
 *   operation. */

/* Opens a host operation made of several calls (a write that reports the
 * new hash, a tool's read with its hash): operation is its policy name
 * ("write_file"). The policy's operation rules are checked once, here: a
 * denied one returns MSB_EPOLICY (reported like a denied call), nothing
 * having changed. Until the matching msb_op_close, the calls the host
 * makes are that operation's steps, and their own kinds are not checked
 * again (path rules and command rules still are). Opens nest; the host
 * makes no call on behalf of anyone else while one is open. path (may be
 * NULL) is the path the operation names, for its events. */
/* The exported variables the last msb_exec set or unset, in order of
 * occurrence (the reference's environment_changes): count records of
 * "SNAME=value" or "UNAME", each ending in NUL; a name keeps its last
 * value and, after it, an unset. The caller frees *out. */
int msb_env_changes(msb_sandbox *sb, char **out, size_t *len, size_t *count);

int msb_op_open(msb_sandbox *sb, const char *operation, const char *path);
void msb_op_close(msb_sandbox *sb);
/* The outermost open operation is one operation in the events: its
 * "operation.started" at msb_op_open, its steps' events (but denials and
 * limits) left out, one terminal event at the matching msb_op_close,
 * "operation.failed" if msb_op_fail said so. msb_op_id is its id, the id
 * a tool envelope reports; after msb_op_open refused an operation
 * (MSB_EPOLICY), the refused one's id, which its events carry; 0 before
 * any msb_op_open. */
uint64_t msb_op_id(const msb_sandbox *sb);
void msb_op_fail(msb_sandbox *sb, int rc);
/* Records an operation the host carries out by itself, outside the core
 * (the JS package's memory fork copies the instance): the policy's
 * operation rules are checked and the operation's events emitted as for
 * any other, and nothing changes. Returns 0, or MSB_EPOLICY when the
 * policy denies it (the host must then not carry it out). */
int msb_op_record(msb_sandbox *sb, const char *operation);

/* Replaces the policy atomically (see Policy above); an empty text allows
 * everything. A bad line returns MSB_EINVAL, names the line in msb_errmsg
 * ("invalid policy: line 2: unknown access \"x\"") and keeps the old
 * policy. */
int msb_set_policy(msb_sandbox *sb, const char *text, size_t len);

/* Drains pending events as JSON lines (see Events above), each ending in
 * '\n'. *json is caller-freed and NUL-terminated (NULL when none). */
int msb_events_take(msb_sandbox *sb, char **json, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
