/* SPDX-License-Identifier: MIT */
/*
 * cli_env.c - `cudaload env` (print the search-path variable for a set of
 * requirements, as shell lines to evaluate) and `cudaload exec` (run a
 * program with it set, so it finds its libraries at process start).
 */
#include "cli.h"
#include "cudaload.h"
#include "common/shell_word.h"
#include "os/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_env_help[] = {
    "NAME\n"
    "  cudaload env - print the library search path for requirements\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload env (--require SPEC | --for TARGET)... [--root DIR]...\n"
    "               [--no-defaults] [--shell sh|fish|cmd|powershell]\n"
    "               [--dry-run]\n"
    "\n"
    "DESCRIPTION\n"
    "  Finds one library per requirement (explicit roots first, then the\n"
    "  default roots; the newest version within the request), with the\n"
    "  libraries that belong to it from the same folder, and prints the\n"
    "  line that puts their folders first on the search-path variable\n"
    "  (LD_LIBRARY_PATH on Linux, PATH on Windows): prepended, without\n"
    "  duplicates, never with an empty, '.' or relative entry. Evaluate it\n"
    "  in the shell that will start the program:\n"
    "\n"
    "    eval \"$(cudaload env --require cudnn=8)\"\n"
    "\n"
    "  On Linux the variable is read when a process starts: it helps the\n"
    "  programs started after it, not a running one (use the C API's\n"
    "  cudaload_preload() in-process, or cudaload exec).\n"
    "\n"
    "  A library a chosen one opens by name at its first call (cuDNN 8\n"
    "  opens cuBLAS 12) joins the plan; when no root holds it, a warning\n"
    "  on stderr names the files and the package to install.\n"
    "\n"
    "  What cudaload exec would set for the program beyond the variable\n"
    "  (LD_PRELOAD of planned files a DT_RPATH would miss, a CUDA_PATH,\n"
    "  CUDA_HOME or CUDNN_PATH of another CUDA major unset) follows as\n"
    "  lines of their own, each said on stderr.\n"
    "\n"
    "OPTIONS\n"
    "  -q, --require SPEC  a requirement: FAMILY[OP VERSION], OP one of =\n"
    "                      == >= > <= <; several may be given, or joined\n"
    "                      with commas: cudnn=8,cudnn=9  cublas=12  cudart\n"
    "  --for TARGET        require what a program needs, read from it: a\n"
    "                      binary (ELF or PE), a Python interpreter or venv\n"
    "                      (its environment becomes the active one), or an\n"
    "                      installed Python module or distribution (torch,\n"
    "                      onnxruntime); the report says where each\n"
    "                      requirement came from\n"
    "  -r, --root DIR      search DIR first (may be repeated; a relative DIR\n"
    "                      is resolved against the current folder)\n"
    "  --environment DIR   search DIR as the active environment (may be\n"
    "                      repeated): instead of VIRTUAL_ENV, CONDA_PREFIX\n"
    "                      and the python3 on PATH\n"
    "  --no-defaults       search only the --root folders\n"
    "  --allow-writable-roots\n"
    "                      accept roots other users can write to\n"
    "  --shell S           sh (default on Linux), fish, cmd (default on\n"
    "                      Windows) or powershell\n"
    "  --dry-run           print the plan (files, why, whether they would be\n"
    "                      preloaded) instead of the shell line\n"
    "  -h, --help          show this help\n"
    "\n"
    "EXIT STATUS\n"
    "  0  success\n"
    "  1  internal error\n"
    "  2  usage error (no --require or --for, bad SPEC, unknown option)\n"
    "  3  a --for TARGET that is no program, interpreter, environment or\n"
    "     installed module\n"
    "  4  a requirement has no usable library; stderr says what is\n"
    "     missing, every folder searched, every candidate rejected and why,\n"
    "     and the command that fixes it\n"
    "\n"
    "EXAMPLES\n"
    "  eval \"$(cudaload env --require cudnn=8,cudnn=9)\"\n"
    "  cudaload env --require cublas=12 --shell fish | source\n"
    "  cudaload env --require cudnn=8 --root /opt/app/cudnn8 --dry-run\n",
    NULL};
