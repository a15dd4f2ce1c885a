#!/usr/bin/env python3
"""Generates llm.h's Unicode tables from the Unicode Character Database.

    python3 tools/gen_unicode.py [llm.h] [UCD directory]   (default: llm.h /usr/share/unicode)

Rewrites, in place, the lines between the two marker lines
    /* >>unicode-tables begin: ...
    /* >>unicode-tables end */
in llm.h, and leaves every other byte alone. It reads UnicodeData.txt (general category,
canonical combining class, canonical decompositions; <..., First>/<..., Last> pairs are
ranges), PropList.txt (White_Space) and CompositionExclusions.txt (the version is taken
from PropList.txt's first line). Debian's unicode-data package installs them in
/usr/share/unicode. Python 3 standard library only. `--check` prints nothing and exits 1
when llm.h's block differs from what the files give (tests/test_unicode.c runs it).

The tables (what llm.h's llm__ucd and llm_nfc read):
  * every code point -> a property row (general-category flags, White_Space, canonical
    combining class), as a two-stage table: stage 1 picks a block of BLOCK code points,
    stage 2 holds each distinct block once (a row index per code point);
  * canonical decompositions (one or two code points each; Hangul syllables are left to
    the algorithm), sorted by code point;
  * the primary composites: indexes into the decompositions of the pairs that compose
    (not excluded, not singletons, not starting with a non-starter), sorted by pair.
"""
import os
import sys

BEGIN = "/* >>unicode-tables begin:"
END = "/* >>unicode-tables end */"

# Flag bits of a property row; the C side names them LLM__UC_*.
F_L, F_N, F_WS, F_P, F_S, F_M, F_Z, F_C = 1, 2, 4, 8, 16, 32, 64, 128
CAT_FLAG = {"L": F_L, "N": F_N, "P": F_P, "S": F_S, "M": F_M, "Z": F_Z, "C": F_C}

# DeepSeek LLM's second split (llama.cpp's llama-vocab.cpp, from the model's
# tokenizer.json): `\s?[<this class>]+`. Kept here as the regex writes it; the generator
# turns it into code point ranges.
DEEPSEEK_LATIN = (
    "A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-"
    "ὗὙὛὝ\u1f5f-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌ\u1fd0-\u1fd3\u1fd6-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄ"
    "Ⰰ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃")
# (\u escapes: the code points whose NFC form differs, e.g. U+212A KELVIN SIGN, so that
# no editor can normalize them into other characters)
# its third: `\s?[<this class>]+`, and its fifth: `[<this class>]+`
DEEPSEEK_PUNCT = "!-/:-~！-／：-～‘-‟　-。"
DEEPSEEK_CJK = "一-龥ࠀ-一가-퟿"


