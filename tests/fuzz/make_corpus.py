#!/usr/bin/python3
"""Writes the seed corpora of the libFuzzer harnesses (docs/fuzzing.md) into tests/fuzz/corpus/<harness>/.

Every seed is a small valid input, made here by hand from the formats' definitions (no numpy), so that
the corpora are reproducible: `/usr/bin/python3 tests/fuzz/make_corpus.py` rewrites the seed-* files
(regression-* files, the findings, are kept as they are). The committed files are its output.
"""
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def write(harness, name, data):
    folder = os.path.join(CORPUS, harness)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)


def clear_seeds(harness):
    folder = os.path.join(CORPUS, harness)
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            if name.startswith("seed-"):
                os.remove(os.path.join(folder, name))


# ---- npy: numpy.lib.format, versions 1.0 (uint16 header length), 2.0 and 3.0 (uint32)
def npy(descr, shape, payload, fortran=False, version=(1, 0), shape_text=None, align=64):
    if shape_text is None:
        shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    length_bytes = 2 if version[0] == 1 else 4
    pre = 6 + 2 + length_bytes
    pad = (align - (pre + len(header) + 1) % align) % align
    header = (header + " " * pad + "\n").encode("latin-1" if version[0] < 3 else "utf-8")
    length = struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + length + header + payload


def npy_seeds():
    clear_seeds("npy")
    write("npy", "int8_3x4.npy", npy("|i1", (3, 4), struct.pack("<12b", *range(-6, 6))))
    write("npy", "uint8_5.npy", npy("|u1", (5,), bytes([0, 1, 127, 128, 255])))
    write("npy", "int16_2x2.npy", npy("<i2", (2, 2), struct.pack("<4h", -32768, -1, 0, 32767)))
    write("npy", "uint16_3.npy", npy("<u2", (3,), struct.pack("<3H", 0, 1, 65535)))
    write("npy", "int32_2x3.npy",
          npy("<i4", (2, 3), struct.pack("<6i", -2**31, -1, 0, 1, 2**31 - 1, 42)))
    write("npy", "float32_2x2x2.npy",
          npy("<f4", (2, 2, 2), struct.pack("<8f", 0.0, -0.0, 1.5, -2.25, 1e-38, 3e38,
                                            float("inf"), float("nan"))))
    write("npy", "float64_4.npy", npy("<f8", (4,), struct.pack("<4d", 0.1, -1e300, 5e-324, 2.0)))
    write("npy", "float32_scalar.npy", npy("<f4", (), struct.pack("<f", 3.0), shape_text="()"))
    write("npy", "float32_empty_0x3.npy", npy("<f4", (0, 3), b""))
    write("npy", "int8_fortran_2x3.npy", npy("|i1", (2, 3), bytes(range(6)), fortran=True))
    write("npy", "v2_float32_3.npy", npy("<f4", (3,), struct.pack("<3f", 1, 2, 3), version=(2, 0)))
    write("npy", "v3_int8_2.npy", npy("<i1", (2,), b"\x01\xff", version=(3, 0)))
    write("npy", "py2_long_dims.npy",
          npy("|u1", (2, 2), b"\x00\x01\x02\x03", shape_text="(2L, 2L)"))
    write("npy", "unaligned_header.npy", npy("=u1", (1,), b"\x07", align=1))
    write("npy", "raw_float32_x4", struct.pack("<4f", 0.5, -0.5, 8.0, -8.0))


# ---- arch_config: configs/*.json and variants of section 1
def arch_config_seeds():
    clear_seeds("arch_config")
    for name in sorted(os.listdir(os.path.join(ROOT, "configs"))):
        if name.endswith(".json"):
            with open(os.path.join(ROOT, "configs", name), "rb") as f:
                write("arch_config", name, f.read())
    write("arch_config", "empty_object.json", "{}")
    write("arch_config", "array_only.json", '{"array": {"rows": 16, "cols": 4}}')
    write("arch_config", "largest_depths.json", json.dumps(
        {"array": {"rows": 4, "cols": 4},
         "sram": {"a_depth": 262144, "b_depth": 262144, "bias_depth": 65536, "rq_depth": 32768,
                  "out_depth": 65536}}))
    write("arch_config", "smallest_depths.json", json.dumps(
        {"name": "tiny", "description": "one word each",
         "sram": {"a_depth": 1, "b_depth": 1, "bias_depth": 1, "rq_depth": 1, "out_depth": 1}}))
    write("arch_config", "fixed_fields.json", json.dumps(
        {"bus": {"addr_bits": 24}, "acc_bits": 32,
         "latency": {"cmd_setup": 1, "sram_read": 1, "mac_edge": 1, "requant": 4, "out_write": 1}}))
    write("arch_config", "unicode_name.json", '{"name": "q\\u00e4cc \\ud83d\\ude00", "array": {"rows": 32}}')


