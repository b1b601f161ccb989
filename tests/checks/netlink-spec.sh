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
compare "stats member attributes" "$(yaml_list attribute-sets stats-member)" "$(hdr_enum hc_stats_member_attr HC_A_STATS_MEMBER_)"
compare "ingest attributes" "$(yaml_list attribute-sets ing)" "$(hdr_enum hc_ing_attr HC_A_ING_)"
compare "egress attributes" "$(yaml_list attribute-sets egress)" "$(hdr_enum hc_egress_attr HC_A_EGRESS_)"
compare "revalidation attributes" "$(yaml_list attribute-sets reval)" "$(hdr_enum hc_rev_attr HC_A_REV_)"
compare "revalidation rule attributes" "$(yaml_list attribute-sets reval-rule)" "$(hdr_enum hc_rev_rule_attr HC_A_REV_RULE_)"
compare "commands" "$(yaml_list operations '')" "$(hdr_enum hc_cmd HC_CMD_)"
compare "family name" "$(sed -n 's/^name: //p' $spec)" \
	"$(sed -n 's/^#define HC_GENL_NAME[[:space:]]*"\(.*\)"/\1/p' $hdr)"
compare "version" "$(sed -n 's/^version: //p' $spec)" \
	"$(sed -n 's/^#define HC_GENL_VERSION[[:space:]]*//p' $hdr)"
compare "multicast group" "$(awk '/^mcast-groups:/ { on = 1 } on && /name:/ { print $2 }' $spec)" \
	"$(sed -n 's/^#define HC_GENL_MCGRP_EVENTS[[:space:]]*"\(.*\)"/\1/p' $hdr)"
# Each operation's request attributes (the union of its do and dump
# requests in the spec) are exactly the attributes of the policy the kernel
# gives that operation (kmod/netlink.c's hc_nl_ops): a request cannot carry
# a reply-only attribute, and no attribute the spec promises is refused.
spec_requests() {
	awk '
		/^operations:/ { on = 1; next }
		/^[a-z-]+:/ { on = 0 }
		on && /^      name: / { op = $2 }
		on && /^        request:/ { req = 1; next }
		on && req && /^          attributes:/ {
			line = $0; sub(/.*\[/, "", line); sub(/\].*/, "", line)
			gsub(/[ ,]+/, " ", line); n = split(line, a, " ")
			for (i = 1; i <= n; i++) if (a[i] != "") print op, a[i]
			seen[op] = 1
		}
		on && !/^          attributes:/ { req = 0 }
		END { for (o in seen) print o, "-" }
	' "$spec" | sort -u
}
kernel_requests() {
	awk '
		/^static const struct nla_policy [a-z_]+\[/ {
			pol = $5; sub(/\[.*/, "", pol); inpol = 1; next
		}
		inpol && /^};/ { inpol = 0 }
		inpol && match($0, /^\t\[HC_A_[A-Z]+_[A-Z0-9_]+\]/) {
			at = substr($0, RSTART + 2, RLENGTH - 3)
			sub(/^HC_A_[A-Z]+_/, "", at); attrs[pol] = attrs[pol] " " at
		}
		/^static const struct genl_ops hc_nl_ops\[\]/ { ops = 1 }
		ops && /\.cmd[[:space:]]*=/ { cmd = $3; sub(/,$/, "", cmd) }
		ops && /\.policy[[:space:]]*=/ { p = $3; sub(/,$/, "", p); pol_of[cmd] = p }
		ops && /^};/ { ops = 0 }
		END {
			for (c in pol_of) {
				op = c; sub(/^HC_CMD_/, "", op); op = tolower(op); gsub(/_/, "-", op)
				print op, "-"
				n = split(attrs[pol_of[c]], a, " ")
				for (i = 1; i <= n; i++) {
					x = tolower(a[i]); gsub(/_/, "-", x); print op, x
				}
			}
		}
	' kmod/netlink.c | sort -u
}
kops=$(kernel_requests | awk '{ print $1 }' | sort -u)
compare "request attributes per operation (header: the kernel's policies)" \
	"$(spec_requests | grep -F -w -f <(echo "$kops") )" "$(kernel_requests)"
exit $rc
