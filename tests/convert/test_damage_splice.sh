#!/bin/bash
# A chunk spliced out whole, or repeated: info, dump, slice, replay and report say the same
# loss, the footer's total less the ops read (damage_splice.py).
exec python3 "$3/damage_splice.py" "$1" "$2"