const char *const cli_exec_help[] = {
    "NAME\n"
    "  cudaload exec - run a program with its CUDA libraries on the search\n"
    "  path\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload exec [--require SPEC]... [--for TARGET]... [--root DIR]...\n"
    "                [--no-defaults] [--dry-run] [--force]\n"
    "                [--drop-stale-preload] -- COMMAND\n"
    "                [ARGS...]\n"
    "\n"
    "DESCRIPTION\n"
    "  Plans as `cudaload env` does, sets the search-path variable\n"
    "  (LD_LIBRARY_PATH on Linux, PATH on Windows) and runs COMMAND with\n"
    "  it, so a program linked against, say, libcudnn.so.8 finds it at\n"
    "  start. On Linux the command replaces this process (execvp); on\n"
    "  Windows it runs as a child (CreateProcessW) and its exit code is\n"
    "  passed through. A library a chosen one opens by name later that no\n"
    "  root holds is named in a warning on stderr.\n"
    "\n"
    "  With no --require and no --for, the program is COMMAND: what it\n"
    "  needs is read from it (as --for COMMAND). A venv's interpreter run\n"
    "  by path with no environment active uses its venv (its pyvenv.cfg),\n"
    "  as the interpreter itself does.\n"
    "\n"
    "  Before COMMAND runs, the loader model judges what a process started\n"
    "  with that variable would get (what LD_PRELOAD puts first, each\n"
    "  required library opened by name, the other copies of the planned\n"
    "  families): the same sentences as cudaload explain and the doctor,\n"
    "  each with its fix, on stderr. When one makes a load fail (a needed\n"
    "  file not found, a file taken that lacks symbols its consumer takes\n"
    "  from it, as an older libnvJitLink.so.12 kept first by LD_PRELOAD),\n"
    "  COMMAND is not run and the exit status is 4; --force runs it\n"
    "  anyway, and --drop-stale-preload leaves such a copy out of\n"
    "  COMMAND's LD_PRELOAD (a warning names it).\n"
    "\n"
    "  Where the search-path variable cannot make the plan win (Linux: a\n"
    "  file of COMMAND whose DT_RPATH, searched before LD_LIBRARY_PATH,\n"
    "  reaches another copy, as torch 2.5.1's libtorch_cuda.so reaches\n"
    "  its own wheels' folders), COMMAND gets LD_PRELOAD with those planned\n"
    "  files by absolute path, in plan order, before what LD_PRELOAD\n"
    "  held: a file loaded first answers its name. CUDA_PATH, CUDA_HOME\n"
    "  and CUDNN_PATH are unset for COMMAND where they name a folder of\n"
    "  another CUDA major than the plan's (CuPy and Numba search them).\n"
    "  Each change is said on stderr; --dry-run prints them.\n"
    "\n"
    "  On Windows a batch file (.bat or .cmd, in any case) is refused with\n"
    "  exit status 126: Windows would run it through cmd.exe, which parses\n"
    "  the arguments again, so that one holding a quote and & could run\n"
    "  another command. Name cmd.exe as COMMAND to run one anyway.\n"
    "\n"
    "OPTIONS\n"
    "  -q, --require SPEC  a requirement (see cudaload env --help)\n"
    "  --for TARGET        require what a program needs (see cudaload env\n"
    "                      --help); without --require or --for: COMMAND\n"
    "  -r, --root DIR      search DIR first (may be repeated; a relative DIR\n"
    "                      is resolved against the current folder)\n"
    "  --environment DIR   search DIR as the active environment (may be\n"
    "                      repeated): instead of VIRTUAL_ENV, CONDA_PREFIX\n"
    "                      and the python3 on PATH\n"
    "  --no-defaults       search only the --root folders\n"
    "  --allow-writable-roots\n"
    "                      accept roots other users can write to\n"
    "  --dry-run           print the plan and the variable, run nothing\n"
    "  --force             run COMMAND even when the loader model says a\n"
    "                      load would fail\n"
    "  --drop-stale-preload\n"
    "                      leave out of COMMAND's LD_PRELOAD each entry\n"
    "                      that puts first a copy lacking what a library\n"
    "                      binds (this shell's is unchanged)\n"
    "  -h, --help          show this help (before --)\n"
    "\n"
    "EXIT STATUS\n"
    "  COMMAND's exit status when it ran; otherwise\n"
    "  1    internal error\n"
    "  2    usage error\n"
    "  4    a requirement has no usable library, or the loader model says\n"
    "       a load of COMMAND's libraries would fail (COMMAND is not run)\n"
    "  126  COMMAND could not be executed (Windows: a batch file)\n"
    "  127  COMMAND was not found\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload exec --require cudnn=8 -- python transcribe.py\n"
    "  cudaload exec --no-defaults --root /opt/cudnn8 --require cudnn=8 -- "
    "./app\n",
    NULL};
