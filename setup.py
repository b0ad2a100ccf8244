"""setup.py — puts lib/libmidint.so (built by `make` when missing), the tuned tables and, when it compiles, the C
converter midint._convert into the midint package.

The binding is ctypes; the one compiled Python extension is the optional converter between Python ints and limbs
(python/midint/_convert.c), which reads CPython's own int layout and so is built for one CPython version. A wheel
that holds it is tagged for that CPython (cp311-cp311-<platform>); when it cannot be built (no compiler or Python
headers, not CPython, or MIDINT_NO_EXTENSION=1) the build goes on without it and the wheel is py3-none-<platform>,
one wheel for every Python 3, converting in pure Python. Layout inside the package: midint/lib/libmidint.so and
midint/share/midint/*.tune, where the runtime looks for tables relative to itself (<libdir>/../share/midint,
runtime/tuning.c)."""

import glob
import os
import platform
import shutil
import subprocess

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:   # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(ROOT, "lib", "libmidint.so")
# setuptools' own build folders, kept under build/ (gitignored) beside make's objects
BUILD_BASE = os.path.join("build", "python")


class build_with_library(build_py):
    def run(self):
        super().run()
        if not os.path.exists(LIB):
            # generate (default sizes, or those of the last `make gen`) and build the library only: no test drivers,
            # so GMP is not needed to install the package
            jobs = str(os.cpu_count() or 2)
            subprocess.check_call(["make", "-C", ROOT, "generated/.stamp"])
            subprocess.check_call(["make", "-C", ROOT, "-j" + jobs, "lib"])
        pkg = os.path.join(self.build_lib, "midint")
        os.makedirs(os.path.join(pkg, "lib"), exist_ok=True)
        shutil.copy2(LIB, os.path.join(pkg, "lib", "libmidint.so"))
        share = os.path.join(pkg, "share", "midint")
        os.makedirs(share, exist_ok=True)
        for table in glob.glob(os.path.join(ROOT, "tuning", "tables", "*.tune")):
            shutil.copy2(table, share)


# optional: a failed compile is a warning, and the package converts in pure Python. -O3: GCC vectorizes the
# converter's digit-group loops only there (about 1.5x faster conversions than -O2, python/README.md).
CONVERT = Extension("midint._convert", ["python/midint/_convert.c"], optional=True, extra_compile_args=["-O3", "-pthread"],
                    extra_link_args=["-pthread"])
WITH_CONVERT = platform.python_implementation() == "CPython" and os.environ.get("MIDINT_NO_EXTENSION", "") in ("", "0")


class build_optional_ext(build_ext):
    """Removes a converter left by an earlier build first (build/ is kept between builds), so that the wheel holds
    the one built now or none."""

    def run(self):
        path = self.get_ext_fullpath(CONVERT.name)
        if os.path.exists(path):
            os.remove(path)
        super().run()


def converter_built(cmd):
    """Whether this build produced the C converter (the wheel's tag follows it)."""
    built = cmd.get_finalized_command("build_ext")
    return WITH_CONVERT and os.path.exists(built.get_ext_fullpath(CONVERT.name))


class NativeDistribution(Distribution):
    """Says the package holds native code, so the wheel is platform-specific and its files sit at its root."""

    def has_ext_modules(self):
        return True


class platform_wheel(bdist_wheel):
    """cpXY-cpXY-<platform> with the converter (built for this CPython), else py3-none-<platform>."""

    def get_tag(self):
        impl, abi, plat = super().get_tag()
        return (impl, abi, plat) if converter_built(self) else ("py3", "none", plat)


os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)
setup(distclass=NativeDistribution, ext_modules=[CONVERT] if WITH_CONVERT else [],
      cmdclass={"build_py": build_with_library, "build_ext": build_optional_ext, "bdist_wheel": platform_wheel},
      exclude_package_data={"midint": ["*.c"]},   # the converter's source goes in the sdist, not the wheel
      options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}})