def class_ranges(cls):
    """A regex character class body (literal characters and a-b ranges) -> merged ranges."""
    out, i = [], 0
    while i < len(cls):
        if i + 2 < len(cls) and cls[i + 1] == "-":
            out.append((ord(cls[i]), ord(cls[i + 2])))
            i += 3
        else:
            out.append((ord(cls[i]), ord(cls[i])))
            i += 1
    out.sort()
    merged = []
    for a, b in out:
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def read_ucd(ucd):
    cat = ["Cn"] * 0x110000
    ccc = [0] * 0x110000
    decomp = {}
    first = None
    with open(os.path.join(ucd, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split(";")
            if len(p) < 6:
                continue
            cp = int(p[0], 16)
            if p[1].endswith(", First>"):
                first = cp
                continue
            lo = first if p[1].endswith(", Last>") else cp
            first = None
            for c in range(lo, cp + 1):
                cat[c] = p[2]
                ccc[c] = int(p[3])
            if p[5] and not p[5].startswith("<"):
                decomp[cp] = [int(x, 16) for x in p[5].split()]
    ws = [False] * 0x110000
    version = None
    with open(os.path.join(ucd, "PropList.txt"), encoding="utf-8") as f:
        for line in f:
            if version is None and line.startswith("# PropList-"):
                version = line.strip()[len("# PropList-"):-len(".txt")]
            s = line.split("#")[0].strip()
            if not s:
                continue
            rng, prop = [x.strip() for x in s.split(";")]
            if prop != "White_Space":
                continue
            a, _, b = rng.partition("..")
            for c in range(int(a, 16), int(b or a, 16) + 1):
                ws[c] = True
    excl = set()
    with open(os.path.join(ucd, "CompositionExclusions.txt"), encoding="utf-8") as f:
        for line in f:
            s = line.split("#")[0].strip()
            if s:
                excl.add(int(s, 16))
    return version, cat, ccc, decomp, ws, excl


def c_array(ctype, name, values, per_line=24):
    lines = ["static const %s %s[%d] = {" % (ctype, name, len(values))]
    for i in range(0, len(values), per_line):
        lines.append(",".join(str(v) for v in values[i:i + per_line]) + ",")
    lines.append("};")
    return lines


def generate(ucd):
    version, cat, ccc, decomp, ws, excl = read_ucd(ucd)

    # property rows (flags, ccc), most frequent first so most entries print as one digit
    keys = [(CAT_FLAG[cat[c][0]] | (F_WS if ws[c] else 0), ccc[c]) for c in range(0x110000)]
    freq = {}
    for k in keys:
        freq[k] = freq.get(k, 0) + 1
    rows = sorted(freq, key=lambda k: (-freq[k], k))
    assert len(rows) <= 256 and rows[0] == (F_C, 0)  # row 0: unassigned
    row_of = {k: i for i, k in enumerate(rows)}
    cp_row = [row_of[k] for k in keys]

    # three stages: code point >> TOP picks a run of 2^(TOP - SHIFT) block numbers, each
    # block is 2^SHIFT rows; identical runs and identical blocks are stored once
    shift, top = 5, 10
    blocks, block_no, stage3 = {}, [], []
    for b in range(0x110000 >> shift):
        blk = tuple(cp_row[b << shift:(b + 1) << shift])
        if blk not in blocks:
            blocks[blk] = len(blocks)
            stage3.extend(blk)
        block_no.append(blocks[blk])
    per = 1 << (top - shift)
    runs, stage1, stage2 = {}, [], []
    for t in range(0x110000 >> top):
        run = tuple(block_no[t * per:(t + 1) * per])
        if run not in runs:
            runs[run] = len(runs)
            stage2.extend(run)
        stage1.append(runs[run])
    assert len(runs) <= 256 and len(blocks) <= 65535

    # canonical decompositions (Hangul syllables are algorithmic, not in the file)
    dcps = sorted(decomp)
    dec_flat = []
    for c in dcps:
        d = decomp[c]
        assert 1 <= len(d) <= 2
        dec_flat.extend([c, d[0], d[1] if len(d) == 2 else 0])
    # primary composites: pairs whose first code point is a starter, not excluded
    comp = []
    for k, c in enumerate(dcps):
        d = decomp[c]
        if len(d) == 2 and c not in excl and ccc[c] == 0 and ccc[d[0]] == 0:
            comp.append((d[0], d[1], k))
    comp.sort()
    comp_idx = [k for _, _, k in comp]

    def u8len(c):
        return 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4

    def full(c):
        return [x for d in decomp[c] for x in full(d)] if c in decomp else [c]
    # what llm_nfc relies on: a full decomposition has at most NFD_MAX code points, and in
    # UTF-8 at most three times its bytes (llm_nfc_bound); a composite is never longer
    # than its two parts (composition runs in place)
    nfd_max = max(len(full(c)) for c in dcps)
    assert nfd_max <= 8
    assert all(sum(u8len(x) for x in full(c)) <= 3 * u8len(c) for c in dcps)
    assert all(u8len(dcps[k]) <= u8len(a) + u8len(b) for a, b, k in comp)
    min_second = min(b for _, b, _ in comp)

    nbytes = (128 + len(stage1) + 2 * len(stage2) + len(stage3) + 2 * len(rows) + 4 * len(dec_flat)
              + 2 * len(comp_idx))
    lat = class_ranges(DEEPSEEK_LATIN)
    pun = class_ranges(DEEPSEEK_PUNCT)
    cjk = class_ranges(DEEPSEEK_CJK)
    nbytes += 8 * (len(lat) + len(pun) + len(cjk))

    out = []
    out.append(BEGIN + " generated by tools/gen_unicode.py from the Unicode Character")
    out.append("   Database %s (UnicodeData.txt, PropList.txt, CompositionExclusions.txt): do not" % version)
    out.append("   edit, re-run the script. %d bytes of tables: %d property rows, %d distinct" %
               (nbytes, len(rows), len(blocks)))
    out.append("   %d-code-point blocks, %d distinct runs of blocks; %d canonical decompositions, %d" %
               (1 << shift, len(runs), len(dcps), len(comp_idx)))
    out.append("   of them composing. */")
    out.append('#define LLM__UNICODE_VERSION "%s"' % version)
    out.append("#define LLM__UCD_SHIFT %d" % shift)
    out.append("#define LLM__UCD_TOP %d" % top)
    out.append("#define LLM__UCD_N_DECOMP %d" % len(dcps))
    out.append("#define LLM__UCD_N_COMP %d" % len(comp_idx))
    out.append("#define LLM__UCD_NFD_MAX %d /* code points in the longest full decomposition */" % nfd_max)
    out.append("#define LLM__UCD_MIN_SECOND 0x%X /* below it no code point composes with the one before */" %
               min(min_second, 0x1161))
    out.append("/* property rows: general-category flags | White_Space; canonical combining class */")
    out += c_array("unsigned char", "llm__ucd_flags", [r[0] for r in rows])
    out += c_array("unsigned char", "llm__ucd_ccc", [r[1] for r in rows])
    out.append("/* the flags of U+0000..U+007F, the common case, without the three lookups */")
    out += c_array("unsigned char", "llm__ucd_ascii", [rows[cp_row[c]][0] for c in range(128)], 32)
    out.append("/* code point c: run llm__ucd_stage1[c >> TOP], block llm__ucd_stage2[run << (TOP - SHIFT) |")
    out.append("   (c >> SHIFT & mask)], row llm__ucd_stage3[block << SHIFT | (c & mask)] */")
    out += c_array("unsigned char", "llm__ucd_stage1", stage1, 32)
    out += c_array("unsigned short", "llm__ucd_stage2", stage2, 20)
    out += c_array("unsigned char", "llm__ucd_stage3", stage3, 40)
    out.append("/* canonical decompositions: code point, first, second (0 for a singleton) */")
    out += c_array("uint32_t", "llm__ucd_decomp", dec_flat, 18)
    out.append("/* the composing decompositions (indexes into llm__ucd_decomp / 3), sorted by (first, second) */")
    out += c_array("unsigned short", "llm__ucd_comp", comp_idx, 20)
    out.append("/* DeepSeek LLM's split classes (tools/gen_unicode.py has them as the regex writes them):")
    out.append("   inclusive code point ranges */")
    for name, rr in (("llm__ds_latin", lat), ("llm__ds_punct", pun), ("llm__ds_cjk", cjk)):
        out += c_array("uint32_t", name, [v for r in rr for v in r], 12)
    out.append(END)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    path = args[0] if args else "llm.h"
    ucd = args[1] if len(args) > 1 else "/usr/share/unicode"
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    b = [i for i, l in enumerate(lines) if l.startswith(BEGIN)]
    e = [i for i, l in enumerate(lines) if l == END]
    if len(b) != 1 or len(e) != 1 or e[0] < b[0]:
        sys.exit("%s: expected one '%s' line and one '%s' line after it" % (path, BEGIN, END))
    new = lines[:b[0]] + generate(ucd) + lines[e[0] + 1:]
    if check:
        sys.exit(0 if new == lines else 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(new))


if __name__ == "__main__":
    main()
