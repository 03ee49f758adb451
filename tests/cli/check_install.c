/* pbdiff tests — make install and uninstall into a temporary DESTDIR: the
 * binary runs, the shared library carries its soname, docs/library.md's
 * example builds with `pkg-config --cflags --libs pbdiff` against the
 * installed headers and library and runs, the man page is up to date with
 * --help (scripts/gen-man.sh), the bash completion offers the options, and
 * uninstall leaves nothing behind. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The build directory of the binary under test (build/ or build-asan/). */
static void build_dir(char *out, size_t n) {
  snprintf(out, n, "%s", tu_pbdiff());
  char *slash = strrchr(out, '/');
  ck_assert_ptr_nonnull(slash);
  *slash = '\0';
}

START_TEST(install_and_uninstall) {
  char build[2048], cmd[8192], *out, *err;
  build_dir(build, sizeof build);
  const char *root = tu_root();
  snprintf(cmd, sizeof cmd,
           /* a make of its own: not the sanitizer flags of a make running the tests */
           "set -e; unset MAKEFLAGS MFLAGS MAKELEVEL SAN OPT CFLAGS; d=$(mktemp -d); trap 'rm -rf $d' EXIT; "
           "make -s -C %s install BUILD=%s DESTDIR=$d PREFIX=/usr >/dev/null; "
           "u=$d/usr; "
           /* the binary, the libraries, the headers, the rest */
           "$u/bin/pbdiff --version | cut -d' ' -f1; "
           "readelf -d $u/lib/libpbdiff.so.0 | sed -n 's/.*soname: \\[\\(.*\\)\\]/\\1/p'; "
           "test -f $u/lib/libpbdiff.a && test -L $u/lib/libpbdiff.so; "
           "test -f $u/include/pbdiff/pbdiff.h && test -f $u/include/pbdiff/diff/path.h; "
           "test -f $u/share/man/man1/pbdiff.1; "
           /* docs/library.md's example, with pkg-config against the install */
           "awk '/^```c$/{on=1; next} /^```$/{on=0} on' %s/docs/library.md > $d/ex.c; "
           "flags=$(PKG_CONFIG_PATH=$u/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d "
           "pkg-config --cflags --libs pbdiff); "
           "cc -std=c11 -Wall -Wextra -Werror $d/ex.c $flags -o $d/ex; "
           "protoc --include_imports -I%s/testdata/demo -o $d/demo.desc demo.proto; "
           "LD_LIBRARY_PATH=$u/lib $d/ex $d/demo.desc demo.Config %s/testdata/demo/left.pb "
           "%s/testdata/demo/same.pb; "
           /* completion: the options of the installed binary */
           "PATH=$u/bin:$PATH bash -c '. $0; COMP_WORDS=(pbdiff --no-p); COMP_CWORD=1; _pbdiff; "
           "echo ${COMPREPLY[@]}' $u/share/bash-completion/completions/pbdiff; "
           "make -s -C %s uninstall BUILD=%s DESTDIR=$d PREFIX=/usr >/dev/null; "
           "find $d/usr -type f -o -type l | wc -l",
           root, build, root, root, root, root, root, build);
  int rc = tu_run(cmd, &out, &err);
  ck_assert_msg(rc == 0, "status %d\nstdout: %s\nstderr: %s", rc, out, err);
  ck_assert_str_eq(out, "pbdiff\nlibpbdiff.so.0\nequal: 0 difference(s)\n--no-pager\n0\n");
  free(out), free(err);
}
END_TEST

/* Installed under a prefix the loader does not search, docs/library.md's
 * example runs when linked with pbdiff.pc's rpath variable, without
 * LD_LIBRARY_PATH. */
START_TEST(install_prefix_rpath) {
  char build[2048], cmd[8192], *out, *err;
  build_dir(build, sizeof build);
  const char *root = tu_root();
  snprintf(cmd, sizeof cmd,
           "set -e; unset MAKEFLAGS MFLAGS MAKELEVEL SAN OPT CFLAGS LD_LIBRARY_PATH; d=$(mktemp -d); "
           "trap 'rm -rf $d' EXIT; "
           "make -s -C %s install BUILD=%s PREFIX=$d/opt >/dev/null; "
           "awk '/^```c$/{on=1; next} /^```$/{on=0} on' %s/docs/library.md > $d/ex.c; "
           "export PKG_CONFIG_PATH=$d/opt/lib/pkgconfig; "
           "cc -std=c11 $d/ex.c $(pkg-config --cflags --libs pbdiff) "
           "$(pkg-config --variable=rpath pbdiff) -o $d/ex; "
           "protoc --include_imports -I%s/testdata/demo -o $d/demo.desc demo.proto; "
           "$d/ex $d/demo.desc demo.Config %s/testdata/demo/left.pb %s/testdata/demo/same.pb",
           root, build, root, root, root, root);
  int rc = tu_run(cmd, &out, &err);
  ck_assert_msg(rc == 0, "status %d\nstdout: %s\nstderr: %s", rc, out, err);
  ck_assert_str_eq(out, "equal: 0 difference(s)\n");
  free(out), free(err);
}
END_TEST

START_TEST(man_page_matches_help) {
  char cmd[4096], *out, *err;
  snprintf(cmd, sizeof cmd, "%s/scripts/gen-man.sh %s | diff %s/docs/pbdiff.1 -", tu_root(),
           tu_pbdiff(), tu_root());
  int rc = tu_run(cmd, &out, &err);
  ck_assert_msg(rc == 0,
                "docs/pbdiff.1 is not what --help says; run scripts/gen-man.sh build/pbdiff > "
                "docs/pbdiff.1\n%s%s", out, err);
  free(out), free(err);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("install");
  TCase *t = tcase_create("install");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, install_and_uninstall);
  tcase_add_test(t, install_prefix_rpath);
  tcase_add_test(t, man_page_matches_help);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