# ---- host_bus: operations of tests/fuzz/host_bus_fuzz.cc (Session::Op); the first byte picks the device:
# 0 tiny (4x4, A 4, B 8, bias 2, rq 1, out 4 words), 1 default, 2 rect_4x16, 3 tall_16x4.
def rd(offset):
    return bytes([0x00]) + struct.pack("<H", offset)


def wr(offset, value):
    return bytes([0x01]) + struct.pack("<H", offset) + struct.pack("<I", value & 0xFFFFFFFF)


def wrd(region, offset):
    return bytes([0x04, region]) + struct.pack("<I", offset)[:3]


def wwr(region, offset, value, strobe=None):
    if strobe is None:
        return bytes([0x05, region]) + struct.pack("<I", offset)[:3] + struct.pack("<I", value)
    return bytes([0x25, region]) + struct.pack("<I", offset)[:3] + bytes([strobe & 0xF]) + struct.pack(
        "<I", value)


WAIT, SYNC = bytes([0x03]), bytes([0x07])
CTRL, STATUS = 0x040, 0x044
M, N, K, A_BASE, B_BASE, BIAS_BASE, RQ_BASE, OUT_BASE, MODE, ZP_AB, ZP_OUT, CLAMP_MIN, CLAMP_MAX, MULT, SHIFT, OP = (
    range(0x080, 0x0C0, 4))


def command(m, n, k, mode=0, mult=1 << 30, shift=0, lo=-128, hi=127, zp_ab=0, op=0, bases=(0, 0, 0, 0, 0)):
    regs = [(M, m), (N, n), (K, k), (MODE, mode), (MULT, mult), (SHIFT, shift), (CLAMP_MIN, lo),
            (CLAMP_MAX, hi), (ZP_AB, zp_ab), (OP, op)]
    regs += list(zip((A_BASE, B_BASE, BIAS_BASE, RQ_BASE, OUT_BASE), bases))
    return b"".join(wr(o, v) for o, v in regs)


def host_bus_seeds():
    clear_seeds("host_bus")
    every_register = b"".join(rd(o) for o in range(0, 0x124, 4))
    write("host_bus", "tiny_registers", bytes([0]) + every_register + rd(0x3FC) + rd(0xFFC) + rd(0x1000) + rd(0x17FD))
    write("host_bus", "default_registers", bytes([1]) + every_register)
    load = wwr(1, 0, 0x04030201) + wwr(1, 12, 0xFF7F8001) + wwr(2, 0, 0x01010101) + wwr(2, 28, 0x80808080)
    legal = (bytes([0]) + load + command(4, 4, 1) + wr(CTRL, 3) + rd(STATUS) + wrd(5, 0) + wr(M, 9) + WAIT +
             SYNC + rd(STATUS) + b"".join(rd(o) for o in range(0x100, 0x120, 4)) +
             b"".join(wrd(5, o) for o in range(0, 64, 4)) + wr(STATUS, 2) + SYNC + rd(STATUS))
    write("host_bus", "tiny_legal_gemm", legal)
    write("host_bus", "tiny_raw_bias_per_channel",
          bytes([0]) + load + wwr(3, 0, 1000) + wwr(4, 0, 0x40000000) + wwr(4, 4, 0xFFFFFFE1) + wrd(4, 4) +
          command(4, 4, 2, mode=0x0E) + wr(CTRL, 1) + WAIT + rd(STATUS) + b"".join(wrd(5, o) for o in range(0, 64, 4)))
    errors = bytes([0])
    for m, n, k, extra in [(0, 4, 4, {}), (8, 4, 1, {}), (4, 4, 9, {}), (4, 4, 1, {"mode": 0x08}),
                           (4, 8, 1, {"mode": 0x02}), (9, 4, 1, {"mode": 0x04}), (4, 4, 1, {"shift": 31}),
                           (4, 4, 1, {"mult": 5}), (4, 4, 1, {"lo": 5, "hi": 4}), (4, 4, 1, {"zp_ab": 0x100}),
                           (4, 4, 1, {"mode": 0x100}), (4, 4, 1, {"op": 1}),
                           # ACT = SLOPE with SLOPE_PER_CHANNEL: the slope's rq word past the end (RQ_RANGE)
                           (4, 4, 1, {"mode": 0x382, "lo": 0, "hi": 0, "bases": (0, 0, 0, 4095, 0)})]:
        errors += command(m, n, k, **extra) + wr(CTRL, 3) + rd(STATUS) + WAIT + SYNC + rd(STATUS) + rd(0x100)
    write("host_bus", "tiny_every_error", errors)
    busy = (bytes([1]) + command(64, 64, 64) + wr(CTRL, 1) + wr(M, 1) + wr(CTRL, 0) + wr(STATUS, 6) +
            wwr(1, 0, 1) + wrd(2, 0) + rd(STATUS) + rd(0x104) + bytes([0x43, 40]) + rd(0x104) + WAIT +
            rd(STATUS) + rd(0x11C))
    write("host_bus", "default_busy_refusals", busy)
    odd = bytes([0])
    for shape in (0x00, 0x01, 0x08, 0x0F, 0x24, 0x84):  # lengths 0, 1, 8, 16; width 2 and 8
        odd += bytes([0x10]) + struct.pack("<H", 0) + bytes([shape])
        odd += bytes([0x11]) + struct.pack("<H", CTRL) + bytes([shape]) + struct.pack("<I", 1)
    odd += bytes([0x02]) + struct.pack("<H", CTRL)  # ignore
    odd += bytes([0x0C]) + struct.pack("<Q", 0x100000000)  # 64-bit address
    odd += bytes([0x08]) + struct.pack("<I", 0xFF000000) + bytes([0x09]) + struct.pack("<I", 0x600000) +         struct.pack("<I", 7)
    odd += bytes([0x25, 2]) + struct.pack("<I", 4)[:3] + bytes([0x60, 0xFF, 0x00, 0xFF]) + struct.pack("<I", 0x11223344)
    odd += wrd(2, 4) + wrd(2, 32) + wwr(5, 64, 1) + wrd(6, 0) + wrd(15, 0)
    odd += wwr(4, 4, 0xFFFFFF20, strobe=0x1) + wrd(4, 4) + wwr(4, 4, 0x3F, strobe=0xE) + wrd(4, 4)
    write("host_bus", "tiny_odd_payloads", odd)
    for index, name in ((2, "rect_4x16"), (3, "tall_16x4")):
        write("host_bus", name + "_gemm", bytes([index]) + wwr(1, 0, 0x7F7F7F7F) + wwr(2, 0, 0x81818181) +
              command(20, 20, 3, mode=0x30, zp_ab=0x00800080) + wr(CTRL, 2) + wr(CTRL, 3) + bytes([0x83, 50, 0]) +
              rd(STATUS) + WAIT + SYNC + b"".join(wrd(5, o) for o in range(0, 128, 4)))


