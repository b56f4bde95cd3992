/* tput.c - query terminfo capabilities (ncurses 6.4), answering for the
 * "dumb" terminal whatever $TERM names: a sandbox has no other.
 *
 * dumb has am, cols#80, bel=^G, cr=\r, cud1=ind=\n and nothing else:
 * numeric capabilities it lacks print -1 (colors), cols and lines follow
 * $COLUMNS and $LINES (24 lines otherwise), a boolean answers with the
 * exit status, a string capability it lacks exits 1 printing nothing,
 * "clear" exits 2 and "init" / "reset" fail as they do without a
 * terminal. A name terminfo does not know is refused ("unknown terminfo
 * capability", status 4); only the capability names listed here are
 * known, which covers what scripts ask for. -S is refused.
 *
 * Usage: tput [-T TERM] [-x] capname [parameters...] */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char tput_usage[] MSB_COLD =
    "Usage: tput [options] [command]\n"
    "\n"
    "Options:\n"
    "  -S <<       read commands from standard input\n"
    "  -T TERM     use this instead of $TERM\n"
    "  -V          print curses-version\n"
    "  -x          do not try to clear scrollback\n"
    "\n"
    "Commands:\n"
    "  clear       clear the screen\n"
    "  init        initialize the terminal\n"
    "  reset       reinitialize the terminal\n"
    "  capname     unlike clear/init/reset, print value for capability "
    "\"capname\"\n";

/* Capability names by kind, space-separated with a space at each end. */
static const char tput_bools[] =
    " am bw xsb xhp xenl eo gn hc km hs in da db mir msgr os eslok xt hz ul "
    "xon nxon mc5i chts nrrmc npc ndscr ccc bce hls xhpa crxm daisy xvpa sam "
    "cpix lpix ";
static const char tput_nums[] =
    " cols it lines lm xmc pb vt wsl nlab lh lw ma wnum colors pairs ncv "
    "bufsz spinv spinh maddr mjump mcs mls npins orc orl orhi orvi cps widcs "
    "btns bitwin bitype ";
static const char tput_strs[] =
    " cbt bel cr csr tbc el1 el ed hpa cmdch cup cud1 home civis cub1 mrcup "
    "cnorm cuf1 ll cuu1 cvvis dch1 dl1 dsl hd smacs blink bold smcup smdc "
    "dim smir invis prot rev smso smul ech rmacs sgr0 rmcup rmdc rmir rmso "
    "rmul flash ff fsl is1 is2 is3 if ich1 il1 ip kbs ktbc kclr kdch1 kdl1 "
    "kcud1 krmir kel ked kf0 kf1 kf10 kf2 kf3 kf4 kf5 kf6 kf7 kf8 kf9 khome "
    "kich1 kil1 kcub1 kll knp kpp kcuf1 kind kri khts kcuu1 rmkx smkx rmm "
    "smm nel pad dch dl cud ich indn il cub cuf rin cuu pfkey pfloc pfx mc0 "
    "mc4 mc5 rep rs1 rs2 rs3 rf rc vpa sc ind ri sgr hts wind ht tsl uc hu "
    "iprog ka1 ka3 kb2 kc1 kc3 mc5p rmp acsc pln kcbt smxon rmxon smam rmam "
    "xonc xoffc enacs smln rmln kbeg kcan kclo kcmd kcpy kcrt kend kent kext "
    "kfnd khlp kmrk kmsg kmov knxt kopn kopt kprv kprt krdo kref krfr krpl "
    "krst kres ksav kspd kund setaf setab setf setb op oc sitm ritm smxx "
    "rmxx ech el1 rmam smam E3 Ms Ss Se ";

static int tput_in(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while ((p = strstr(p, name)) != NULL) {
    if (p[-1] == ' ' && p[n] == ' ') return 1;
    p += n;
  }
  return 0;
}

static const char *tput_env(cmd_ctx *c, const char *name) {
  size_t n = strlen(name);
  int i;
  for (i = 0; c->envp && c->envp[i]; i++)
    if (!strncmp(c->envp[i], name, n) && c->envp[i][n] == '=')
      return c->envp[i] + n + 1;
  return NULL;
}

/* cols and lines: the environment's positive number, else the default. */
static int tput_size(cmd_ctx *c, const char *env, int dflt) {
  const char *v = tput_env(c, env);
  int64_t n;
  if (v && !cmd_parse_int(v, &n) && n > 0 && n < 100000) return (int)n;
  return dflt;
}

/* Answers one capability for dumb. */
static int tput_cap(cmd_ctx *c, const char *cap) {
  static const char *const dumb[][2] = {
      {"bel", "\a"}, {"cr", "\r"}, {"cud1", "\n"}, {"ind", "\n"}};
  size_t i;
  if (!strcmp(cap, "clear")) return 2;
  if (!strcmp(cap, "init") || !strcmp(cap, "reset")) {
    cmd_err(c, "terminal attributes: No such device or address");
    return 10;
  }
  if (!strcmp(cap, "longname")) return buf_puts(c->out, "80-column dumb tty");
  if (tput_in(tput_bools, cap)) return strcmp(cap, "am") ? 1 : 0;
  if (tput_in(tput_nums, cap)) {
    int v = !strcmp(cap, "cols")    ? tput_size(c, "COLUMNS", 80)
            : !strcmp(cap, "lines") ? tput_size(c, "LINES", 24)
                                    : -1;
    return buf_printf(c->out, "%d\n", v);
  }
  for (i = 0; i < sizeof dumb / sizeof dumb[0]; i++)
    if (!strcmp(cap, dumb[i][0])) return buf_puts(c->out, dumb[i][1]);
  if (tput_in(tput_strs, cap)) return 1;
  cmd_err(c, "unknown terminfo capability '%s'", cap);
  return 4;
}

/* Entry point: see the usage above. */
int cmd_tput(cmd_ctx *c) {
  const char *term = tput_env(c, "TERM");
  int i = 1, rc;
  for (; i < c->argc && c->argv[i][0] == '-' && c->argv[i][1]; i++) {
    const char *a = c->argv[i];
    if (!strcmp(a, "-T") && i + 1 < c->argc)
      term = c->argv[++i];
    else if (!strncmp(a, "-T", 2) && a[2])
      term = a + 2;
    else if (!strcmp(a, "-V"))
      return buf_puts(c->out, "ncurses 6.4.20221231\n") < 0 ? MSB_ENOMEM : 0;
    else if (!strcmp(a, "-x"))
      continue;
    else if (!strcmp(a, "-S")) {
      cmd_err(c, "-S is not supported in memsandbox");
      return 2;
    } else {
      buf_puts(c->err, cold_get(tput_usage));
      return 2;
    }
  }
  if (!term || !*term) {
    cmd_err(c, "No value for $TERM and no -T specified");
    return 2;
  }
  if (i >= c->argc) {
    buf_puts(c->err, cold_get(tput_usage));
    return 2;
  }
  /* a string capability takes the words after it as parameters; after a
   * boolean or number they are more capability names, as in ncurses */
  do {
    const char *cap = c->argv[i++];
    rc = tput_cap(c, cap);
    if (!tput_in(tput_nums, cap) && !tput_in(tput_bools, cap)) break;
  } while (rc >= 0 && i < c->argc);
  return rc;
}
