"""The RTL as qacc validate sees it: the file list, the configs' Verilator parameters, lint, and the trivial
compiler equivalence check (Verilated C++ compared with comments and line markers stripped)."""

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from . import sv_parse


@dataclass
class Config:
    name: str
    path: str
    params: list  # -G arguments of qacc_top


def read_configs(source_dir, names=None):
    configs = []
    config_dir = os.path.join(source_dir, "configs")
    available = sorted(f[:-5] for f in os.listdir(config_dir) if f.endswith(".json"))
    for name in names or available:
        if name not in available:
            raise ValueError(f"--configs: unknown config '{name}', expected some of: {', '.join(available)}")
        path = os.path.join(config_dir, name + ".json")
        with open(path) as f:
            c = json.load(f)
        s = c["sram"]
        params = [f"-GNumRows={c['array']['rows']}", f"-GNumCols={c['array']['cols']}",
                  f"-GADepth={s['a_depth']}", f"-GBDepth={s['b_depth']}", f"-GBiasDepth={s['bias_depth']}",
                  f"-GRqDepth={s['rq_depth']}", f"-GOutDepth={s['out_depth']}", f"-GLutSlots={c['lut']['slots']}",
                  f"-GDataBytes={c['mem']['data_bytes']}", f"-GMaxOutstanding={c['mem']['max_outstanding']}"]
        configs.append(Config(name, path, params))
    return configs


def file_list(rtl_dir):
    """The entries of rtl/files.f in order (the .vlt waiver file included)."""
    with open(os.path.join(rtl_dir, "files.f")) as f:
        return [line.strip() for line in f if line.strip() and not line.lstrip().startswith("//")]


SCOPE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutation_scope.json")


def mutation_scope(path=SCOPE_FILE):
    """(files, excluded) of mutation_scope.json: the files mutated, and the excluded ones with their reasons."""
    with open(path) as f:
        doc = json.load(f)
    return list(doc["files"]), dict(doc["excluded"])


def mutable_files(rtl_dir, scope_path=SCOPE_FILE):
    """The design files a mutant may touch: the .sv files of files.f that mutation_scope.json lists under
    'files' (never packages: constants and enums are elaboration-time, a run-time selector cannot choose between
    them). A design file that the scope lists nowhere is an error (ValueError), and so is a listed file that
    files.f does not hold."""
    design = [f for f in file_list(rtl_dir) if f.endswith(".sv") and not f.endswith("_pkg.sv")]
    files, excluded = mutation_scope(scope_path)
    unlisted = [f for f in design if f not in files and f not in excluded]
    if unlisted:
        raise ValueError(f"{os.path.relpath(scope_path)}: {', '.join(unlisted)} of rtl/files.f listed neither "
                         "under 'files' nor under 'excluded'")
    stale = [f for f in list(files) + list(excluded) if f not in design]
    if stale:
        raise ValueError(f"{os.path.relpath(scope_path)}: {', '.join(stale)} not in rtl/files.f")
    return [f for f in design if f in files]


def read_sources(rtl_dir):
    sources = []
    for f in mutable_files(rtl_dir):
        with open(os.path.join(rtl_dir, f)) as fh:
            sources.append(sv_parse.read_source(f, fh.read()))
    return sources


def copy_rtl(rtl_dir, dest, replace=None):
    """Copies the files of files.f into `dest`; `replace` maps file names to new text."""
    os.makedirs(dest, exist_ok=True)
    for f in ["files.f"] + file_list(rtl_dir):
        text = (replace or {}).get(f)
        if text is None:
            with open(os.path.join(rtl_dir, f)) as fh:
                text = fh.read()
        path = os.path.join(dest, f)
        old = None
        if os.path.exists(path):
            with open(path) as fh:
                old = fh.read()
        if old != text:  # unchanged files keep their time stamps: the build does not redo them
            with open(path, "w") as fh:
                fh.write(text)


MESSAGE_RE = re.compile(r"^%(Error|Warning)(?:-([A-Z0-9_]+))?: ([^:\n]+):(\d+):(\d+): (.*)$", re.M)


@dataclass
class LintMessage:
    severity: str  # Error or Warning
    rule: str
    file: str
    line: int
    col: int
    text: str

    def __str__(self):
        rule = f"-{self.rule}" if self.rule else ""
        return f"%{self.severity}{rule}: {os.path.basename(self.file)}:{self.line}:{self.col}: {self.text}"


def lint(rtl_dir, config, top="qacc_top", extra=()):
    """verilator --lint-only -Wall with the project's waivers (the .vlt of files.f). Returns (ok, messages,
    output)."""
    cmd = ["verilator", "--lint-only", "-Wall", "-F", "files.f", "--top-module", top, *config.params, *extra]
    # In its own session: the terminal's Ctrl-C goes to qacc validate alone, never kills a lint half-way (whose
    # output would read as lint messages of the mutant).
    p = subprocess.run(cmd, cwd=rtl_dir, capture_output=True, text=True, start_new_session=True)
    out = p.stdout + p.stderr
    messages = [LintMessage(m.group(1), m.group(2) or "", m.group(3), int(m.group(4)), int(m.group(5)),
                            m.group(6)) for m in MESSAGE_RE.finditer(out)]
    return p.returncode == 0 and not messages, messages, out


# ---- Trivial compiler equivalence ----------------------------------------------------------------------------

COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
LINE_MARKER_RE = re.compile(r"^\s*#\s*line\b[^\n]*$", re.M)


def normalized_cpp(mdir):
    """The Verilated C++ of a model directory as one digest: comments and #line markers stripped, blank lines
    dropped, the files in name order. Makefiles and dependency lists are not code and are left out."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(mdir)):
        if not name.endswith((".cpp", ".h")):
            continue
        with open(os.path.join(mdir, name)) as f:
            text = f.read()
        text = LINE_MARKER_RE.sub("", COMMENT_RE.sub("", text))
        lines = [line.rstrip() for line in text.splitlines() if line.strip()]
        digest.update(name.encode() + b"\0" + "\n".join(lines).encode() + b"\0")
    return digest.hexdigest()


def verilate_digest(rtl_dir, config, mdir):
    """Verilates qacc_top (the co-simulation's arguments, C++ only, no compile) and digests its C++. Paths in
    the generated code are relative to the RTL directory, so two copies of rtl/ compare equal when the same."""
    if os.path.isdir(mdir):
        shutil.rmtree(mdir)
    cmd = ["verilator", "--cc", "-Wall", "-Wno-fatal", "--assert", "--x-assign", "fast", "--x-initial", "unique",
           "-O3", "-F", "files.f", "--top-module", "qacc_top", "--prefix", "Vqacc_top", "--Mdir",
           os.path.abspath(mdir), *config.params]
    p = subprocess.run(cmd, cwd=rtl_dir, capture_output=True, text=True, start_new_session=True)  # as lint()
    if p.returncode != 0:
        raise RuntimeError(f"verilator failed in {rtl_dir}: {(p.stdout + p.stderr)[-2000:]}")
    return normalized_cpp(mdir)
