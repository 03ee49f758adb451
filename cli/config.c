// pbdiff CLI — the .pbdiff config file: per-path schemas and options, in
// git-config syntax.
//
//     [file "*.onnx"]
//         proto = /usr/include/onnx/onnx.proto
//         type = onnx.ModelProto
//     [file "golden/*.pb"]
//         schema = build/api.desc
//         type = acme.api.Response
//         key = acme.api.Response.items=id
//
// A glob without '/' matches a file's name in any directory; one with '/'
// matches the path relative to the config file's directory (`*` stays
// within a directory, `**` crosses them).  Of several matching sections the
// last wins, as in .gitattributes.  Relative file names in values are
// relative to the config file's directory.
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff/inputs/input.h"

/* The most a config file may hold (docs/limits.md). */
enum { kMaxConfigBytes = 16 << 20 };

/* A [file "GLOB"] section: its settings, each a row of the option table
 * (cli/options.c) and a value, in the file's order. */
typedef struct {
  char *glob;
  int *keys;
  const char **values;
  size_t n;
} Section;

struct pbd_Config {
  char *dir; /* the config file's directory, absolute */
  Section *sections;
  size_t n;
  /* every string the sections point to, freed together */
  char **strings;
  size_t nstrings;
};

static char *keep(pbd_Config *c, char *s) {
  if (!s) return NULL;
  if (!pbd_Cli_RoomFor(&c->strings, c->nstrings, sizeof *c->strings)) {
    free(s);
    return NULL;
  }
  c->strings[c->nstrings++] = s;
  return s;
}

void pbd_Config_Free(pbd_Config *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->sections[i].keys);
    free((void *)c->sections[i].values);
  }
  for (size_t i = 0; i < c->nstrings; i++) free(c->strings[i]);
  free(c->strings);
  free(c->sections);
  free(c->dir);
  free(c);
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
  return s;
}

/* A value: trailing comments dropped, one pair of double quotes removed
 * (inside quotes, \" and \\ are escapes). */
static char *value_of(char *v) {
  v = trim(v);
  if (*v == '"') {
    char *o = v, *p = v + 1;
    while (*p && *p != '"') {
      if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
      *o++ = *p++;
    }
    *o = '\0';
    return v;
  }
  for (char *p = v; *p; p++)
    if (*p == '#' || *p == ';') {
      *p = '\0';
      break;
    }
  return trim(v);
}

static char *resolve_file(const pbd_Config *c, const char *v) {
  if (v[0] == '/') return strdup(v);
  size_t n = strlen(c->dir) + strlen(v) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", c->dir, v);
  return p;
}

/* A file a config names (schema, proto, proto-path) must be a regular file
 * or a directory when it exists: a repository's .pbdiff naming /dev/stdin,
 * /dev/tty, /proc/self/fd/0 or a FIFO (through a symlink in the repository)
 * would have pbdiff, and git waiting on it, read without end.  stat does
 * not open, so it cannot block.  One that does not exist is left to the
 * loader, which says so when a section naming it applies.  false with why. */
static bool file_or_directory(const char *key, const char *path, char *why, size_t n) {
  struct stat st;
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return true;
  const char *what = S_ISFIFO(st.st_mode)  ? "a FIFO"
                     : S_ISCHR(st.st_mode) ? "a character device"
                     : S_ISBLK(st.st_mode) ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  char quoted[512];
  snprintf(why, n, "%s %s is %s, not a regular file (a config names files to read whole)", key,
           pbd_Cli_Name(path, quoted, sizeof quoted), what);
  return false;
}

/* One `key = value` line of a section; false with a message in why for a
 * bad one (why left empty: out of memory). */
static bool set_key(pbd_Config *c, Section *s, const char *key, char *value, char *why, size_t n) {
  int k = pbd_Cli_ConfigKey(key);
  if (k < 0) {
    const char *c = pbd_Cli_ConfigKeyClosest(key);
    if (c) snprintf(why, n, "unknown key '%s' (did you mean '%s'?)", key, c);
    else snprintf(why, n, "unknown key '%s' (known: %s)", key, pbd_Cli_ConfigKeyNames());
    return false;
  }
  char *v = value_of(value);
  if (!pbd_Cli_CheckConfigValue(k, v, why, n)) return false;
  char *kept = keep(c, pbd_Cli_ConfigKeyIsFile(k) ? resolve_file(c, v) : strdup(v));
  if (kept && pbd_Cli_ConfigKeyIsFile(k) && !file_or_directory(key, kept, why, n)) return false;
  if (!kept || !pbd_Cli_RoomFor(&s->keys, s->n, sizeof *s->keys) ||
      !pbd_Cli_RoomFor(&s->values, s->n, sizeof *s->values))
    return false;
  s->keys[s->n] = k;
  s->values[s->n++] = kept;
  return true;
}

