#!/usr/bin/env python3
"""Check that every prefix of the self-contained series compiles.

Usage: patch-prefixes.py [--jobs N] [--keep] [--from K] [--to K]

The series is the one a reviewer takes (scripts/series.py build: patches/
with the new files each patch first needs).  For k = 1..N, the first k
patches are applied to a throw-away worktree of the pristine release commit
of build/src/llvm-project, so that the prefix holds exactly the files it
adds, and the files patch k touches are compiled with -fsyntax-only, with
the flags of build/clang, build/llvm-overlay and build/openmp (their
compile_commands.json) pointed at the worktree:

  - every .c/.cpp file the patch changes or adds (not its tests: the
    prefix scripts run those);
  - every new file a CMakeLists.txt of the patch starts to build;
  - for every header (or .td/.def/.var) the patch changes, a few
    representative includers (INCLUDERS below).

Generated files are regenerated for each prefix from the worktree, into a
directory searched before the build directories: every tblgen output of
build/clang and build/llvm-overlay whose inputs include a .td file that the
series changes (OMP.td -> OMP.h.inc/OMP.inc, StmtNodes.td -> StmtNodes.inc,
DiagnosticSemaKinds.td -> DiagnosticSemaKinds.inc, ...), with the tblgen
command the build uses, libomp's omp.h from omp.h.var (with the values of
build/openmp's configuration), and libomp's message catalogue headers
(kmp_i18n_id.inc, kmp_i18n_default.inc) from i18n/en_US.txt, with the
command build/openmp uses. Other generated files do not depend on the series
and are taken from the build directories.

What it does not prove: that each prefix links (e.g. clang's TreeTransform
members for a new AST node are defined by a later patch) or passes tests, and
files that no build directory compiles (ExprEngine.cpp: the static analyzer
is off) are compiled with the flags of clang's Sema library, which may not
find every header such a file needs; such a failure is reported as such.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, 'build')
SRC = os.path.join(BUILD, 'src', 'llvm-project')
BUILD_DIRS = [os.path.join(BUILD, d) for d in ('clang', 'llvm-overlay', 'openmp')]
OVERLAY_DIRS = ['clang', 'llvm', 'openmp']

# Representative includers of the headers the series changes (paths relative
# to llvm-project). A header not listed here gets no includer compiled: add
# it when a patch starts to change it.
_AST_USERS = [
    'clang/lib/Sema/SemaOpenMP.cpp', 'clang/lib/Parse/ParseOpenMP.cpp',
    'clang/lib/AST/StmtProfile.cpp', 'clang/lib/Serialization/ASTReader.cpp',
    'clang/lib/CodeGen/CGStmtOpenMP.cpp',
    # A TreeTransform user.
    'clang/lib/Sema/SemaTemplateInstantiate.cpp',
]
INCLUDERS = {
    'llvm/include/llvm/Frontend/OpenMP/OMP.td':
        ['llvm/lib/Frontend/OpenMP/OMP.cpp',
         'llvm/lib/Transforms/IPO/OpenMPOpt.cpp'] + _AST_USERS,
    'llvm/include/llvm/Frontend/OpenMP/OMPKinds.def':
        ['llvm/lib/Frontend/OpenMP/OMPIRBuilder.cpp',
         'llvm/lib/Transforms/IPO/OpenMPOpt.cpp'],
    'clang/include/clang/AST/OpenMPClause.h': _AST_USERS,
    'clang/include/clang/AST/StmtOpenMP.h': _AST_USERS,
    'clang/include/clang/AST/RecursiveASTVisitor.h':
        ['clang/lib/AST/ParentMapContext.cpp', 'clang/lib/Sema/SemaOpenMP.cpp'],
    'clang/include/clang/Basic/StmtNodes.td': _AST_USERS,
    'clang/include/clang/Serialization/ASTBitCodes.h':
        ['clang/lib/Serialization/ASTReaderStmt.cpp',
         'clang/lib/Serialization/ASTWriterStmt.cpp'],
    'clang/include/clang/Basic/DiagnosticSemaKinds.td':
        ['clang/lib/Sema/SemaOpenMP.cpp'],
    'clang/include/clang/Parse/Parser.h': ['clang/lib/Parse/ParseOpenMP.cpp'],
    'clang/include/clang/Sema/SemaOpenMP.h':
        ['clang/lib/Sema/SemaOpenMP.cpp', 'clang/lib/Parse/ParseOpenMP.cpp'],
    'clang/lib/Sema/TreeTransform.h':
        ['clang/lib/Sema/SemaTemplateInstantiate.cpp',
         'clang/lib/Sema/SemaOpenMP.cpp'],
    'clang/lib/CodeGen/CGOpenMPRuntime.h':
        ['clang/lib/CodeGen/CGOpenMPRuntime.cpp',
         'clang/lib/CodeGen/CGOpenMPRuntimeGPU.cpp',
         'clang/lib/CodeGen/CGStmtOpenMP.cpp'],
    'clang/lib/CodeGen/CodeGenFunction.h':
        ['clang/lib/CodeGen/CGStmt.cpp', 'clang/lib/CodeGen/CGStmtOpenMP.cpp'],
    'clang/include/clang-c/Index.h':
        ['clang/tools/libclang/CIndex.cpp', 'clang/tools/libclang/CXCursor.cpp'],
    # Includers that exist at every prefix: the engine's files are built
    # from a later patch on (which compiles them, as new files).
    'openmp/runtime/src/include/omp.h.var':
        ['openmp/runtime/src/kmp_csupport.cpp',
         'openmp/runtime/src/kmp_runtime.cpp'],
    'openmp/runtime/src/kmp.h':
        ['openmp/runtime/src/kmp_runtime.cpp',
         'openmp/runtime/src/kmp_csupport.cpp',
         'openmp/runtime/src/kmp_settings.cpp'],
    'openmp/runtime/src/i18n/en_US.txt':
        ['openmp/runtime/src/kmp_i18n.cpp',
         'openmp/runtime/src/kmp_settings.cpp'],
}
# libomp's generated message catalogue headers (from i18n/en_US.txt).
I18N_OUTPUTS = ['runtime/src/kmp_i18n_id.inc', 'runtime/src/kmp_i18n_default.inc']
# Changed files that nothing compiles; checked by applying only.
NOT_COMPILED = re.compile(r'(CMakeLists\.txt|dllexports|\.rst|\.md|\.txt)$')
# Flags for files that no build directory compiles.
FALLBACK = 'clang/lib/Sema/SemaOpenMP.cpp'


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def git(*args, cwd=SRC):
    return run(['git', '-C', cwd] + list(args)).stdout


# The self-contained series, built by main() into a temporary directory.
SERIES = None


def series():
    with open(os.path.join(SERIES, 'series')) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def patch_files(patch):
    """(changed files, new files added to a CMakeLists.txt, new headers) of
    a patch, its tests left out."""
    changed, added, new = [], [], set()
    cmake = None
    with open(os.path.join(SERIES, patch)) as f:
        for line in f:
            m = re.match(r'^diff --git a/(\S+) b/(\S+)', line)
            if m:
                path = m.group(2)
                if '/test/' not in path:
                    changed.append(path)
                cmake = path if path.endswith('CMakeLists.txt') else None
                continue
            if line.startswith('new file mode') and changed:
                new.add(changed[-1])
                continue
            m = re.match(r'^\+\s+([\w./-]+\.(?:c|cpp))\s*$', line)
            if cmake and m:
                added.append(os.path.join(os.path.dirname(cmake), m.group(1)))
    return changed, added, new


def compile_db():
    """llvm-project-relative path -> (directory, argv) from the builds."""
    db = {}
    for d in BUILD_DIRS:
        path = os.path.join(d, 'compile_commands.json')
        if not os.path.exists(path):
            sys.exit(f'patch-prefixes: no {path}; configure with '
                     f'-DCMAKE_EXPORT_COMPILE_COMMANDS=ON (make check-patch-prefixes does)')
        for e in json.load(open(path)):
            f = os.path.normpath(os.path.join(e['directory'], e['file']))
            if not f.startswith(SRC + '/'):
                continue
            argv = e['arguments'] if 'arguments' in e else shlex.split(e['command'])
            db.setdefault(os.path.relpath(f, SRC), (e['directory'], argv))
    return db


def syntax_argv(argv, rel, wt, gen):
    """The compile command of argv, for wt/rel, -fsyntax-only, gen first."""
    out = [argv[0], '-I' + gen]
    skip = False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in ('-o', '-MF', '-MT', '-MQ'):
            skip = True
            continue
        if a in ('-c', '-MD', '-MMD'):
            continue
        if a.endswith(('.c', '.cpp')) and not a.startswith('-'):
            continue  # the source file, added below
        out.append(a.replace(SRC + '/', wt + '/'))
    return out + ['-fsyntax-only', '-w', '-fno-color-diagnostics',
                  os.path.join(wt, rel)]


def tblgen_rules():
    """(build dir, output, main input, command) of every tblgen output."""
    rules = []
    for d in BUILD_DIRS[:2]:
        for root, _, files in os.walk(os.path.join(d, 'include')):
            for fn in files:
                if not fn.endswith('.inc.d'):
                    continue
                out = os.path.join(root, fn[:-2])
                deps = open(os.path.join(root, fn)).read().replace('\\\n', ' ').split()
                cmd = run(['ninja', '-C', d, '-t', 'commands',
                           os.path.relpath(out, d)]).stdout.strip().splitlines()[-1]
                tds = [t for t in shlex.split(cmd) if t.endswith('.td')]
                inputs = {os.path.normpath(os.path.join(d, t))
                          for t in deps[1:] + tds}
                rules.append((d, out, inputs, cmd))
    return rules


def regenerate(rules, touched_td, wt, gen):
    """Regenerate into gen the tblgen outputs that depend on touched_td."""
    n = 0
    for d, out, deps, cmd in rules:
        if not any(os.path.join(SRC, t) in deps for t in touched_td):
            continue
        target = os.path.join(gen, os.path.relpath(out, os.path.join(d, 'include')))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        step = [c for c in cmd.split(' && ') if 'tblgen' in c][0]
        argv = shlex.split(step)
        new, skip = [], False
        for a in argv:
            if skip:
                skip = False
                continue
            if a == '-o':
                new += ['-o', target]
                skip = True
                continue
            if a == '-d':
                skip = True
                continue
            new.append(a.replace(SRC + '/', wt + '/'))
        run(new, cwd=d)
        n += 1
    return n


def configure_omp_h(wt, gen):
    """omp.h from the worktree's omp.h.var, with build/openmp's values."""
    var = os.path.join(SRC, 'openmp/runtime/src/include/omp.h.var')
    built = os.path.join(BUILD, 'openmp/runtime/src/omp.h')
    values = {}
    for tl, bl in zip(open(var), open(built)):
        names = re.findall(r'@(\w+)@', tl)
        if names:
            pat = re.escape(tl)
            for nm in names:
                pat = pat.replace(re.escape(f'@{nm}@'), f'(?P<{nm}>.*?)', 1)
            m = re.fullmatch(pat, bl)
            if m:
                values.update(m.groupdict())
    text = open(os.path.join(wt, 'openmp/runtime/src/include/omp.h.var')).read()
    text = re.sub(r'@(\w+)@', lambda m: values.get(m.group(1), m.group(0)), text)
    os.makedirs(gen, exist_ok=True)
    with open(os.path.join(gen, 'omp.h'), 'w') as f:
        f.write(text)


def i18n_rules():
    """The commands (cwd-independent argv) that make I18N_OUTPUTS."""
    d = os.path.join(BUILD, 'openmp')
    rules = []
    for out in I18N_OUTPUTS:
        cmd = run(['ninja', '-C', d, '-t', 'commands', out]).stdout.strip().splitlines()[-1]
        rules.append(shlex.split(cmd.split(' && ', 1)[-1]))
    return rules


def regenerate_i18n(rules, wt, gen):
    """The message catalogue headers from the worktree's en_US.txt, into gen
    (the commands name their output relative to their directory)."""
    for argv in rules:
        run([a.replace(SRC + '/', wt + '/') for a in argv], cwd=gen)
    return len(rules)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--jobs', type=int, default=os.cpu_count())
    ap.add_argument('--keep', action='store_true', help='keep the worktree')
    ap.add_argument('--from', dest='first', type=int, default=1)
    ap.add_argument('--to', dest='last', type=int, default=0)
    args = ap.parse_args()

    global SERIES
    tmp = tempfile.mkdtemp(prefix='nt-prefixes.')
    SERIES = os.path.join(tmp, 'series')
    run([sys.executable, os.path.join(TOP, 'scripts', 'series.py'), 'build',
         SERIES])
    patches = series()
    last = args.last or len(patches)
    db = compile_db()
    rules = tblgen_rules()
    i18n = i18n_rules()
    touched_td = sorted({f for p in patches for f in patch_files(p)[0]
                         if f.endswith('.td')})
    base = git('rev-list', '--max-parents=0', 'HEAD').strip()
    wt, gen = os.path.join(tmp, 'llvm-project'), os.path.join(tmp, 'gen')
    git('worktree', 'add', '-q', '--detach', wt, base)
    failed = []
    start = time.time()
    try:
        for k, patch in enumerate(patches, 1):
            r = subprocess.run(['git', '-C', wt, 'apply', '--index',
                                os.path.join(SERIES, patch)],
                               text=True, capture_output=True)
            if r.returncode:
                print(f'[{k:2}] {patch}: DOES NOT APPLY\n{r.stderr}')
                failed.append(patch)
                break
            if k < args.first or k > last:
                continue
            t0 = time.time()
            shutil.rmtree(gen, ignore_errors=True)
            os.makedirs(gen)
            ntd = regenerate(rules, touched_td, wt, gen)
            configure_omp_h(wt, gen)
            ntd += regenerate_i18n(i18n, wt, gen)
            changed, added, new = patch_files(patch)
            units = []
            for f in changed + added:
                if f.endswith(('.c', '.cpp')):
                    units.append(f)
                elif f in INCLUDERS:
                    units += INCLUDERS[f]
                elif f in new and f.endswith('.h'):
                    pass  # a new header: the patch's new sources include it
                elif not NOT_COMPILED.search(f):
                    print(f'[{k:2}] note: no includer listed for {f}')
            units = list(dict.fromkeys(units))

            def check(rel):
                entry = db.get(rel)
                how = ''
                if entry is None:
                    entry, how = db[FALLBACK], f' (flags of {FALLBACK})'
                d, argv = entry
                r = subprocess.run(syntax_argv(argv, rel, wt, gen), cwd=d,
                                   text=True, capture_output=True)
                return rel, how, r.returncode, r.stderr

            bad = []
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
                for rel, how, rc, err in ex.map(check, units):
                    if rc:
                        bad.append(rel)
                        print(f'[{k:2}]   FAIL {rel}{how}\n' +
                              '\n'.join(err.splitlines()[:30]))
            status = 'OK' if not bad else f'{len(bad)} FAILED'
            print(f'[{k:2}] {patch}: {status}: {len(units)} files compiled, '
                  f'{ntd} generated files regenerated, {time.time() - t0:.0f} s',
                  flush=True)
            if bad:
                failed.append(patch)
    finally:
        if not args.keep:
            git('worktree', 'remove', '--force', wt)
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f'patch-prefixes: worktree kept in {wt}')
    total = f'{time.time() - start:.0f} s'
    if failed:
        print(f'patch-prefixes: {len(failed)} prefixes FAILED ({total}): '
              + ' '.join(failed))
        return 1
    if args.first <= 1 and last >= len(patches):
        which = (f'every prefix of {len(patches)} patches compiles the files '
                 f'it touches')
    else:
        which = (f'prefixes {args.first}..{last} of {len(patches)} patches '
                 f'compile the files they touch')
    print(f'patch-prefixes: OK, {which} ({total})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
