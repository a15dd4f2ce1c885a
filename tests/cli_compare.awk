# Compares llm-plan's JSON (first file) with its table (second file), figure by figure,
# to the precision the table prints. Prints one line per difference; nothing when equal.
# -v terr=FILE: the table run's stderr, whose warnings must be the JSON's "warnings".
# Used by tests/cli_check.sh.
FNR == NR { J = J $0 "\n"; next }
{ tab[++nt] = $0 }

function jval(key,    r) {   # the number after "key": in the JSON (first occurrence)
  if (!match(J, "\"" key "\": -?[0-9][0-9.e+-]*")) { differ("JSON has no " key); return "" }
  r = substr(J, RSTART, RLENGTH); sub(/^[^:]*: /, "", r); return r + 0
}
function jstr(key,    r) {
  if (!match(J, "\"" key "\": \"[^\"]*\"")) { differ("JSON has no " key); return "" }
  r = substr(J, RSTART, RLENGTH); sub(/^[^:]*: "/, "", r); sub(/"$/, "", r); return r
}
function differ(s) { print s; bad = 1 }
# Does the printed t (fixed or scientific) stand for v? Within half its last digit; 1e-5
# relative more for the JSON's %.6g rounding.
function same(t, v, what,    d, tol, m) {
  gsub(/,/, "", t)
  if (t ~ /e/) { m = substr(t, 1, index(t, "e") - 1); d = index(m, ".") ? length(m) - index(m, ".") : 0
                tol = 0.5 * 10 ^ (substr(t, index(t, "e") + 1) - d) }
  else { d = index(t, ".") ? length(t) - index(t, ".") : 0; tol = 0.5 * 10 ^ -d }
  tol += 1e-5 * (v < 0 ? -v : v) + 1e-12
  if ((t - v) > tol || (v - t) > tol) differ(what ": table " t ", JSON " v)
}
# The row of the table that starts (after two spaces) with name, then spaces
function row(name,    i) {
  for (i = 1; i <= nt; i++) if (index(tab[i], "  " name " ") == 1 && substr(tab[i], length(name) + 3) ~ /^  *[-0-9]/) return tab[i]
  differ("table has no row '" name "'"); return ""
}
function field(line, n,    a, rest) {   # n-th field after the row's name
  rest = line; split(rest, a, / +/); return a[n]
}
# "12.34 ms" / "5.6 s" after `label` in a line: the value in seconds compared with v
function duration(label, v,    i, s, a) {
  for (i = 1; i <= nt; i++) if (index(tab[i], label)) {
    s = substr(tab[i], index(tab[i], label) + length(label)); sub(/^ +/, "", s); split(s, a, / +/)
    if (a[2] == "ms") same(a[1], v * 1e3, label); else if (a[2] == "s") same(a[1], v, label); else differ(label ": no unit")
    return
  }
  differ("table has no '" label "'")
}
function commas(v,    s, o) {   # 1234567 -> "1,234,567"
  s = sprintf("%.0f", v); o = ""
  while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
  return s o
}
function line_of(pat,    i) { for (i = 1; i <= nt; i++) if (tab[i] ~ pat) return tab[i]; return "" }
function line_with(s, at_start,    i) {   # literal: the advice texts hold ( ) and .
  for (i = 1; i <= nt; i++) if (at_start ? index(tab[i], s) == 1 : index(tab[i], s) > 0) return tab[i]
  return ""
}