/* A section header, `[file "GLOB"]` and nothing else (inside the quotes,
 * \" and \\ are escapes); *glob points into the line.  false with why. */
static bool section_header(char *p, char **glob, char *why, size_t n) {
  char *q = p + 1;
  while (*q == ' ' || *q == '\t') q++;
  char *name = q;
  while (*q >= 'a' && *q <= 'z') q++;
  size_t len = (size_t)(q - name);
  if (len != 4 || strncmp(name, "file", 4) != 0) {
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(len < 60 ? len : 60), name);
    static const char *const kSections[] = {"file"};
    const char *c = pbd_Cli_Closest(word, kSections, 1);
    snprintf(why, n, "unknown section '%s'%s (sections are [file \"GLOB\"])", word,
             c ? " (did you mean 'file'?)" : "");
    return false;
  }
  while (*q == ' ' || *q == '\t') q++;
  if (*q != '"') {
    snprintf(why, n, "bad section header: want [file \"GLOB\"]");
    return false;
  }
  char *out = ++q;
  *glob = out;
  while (*q && *q != '"') {
    if (*q == '\\' && (q[1] == '"' || q[1] == '\\')) q++;
    *out++ = *q++;
  }
  if (*q != '"' || q[1] != ']' || q[2] != '\0') {
    snprintf(why, n, "bad section header: want [file \"GLOB\"] with its closing quote and ]");
    return false;
  }
  *out = '\0';
  return true;
}

static pbd_Config *parse(const char *path, FILE *f, pbd_CliError *e) {
  pbd_Config *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  char abs[PATH_MAX + 32];
  if (!realpath(path, abs)) snprintf(abs, sizeof abs, "%s", path);
  char *slash = strrchr(abs, '/');
  if (slash) *slash = '\0';
  c->dir = strdup(slash ? (abs[0] ? abs : "/") : ".");
  char *line = NULL; /* lines of any length */
  size_t line_cap = 0;
  unsigned lineno = 0;
  Section *cur = NULL;
  char why[300] = "";
  while (getline(&line, &line_cap, f) != -1) {
    lineno++;
    char *p = trim(line);
    if (!*p || *p == '#' || *p == ';') continue;
    if (*p == '[') {
      char *glob;
      if (!section_header(p, &glob, why, sizeof why)) goto bad;
      Section *ns = realloc(c->sections, sizeof *ns * (c->n + 1));
      if (!ns) goto oom;
      c->sections = ns;
      cur = &c->sections[c->n++];
      memset(cur, 0, sizeof *cur);
      if (!(cur->glob = keep(c, strdup(glob)))) goto oom;
      continue;
    }
    char *eq = strchr(p, '=');
    char key[64];
    size_t kl = eq ? (size_t)(eq - p) : strlen(p);
    if (kl >= sizeof key) {
      snprintf(why, sizeof why, "key too long");
      goto bad;
    }
    memcpy(key, p, kl);
    key[kl] = '\0';
    char *k = trim(key);
    if (!cur) {
      snprintf(why, sizeof why, "'%s' outside a [file \"GLOB\"] section", k);
      goto bad;
    }
    char empty[1] = "";
    if (!set_key(c, cur, k, eq ? eq + 1 : empty, why, sizeof why)) {
      if (!why[0]) goto oom;
      goto bad;
    }
  }
  free(line);
  return c;
bad:
  pbd_CliError_Set(e, false, "%s: line %u: %s", pbd_Cli_Name(path, (char[1024]){0}, 1024), lineno, why);
  free(line);
  pbd_Config_Free(c);
  return NULL;
oom:
  pbd_CliError_Set(e, false, "out of memory reading %s", pbd_Cli_Name(path, (char[1024]){0}, 1024));
  free(line);
  pbd_Config_Free(c);
  return NULL;
}

