"""Splits the mutants of a run into schematas that have no combinational loop the design lacks.

A guard `(sel == N) ? (mutated) : (original)` reads the signals of both arms whatever the selector. A mutant that
reads another signal (swapsig, bypass) adds a combinational edge; each such mutant is loop-free alone (the lint
of each mutant alone fails on UNOPTFLAT), but the edges of several can close a loop through modules, which only the
schemata has. The schemata of the whole RTL with such loops failed its regression with no mutant selected
(dma_edges: RdRoom_A fired), though each quarter of its mutants passed alone: a loop can change what Verilator
computes, not only how fast. So no schemata may have a loop: Verilator's own lint names them (UNOPTFLAT), and the
mutants are placed first-fit into as few loop-free groups as the lint allows, each group one schemata build."""

import hashlib
import json
import os

from . import mutants, rtl

LOOP_RULES = ("UNOPTFLAT", "UNOPT")

# The operators whose mutated arm reads a signal that the original does not: only their mutants can add an edge.
NEW_READS = ("swapsig", "bypass")


def texts(sources, group):
    """The file texts of the schemata of `group` (files without a mutant of it stay as written, with a selector)."""
    return {s.path: mutants.schemata_text(s, [m for m in group if m.file == s.path])[0] for s in sources}


class LoopCheck:
    """Whether a group's schemata has a combinational loop on any config, by Verilator's lint; the answers are
    cached in the work folder by the schemata's text, so a resumed run asks again only for what changed."""

    def __init__(self, rtl_dir, sources, configs, work, guard):
        self.rtl_dir, self.sources, self.configs, self.guard = rtl_dir, sources, configs, guard
        self.dir = os.path.join(work, "loop-check")
        self.cache_path = os.path.join(work, "loop-cache.json")
        self.cache = {}
        if os.path.exists(self.cache_path):
            with open(self.cache_path) as f:
                self.cache = json.load(f)
        self.lints = 0

    def loops(self, group):
        """The first loop message of the group's schemata, or "" when it has none."""
        replace = texts(self.sources, group)
        digest = hashlib.sha256(json.dumps(replace, sort_keys=True).encode()).hexdigest()
        for c in self.configs:
            key = f"{digest}|{c.params}"
            if key not in self.cache:
                rtl.copy_rtl(self.rtl_dir, self.dir, replace)
                _, messages, _ = self.guard(rtl.lint, self.dir, c)
                self.lints += 1
                found = [m for m in messages if m.rule in LOOP_RULES]
                self.cache[key] = f"{c.name}: {found[0]}" if found else ""
                with open(self.cache_path, "w") as f:
                    json.dump(self.cache, f)
            if self.cache[key]:
                return self.cache[key]
        return ""


def loop_free_groups(buildable, check):
    """First-fit: the mutants that read nothing new, then those that do, file by file; a batch that closes a loop
    with every group so far and alone is halved until its parts fit. Returns (groups, mutants that close a loop
    even alone, each with its message): the guard of such a mutant reads both arms, which the mutant alone
    does not, so it is not unbuildable; it is reported apart and not run."""
    groups, alone = [], []

    def place(batch):
        for g in groups:
            if not check.loops(g + batch):
                g.extend(batch)
                return
        why = check.loops(batch)
        if not why:
            groups.append(list(batch))
        elif len(batch) == 1:
            alone.append((batch[0], why))
        else:
            half = len(batch) // 2
            place(batch[:half])
            place(batch[half:])

    plain = [m for m in buildable if m.operator not in NEW_READS]
    if plain:
        place(plain)
    reading = [m for m in buildable if m.operator in NEW_READS]
    for f in sorted({m.file for m in reading}):
        place([m for m in reading if m.file == f])
    for g in groups:
        g.sort(key=lambda m: m.id)
    return groups, alone
