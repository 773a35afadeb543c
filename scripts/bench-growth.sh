#!/usr/bin/env bash
# Growth along every axis of hostile input (hostile-input issue): each command timed on inputs
# that double three times along one axis, with its peak memory, and the growth of both from the
# smallest to the largest printed beside the growth of the input. Linear work shows x8 for x8;
# a quadratic path would show x64. "cpu" is the growth of user CPU time, the program's own
# work: past a gigabyte or so, wall time also carries the kernel zeroing fresh (huge) pages,
# which grows faster than the memory asked for on this VM (system time x40 for memory x8
# where user time is x7.7), and says nothing about the program's algorithms.
#
#   bash scripts/bench-growth.sh            # the issue's sizes (several GB of scratch in target/)
#   bash scripts/bench-growth.sh 0.1        # every size scaled down, for a quick look
#
# Axes: object width (to 1,000,000 keys), array length (to 10,000,000), nesting (to the depth
# cap), string length (to 200 MB), JSONL lines (to 10,000,000), files in a directory (to
# 100,000), key length (to 10 MB). Needs GNU time (apt-get install time).
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-1}
cargo build --release --quiet
bin=$PWD/target/release/mcpguard
dir=target/bench/growth
mkdir -p "$dir"
export MCPGUARD_CURSOR_SECRET=bench-growth-secret

make() { # axis n file: writes the input of size n along the axis
  python3 - "$@" <<'PY'
import json, os, sys
axis, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if axis == "files":
    os.makedirs(path, exist_ok=True)
    for i in range(n):
        with open(os.path.join(path, f"r{i:07d}.json"), "w") as f:
            f.write('{"summary":"ok","success":true,"items":[{"id":"a","label":"x"}]}')
    sys.exit()
with open(path, "w") as f:
    if axis == "width":
        f.write("{" + ",".join(f'"user-{i}":{{"name":"u{i}","n":{i}}}' for i in range(n)) + "}")
    elif axis == "length":
        f.write('{"items":[' + ",".join(str(i % 1000) for i in range(n)) + "]}")
    elif axis == "depth":
        f.write('{"a":' * n + '"leaf"' + "}" * n)
    elif axis == "string":
        f.write('{"text":"')
        chunk = "lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 1000
        left = n
        while left > 0:
            f.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        f.write('"}')
    elif axis == "lines":
        line = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}\n'
        for _ in range(n // 10000):
            f.write(line * 10000)
        f.write(line * (n % 10000))
    elif axis == "key":
        f.write('{"' + "k" * n + '":1,"items":[1,2,3]}')
PY
}

measure() { # command args...: prints "wall_seconds user_seconds peak_kb"
  /usr/bin/time -o "$dir/time.txt" -f '%e %U %M' "$@" > /dev/null 2>&1 || true
  tail -1 "$dir/time.txt"
}

axis() { # name, base size, commands (comma-separated)
  local name=$1 base=$2 commands=$3
  local sizes=()
  for k in 1 2 4 8; do sizes+=("$(python3 -c "print(max(1, int($base * $k * $scale)))")"); done
  [ "$name" = depth ] && sizes=(16 32 64 127)
  for n in "${sizes[@]}"; do
    local f=$dir/$name-$n.json
    case $name in lines) f=$dir/$name-$n.jsonl ;; files) f=$dir/$name-$n ;; esac
    [ -e "$f" ] || make "$name" "$n" "$f"
  done
  IFS=, read -ra cmds <<< "$commands"
  for cmd in "${cmds[@]}"; do
    local first_t="" first_m="" line
    line=$(printf '%-8s %-10s' "$name" "$cmd")
    for n in "${sizes[@]}"; do
      local f=$dir/$name-$n.json
      case $name in lines) f=$dir/$name-$n.jsonl ;; files) f=$dir/$name-$n ;; esac
      local args
      case $cmd in
        estimate) args=(estimate "$f" --tokenizer claude-fast) ;;
        audit) args=(audit "$f" --fail-on never --tokenizer claude-fast) ;;
        summarize) args=(summarize "$f" --no-artifact --tokenizer claude-fast) ;;
        paginate) args=(paginate "$f" --limit 50) ;;
        chunk) args=(chunk "$f" --max-tokens 2000) ;;
      esac
      read -r t u m <<< "$(measure "$bin" "${args[@]}")"
      [ -z "$first_t" ] && first_t=$t && first_u=$u && first_m=$m
      line+=$(printf ' %7s s %7s MB' "$t" "$((m / 1024))")
      last_t=$t; last_u=$u; last_m=$m
    done
    local tg ug mg
    tg=$(python3 -c "print(f'{max($last_t, 0.01) / max($first_t, 0.01):.1f}')")
    ug=$(python3 -c "print(f'{max($last_u, 0.01) / max($first_u, 0.01):.1f}')")
    mg=$(python3 -c "print(f'{$last_m / max($first_m, 1):.1f}')")
    echo "$line   time x$tg (cpu x$ug)  memory x$mg  (input x${sizes[3]}/${sizes[0]})"
  done
}

echo "axis     command    four sizes, each doubling: wall time and peak memory"
axis width 125000 estimate,audit,summarize,paginate
axis length 1250000 estimate,audit,summarize,paginate
axis depth 16 estimate,audit,summarize
axis string 25000000 estimate,audit,summarize,chunk
# Lines of a JSONL transcript, each a response: chunk streams them; estimate and audit keep a
# row per response (a few hundred bytes: linear memory, measured here).
axis lines 1250000 chunk,estimate,audit
axis files 12500 audit
axis key 1250000 estimate,audit,summarize
