#!/usr/bin/env python3
"""The self-contained patch series for llvm-project review.

The repository keeps the changes to upstream files as patches/ (applied by
setup-source.sh) and the new files at their llvm-project paths (clang/,
llvm/, openmp/); patches/files says which patch of the series first needs
each new file.  From the three this script builds the series a reviewer
takes: each patch of patches/ with its new files (sources, headers, tests)
added, so that `git am` on a pristine llvm-project release gives the whole
feature and every prefix holds what it builds.

  series.py build [DIR]  write the series to DIR (default build/series):
                         numbered patches and a series file
  series.py check        patches/files names every new file once, and
                         nothing else; the built series applies with
                         `git am` to a pristine checkout of the release; the
                         tree it gives equals build/src/llvm-project with the
                         new files in place; clang-format-<major> changes no
                         line a patch adds (`git clang-format` on each
                         commit, C and C++ files; --report-format: count
                         the lines without failing)
  series.py assign       print a patches/files for the new files it does not
                         list yet, from the series: a source file with the
                         patch that adds it to its CMakeLists.txt, a header
                         with the first patch that includes it, a test by
                         the rules in test_patch()

The overlay stays the source of truth: new files are edited in place and
upstream changes as commits of build/src/llvm-project (make patches), which
is how the project is built and tested every day; the series is a product
of both, rebuilt in seconds, as release tarballs are.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('NT_BUILD', os.path.join(TOP, 'build'))
SRC = os.path.join(BUILD, 'src', 'llvm-project')
OVERLAY_DIRS = ['clang', 'llvm', 'openmp']
MANIFEST = os.path.join(TOP, 'patches', 'files')
IDENT = ['-c', 'user.name=series', '-c', 'user.email=series@localhost',
         '-c', 'core.whitespace=-blank-at-eol']


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True,
                          **kw).stdout


def config(name):
    return run(['bash', '-c', f'. "{TOP}/scripts/config.sh"; echo "${name}"']).strip()


def series():
    with open(os.path.join(TOP, 'patches', 'series')) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def overlay_files():
    return sorted(run(['git', '-C', TOP, 'ls-files', '--'] + OVERLAY_DIRS).split())


def read_manifest():
    """{patch number: [paths]} and [(line number, problem)]."""
    by_patch, seen, problems = {}, set(), []
    if not os.path.exists(MANIFEST):
        return by_patch, [(0, 'patches/files is missing')]
    with open(MANIFEST) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not re.fullmatch(r'\d{4}', parts[0]):
                problems.append((n, f'not "NNNN path": {line}'))
                continue
            num, path = int(parts[0]), parts[1]
            if path in seen:
                problems.append((n, f'{path} listed twice'))
            seen.add(path)
            by_patch.setdefault(num, []).append(path)
    return by_patch, problems


def base_commit():
    return run(['git', '-C', SRC, 'rev-list', '--max-parents=0', 'HEAD']).strip()


def worktree(tmp, name):
    wt = os.path.join(tmp, name)
    run(['git', '-C', SRC, 'worktree', 'add', '-q', '--detach', wt, base_commit()])
    return wt


def drop_worktree(wt):
    subprocess.run(['git', '-C', SRC, 'worktree', 'remove', '--force', wt],
                   capture_output=True)


def build(out):
    by_patch, problems = read_manifest()
    if problems:
        sys.exit('series: ' + '; '.join(f'patches/files:{n}: {p}' for n, p in problems))
    patches = series()
    tmp = tempfile.mkdtemp(prefix='nt-series.')
    wt = worktree(tmp, 'wt')
    try:
        for k, p in enumerate(patches, 1):
            run(['git', '-C', wt] + IDENT + ['am', '-q', '--keep-non-patch',
                                             os.path.join(TOP, 'patches', p)])
            files = by_patch.get(k, [])
            for rel in files:
                dst = os.path.join(wt, rel)
                if os.path.lexists(dst):
                    sys.exit(f'series: {rel} (patches/files, {k:04d}) is an upstream file')
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(TOP, rel), dst)
            if files:
                run(['git', '-C', wt, 'add', '-f', '--'] + files)
                # Same author, date and message; the committer date is the
                # author date, so that the series is the same byte for byte.
                date = run(['git', '-C', wt, 'log', '-1', '--format=%aD']).strip()
                run(['git', '-C', wt] + IDENT + ['commit', '-q', '--amend', '--no-edit',
                                                 '--no-verify'],
                    env=dict(os.environ, GIT_COMMITTER_DATE=date))
        if os.path.isdir(out):
            for f in os.listdir(out):
                if f.endswith('.patch') or f == 'series':
                    os.unlink(os.path.join(out, f))
        os.makedirs(out, exist_ok=True)
        run(['git', '-C', wt, 'format-patch', '-q', '--zero-commit', '--no-signature',
             '--no-numbered', '--full-index', '-o', out, base_commit() + '..HEAD'])
        names = sorted(f for f in os.listdir(out) if f.endswith('.patch'))
        with open(os.path.join(out, 'series'), 'w') as f:
            f.write(f'# The self-contained series: `git am` these, in order, on a pristine\n'
                    f'# llvm-project {config("NT_LLVM_VERSION")} (built by scripts/series.py).\n')
            f.write(''.join(n + '\n' for n in names))
        return names
    finally:
        drop_worktree(wt)
        shutil.rmtree(tmp, ignore_errors=True)


def check(report_format):
    rc = 0
    by_patch, problems = read_manifest()
    for n, p in problems:
        print(f'series: patches/files:{n}: {p}')
        rc = 1
    listed = {p for v in by_patch.values() for p in v}
    have = set(overlay_files())
    for p in sorted(have - listed):
        print(f'series: {p} is not in patches/files (series.py assign proposes a patch)')
        rc = 1
    for p in sorted(listed - have):
        print(f'series: patches/files lists {p}, which is not a file of the repository')
        rc = 1
    n = len(series())
    for k in sorted(by_patch):
        if not 1 <= k <= n:
            print(f'series: patches/files names patch {k:04d}; the series has {n}')
            rc = 1
    if rc:
        return rc
    tmp = tempfile.mkdtemp(prefix='nt-series-check.')
    out = os.path.join(tmp, 'series')
    wt = None
    try:
        names = build(out)
        # `git am` on a pristine release, as a reviewer does.
        wt = worktree(tmp, 'am')
        for name in names:
            r = subprocess.run(['git', '-C', wt] + IDENT + ['am', '-q', '--keep-non-patch',
                                                            os.path.join(out, name)],
                               text=True, capture_output=True)
            if r.returncode:
                print(f'series: ERROR: {name} does not apply with git am:\n{r.stderr}')
                return 1
        # The result is the tree we build: every file the series changes or
        # adds has the content of build/src/llvm-project (new files through
        # their links to the repository).
        changed = run(['git', '-C', wt, 'diff', '--name-only', base_commit(), 'HEAD']).split()
        mine = set(run(['git', '-C', SRC, 'diff', '--name-only', base_commit(), 'HEAD']).split())
        mine |= have
        for rel in sorted(set(changed) | mine):
            a, b = os.path.join(wt, rel), os.path.join(SRC, rel)
            if not os.path.exists(b):
                b = os.path.join(TOP, rel)
            da = open(a, 'rb').read() if os.path.exists(a) else None
            db = open(b, 'rb').read() if os.path.exists(b) else None
            if da != db:
                print(f'series: DRIFT: {rel} differs between the series and the tree')
                rc = 1
        # clang-format: the lines each commit adds, as `git clang-format`
        # sees them.
        major = config('NT_LLVM_MAJOR')
        binary = shutil.which(f'clang-format-{major}')
        gcf = shutil.which(f'git-clang-format-{major}')
        if not binary or not gcf:
            print(f'series: ERROR: clang-format-{major} is not installed '
                  f'(Debian package clang-format-{major}; make deps)')
            return 1
        commits = run(['git', '-C', wt, 'rev-list', '--reverse',
                       base_commit() + '..HEAD']).split()
        total = 0
        for name, c in zip(names, commits):
            # C and C++ only, as LLVM's code-format check (TableGen and the
            # test directories with DisableFormat are left alone).
            r = subprocess.run([gcf, '--binary', binary, '--extensions',
                                'c,h,cpp,cc,cxx,hpp,inc', '--diff', c + '^', c],
                               cwd=wt, text=True, capture_output=True)
            lines = [l for l in r.stdout.splitlines()
                     if l.startswith(('+', '-')) and not l.startswith(('+++', '---'))]
            if r.returncode not in (0, 1) and not lines:
                print(f'series: {name}: git clang-format failed: {r.stderr.strip()}')
                rc = 1
                continue
            total += len(lines)
            if lines:
                print(f'series: clang-format: {name}: {len(lines)} lines would change')
        if total and not report_format:
            rc = 1
        print(f'series: {len(names)} patches apply with git am to pristine '
              f'{config("NT_LLVM_VERSION")}; the tree matches'
              + ('' if rc else '; clang-format clean' if not total else
                 f'; clang-format: {total} lines (reported)'))
        return rc
    finally:
        if wt:
            drop_worktree(wt)
        shutil.rmtree(tmp, ignore_errors=True)


# -- assign -----------------------------------------------------------------

def patch_text(p):
    with open(os.path.join(TOP, 'patches', p)) as f:
        return f.read()


def cmake_additions(text):
    """Paths of the sources a patch adds to a CMakeLists.txt."""
    added, cmake = [], None
    for line in text.splitlines():
        m = re.match(r'^diff --git a/(\S+) b/(\S+)', line)
        if m:
            cmake = m.group(2) if m.group(2).endswith('CMakeLists.txt') else None
            continue
        m = re.match(r'^\+\s+([\w./-]+\.(?:c|cpp))\s*(?:#.*)?$', line)
        if cmake and m:
            added.append(os.path.normpath(os.path.join(os.path.dirname(cmake), m.group(1))))
    return added


def includes(path_or_text, is_text=False):
    text = path_or_text if is_text else open(os.path.join(TOP, path_or_text)).read()
    return set(re.findall(r'^\+?\s*#\s*include\s+"([^"]+)"', text, re.M))


def test_patch(rel, text, first):
    """The first patch after which test rel has all it uses (by its text)."""
    name = os.path.basename(rel)
    if rel.startswith('clang/test/'):
        if 'feature_macro' in name or '__OPENMP_NEXTTOUCH__' in text:
            return first['macro']
        ro = name.startswith('readonly') or 'readonly(' in text
        if 'codegen' in name or '-emit-llvm' in text:
            return first['ro_codegen'] if ro else first['nt_codegen']
        return first['ro_sema'] if ro else first['nt_sema']
    if name == 'lit.local.cfg' or not name.endswith(('.c', '.cpp', '.f90', '.F90')):
        return first['ro_codegen']  # the runtime tests' configuration and helpers
    if rel.endswith(('.f90', '.F90', '.f')) or 'omp_lib' in text:
        return first['fortran']
    if 'KMP_NEXTTOUCH_API' in text:
        return first['api_macro']
    # The runtime's tests share nexttouch_test.h, which uses readonly's
    # API, and run with the compiler that has both constructs.
    return first['ro_codegen']


def assign():
    patches = series()
    by_patch, _ = read_manifest()
    listed = {p for v in by_patch.values() for p in v}
    texts = [patch_text(p) for p in patches]
    where = {}
    for k, t in enumerate(texts, 1):
        for src in cmake_additions(t):
            where.setdefault(src, k)

    def first_subject(rx):
        for k, t in enumerate(texts, 1):
            m = re.search(r'^Subject: (.*(?:\n .*)*)$', t, re.M)
            subj = m.group(1).replace('\n', '').replace("'", '')
            if re.search(rx, subj):
                return k
        sys.exit(f'series: no patch subject matches {rx}')
    first = {
        'nt_sema': first_subject(r'Add #pragma omp nexttouch'),
        'nt_codegen': first_subject(r'Emit #pragma omp nexttouch'),
        'ro_sema': first_subject(r'Add the clause readonly'),
        'ro_codegen': first_subject(r'Emit the clause readonly'),
        'fortran': first_subject(r'Fortran interfaces'),
        'macro': first_subject(r'Predefine __OPENMP_NEXTTOUCH__'),
        'api_macro': first_subject(r'KMP_NEXTTOUCH_API'),
    }
    files = overlay_files()
    out = {}
    for rel in files:
        if rel in where:
            out[rel] = where[rel]
    # Headers: the first patch whose diff or whose new files include them.
    headers = [r for r in files if r.endswith(('.h', '.def', '.inc')) and '/test/' not in r]
    changed = True
    while changed:
        changed = False
        for h in headers:
            base = os.path.basename(h)
            cands = []
            for k, t in enumerate(texts, 1):
                if any(i.endswith(base) for i in includes(t, True)):
                    cands.append(k)
            for rel, k in out.items():
                if rel != h and any(i.endswith(base) for i in includes(rel)):
                    cands.append(k)
            if cands and out.get(h) != min(cands):
                if h not in out or min(cands) < out[h]:
                    out[h] = min(cands)
                    changed = True
    for rel in files:
        if rel not in out and '/test/' in rel:
            out[rel] = test_patch(rel, open(os.path.join(TOP, rel), errors='replace').read(),
                                  first)
    for rel in files:
        if rel in listed:
            continue
        if rel not in out:
            print(f'# {rel}: no patch found; assign it by hand', file=sys.stderr)
            continue
        print(f'{out[rel]:04d} {rel}')


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'build':
        out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(BUILD, 'series')
        names = build(out)
        print(f'series: {len(names)} patches in {out}')
    elif cmd == 'check':
        sys.exit(check('--report-format' in sys.argv[2:]))
    elif cmd == 'assign':
        assign()
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
