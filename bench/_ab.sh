#!/bin/bash
# usage: _ab.sh script oldpath newpath rounds
o=(); n=()
for i in $(seq 1 ${4:-6}); do o+=($(node $1 $2)); n+=($(node $1 $3)); done
echo "old: ${o[*]}"; echo "new: ${n[*]}"