typedef struct plan_options {
  cli_search_options search;
  int dry_run;
  int force;              /* exec: run even when a load would fail */
  int drop_stale_preload; /* exec: leave stale copies out of LD_PRELOAD */
  const char *shell;
} plan_options;

/* Parse the options env and exec share; *command_index receives the index
 * after "--" (exec) or argc. */
static int parse_plan_options(const char *cmd, int argc, char **argv,
                              plan_options *o, int allow_shell,
                              int *command_index) {
  *command_index = argc;
  for (int i = 1; i < argc; ++i) {
    const char *value;
    int m;
    if (strcmp(argv[i], "--") == 0) {
      *command_index = i + 1;
      return EXIT_OK;
    }
    if ((m = cli_search_option(cmd, argc, argv, &i, &o->search, 2))) {
      if (m < 0)
        return EXIT_USAGE;
    } else if (allow_shell && (m = cli_option_value(cmd, argc, argv, &i,
                                                    "--shell", NULL, &value))) {
      if (m < 0)
        return EXIT_USAGE;
      if (strcmp(value, "sh") && strcmp(value, "fish") &&
          strcmp(value, "cmd") && strcmp(value, "powershell"))
        return cli_usage_error(cmd,
                               "unknown shell '%s' (expected sh, fish, cmd "
                               "or powershell)",
                               value);
      o->shell = value;
    } else if (strcmp(argv[i], "--dry-run") == 0) {
      o->dry_run = 1;
    } else if (!allow_shell && strcmp(argv[i], "--force") == 0) {
      o->force = 1;
    } else if (!allow_shell && strcmp(argv[i], "--drop-stale-preload") == 0) {
      o->drop_stale_preload = 1;
    } else if (argv[i][0] == '-') {
      return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      return cli_usage_error(cmd, "unexpected argument '%s'%s", argv[i],
                             allow_shell ? "" : " (put the command after --)");
    }
  }
  return EXIT_OK;
}

static void print_plan(const cudaload_ctx *ctx) {
  printf("plan (%zu files, in load order):\n", cudaload_plan_count(ctx));
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    printf("  %-10s %-30s %d  %s\n      %s\n",
           cudaload_plan_state_name(cudaload_plan_state(ctx, i)),
           cudaload_plan_name(ctx, i), cudaload_plan_major(ctx, i),
           cli_shown(cudaload_plan_path(ctx, i)),
           cli_shown(cudaload_plan_reason(ctx, i)));
  for (size_t i = 0; i < cudaload_conflict_count(ctx); ++i)
    printf("conflict: %s\n", cli_shown(cudaload_conflict_text(ctx, i)));
}

/* The variable's new value for ctx; EXIT_OK, or an exit code with the
 * reason printed (a planned folder the variable cannot hold: exit 4, as
 * for a requirement with no usable library). */
static int compose(const char *cmd, cudaload_ctx *ctx, const char **value) {
  /* Read as the library reads it (cudaload_env_apply): on Windows from
   * the process environment block, in UTF-16 made UTF-8. The C runtime's
   * getenv has it in the ANSI code page, which mangles every entry outside
   * it ("日本" is "??"), and the printed line would set those. */
  char *current = cl_os_getenv(cudaload_env_name());
  int status = cudaload_env_value(ctx, current, value);
  free(current);
  if (status == CUDALOAD_OK)
    return EXIT_OK;
  cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
  return status == CUDALOAD_E_INSECURE ? EXIT_UNSATISFIED : EXIT_INTERNAL;
}

