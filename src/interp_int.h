/* interp_int.h - what the interpreter's files (src/interp*.c) share with
 * each other and with nothing else. */
#ifndef MSB_INTERP_INT_H
#define MSB_INTERP_INT_H

#include "interp.h"

/* A command's descriptors, kept while its redirections are in force. */
typedef struct interp_saved {
  sh_stream *fd[SH_NFD];
} interp_saved;

/* interp_io.c */
sh_stream *interp_stream_ref(sh_stream *s);
/* Runs the >(...) readers registered from index mark on whose writers are
 * done (all when force: the shell ends); 0 or a fatal error. */
int interp_procout_run(shell *sh, size_t mark, int force);
void interp_fd_set(shell *sh, int fd, sh_stream *s);
int interp_pace(shell *sh);
int interp_shadow_low(const shell *sh);
void interp_trim_output(shell *sh);
void interp_sigpipe(shell *sh, sh_stream *s);
const char *interp_name(shell *sh);
int interp_pipe_overrun(shell *sh);
void interp_free_pos(shell *sh);
int interp_atoi(const char *s);

/* interp_session.c */
sh_func *interp_func_slot(sh_func *t, size_t n, const char *name);
void interp_funcs_free(shell *sh);
int interp_init_vars(shell *sh);
int interp_job_add(shell *sh, int pid, int status);

/* interp_redir.c */
void interp_save_fds(shell *sh, interp_saved *s);
void interp_restore_fds(shell *sh, interp_saved *s);
sh_stream *interp_bytes_stream(shell *sh, const char *s, size_t n);
void interp_word_text(const ast_word *w, buf *b);
int interp_redirs(shell *sh, ast_redir *r, interp_saved *sv);

/* interp_cmd.c */
int interp_denied(shell *sh, const char *shown, const char *name, int builtin);
int interp_table_cmd(shell *sh, const cmd_desc *d, int argc, char **argv,
                     char **extra, int nextra);
int interp_call(shell *sh, sh_func *f, int argc, char **argv);

/* interp_assign.c */
int interp_xtrace(shell *sh, char **av, int ac, char **as, int nas);

/* interp.c */
extern const char interp_comsub_prefix[];
int interp_child_end(shell *sh, shell *c, int rc);
int interp_comsub_node(shell *sh, ast_node *n);
int interp_capture_run(shell *sh, ast_node *n, buf *out);
int interp_capture_text_run(shell *sh, const char *text, size_t len, int line,
                            buf *out);

/* interp_cond.c */
int interp_cond(shell *sh, ast_cond *c);

#endif
