"""pbdiff for Python: the C library's semantic protobuf comparison, in process.

Built against the project's own library: `make python` (or `make
install-python`) builds the position-independent archives it links
(build/python/libpbdiff-pic.a and libpbdiff-cli-pic.a); run by pip, this
file asks make for them first.  docs/python.md says how to install and use
it.
"""
import os
import re
import shlex
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "include", "pbdiff", "pbdiff.h")) as f:
        return re.search(r'#define PBDIFF_VERSION "([^"]+)"', f.read()).group(1)


class BuildWithLibrary(build_ext):
    """Links the extension with the library's PIC archives: those of
    PBDIFF_BUILD (set by the Makefile, with the sanitizer flags in
    PBDIFF_SAN), else of build/, made now by make."""

    def run(self):
        build = os.environ.get("PBDIFF_BUILD")
        if not build:
            build = os.path.join(ROOT, "build")
            subprocess.check_call(["make", "-C", ROOT, "-j2", "python-libs"])
        san = shlex.split(os.environ.get("PBDIFF_SAN", ""))
        for ext in self.extensions:
            # the CLI's archive first: it needs the library's
            ext.extra_objects = [os.path.join(build, "python", "libpbdiff-cli-pic.a"),
                                 os.path.join(build, "python", "libpbdiff-pic.a")]
            ext.extra_compile_args += san
            ext.extra_link_args += san
        super().run()


core = Extension(
    "pbdiff._core",
    sources=["src/module.c", "src/compare.c", "src/values.c"],
    include_dirs=[os.path.join(ROOT, d) for d in ("include", "lib", "cli")],
    define_macros=[("_POSIX_C_SOURCE", "200809L"), ("_DEFAULT_SOURCE", None)],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Werror"],
    libraries=["xxhash", "z", "crypto", "pthread", "m"],
)

setup(
    name="pbdiff",
    version=version(),
    description="Semantic protobuf diff and equality: messages and bytes compared by meaning",
    license="MIT",
    packages=["pbdiff"],
    ext_modules=[core],
    cmdclass={"build_ext": BuildWithLibrary},
    entry_points={"pytest11": ["pbdiff = pbdiff.pytest_plugin"]},
    python_requires=">=3.9",
)