/* Say what a process started with the variable would get beyond the plan
 * (cudaload_env_warnings): 0; EXIT_UNSATISFIED when a load would fail and
 * `stop` (exec without --force); or EXIT_INTERNAL, with the reason
 * printed. */
static int print_env_warnings(const char *cmd, cudaload_ctx *ctx, int stop,
                              unsigned flags) {
  size_t count = 0, fatal = 0;
  int status = cudaload_env_check(ctx, flags, &count);
  if (status != CUDALOAD_OK) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    /* A planned folder the variable cannot hold: as for a requirement with
     * no usable library. */
    return status == CUDALOAD_E_INSECURE ? EXIT_UNSATISFIED : EXIT_INTERNAL;
  }
  /* What the plan succeeds without but the program would miss at a later
   * call (a library opened lazily that no root holds): on stderr, so that
   * env's stdout stays the one shell line. */
  for (size_t i = 0; i < cudaload_plan_warning_count(ctx); ++i)
    cli_error("cudaload: %s: warning: %s\n", cmd,
              cli_shown(cudaload_plan_warning(ctx, i)));
  for (size_t i = 0; i < count; ++i) {
    int fails = cudaload_env_warning_fatal(ctx, i);
    fatal += (size_t)fails;
    cli_error("cudaload: %s: %s: %s\n", cmd,
              fails && stop ? "error" : "warning",
              cli_shown(cudaload_env_warning(ctx, i)));
  }
  if (fatal && stop) {
    cli_error("cudaload: %s: the command was not run: the loader would fail "
              "as said above (--force runs it anyway)\n",
              cmd);
    return EXIT_UNSATISFIED;
  }
  return EXIT_OK;
}

/* Make the changes the last cudaload_env_check() decided for the started
 * program (LD_PRELOAD of the planned files a consumer's RPATH would miss,
 * a CUDA variable of another major unset) in this process's environment,
 * which the command inherits. */
static int apply_changes(const char *cmd, cudaload_ctx *ctx) {
  if (cudaload_env_apply_changes(ctx) != CUDALOAD_OK) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    return EXIT_INTERNAL;
  }
  return EXIT_OK;
}

/* The changes as a dry run shows them: NAME=value, or "unset NAME". */
static void print_changes(const cudaload_ctx *ctx) {
  for (size_t i = 0; i < cudaload_env_change_count(ctx); ++i) {
    const char *value;
    const char *name = cudaload_env_change(ctx, i, &value);
    if (value)
      printf("%s=%s\n", name, cli_shown(value));
    else
      printf("unset %s\n", name);
  }
}

/* An argument as a POSIX shell would need it to mean itself, for the
 * dry run's "command:" line: the library's quoting of the words it prints
 * (common/shell_word.h), bare when it holds only characters no shell
 * treats specially, else in single quotes. */
static int print_shell_word(const char *arg) {
  cl_buf word = CL_BUF_INIT;
  cl_buf_shell_word(&word, arg, CL_SHELL_POSIX);
  char *text = cl_buf_take(&word);
  if (text)
    fputs(text, stdout);
  free(text);
  return text != NULL;
}

/* Build the ctx, add roots and requirements, and plan. Returns an exit
 * code; *out receives the ctx when it is EXIT_OK. */
static int make_plan(const char *cmd, const plan_options *o,
                     cudaload_ctx **out) {
  *out = NULL;
  if (o->search.spec_count == 0 && o->search.program_count == 0)
    return cli_usage_error(cmd, "no --require SPEC or --for TARGET given");
  cudaload_ctx *ctx;
  int rc = cli_search_context(cmd, &o->search, &ctx);
  if (rc != EXIT_OK)
    return rc;
  int status = cudaload_plan(ctx, 0);
  if (status == CUDALOAD_E_UNSATISFIED) {
    cli_error("cudaload: %s: %s", cmd, cudaload_last_error());
    cudaload_destroy(ctx);
    return EXIT_UNSATISFIED;
  }
  if (status != CUDALOAD_OK) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    cudaload_destroy(ctx);
    return EXIT_INTERNAL;
  }
  *out = ctx;
  return EXIT_OK;
}