# ---- cli_flags: one argument per line (tests/fuzz/cli_flags_fuzz.cc); "@seed" and "@spec" drive ParseSeed and
# MakeSpec directly.
CLI_SEEDS = {
    "lut": "lut --func sigmoid --in-bits 4 --in-amax 8 --out-bits 8 --out-unsigned",
    "lut_asym": "lut --func tanh --in-bits 8 --in-scale 0.1 --in-zp -3 --out-bits 16 --out-min -1 --out-max 1.5",
    "lut_scale": "lut --func leaky_relu --alpha 0.125 --in-bits 8 --in-amax 4 --out-scale 0.01 --out-zp 7 --json",
    "softmax_tables": "softmax-tables --n 64 --in-bits 8 --in-amax 8 --out-bits 8 --out-unsigned --out-amax 1 "
                      "--acc-bits 24 --error-rows 10 --seed 12345 --min-acc-bits 4",
    "table_memory": "table-memory --in-bits 12 --acc-bits 40 --out-bits 9",
    "multiplier": "multiplier --scale 0.1234 --bits 16",
    "multiplier_tpu": "multiplier --scale 3e-5 --compat tpu-mlir --max-multiplier 255 --qdm",
    "calibrate": "calibrate x.npy --method percentile --percentile 99.99 --bits 8 --bins 2048 --asymmetric",
    "apply_requant": "apply requant x.npy -o y.npy --multiplier 1073741824,2147483647 --shift -31,30 --axis -1 "
                     "--out-bits 8 --out-zp -5",
    "apply_requant_tpu": "apply requant x.npy -o y.npy --compat tpu-mlir --scale 0.5,0.25 --max-multiplier 127",
    "apply_softmax": "apply softmax x.npy -o y.npy --in-amax 8 --out-bits 8 --out-unsigned --out-amax 1 --acc-bits 16",
    "apply_add": "apply add a.npy b.npy -o y.npy --a-scale 0.5 --a-zp 3 --b-amax 2 --b-bits 12 --out-amax 4",
    "apply_avgpool": "apply avgpool x.npy -o y.npy --kernel 3,2 --stride 2 --pad 1,0,1,0 --multiplier-bits 16 "
                     "--in-amax 1 --out-amax 1",
    "apply_pad": "apply pad x.npy -o y.npy --pad 1 --value -0.75 --in-scale 0.01 --in-zp 4",
    "regress": "regress --suite gemm --seeds 5 -j 2 --timeout 30.5 --seed-base 18446744073709551610 --mutant 3",
    "regress_memory": "regress --suite all --seeds 1 --memory-limit 4096 --model-only",
    "help": "apply requant --help",
}


