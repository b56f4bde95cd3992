/* glob.h - bash pattern matching and pathname expansion over the vfs.
 *
 * Patterns are bash's: * ? [...] [!...] [^...] with ranges and [:class:]
 * classes (C locale: bytes, ranges by byte value), backslash escapes, and
 * with GLOB_EXTGLOB the extglob operators ?(..) *(..) +(..) @(..) !(..)
 * (nested, `|` alternatives). The caller marks quoted characters by putting
 * a backslash before each of them, so `"*"x` becomes the pattern `\*x`.
 *
 * Matching never backtracks exponentially: plain patterns use the linear
 * "last star" scan, extglob patterns a memo over (pattern node, string
 * position) pairs, so the work is bounded by pattern size x string length
 * (x string length for extglob groups), and every unit is charged to the
 * caller's work budget (MSB_ELIMIT when exhausted). */
#ifndef MSB_GLOB_H
#define MSB_GLOB_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "vfs.h"

/* Matching flags (glob_match) and expansion options (glob_expand). */
#define GLOB_EXTGLOB 1u  /* ?(..) *(..) +(..) @(..) !(..) */
#define GLOB_NOCASE 2u   /* nocasematch / nocaseglob: ASCII case folded */
#define GLOB_PATHNAME 4u /* wildcards and brackets never match '/' */
#define GLOB_PERIOD \
  8u   /* a leading '.' (and one after '/' with
                            GLOB_PATHNAME) must be matched literally */
#define GLOB_DOTGLOB \
  16u /* expansion: hidden names match wildcards, but
                            never "." or ".." */
#define GLOB_GLOBSTAR 32u /* expansion: a "**" segment spans directories */
#define GLOB_MARK 64u    /* expansion: append '/' to directories */

/* Matches a whole string against a pattern. Returns 1 (match), 0 (no
 * match), MSB_ELIMIT (budget gone) or MSB_ENOMEM. m is used only for
 * extglob memo tables (freed before returning). budget may be NULL
 * (unbounded); otherwise it is decremented by the work done. A malformed
 * bracket is matched literally, as bash does ("[a" matches "[a"). */
int glob_match(mem *m, const char *pat, size_t plen, const char *str,
               size_t slen, unsigned flags, uint64_t *budget);

/* Matches every prefix (suffix = 0) or every suffix (suffix = 1) of str
 * at once, for ${x#p} ${x##p} ${x%p} ${x%%p} and ${x/#p} ${x/%p}: sets
 * ends[k] (ends has slen + 1 bytes) to 1 when pat matches str[0..k), or
 * str[k..slen) for suffixes, else 0. Patterns without extglob groups take
 * one O(slen x plen) pass instead of one match per length; groups share
 * one memo across lengths. GLOB_PERIOD refers to the start of str. Returns
 * 0, MSB_ELIMIT or MSB_ENOMEM (ends is then all 0). */
int glob_match_ends(mem *m, const char *pat, size_t plen, const char *str,
                    size_t slen, unsigned flags, int suffix, uint64_t *budget,
                    uint8_t *ends);

/* Whether a pattern holds an unescaped wildcard (* ? [ and, with
 * GLOB_EXTGLOB, the extglob openers), i.e. whether a word needs pathname
 * expansion at all. */
int glob_has_magic(const char *pat, size_t plen, unsigned flags);

/* Removes the backslash escapes from a pattern (for a word that had no
 * magic or matched nothing): appends the literal text to out. */
int glob_unescape(const char *pat, size_t plen, buf *out);

/* Pathname expansion. pattern is relative to cwd (an absolute path) or
 * absolute; results are spelled the way bash prints them (relative
 * patterns give relative results: "./a*" -> "./ab", "*" + "/x", ...),
 * sorted bytewise (bash's C-locale order). Hidden entries need GLOB_DOTGLOB
 * or a pattern segment starting with a literal '.'; "." and ".." match
 * only literally. A trailing '/' keeps directories only. Symlinks to
 * directories are followed for middle segments, but "**" (GLOB_GLOBSTAR)
 * does not descend through symlinks, as in bash 5; "**" alone in a
 * segment matches zero or more directories, and "**" + "/" only
 * directories. Segments without magic are checked for existence only.
 *
 * On success returns 0 with *out an array of *count owned strings
 * (NULL and 0 when nothing matched: the caller applies nullglob, failglob
 * or leaves the word as it is). Free with glob_free. budget counts
 * directory entries visited plus matching work (max_glob_work); past it
 * MSB_ELIMIT is returned and nothing is allocated. */
int glob_expand(vfs *v, mem *m, const char *cwd, const char *pattern,
                size_t plen, unsigned flags, uint64_t *budget, char ***out,
                size_t *count);

/* Frees glob_expand's result. */
void glob_free(mem *m, char **list, size_t count);
/* GLOBIGNORE: removes (and frees) from list every name that one of the
 * colon-separated patterns of `ignore` matches as a whole path, and every
 * name whose last component is "." or "..", as bash does; *count is
 * updated. flags are the expansion's GLOB_EXTGLOB / GLOB_NOCASE. Matching
 * is bash's: `?` and a `*` inside the pattern never match '/', a trailing
 * `*` matches the rest of the path whatever it holds. Returns 0,
 * MSB_ELIMIT or MSB_ENOMEM. */
int glob_ignore(mem *m, const char *ignore, unsigned flags, char **list,
                size_t *count, uint64_t *budget);

/* Brace expansion is not provided here: expand.c owns it.
 *
 * Known differences from bash 5.2 (checked by randomized comparison):
 * consecutive globstar segments ("**" + "/" + "**") act as one "**", where
 * bash drops or adds a slash on the starting directory; an unclosed extglob
 * group such as "*(" is matched literally, where bash's result depends on
 * the rest of the pattern; a star followed by ?(..) and then another group
 * (`*?(b)@()`) matches where bash, whose star treats `?(` apart, does not
 * when the star has more than one character to choose from. */

#endif