END {
  bad = 0
  # the plan: model, batch x seq
  if (index(tab[1], jstr("model") " on " jval("n_gpus") " x " jstr("gpu")) != 1) differ("first line: " tab[1])
  if (!index(tab[2], "batch " jval("batch") " x " jval("seq_len") " tokens")) differ("second line: " tab[2])
  # parameters, exact
  s = line_of("^parameters: "); sub(/^parameters: /, "", s); sub(/ .*/, "", s); gsub(/,/, "", s)
  if (s != sprintf("%.0f", jval("total"))) differ("parameters: table " s ", JSON " jval("total"))
  # the memory lines, GB and GiB
  rest = J; n = 0
  while (match(rest, /\{"name": "[^"]*", "bytes": [-0-9.e+]+\}/)) {
    obj = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
    name = obj; sub(/^\{"name": "/, "", name); sub(/".*/, "", name)
    bytes = obj; sub(/.*"bytes": /, "", bytes); sub(/\}/, "", bytes)
    r = row(name); if (r == "") continue
    r = substr(r, length(name) + 3); split(r, a, / +/)
    same(a[2], bytes / 1e9, name " GB"); same(a[3], bytes / 1073741824, name " GiB"); n++
  }
  if (n < 3) differ("only " n " memory lines")
  split(row("total"), a, / +/); same(a[3], jval("total_bytes") / 1e9, "total GB"); same(a[4], jval("total_bytes") / 1073741824, "total GiB")
  p = a[5]; sub(/%$/, "", p); same(p, 100 * jval("used"), "percent of capacity")
  r = row("capacity (driver)"); r = substr(r, length("capacity (driver)") + 3); split(r, a, / +/)
  same(a[2], jval("capacity_bytes") / 1e9, "capacity GB")
  split(row("headroom"), a, / +/); same(a[3], jval("headroom_bytes") / 1e9, "headroom GB")
  # verdict and threshold
  v = line_of("^verdict: ")
  if (index(v, "verdict: " jstr("verdict") " (") != 1) differ("verdict: table '" v "', JSON " jstr("verdict"))
  if (!index(v, sprintf("tight above %.0f%%", 100 * jval("tight_above")))) differ("tight threshold: " v)
  # --gguf / --hf: the file's figures, exact, and whether llm-run runs it
  if (index(J, "\"file\": {")) {
    l = line_of("^file: ")
    if (!index(l, "(" jstr("arch") "): " commas(jval("tensors")) " tensors, " commas(jval("elements")) " elements, " \
        commas(jval("tensor_bytes")) " tensor bytes")) differ("file line: " l)
    l = line_of("^      header and tensor table ")
    if (!index(l, "table " commas(jval("header_bytes")) " bytes (read " commas(jval("read_bytes")) " of the file's " \
        commas(jval("file_bytes")) " ")) differ("read line: " l)
    l = line_of("^llm-run: ")
    if (index(J, "\"runnable\": true") ? index(l, "llm-run: runs it") != 1 : index(l, "llm-run: cannot run it: " jstr("not_run")) != 1)
      differ("llm-run line: " l)
  }
  # times (none for --ram: a memory size has no bandwidth)
  if (jstr("gpu") == "ram") {
    if (index(J, "\"decode_seconds\"") || line_of("^times: not estimated") == "") differ("--ram: times given")
  } else if (jstr("mode") == "inference") {
    duration("decode step", jval("decode_seconds"))
    duration("prefill", jval("prefill_seconds"))
    d = line_of("decode step"); t = d; sub(/.*<= /, "", t); sub(/ tokens.*/, "", t)
    same(t, jval("decode_tokens_per_second"), "tokens/s")
    if (!index(d, sprintf("at %.0f GB/s", jval("gpu_bandwidth_gbs")))) differ("bandwidth: " d)
  } else {
    duration("one step", jval("step_seconds"))
    duration("its forward", jval("prefill_seconds"))
    d = line_of("one step"); t = d; sub(/ FLOP.*/, "", t); sub(/.* /, "", t)
    same(t, jval("step_flops"), "step FLOP")
  }
  # advice: the same changes, totals and verdicts, and whether they are cumulative
  rest = J; na = 0
  while (match(rest, /\{"change": "[^"]*"[^}]*\}/)) {
    obj = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH); na++
    ch = obj; sub(/^\{"change": "/, "", ch); sub(/".*/, "", ch)
    tb = obj; sub(/.*"total_bytes": /, "", tb); sub(/,.*/, "", tb)
    vd = obj; sub(/.*"verdict": "/, "", vd); sub(/".*/, "", vd)
    l = line_with("  - " ch " ", 1); if (l == "") { differ("advice '" ch "' not in the table"); continue }
    g = l; sub(/.*-> */, "", g); sub(/ GB.*/, "", g); same(g, tb / 1e9, "advice " ch)
    if (!index(l, ") " vd)) differ("advice " ch " verdict: " l)
  }
  nl = 0; for (i = 1; i <= nt; i++) if (tab[i] ~ /^  - /) nl++
  if (nl != na) differ("advice: " nl " in the table, " na " in the JSON")
  if (na) {
    c = index(J, "\"advice_cumulative\": true") ? "(cumulative)" : "(not cumulative)"
    if (line_with(c, 0) == "") differ("advice: the table does not say " c)
  }
  # warnings: the table run's stderr lines are the JSON's list
  nw = 0; rest = J; sub(/.*"warnings": \[/, "", rest); sub(/\].*/, "", rest)
  while ((getline w < terr) > 0) if (w ~ /^llm-plan: warning: /) {
    nw++; sub(/^llm-plan: warning: /, "", w)
    if (!index(rest, "\"" w "\"")) differ("warning not in the JSON: " w)
  }
  nj = 0; tmp = rest; while (match(tmp, /"[^"]*"/)) { nj++; tmp = substr(tmp, RSTART + RLENGTH) }
  if (nw != nj) differ("warnings: " nw " on stderr, " nj " in the JSON")
}