def cli_flags_seeds():
    clear_seeds("cli_flags")
    for name, line in CLI_SEEDS.items():
        write("cli_flags", name, "\n".join(line.split(" ")))
    write("cli_flags", "parse_seed", "@seed\n18446744073709551615")
    write("cli_flags", "make_spec", "@spec\n--x-bits\n12\n--x-unsigned\n--x-scale\n0.5\n--x-zp\n4095")
    write("cli_flags", "make_spec_amax", "@spec\n--x-narrow\n--x-amax\n3.5")


# ---- regress_report: reports of `qacc regress --json` made by the release build (qacc itself, with a
# stand-in child for the failures and the interruption), and run results of `qacc cosim --json`
REGRESS_FAKE = r"""#!/bin/sh
# A stand-in for `qacc cosim`: gemm_n1 mismatches, gemm_k1 crashes, gemm_edges seed 2 interrupts
# the regression (SIGINT to its parent) and stays in flight; every other run is the real one.
case " $* " in *" --dry-run "*) exit 0 ;; esac
case "$3 $5" in
  "gemm_n1 "*)
    echo '{"test":"'$3'","seed":'$5',"pass":false,"cycles":500,"cycles_per_second":5e4,"mismatches":{"mac":0,"requant":3,"output":2},"first_mismatch":{"cycle":42,"unit":"requant"},"reproduce":"qacc cosim --test '$3' --seed '$5'","error":null}'
    exit 1 ;;
  "gemm_k1 "*) echo "about to fail" >&2; kill -SEGV $$ ;;
  "gemm_edges 2") kill -INT $PPID; sleep 5; exit 0 ;;
esac
exec "QACC" "$@"
"""


def regress_report_seeds():
    import re
    import subprocess
    import tempfile
    qacc = os.path.join(ROOT, "build", "release", "sim", "qacc")
    if not os.access(qacc, os.X_OK):
        print("make_corpus.py: no %s: the regress_report seeds are left as they are" % qacc)
        return
    clear_seeds("regress_report")

    def normalised(text):  # timing, time and host fixed: a rerun changes only the tool's commit
        text = re.sub(r'"(wall_seconds|cycles_per_second)": ?[-0-9.eE+]+', r'"\1": 0.25', text)
        text = re.sub(r'"timestamp": "[^"]*"', '"timestamp": "2026-01-01T00:00:00Z"', text)
        return re.sub(r'"hostname": "[^"]*"', '"hostname": "host"', text)

    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fake_cosim")
        with open(fake, "w") as f:
            f.write(REGRESS_FAKE.replace("QACC", qacc))
        os.chmod(fake, 0o755)
        config = ["--config", "configs/default.json", "--memory-limit", "0"]
        runs = {
            "model_only": ["--suite", "gemm", "--tests", "gemm_random,gemm_n1", "--seeds", "2",
                           "--model-only"],
            # lockstep: the merged coverage bins
            "lockstep": ["--suite", "gemm", "--tests", "gemm_random", "--seeds", "1",
                         "--seed-base", "18446744073709551615"],
            "failures": ["--suite", "gemm", "--tests", "gemm_n1,gemm_k1,gemm_random", "--seeds", "1",
                         "--model-only", "--child-command", fake],
            "fail_fast": ["--suite", "gemm", "--tests", "gemm_n1,gemm_random", "--seeds", "3",
                          "--model-only", "--fail-fast", "--child-command", fake],
            "interrupted": ["--suite", "gemm", "--tests", "gemm_random,gemm_edges", "--seeds", "3",
                            "--model-only", "--child-command", fake],
        }
        for name, args in runs.items():
            report = os.path.join(tmp, name + ".json")
            subprocess.run([qacc, "regress"] + config + args + ["--json", report, "-o", os.devnull],
                           cwd=ROOT, stderr=subprocess.DEVNULL, check=False)
            with open(report) as f:
                write("regress_report", name + ".json", normalised(f.read()))
        out = subprocess.run([qacc, "cosim", "--test", "gemm_edges", "--seed", "7", "--json",
                              "--model-only"] + config[:2], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout.decode()
        write("regress_report", "result_pass.json", normalised(out))
        error = json.loads(out)  # the shape of a run that could not judge the design
        error.update({"pass": False, "error": "SRAM A: the program does not fit"})
        write("regress_report", "result_error.json", normalised(json.dumps(error, indent=2)))


def main():
    npy_seeds()
    arch_config_seeds()
    host_bus_seeds()
    cli_flags_seeds()
    regress_report_seeds()
    return 0


if __name__ == "__main__":
    sys.exit(main())
