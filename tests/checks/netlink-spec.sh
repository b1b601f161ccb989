#!/bin/bash
# Documentation/netlink/specs/hypercache.yaml and uapi/hypercache_netlink.h
# describe the same family: the same attributes and commands, in the same
# order (the order gives the numbers), and the same family name, version
# and multicast group.
set -euo pipefail
cd "$(dirname "$0")/../.."
spec=Documentation/netlink/specs/hypercache.yaml
hdr=uapi/hypercache_netlink.h

# yaml_list SECTION SET: entry names of one attribute set ("operations" for
# the commands), in order.  Relies on the spec's two-space indentation.
yaml_list() {
	awk -v sec="$1" -v set="$2" '
		/^[a-z-]+:/ { cur = $1; sub(":", "", cur); inset = 0 }
		cur == sec && /^    name: / { inset = ($2 == set) }
		cur == sec && sec == "operations" && /^      name: / { print $2 }
		cur == sec && inset && /^        name: / { print $2 }
	' "$spec"
}

# hdr_enum ENUM PREFIX: entries of a C enum, prefix stripped, as spec names
hdr_enum() {
	awk -v e="enum $1 {" '$0 ~ e { on = 1; next } on && /^};/ { on = 0 } on' "$hdr" |
		grep -o "^[[:space:]]*$2[A-Z0-9_]*" | sed "s/^[[:space:]]*$2//" |
		grep -v -e '^_' -e '^MAX$' | tr 'A-Z_' 'a-z-'
}

rc=0
compare() {
	if diff <(echo "$2") <(echo "$3") >/dev/null; then
		echo "ok: $1 ($(echo "$2" | wc -l) entries)"
	else
		echo "MISMATCH: $1 (spec < > header)"
		diff <(echo "$2") <(echo "$3") || true
		rc=1
	fi
}

compare "pool attributes" "$(yaml_list attribute-sets pool)" "$(hdr_enum hc_pool_attr HC_A_POOL_)"
compare "member attributes" "$(yaml_list attribute-sets member)" "$(hdr_enum hc_member_attr HC_A_MEMBER_)"
compare "object attributes" "$(yaml_list attribute-sets obj)" "$(hdr_enum hc_obj_attr HC_A_OBJ_)"
compare "extent attributes" "$(yaml_list attribute-sets ext)" "$(hdr_enum hc_ext_attr HC_A_EXT_)"
compare "stats attributes" "$(yaml_list attribute-sets stats)" "$(hdr_enum hc_stats_attr HC_A_STATS_)"
compare "ingest attributes" "$(yaml_list attribute-sets ing)" "$(hdr_enum hc_ing_attr HC_A_ING_)"
compare "egress attributes" "$(yaml_list attribute-sets egress)" "$(hdr_enum hc_egress_attr HC_A_EGRESS_)"
compare "commands" "$(yaml_list operations '')" "$(hdr_enum hc_cmd HC_CMD_)"
compare "family name" "$(sed -n 's/^name: //p' $spec)" \
	"$(sed -n 's/^#define HC_GENL_NAME[[:space:]]*"\(.*\)"/\1/p' $hdr)"
compare "version" "$(sed -n 's/^version: //p' $spec)" \
	"$(sed -n 's/^#define HC_GENL_VERSION[[:space:]]*//p' $hdr)"
compare "multicast group" "$(awk '/^mcast-groups:/ { on = 1 } on && /name:/ { print $2 }' $spec)" \
	"$(sed -n 's/^#define HC_GENL_MCGRP_EVENTS[[:space:]]*"\(.*\)"/\1/p' $hdr)"
exit $rc
