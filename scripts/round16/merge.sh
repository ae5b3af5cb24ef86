#!/bin/sh
# merge.sh DEST SRC...: one bench-like folder whose traces/styblinski_tang/<label> link to each SRC's
# (and rastrigin, goucb_f1), for paired.py and windows.py (sixteenth round).
dest=$1; shift
for src in "$@"; do
  for prob in "$src"/traces/*; do
    p=$(basename "$prob"); mkdir -p "$dest/traces/$p"
    for lab in "$prob"/*; do ln -sfn "$(realpath "$lab")" "$dest/traces/$p/$(basename "$lab")"; done
  done
done