/* cmd, for a batch file (`cudaload env --shell cmd > env.cmd`, then
 * `call env.cmd`) with delayed expansion off, cmd's default. In
 * `set "NAME=VALUE"` cmd takes everything up to the last quote of the line,
 * but a quote inside VALUE (a quoted PATH entry) switches its parser out of
 * quoted mode, where & | < > ^ ( ) act: there they get a caret. % becomes
 * %% (a batch file expands %NAME%). A line break cannot be in the value. */
static void print_cmd_assignment(const char *name, const char *value) {
  printf("set \"%s=", name);
  int quoted = 1;
  for (const char *p = value; *p; ++p) {
    if (*p == '"')
      quoted = !quoted;
    else if (*p == '%')
      putchar('%');
    else if (!quoted && strchr("&|<>^()", *p))
      putchar('^');
    putchar(*p);
  }
  printf("\"\n");
}

/* PowerShell's verbatim string: every kind of single quote it knows, the
 * ASCII one and the typographic U+2018, U+2019, U+201A, U+201B, ends the
 * string unless doubled. */
static void print_powershell_assignment(const char *name, const char *value) {
  printf("$env:%s = '", name);
  for (const unsigned char *p = (const unsigned char *)value; *p; ++p) {
    if (p[0] == 0xE2 && p[1] == 0x80 && p[2] >= 0x98 && p[2] <= 0x9B) {
      fwrite(p, 1, 3, stdout);
      fwrite(p, 1, 3, stdout);
      p += 2;
      continue;
    }
    if (*p == '\'')
      putchar('\'');
    putchar(*p);
  }
  printf("'\n");
}

/* The first control byte in value (C0, DEL, or a C1 control in UTF-8), or
 * NULL. A shell line is shown on a terminal as often as it is evaluated,
 * and no shell's quoting can hold a line break for cmd: such a value is
 * refused rather than printed. */
