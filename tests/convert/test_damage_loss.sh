#!/bin/bash
# Damage says where it is and what it cost (ops, the head meta, the footer, or nothing), the
# same in info, dump and replay: a damaged footer loses no op (damage_loss.py).
exec python3 "$3/damage_loss.py" "$1" "$2"