pbd_Config *pbd_Config_Load(const pbd_CliOptions *o, pbd_CliError *e) {
  char found[PATH_MAX + 16];
  const char *path = o->config;
  if (!path && o->no_config) path = "/dev/null"; /* an empty config */
  if (!path) {
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir)) {
      pbd_Config *empty = calloc(1, sizeof *empty);
      if (empty) empty->dir = strdup(".");
      return empty;
    }
    for (;;) { /* walk up to the root */
      snprintf(found, sizeof found, "%s/.pbdiff", strcmp(dir, "/") ? dir : "");
      struct stat st;
      if (stat(found, &st) == 0 && S_ISREG(st.st_mode)) {
        path = found;
        break;
      }
      char *slash = strrchr(dir, '/');
      if (!slash || slash == dir) {
        if (!strcmp(dir, "/")) break;
        strcpy(dir, "/");
        continue;
      }
      *slash = '\0';
    }
    if (!path) {
      pbd_Config *empty = calloc(1, sizeof *empty);
      if (empty) empty->dir = strdup(".");
      return empty;
    }
  }
  /* read whole, and bounded: a config is a few lines, never /dev/zero */
  pbd_Input in;
  pbd_Status s;
  pbd_Status_Clear(&s);
  char quoted[1024];
  pbd_Cli_Name(path, quoted, sizeof quoted);
  if (!pbd_Input_OpenMax(&in, path, kMaxConfigBytes, &s)) {
    if (strstr(s.msg, "the most an input may hold"))
      pbd_CliError_Set(e, false, "%s: a config file holds at most 16 MiB", quoted);
    else
      pbd_CliError_Set(e, false, "%s: cannot open config: %s", quoted,
                       strncmp(s.msg, "cannot open: ", 13) ? s.msg : s.msg + 13);
    return NULL;
  }
  FILE *f = in.size ? fmemopen((void *)in.data, in.size, "r") : fopen("/dev/null", "r");
  pbd_Config *c = f ? parse(path, f, e) : NULL;
  if (!f) pbd_CliError_Set(e, false, "out of memory reading %s", quoted);
  if (f) fclose(f);
  pbd_Input_Close(&in);
  return c;
}

pbd_Config *pbd_Config_LoadOrSay(const pbd_CliOptions *o, const char *command) {
  pbd_CliError error = {0};
  pbd_Config *cfg = pbd_Config_Load(o, &error);
  if (!cfg) pbd_CliError_Print(stderr, &error, command);
  return cfg;
}

/* The path as the config sees it: relative to its directory when under it. */
static void relative_path(const pbd_Config *c, const char *path, char *out, size_t n) {
  pbd_Buf abs = {0};
  if (path[0] == '/') {
    pbd_Buf_AppendStr(&abs, path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    pbd_Buf_Printf(&abs, "%s/%s", cwd, path);
  }
  const char *a = abs.data ? abs.data : "";
  size_t dl = c->dir ? strlen(c->dir) : 0;
  if (c->dir && strncmp(a, c->dir, dl) == 0 && a[dl] == '/') snprintf(out, n, "%s", a + dl + 1);
  else snprintf(out, n, "%s", path);
  /* drop "./" pieces */
  while (!strncmp(out, "./", 2)) memmove(out, out + 2, strlen(out + 2) + 1);
  pbd_Buf_Free(&abs);
}

/* fnmatch with `**` for any number of directories. */
static bool glob_match(const char *glob, const char *path) {
  if (!strchr(glob, '/')) {
    const char *base = strrchr(path, '/');
    return fnmatch(glob, base ? base + 1 : path, 0) == 0;
  }
  const char *star = strstr(glob, "**");
  if (!star) return fnmatch(glob, path, FNM_PATHNAME) == 0;
  return fnmatch(glob, path, 0) == 0; /* `**`: let `*` cross directories */
}

pbd_CliOptions pbd_Config_Apply(const pbd_Config *c, const pbd_CliOptions *base, const char *path) {
  const Section *s = NULL;
  if (c && c->n && path && strcmp(path, "-") && strcmp(path, "/dev/null")) {
    char rel[PATH_MAX];
    relative_path(c, path, rel, sizeof rel);
    for (size_t i = 0; i < c->n; i++)
      if (glob_match(c->sections[i].glob, rel)) s = &c->sections[i];
  }
  if (!s) return pbd_Cli_ApplyConfig(base, NULL, NULL, 0);
  return pbd_Cli_ApplyConfig(base, s->keys, s->values, s->n);
}

void pbd_Cli_FreeApplied(pbd_CliOptions *o) { pbd_Cli_FreeOptions(o); }