static const char *control_in(const char *value) {
  for (const unsigned char *p = (const unsigned char *)value; *p; ++p)
    if (*p < 0x20 || *p == 0x7F ||
        (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
      return (const char *)p;
  return NULL;
}

/* Print the line that sets name to value in shell; EXIT_OK, or an exit
 * code with the message printed when the shell cannot be given it. */
static int print_assignment(const char *shell, const char *name,
                            const char *value) {
  const char *control = control_in(value);
  if (control) {
    cli_error("cudaload: env: the new %s holds a control character (\\x%02x) "
              "in '%s'; refusing to print it as a %s line (rename the folder, "
              "or see it with --dry-run)\n",
              name, *(const unsigned char *)control, value, shell);
    return EXIT_INPUT;
  }
  if (strcmp(shell, "cmd") == 0) {
    print_cmd_assignment(name, value);
  } else if (strcmp(shell, "powershell") == 0) {
    print_powershell_assignment(name, value);
  } else if (strcmp(shell, "fish") == 0) {
    /* fish's single quotes: only \' and \\ are escapes. */
    printf("set -gx %s '", name);
    for (const char *p = value; *p; ++p) {
      if (*p == '\'' || *p == '\\')
        putchar('\\');
      putchar(*p);
    }
    printf("'\n");
  } else {
    /* POSIX sh: nothing is special inside '...'; a ' ends it, so it is
     * written as '\''. */
    printf("export %s='", name);
    for (const char *p = value; *p; ++p)
      fputs(*p == '\'' ? "'\\''" : (char[2]){*p, 0}, stdout);
    printf("'\n");
  }
  return EXIT_OK;
}

/* The line that removes name in shell. */
static int print_unset(const char *shell, const char *name) {
  if (strcmp(shell, "cmd") == 0)
    printf("set \"%s=\"\n", name);
  else if (strcmp(shell, "powershell") == 0)
    printf("Remove-Item Env:%s -ErrorAction SilentlyContinue\n", name);
  else if (strcmp(shell, "fish") == 0)
    printf("set -e %s\n", name);
  else
    printf("unset %s\n", name);
  return EXIT_OK;
}

int cli_env(int argc, char **argv) {
  const char *cmd = "env";
  plan_options o;
  memset(&o, 0, sizeof o);
#ifdef _WIN32
  o.shell = "cmd";
#else
  o.shell = "sh";
#endif
  int after = argc;
  int rc = cli_search_options_init(&o.search, argc);
  if (rc == EXIT_OK)
    rc = parse_plan_options(cmd, argc, argv, &o, 1, &after);
  if (rc == EXIT_OK && after != argc)
    rc = cli_usage_error(cmd, "unexpected '--' (did you mean cudaload exec?)");
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = make_plan(cmd, &o, &ctx);
  const char *value = NULL;
  if (rc == EXIT_OK)
    rc = compose(cmd, ctx, &value);
  if (rc == EXIT_OK)
    rc = print_env_warnings(cmd, ctx, 0, 0);
  if (rc == EXIT_OK) {
    if (o.dry_run) {
      print_plan(ctx);
      printf("%s=%s\n", cudaload_env_name(), cli_shown(value));
      print_changes(ctx);
    } else {
      rc = print_assignment(o.shell, cudaload_env_name(), value);
      /* What exec would set for the program too: the line is evaluated
       * in the shell that starts it. */
      for (size_t i = 0; rc == EXIT_OK && i < cudaload_env_change_count(ctx);
           ++i) {
        const char *changed;
        const char *name = cudaload_env_change(ctx, i, &changed);
        rc = changed ? print_assignment(o.shell, name, changed)
                     : print_unset(o.shell, name);
      }
    }
    if (rc == EXIT_OK)
      rc = cli_finish_output(cmd);
  }
  cudaload_destroy(ctx);
  cli_search_options_free(&o.search);
  return rc;
}

/* COMMAND's file as execvp (Windows: CreateProcessW) would find it, made
 * absolute; NULL when it is not found (the run says so later). */
static char *command_file(const char *command) {
  int windows = cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
  if (strchr(command, '/') || (windows && strchr(command, '\\'))) {
    char *path = NULL;
    return cli_absolute_path("exec", "COMMAND", command, &path) == EXIT_OK
               ? path
               : NULL;
  }
  char *search = cl_os_getenv("PATH");
  char *found = NULL;
  for (char *entry = search; entry && *entry && !found;) {
    char *end = strchr(entry, CL_LIST_SEP);
    if (end)
      *end = '\0';
    if (*entry && cl_os_path_is_absolute(entry)) {
      size_t n = strlen(entry) + strlen(command) + 6;
      char *candidate = malloc(n);
      if (candidate) {
        snprintf(candidate, n, "%s%c%s%s", entry, CL_DIR_SEP, command,
                 windows && !strchr(command, '.') ? ".exe" : "");
        if (cl_os_stat_kind(candidate, NULL) == CL_KIND_REGULAR)
          found = candidate;
        else
          free(candidate);
      }
    }
    entry = end ? end + 1 : NULL;
  }
  free(search);
  return found;
}

/* Whether COMMAND is a venv's interpreter: its folder's parent holds
 * pyvenv.cfg. */
static int venv_interpreter(const char *file) {
  const char *base = file;
  for (const char *p = file; *p; ++p)
    if (*p == '/' || *p == CL_DIR_SEP)
      base = p + 1;
  size_t bin = (size_t)(base - file);
  if (!bin)
    return 0;
  size_t root = bin - 1;
  while (root > 0 && file[root - 1] != '/' && file[root - 1] != CL_DIR_SEP)
    --root;
  char cfg[4096];
  if (root == 0 || root + 11 > sizeof cfg)
    return 0;
  snprintf(cfg, sizeof cfg, "%.*spyvenv.cfg", (int)root, file);
  return cl_os_stat_kind(cfg, NULL) == CL_KIND_REGULAR;
}

/* exec's program is COMMAND: with no requirement given, what it needs is
 * what it requires (--for COMMAND); a venv's interpreter run by path, with
 * no environment active, uses its venv (pyvenv.cfg), as the interpreter
 * itself does. *program receives the file to add as --for, or NULL. */
static int program_of_command(plan_options *o, const char *command,
                              char **program) {
  *program = NULL;
  if (o->search.program_count)
    return EXIT_OK;
  char *file = command_file(command);
  if (!file)
    return EXIT_OK; /* not found: the run reports it (127) */
  char *active = cl_os_getenv("VIRTUAL_ENV");
  if (!active)
    active = cl_os_getenv("CONDA_PREFIX");
  int interpreter = venv_interpreter(file);
  int adopt = !o->search.environment_count && !active && interpreter;
  free(active);
  /* A file the library cannot read as a program (a script) tells nothing. */
  cudaload_file *binary = NULL;
  int readable = interpreter || cudaload_inspect(file, &binary) == CUDALOAD_OK;
  cudaload_file_close(binary);
  if ((!o->search.spec_count && readable) || adopt)
    *program = file;
  else
    free(file);
  if (!o->search.spec_count && !*program)
    return cli_usage_error("exec",
                           "%s is not a program cudaload can read what it "
                           "needs from (a script?): give --require SPEC or "
                           "--for TARGET",
                           cli_shown(command));
  return EXIT_OK;
}

int cli_exec(int argc, char **argv) {
  const char *cmd = "exec";
  plan_options o;
  memset(&o, 0, sizeof o);
  int after = argc;
  int rc = cli_search_options_init(&o.search, argc);
  if (rc == EXIT_OK)
    rc = parse_plan_options(cmd, argc, argv, &o, 0, &after);
  if (rc == EXIT_OK && after >= argc)
    rc = cli_usage_error(cmd, "no command given (cudaload exec [OPTIONS] -- "
                              "COMMAND [ARGS...])");
  char *program = NULL;
  if (rc == EXIT_OK)
    rc = program_of_command(&o, argv[after], &program);
  if (rc == EXIT_OK && program)
    o.search.programs[o.search.program_count++] = program;
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = make_plan(cmd, &o, &ctx);
  if (rc == EXIT_OK && program && !o.search.spec_count &&
      cudaload_requirement_count(ctx) == 0) {
    rc = cli_usage_error(cmd,
                         "%s needs no CUDA library that cudaload can read from "
                         "it (a script, or a program that opens them in ways "
                         "its files do not tell): give --require SPEC or --for "
                         "TARGET",
                         cli_shown(argv[after]));
  }
  if (rc == EXIT_OK) {
    const char *value;
    int status;
    rc = print_env_warnings(
        cmd, ctx, !o.force && !o.dry_run,
        o.drop_stale_preload ? CUDALOAD_ENV_DROP_STALE_PRELOAD : 0);
    if (rc != EXIT_OK) {
      /* said by print_env_warnings */
    } else if (o.dry_run) {
      rc = compose(cmd, ctx, &value);
      if (rc == EXIT_OK) {
        print_plan(ctx);
        printf("%s=%s\n", cudaload_env_name(), cli_shown(value));
        print_changes(ctx);
        printf("command:");
        int printed = 1;
        for (int i = after; i < argc && printed; ++i) {
          /* Quoted for sh, then shown escaped like every value. */
          putchar(' ');
          printed = print_shell_word(cli_shown(argv[i]));
        }
        printf("\n");
        rc = cli_finish_output(cmd);
        if (!printed && rc == EXIT_OK) {
          cli_error("cudaload: exec: out of memory\n");
          rc = EXIT_INTERNAL;
        }
      }
    } else if ((status = cudaload_env_apply(ctx)) != CUDALOAD_OK) {
      cli_error("cudaload: exec: %s\n", cudaload_last_error());
      rc = status == CUDALOAD_E_INSECURE ? EXIT_UNSATISFIED : EXIT_INTERNAL;
    } else if ((rc = apply_changes(cmd, ctx)) != EXIT_OK) {
      /* said by apply_changes */
    } else {
      cudaload_destroy(ctx);
      ctx = NULL;
      rc = cli_run_command(argv + after, argc - after);
    }
  }
  cudaload_destroy(ctx);
  cli_search_options_free(&o.search);
  free(program);
  return rc;
}
