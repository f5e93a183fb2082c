"""The record of a mutation analysis, kept in its work directory as it goes, so that `qacc validate --resume`
continues an interrupted run (docs/validate.md "Resume").

The record is JSON Lines, one object per line, each with a "type":
  header     the run's arguments and its key: what its results depend on (the RTL text, the configs, the
             scripts that judge, the base commit, the mutants of the scope), written first, atomically;
  schemata   the key of the mutant schemata and of the qacc binary built from it;
  baseline   the test order and per-run timeout that the schemata's baseline regression gave;
  mutant     one mutant's verdict: phase "regression" (killed or survived) or "equivalence" (the survivor
             after the equivalence check); a later line for a mutant replaces an earlier one;
  complete   the run ended: nothing to resume.
Lines are appended whole (one write, flushed and synced), so an interrupted run leaves at most one torn last
line: it is dropped when the record is read, and that mutant runs again."""

import json
import os
import tempfile
import threading

FILE_NAME = "mutation-record.jsonl"
FORMAT = "qacc validate mutation record 1"


class RecordError(Exception):
    """A record that cannot be resumed; the message says why (a usage error: exit 2)."""


class MutationRecord:
    def __init__(self, path):
        self.path = path
        self.arguments = []
        self.key = {}
        self.schemata = None  # the schemata key, once recorded
        self.baseline = None  # {"order": {config: [tests]}, "timeout": seconds}
        self.verdicts = {"regression": {}, "equivalence": {}}  # phase -> {mutant id: record}
        self.complete = False
        self.lock = threading.Lock()

    # ---- a new record ----
    @classmethod
    def create(cls, path, arguments, key):
        """A new record holding only its header; replaces any record at `path` (a new run starts afresh)."""
        record = cls(path)
        record.arguments, record.key = list(arguments), dict(key)
        header = {"type": "header", "format": FORMAT, "arguments": record.arguments, "key": record.key}
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".record.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps(header) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        return record

    # ---- an existing record ----
    @classmethod
    def load(cls, path):
        """The record at `path`; a RecordError naming the file and the line when it cannot be resumed. A torn
        last line (one without its newline) is cut off the file, so that the next line appended is whole."""
        what = f"--resume: {path}"
        if not os.path.exists(path):
            raise RecordError(f"{what} does not exist: no interrupted mutation analysis in this work directory "
                              "(a run with --all, --base, --mutants or --ids writes it); run without --resume")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise RecordError(f"{what}: cannot read: {e.strerror}")
        # Every line but the last ends with a newline; the last is empty in a whole file, and the torn end of an
        # interrupted write otherwise (appends are one write each: only the end of the file can be torn).
        *whole, torn = data.split(b"\n")
        lines = []
        for number, raw in enumerate(whole, 1):
            try:
                entry = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                entry = None
            if not isinstance(entry, dict):
                raise RecordError(f"{what}: line {number} is not a JSON object: the record is damaged; start the "
                                  "run again without --resume")
            lines.append((number, entry))
        good_end = len(data) - len(torn)
        record = cls(path)
        if not lines or lines[0][1].get("type") != "header" or lines[0][1].get("format") != FORMAT:
            raise RecordError(f"{what}: line 1 is not the header of a record of this qacc validate ({FORMAT})")
        header = lines[0][1]
        if not isinstance(header.get("arguments"), list) or not isinstance(header.get("key"), dict):
            raise RecordError(f"{what}: line 1: the header lacks its arguments or key")
        record.arguments, record.key = header["arguments"], header["key"]
        for number, entry in lines[1:]:
            record._read_entry(number, entry, what)
        if good_end < len(data):
            with open(path, "r+b") as f:
                f.truncate(good_end)
        return record

    def _read_entry(self, number, entry, what):
        kind = entry.get("type")
        if kind == "schemata" and isinstance(entry.get("key"), dict):
            self.schemata = entry["key"]
        elif kind == "baseline" and isinstance(entry.get("order"), dict) and \
                isinstance(entry.get("timeout"), (int, float)):
            self.baseline = {"order": entry["order"], "timeout": entry["timeout"]}
        elif kind == "mutant" and entry.get("phase") in self.verdicts and isinstance(entry.get("record"), dict) \
                and isinstance(entry["record"].get("id"), int):
            self.verdicts[entry["phase"]][entry["record"]["id"]] = entry["record"]
        elif kind == "complete":
            self.complete = True
        else:
            raise RecordError(f"{what}: line {number}: not an entry of a mutation record: {json.dumps(entry)[:120]}")

    # ---- checks ----
    def check(self, key, recorded=None, part="the run"):
        """RecordError naming every item of `key` that differs from the recorded one."""
        recorded = self.key if recorded is None else recorded
        differ = differences(recorded, key)
        if differ:
            raise RecordError(f"--resume: {self.path}: {part} was recorded on other inputs: " + "; ".join(differ) +
                              ". Its results do not hold for these; start the run again without --resume")

    def check_schemata(self, key):
        """On the first session records the schemata's key; on a resumed one, checks it."""
        if self.schemata is None:
            self.schemata = dict(key)
            self.append({"type": "schemata", "key": self.schemata})
        else:
            self.check(key, self.schemata, "the mutant schemata")

    # ---- appending ----
    def append(self, entry):
        """One whole line, flushed and synced before it returns: a crash after it keeps it."""
        line = json.dumps(entry, sort_keys=True) + "\n"
        with self.lock:
            with open(self.path, "a") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())

    def add_baseline(self, order, timeout):
        self.baseline = {"order": order, "timeout": timeout}
        self.append({"type": "baseline", **self.baseline})

    def add_verdict(self, phase, rec):
        with self.lock:
            self.verdicts[phase][rec["id"]] = dict(rec)
        self.append({"type": "mutant", "phase": phase, "record": rec})

    def mark_complete(self):
        self.complete = True
        self.append({"type": "complete"})

    def finished(self):
        """Ids of the mutants with a verdict."""
        return set(self.verdicts["regression"]) | set(self.verdicts["equivalence"])


def differences(recorded, now):
    """'NAME: recorded A, now B' for every item that differs (a missing item is 'none')."""
    out = []
    for name in sorted(set(recorded) | set(now)):
        a, b = recorded.get(name), now.get(name)
        if a != b:
            out.append(f"{name}: recorded {short(a)}, now {short(b)}")
    return out


def short(value):
    if value is None:
        return "none"
    text = str(value)
    return text[:16] if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else text[:80]
