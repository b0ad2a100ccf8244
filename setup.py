"""setup.py — puts lib/libmidint.so (built by `make` when missing) and the tuned tables into the midint package.

The wheel is tagged py3-none-<platform>: it holds a native library but no Python extension (ctypes), so one
wheel serves every Python 3. Layout inside the package: midint/lib/libmidint.so and midint/share/midint/*.tune,
where the runtime looks for tables relative to itself (<libdir>/../share/midint, runtime/tuning.c)."""

import glob
import os
import shutil
import subprocess

from setuptools import Distribution, setup
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


class NativeDistribution(Distribution):
    """Says the package holds native code, so the wheel is platform-specific and its files sit at its root."""

    def has_ext_modules(self):
        return True


class platform_wheel(bdist_wheel):
    def get_tag(self):
        plat = super().get_tag()[2]
        return "py3", "none", plat


os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)
setup(distclass=NativeDistribution, cmdclass={"build_py": build_with_library, "bdist_wheel": platform_wheel},
      options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}})
